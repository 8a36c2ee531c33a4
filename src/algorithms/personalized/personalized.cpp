// Registry entries of the personalized collectives: gather and scatter on binomial and Bine
// trees, alltoall as linear exchange, Bruck and Bine butterfly.
#include "algorithms/families.hpp"
#include "algorithms/personalized/alltoall_schedules.hpp"
#include "algorithms/personalized/gather_scatter.hpp"

namespace topocoll::algorithms {
namespace {

SchedulePtr build_tree_transfer(GatherTree tree, const ScheduleRequest& request) {
  if (request.collective == Collective::scatter)
    return make_scatter(tree, request.ranks, request.root);
  return make_gather(tree, request.ranks, request.root);
}

AlgorithmInfo personal_entry(const char* family, const Description& text,
                             std::vector<Collective> collectives) {
  AlgorithmInfo info = described(family, text);
  info.collectives = std::move(collectives);
  return info;
}

}  // namespace

void register_personalized(Registry& registry) {
  AlgorithmInfo binomial =
      personal_entry("binomial",
                     {"binomial", "distance-halving binomial tree",
                      "bine-trees-sc25.txt sections 4.1-4.2 (binomial gather of Fig. 7)",
                      "gather/scatter on MPICH's binomial tree, ceil(log2 P) steps, any P and "
                      "root"},
                     {Collective::gather, Collective::scatter});
  binomial.baseline = true;
  binomial.build = [](const ScheduleRequest& r) {
    return build_tree_transfer(GatherTree::binomial, r);
  };
  registry.add(std::move(binomial));

  AlgorithmInfo bine = personal_entry(
      "bine",
      {"bine", "distance-halving Bine tree (gather, scatter); Bine butterfly (alltoall)",
       "bine-trees-sc25.txt sections 2.3, 4.1, 4.2, 4.4, Appendix C",
       "gather/scatter on Bine trees (circular ranges, <= 2 segments); alltoall on the Bine "
       "butterfly with contiguous sends; any P and root"},
      {Collective::gather, Collective::scatter, Collective::alltoall});
  bine.build = [](const ScheduleRequest& r) {
    if (r.collective == Collective::alltoall) return make_bine_alltoall(r.ranks);
    return build_tree_transfer(GatherTree::bine, r);
  };
  registry.add(std::move(bine));

  AlgorithmInfo pairwise =
      personal_entry("linear",
                     {"pairwise", "linear exchange",
                      "bine-trees-sc25.txt section 5.1.2 (linear alltoall baseline)",
                      "alltoall in P-1 steps: rank r sends to r+k and receives from r-k"},
                     {Collective::alltoall});
  pairwise.baseline = true;
  pairwise.build = [](const ScheduleRequest& r) { return make_pairwise_alltoall(r.ranks); };
  registry.add(std::move(pairwise));

  AlgorithmInfo bruck = personal_entry(
      "bruck",
      {"bruck", "log-step alltoall with local rotations",
       "bine-trees-sc25.txt section 4.4 and 5.1.1 (Bruck's alltoall baseline)",
       "alltoall in ceil(log2 P) exchanges at distance 2^k plus two local rotations, any P"},
      {Collective::alltoall});
  bruck.baseline = true;
  bruck.build = [](const ScheduleRequest& r) { return make_bruck_alltoall(r.ranks); };
  registry.add(std::move(bruck));
}

}  // namespace topocoll::algorithms
