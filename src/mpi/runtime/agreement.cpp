#include "agreement.hpp"

#include <cstdint>
#include <string>

#include "call_report.hpp"
#include "config.hpp"
#include "core/fnv1a.hpp"
#include "schedule_file.hpp"

namespace topocoll::mpi {

int check_agreement(const Call& call, const Choice& choice, CommState& state, int size) {
  std::string chosen = choice.error ? "error" : choice.algorithm;
  for (int d : choice.request.dims) {
    chosen += 'x';
    chosen += std::to_string(d);
  }
  // A file's path may name different contents on different nodes.
  if (names_file(choice.algorithm))
    chosen += '#' + std::to_string(file_content_hash(choice.algorithm));
  // Messages cut at different sizes match piece by piece wrongly (truncation or a hang).
  const std::uint64_t piece =
      choice.algorithm.empty() ? 0
                               : message_piece_bytes(choice.max_message_bytes, choice.segment_bytes,
                                                     call.op != MPI_OP_NULL);
  constexpr int n = 5;
  const std::uint64_t values[n] = {call.agreed ? call.agreed : call.bytes,
                                   static_cast<std::uint64_t>(call.root + 1), fnv1a(chosen),
                                   call.op == MPI_OP_NULL       ? 2u
                                   : choice.request.commutative ? 1u
                                                                : 0u,
                                   piece};
  std::uint64_t extremes[2 * n];  // the maximum of each value, then of its complement: ~min
  for (int i = 0; i < n; ++i) {
    extremes[i] = values[i];
    extremes[n + i] = ~values[i];
  }
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, extremes, 2 * n, MPI_UINT64_T, MPI_MAX, state.comm());
  if (rc != MPI_SUCCESS) return rc;
  const char* what[n] = {
      "the size of the call (count x datatype size)", "the root",
      "the algorithm (TOPOCOLL_* settings or the size)", "the operator's commutativity",
      "the largest message (TOPOCOLL_MAX_MESSAGE_BYTES, TOPOCOLL_SEGMENT_BYTES)"};
  const int codes[n] = {MPI_ERR_TRUNCATE, MPI_ERR_ROOT, MPI_ERR_ARG, MPI_ERR_OP, MPI_ERR_ARG};
  for (int i = 0; i < n; ++i) {
    const std::uint64_t low = ~extremes[n + i], high = extremes[i];
    if (low == high) continue;
    std::string detail = what[i];
    if (i == 0 && call.agreed) detail = "MPI_Reduce_scatter's recvcounts or datatype size";
    if ((i == 0 && !call.agreed) || i == 4)
      detail += " (from " + std::to_string(low) + " to " + std::to_string(high) + " bytes)";
    if (i == 1)
      detail += " (from " + std::to_string(low - 1) + " to " + std::to_string(high - 1) + ")";
    if (state.rank() == 0)
      report_error(call, size, "ranks disagree on " + detail + " (TOPOCOLL_CHECK=1)");
    return raise_on(call.comm, codes[i]);
  }
  return MPI_SUCCESS;
}

}  // namespace topocoll::mpi
