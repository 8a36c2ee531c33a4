#pragma once
// Element types and operators the MPI conformance driver checks: logical elements of 1, 2 or
// 4 components laid out by an MPI datatype (predefined, or derived with gaps and a non-zero
// true lower bound), with a reference reduction in rank order.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace topocoll::mpitest {

using Value = std::array<long long, 4>;

struct TypeCase {
  std::string name;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int width = 1;                  // components per element
  bool is_double = false;         // components are doubles, else ints
  std::vector<MPI_Aint> offsets;  // byte offset of each component inside an element
  MPI_Aint extent = 0;
  bool first_double = false;  // only the first component is a double (MPI_DOUBLE_INT)

  [[nodiscard]] std::size_t component_bytes(int k) const {
    return is_double || (first_double && k == 0) ? sizeof(double) : sizeof(int);
  }
  void write(char* buffer, std::uint64_t index, const Value& v) const;
  [[nodiscard]] Value read(const char* buffer, std::uint64_t index) const;
  // Whether a byte of an element belongs to no component (a gap the runtime must not write).
  [[nodiscard]] bool is_gap(MPI_Aint byte_in_element) const;
};

enum class TestOp { sum, max, prod, struct_sum, matmul, maxloc };

struct OpCase {
  std::string name;
  TestOp kind = TestOp::sum;
  MPI_Op op = MPI_OP_NULL;
  bool commutative = true;
  std::vector<std::string> types;  // the TypeCase names it applies to
};

// Value of element `index` of rank `rank`'s data (depends on both), suited to the operator
// (small for products, matrices mod 1009 for the matrix product).
[[nodiscard]] Value test_value(TestOp op, int rank, std::uint64_t index, int width);
// a ∘ b in the operator's order (a from the lower rank).
[[nodiscard]] Value combine(TestOp op, const Value& a, const Value& b, int width);

std::vector<TypeCase> make_types();
std::vector<OpCase> make_ops();  // creates the user-defined matrix product
void free_types(std::vector<TypeCase>& types);

}  // namespace topocoll::mpitest
