#include "test_types.hpp"

#include <algorithm>

namespace topocoll::mpitest {
namespace {

constexpr long long matrix_modulus = 1009;

// 2x2 matrices (row-major) mod 1009: a non-commutative operator.
Value matrix_product(const Value& a, const Value& b) {
  return {
      (a[0] * b[0] + a[1] * b[2]) % matrix_modulus, (a[0] * b[1] + a[1] * b[3]) % matrix_modulus,
      (a[2] * b[0] + a[3] * b[2]) % matrix_modulus, (a[2] * b[1] + a[3] * b[3]) % matrix_modulus};
}

// MPI user function: inout = in ∘ inout, element-wise over 2x2 int matrices.
void matmul_op(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int e = 0; e < *len; ++e, a += 4, b += 4) {
    const Value r = matrix_product({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]});
    for (int k = 0; k < 4; ++k) b[k] = static_cast<int>(r[k]);
  }
}

// MPI user function over the gapped struct type (ints at bytes 4 and 12 of 16): a
// commutative sum, since predefined operators are not defined on such types.
void struct_sum_op(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<char*>(in);
  auto* b = static_cast<char*>(inout);
  for (int e = 0; e < *len; ++e, a += 16, b += 16) {
    for (int offset : {4, 12}) {
      int x = 0, y = 0;
      std::memcpy(&x, a + offset, sizeof x);
      std::memcpy(&y, b + offset, sizeof y);
      y += x;
      std::memcpy(b + offset, &y, sizeof y);
    }
  }
}

}  // namespace

void TypeCase::write(char* buffer, std::uint64_t index, const Value& v) const {
  char* element = buffer + static_cast<MPI_Aint>(index) * extent;
  for (int k = 0; k < width; ++k) {
    if (component_bytes(k) == sizeof(double)) {
      const double d = static_cast<double>(v[static_cast<std::size_t>(k)]);
      std::memcpy(element + offsets[static_cast<std::size_t>(k)], &d, sizeof d);
    } else {
      const int i = static_cast<int>(v[static_cast<std::size_t>(k)]);
      std::memcpy(element + offsets[static_cast<std::size_t>(k)], &i, sizeof i);
    }
  }
}

Value TypeCase::read(const char* buffer, std::uint64_t index) const {
  const char* element = buffer + static_cast<MPI_Aint>(index) * extent;
  Value v{};
  for (int k = 0; k < width; ++k) {
    if (component_bytes(k) == sizeof(double)) {
      double d = 0;
      std::memcpy(&d, element + offsets[static_cast<std::size_t>(k)], sizeof d);
      v[static_cast<std::size_t>(k)] = static_cast<long long>(d);
    } else {
      int i = 0;
      std::memcpy(&i, element + offsets[static_cast<std::size_t>(k)], sizeof i);
      v[static_cast<std::size_t>(k)] = i;
    }
  }
  return v;
}

bool TypeCase::is_gap(MPI_Aint byte) const {
  for (int k = 0; k < width; ++k) {
    const MPI_Aint o = offsets[static_cast<std::size_t>(k)];
    if (byte >= o && byte < o + static_cast<MPI_Aint>(component_bytes(k))) return false;
  }
  return true;
}

Value test_value(TestOp op, int rank, std::uint64_t index, int width) {
  Value v{};
  for (int k = 0; k < width; ++k) {
    const auto i = static_cast<long long>(index % 100003);
    switch (op) {
      case TestOp::sum:
      case TestOp::struct_sum:
      case TestOp::max:
        v[static_cast<std::size_t>(k)] = (rank * 131 + i * 7 + k * 3) % 1000 - 300;
        break;
      case TestOp::maxloc:  // few distinct values (ties pick the lower index), index = rank
        v[static_cast<std::size_t>(k)] = k == 0 ? (rank * 37 + i * 11) % 5 : rank;
        break;
      case TestOp::prod: v[static_cast<std::size_t>(k)] = (rank + i + k) % 3 + 1; break;
      case TestOp::matmul:
        v[static_cast<std::size_t>(k)] = (rank * 31 + i * 17 + k * 5 + 1) % matrix_modulus;
        break;
    }
  }
  return v;
}

Value combine(TestOp op, const Value& a, const Value& b, int width) {
  if (op == TestOp::matmul) return matrix_product(a, b);
  if (op == TestOp::maxloc) {
    if (a[0] != b[0]) return a[0] > b[0] ? a : b;
    return a[1] <= b[1] ? a : b;
  }
  Value r{};
  for (int k = 0; k < width; ++k) {
    const auto i = static_cast<std::size_t>(k);
    r[i] = op == TestOp::sum || op == TestOp::struct_sum ? a[i] + b[i]
           : op == TestOp::max                           ? std::max(a[i], b[i])
                                                         : a[i] * b[i];
  }
  return r;
}

std::vector<TypeCase> make_types() {
  std::vector<TypeCase> types;
  types.push_back({"MPI_INT", MPI_INT, 1, false, {0}, sizeof(int)});
  types.push_back({"MPI_DOUBLE", MPI_DOUBLE, 1, true, {0}, sizeof(double)});
  {
    // A predefined pair type whose size (12) differs from its extent (16 on x86-64).
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent);
    types.push_back({"MPI_DOUBLE_INT", MPI_DOUBLE_INT, 2, false, {0, sizeof(double)}, extent});
    types.back().first_double = true;
  }
  // Two ints at bytes 4 and 12 of a 16-byte element: size 8, extent 16, true_lb 4, with gaps.
  {
    const int lengths[2] = {1, 1};
    const MPI_Aint displacements[2] = {4, 12};
    const MPI_Datatype members[2] = {MPI_INT, MPI_INT};
    MPI_Datatype raw = MPI_DATATYPE_NULL, sized = MPI_DATATYPE_NULL;
    MPI_Type_create_struct(2, lengths, displacements, members, &raw);
    MPI_Type_create_resized(raw, 0, 16, &sized);
    MPI_Type_free(&raw);
    MPI_Type_commit(&sized);
    types.push_back({"struct{gap,int,gap,int}", sized, 2, false, {4, 12}, 16});
  }
  {
    MPI_Datatype matrix = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(4, MPI_INT, &matrix);
    MPI_Type_commit(&matrix);
    types.push_back({"int2x2", matrix, 4, false, {0, 4, 8, 12}, 16});
  }
  return types;
}

std::vector<OpCase> make_ops() {
  MPI_Op matmul = MPI_OP_NULL, struct_sum = MPI_OP_NULL;
  MPI_Op_create(matmul_op, 0, &matmul);
  MPI_Op_create(struct_sum_op, 1, &struct_sum);
  return {
      {"MPI_SUM", TestOp::sum, MPI_SUM, true, {"MPI_INT", "MPI_DOUBLE"}},
      {"MPI_MAX", TestOp::max, MPI_MAX, true, {"MPI_INT"}},
      {"MPI_PROD", TestOp::prod, MPI_PROD, true, {"MPI_INT"}},
      {"MPI_MAXLOC", TestOp::maxloc, MPI_MAXLOC, true, {"MPI_DOUBLE_INT"}},
      {"user-sum(commutative)", TestOp::struct_sum, struct_sum, true, {"struct{gap,int,gap,int}"}},
      {"matmul(non-commutative)", TestOp::matmul, matmul, false, {"int2x2"}}};
}

void free_types(std::vector<TypeCase>& types) {
  for (auto& t : types)
    if (t.name == "struct{gap,int,gap,int}" || t.name == "int2x2") MPI_Type_free(&t.type);
}

}  // namespace topocoll::mpitest
