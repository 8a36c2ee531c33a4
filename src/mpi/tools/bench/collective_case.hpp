#pragma once
// One collective at one message size on this rank: its buffers, the call (topocoll's C API or
// the MPI library's own), and the validation of every call against data that depends on rank
// and element.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "pattern.hpp"
#include "runtime/mpi_collective.hpp"

namespace topocoll::bench {

using Call = mpi::MpiCollective;

struct CollectiveSpec {
  std::string name;  // as -C takes it (MPI's name, lower case)
  Call call;
  Collective core;  // the registry's collective that serves it
  bool reduction;
  bool rooted;
  bool chunked;            // the vector is P blocks of `count / P` elements
  std::string tuned_name;  // Open MPI's coll_tuned_<tuned_name>_algorithm
  // nccl-tests' bus bandwidth factor over algbw.
  [[nodiscard]] double busbw_factor(int ranks) const;
};

// Accepts '-' or '_' between words; nullptr for an unknown name.
[[nodiscard]] const CollectiveSpec* find_collective(std::string name);
[[nodiscard]] std::string collective_names();

class CollectiveCase {
 public:
  // `bytes` is rounded down to whole elements (and whole blocks of P for chunked collectives).
  CollectiveCase(const CollectiveSpec& spec, const Pattern& pattern, int rank, int ranks, int root,
                 std::uint64_t bytes);

  [[nodiscard]] std::uint64_t bytes() const { return count_ * pattern_.type().size; }
  [[nodiscard]] std::uint64_t count() const { return count_; }

  // Restores the inputs and poisons the outputs before a call.
  void prepare();
  // Runs the collective once. algorithm == nullptr: the MPI library's collective (PMPI is not
  // bypassed: a preloaded topocoll_pmpi would serve it). Returns the MPI error code.
  int run(MPI_Comm comm, const char* algorithm, MPI_Op op);
  // Wrong elements of this rank's outputs, plus elements of inputs the call modified.
  [[nodiscard]] std::uint64_t wrong() const;

 private:
  void build_uneven_counts();

  const CollectiveSpec& spec_;
  const Pattern& pattern_;
  int rank_, ranks_, root_;
  std::uint64_t count_ = 0;        // elements of the whole vector (the `count` column)
  std::uint64_t block_ = 0;        // elements per block of chunked collectives
  std::vector<int> recv_counts_;   // reduce_scatter: uneven counts, early ranks one more
  std::uint64_t recv_offset_ = 0;  // reduce_scatter: this rank's first element
  std::vector<unsigned char> send_, recv_, send_pristine_, expected_, poison_;
  bool check_output_ = true;  // false on non-roots of reduce
};

}  // namespace topocoll::bench
