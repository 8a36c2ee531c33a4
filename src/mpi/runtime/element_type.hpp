#pragma once
// How the runtime sees one element of a user buffer: the MPI datatype with its size, extent
// and true bounds (a derived type may have gaps, a lower bound, or a true lower bound other
// than 0). Element i of a buffer `base` starts at base + i * extent; its data lies in
// [base + i * extent + true_lb, ... + true_extent).
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace topocoll::mpi {

struct ElementType {
  MPI_Datatype type = MPI_BYTE;
  std::uint64_t size = 1;  // bytes of data per element (the type signature)
  MPI_Aint extent = 1;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 1;
  // The data of n elements is the n * size bytes from base + true_lb, without gaps.
  bool contiguous = true;

  [[nodiscard]] static ElementType of(MPI_Datatype type);
  // The ElementType of a named (predefined) datatype, nullptr for any other (derived types,
  // MPI_DATATYPE_NULL). Remembered per thread: named types live as long as MPI, so their
  // handles never come back as another type (a loop of calls asks MPI nothing).
  [[nodiscard]] static const ElementType* named(MPI_Datatype type);
  [[nodiscard]] static ElementType bytes() { return {}; }
  [[nodiscard]] char* at(char* base, std::uint64_t index) const {
    return base + static_cast<MPI_Aint>(index) * extent;
  }
  // Bytes a buffer of n elements spans (from its base pointer's true lower bound).
  [[nodiscard]] std::uint64_t span(std::uint64_t n) const;
};

// Owns memory for n elements of an ElementType; base() is element 0 (its data starts at
// base() + true_lb, which is inside the allocation).
class ElementBuffer {
 public:
  void reserve(const ElementType& type, std::uint64_t elements);
  [[nodiscard]] char* base() const { return base_; }

 private:
  std::vector<char> memory_;
  char* base_ = nullptr;
};

// Copies n elements of `type` (type-aware: gaps of the destination are left alone; the two
// ranges may overlap).
void copy_elements(char* dst, const char* src, std::uint64_t n, const ElementType& type);
// Packs n elements into n * size contiguous bytes, and back.
void pack_elements(char* packed, const char* src, std::uint64_t n, const ElementType& type);
void unpack_elements(char* dst, const char* packed, std::uint64_t n, const ElementType& type);
// MPI_Reduce_local over n elements (inout = in ∘ inout), in pieces below INT_MAX.
int reduce_elements(const char* in, char* inout, std::uint64_t n, const ElementType& type,
                    MPI_Op op);

// Largest element count per MPI call, so that no call exceeds INT_MAX elements nor
// `max_bytes` (at least one element).
[[nodiscard]] std::uint64_t max_elements_per_call(const ElementType& type,
                                                  std::uint64_t max_bytes = std::uint64_t{1} << 30);

}  // namespace topocoll::mpi
