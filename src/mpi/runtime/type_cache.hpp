#pragma once
// What a plan's messages that span several ranges need, kept between calls: committed
// hindexed datatypes (the n-th such message of a plan reuses its datatype while its addresses,
// the user's buffers and the workspace, and element type are those of the previous call), or
// contiguous staging buffers for packing (PackMode::copy).
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace topocoll::mpi {

class TypeCache {
 public:
  TypeCache() = default;
  ~TypeCache();
  TypeCache(TypeCache&& other) noexcept
      : entries_(std::move(other.entries_)),
        transient_(std::move(other.transient_)),
        staging_(std::move(other.staging_)) {}
  TypeCache& operator=(TypeCache&&) = delete;
  TypeCache(const TypeCache&) = delete;
  TypeCache& operator=(const TypeCache&) = delete;

  // The datatype of message `index` (absolute addresses, for MPI_BOTTOM). Only predefined
  // element types are cached (a freed derived type's handle may come back with another
  // layout); for the others the datatype lives until release_transient().
  MPI_Datatype get(std::size_t index, const std::vector<int>& lengths,
                   const std::vector<MPI_Aint>& addresses, MPI_Datatype element);
  // A staging buffer of at least `bytes` for packed message `index`; its address stays valid
  // while other indices are asked for (a step's messages are all in flight together).
  char* staging(std::size_t index, std::size_t bytes);
  // Frees the uncached datatypes (once their messages completed).
  void release_transient();
  // Frees every datatype (while MPI is still initialized).
  void clear();

 private:
  struct Entry {
    std::vector<int> lengths;
    std::vector<MPI_Aint> addresses;
    MPI_Datatype element = MPI_DATATYPE_NULL;
    MPI_Datatype type = MPI_DATATYPE_NULL;
  };
  std::vector<Entry> entries_;
  std::vector<MPI_Datatype> transient_;
  std::vector<std::vector<char>> staging_;  // moving the outer vector keeps inner addresses
};

}  // namespace topocoll::mpi
