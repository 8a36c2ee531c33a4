#include "element_type.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace topocoll::mpi {

namespace {

ElementType queried(MPI_Datatype type) {
  ElementType t;
  t.type = type;
  MPI_Count size = 0, lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_size_x(type, &size);
  PMPI_Type_get_extent_x(type, &lb, &extent);
  PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent);
  t.size = static_cast<std::uint64_t>(size);
  t.extent = static_cast<MPI_Aint>(extent);
  t.true_lb = static_cast<MPI_Aint>(true_lb);
  t.true_extent = static_cast<MPI_Aint>(true_extent);
  // No gaps inside an element and none between consecutive ones.
  t.contiguous = size == extent && size == true_extent;
  return t;
}

}  // namespace

const ElementType* ElementType::named(MPI_Datatype type) {
  struct Remembered {
    MPI_Datatype handle;
    ElementType type;
  };
  constexpr std::size_t kept = 8;  // a program uses a few predefined types
  struct Memory {
    std::array<Remembered, kept> remembered{};
    std::size_t used = 0, next = 0;
  };
  thread_local Memory memory;  // one thread-local access per call
  Memory& m = memory;
  if (type == MPI_DATATYPE_NULL) return nullptr;
  for (std::size_t i = 0; i < m.used; ++i)
    if (m.remembered[i].handle == type) return &m.remembered[i].type;
  int integers = 0, addresses = 0, types = 0, combiner = MPI_UNDEFINED;
  if (PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS ||
      combiner != MPI_COMBINER_NAMED)
    return nullptr;
  Remembered& slot = m.remembered[m.next];
  m.next = (m.next + 1) % kept;
  m.used = std::max(m.used, m.next == 0 ? kept : m.next);
  slot = {type, queried(type)};
  return &slot.type;
}

ElementType ElementType::of(MPI_Datatype type) {
  if (const ElementType* t = named(type)) return *t;
  return queried(type);
}

std::uint64_t ElementType::span(std::uint64_t n) const {
  if (n == 0) return 0;
  const auto step = static_cast<std::uint64_t>(std::max<MPI_Aint>(extent, 0));
  return (n - 1) * step + static_cast<std::uint64_t>(std::max<MPI_Aint>(true_extent, 0));
}

void ElementBuffer::reserve(const ElementType& type, std::uint64_t elements) {
  const std::uint64_t bytes = type.span(elements) + 64;
  if (memory_.size() < bytes) memory_.resize(bytes);
  base_ = memory_.data() - type.true_lb;
}

std::uint64_t max_elements_per_call(const ElementType& type, std::uint64_t max_bytes) {
  const std::uint64_t by_bytes = max_bytes / std::max<std::uint64_t>(type.size, 1);
  return std::max<std::uint64_t>(1, std::min<std::uint64_t>(by_bytes, INT_MAX));
}

void pack_elements(char* packed, const char* src, std::uint64_t n, const ElementType& type) {
  if (type.contiguous) {
    std::memmove(packed, src + type.true_lb, n * type.size);
    return;
  }
  const std::uint64_t piece = max_elements_per_call(type);
  for (std::uint64_t done = 0; done < n; done += piece) {
    const int count = static_cast<int>(std::min(piece, n - done));
    int position = 0;
    PMPI_Pack(type.at(const_cast<char*>(src), done), count, type.type, packed + done * type.size,
              static_cast<int>(static_cast<std::uint64_t>(count) * type.size), &position,
              MPI_COMM_SELF);
  }
}

void unpack_elements(char* dst, const char* packed, std::uint64_t n, const ElementType& type) {
  if (type.contiguous) {
    std::memmove(dst + type.true_lb, packed, n * type.size);
    return;
  }
  const std::uint64_t piece = max_elements_per_call(type);
  for (std::uint64_t done = 0; done < n; done += piece) {
    const int count = static_cast<int>(std::min(piece, n - done));
    int position = 0;
    PMPI_Unpack(packed + done * type.size,
                static_cast<int>(static_cast<std::uint64_t>(count) * type.size), &position,
                type.at(dst, done), count, type.type, MPI_COMM_SELF);
  }
}

void copy_elements(char* dst, const char* src, std::uint64_t n, const ElementType& type) {
  if (n == 0 || dst == src) return;
  if (type.contiguous) {
    std::memmove(dst + type.true_lb, src + type.true_lb, n * type.size);
    return;
  }
  std::vector<char> packed(n * type.size);
  pack_elements(packed.data(), src, n, type);
  unpack_elements(dst, packed.data(), n, type);
}

int reduce_elements(const char* in, char* inout, std::uint64_t n, const ElementType& type,
                    MPI_Op op) {
  const std::uint64_t piece = std::max<std::uint64_t>(1, INT_MAX / 2);
  for (std::uint64_t done = 0; done < n; done += piece) {
    const int count = static_cast<int>(std::min(piece, n - done));
    const int rc = PMPI_Reduce_local(type.at(const_cast<char*>(in), done), type.at(inout, done),
                                     count, type.type, op);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace topocoll::mpi
