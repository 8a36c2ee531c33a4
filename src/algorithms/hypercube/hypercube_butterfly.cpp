#include "algorithms/hypercube/hypercube_butterfly.hpp"

#include "algorithms/hypercube/hypercube_common.hpp"

namespace topocoll::algorithms::hypercube {

void ReduceAndSpread::build_step(int node, int step, Step& out) const {
  for (int i = 0; i < d_; ++i) {
    BlockSet part = slice(info().blocks, d_, i);
    if (part.empty()) continue;
    const int dim = (step + i) % d_;
    const int peer = across(node, dim);
    out.ops.push_back(Operation::send(peer, part, dim));
    out.ops.push_back(Operation::recv(peer, std::move(part), Combine::reduce, dim));
  }
}

void RotatedSpread::build_step(int node, int step, Step& out) const {
  for (int i = 0; i < d_; ++i) {
    // Part i has spread over the subcube spanned by dimensions i .. i + step - 1.
    const unsigned spanned = rotated_dims(i, step, d_);
    const int dim = (step + i) % d_;
    const int peer = across(node, dim);
    BlockSet mine, theirs;
    for_each_in_subcube(static_cast<unsigned>(node), spanned,
                        [&](unsigned n) { mine.add(n * d_ + i); });
    for_each_in_subcube(static_cast<unsigned>(peer), spanned,
                        [&](unsigned n) { theirs.add(n * d_ + i); });
    out.ops.push_back(Operation::send(peer, std::move(mine), dim));
    out.ops.push_back(Operation::recv(peer, std::move(theirs), Combine::copy, dim));
  }
}

}  // namespace topocoll::algorithms::hypercube
