#include "pattern.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace topocoll::bench {
namespace {

const std::vector<TypeInfo>& types() {
  static const std::vector<TypeInfo> all{
      {"int8", MPI_INT8_T, 1, Kind::signed_int, 127},
      {"uint8", MPI_UINT8_T, 1, Kind::unsigned_int, 255},
      {"int16", MPI_INT16_T, 2, Kind::signed_int, 32767},
      {"uint16", MPI_UINT16_T, 2, Kind::unsigned_int, 65535},
      {"int32", MPI_INT32_T, 4, Kind::signed_int, 2147483647.0},
      {"uint32", MPI_UINT32_T, 4, Kind::unsigned_int, 4294967295.0},
      {"int64", MPI_INT64_T, 8, Kind::signed_int, 9007199254740992.0},
      {"uint64", MPI_UINT64_T, 8, Kind::unsigned_int, 9007199254740992.0},
      {"float", MPI_FLOAT, 4, Kind::floating, 16777216.0},  // 2^24: integers stay exact
      {"double", MPI_DOUBLE, 8, Kind::floating, 9007199254740992.0},
  };
  return all;
}

const std::vector<OpInfo>& ops() {
  static const std::vector<OpInfo> all{{"sum", MPI_SUM, OpKind::sum},
                                       {"prod", MPI_PROD, OpKind::prod},
                                       {"max", MPI_MAX, OpKind::max},
                                       {"min", MPI_MIN, OpKind::min}};
  return all;
}

template <class T>
void store_as(void* buf, std::uint64_t index, double value) {
  static_cast<T*>(buf)[index] = static_cast<T>(value);
}

}  // namespace

const TypeInfo* find_type(const std::string& name) {
  for (const auto& t : types())
    if (t.name == name) return &t;
  return nullptr;
}

const OpInfo* find_op(const std::string& name) {
  for (const auto& o : ops())
    if (o.name == name) return &o;
  return nullptr;
}

std::string type_names() {
  std::string out;
  for (const auto& t : types()) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

std::string op_names() {
  std::string out;
  for (const auto& o : ops()) out += (out.empty() ? "" : ", ") + o.name;
  return out;
}

Pattern::Pattern(const TypeInfo& type, const OpInfo* op, int ranks)
    : type_(type), op_(op), ranks_(ranks) {
  // Sums of P contributions must stay below the largest value (and below the poison of
  // unsigned types, their largest value); other reductions stay within [0, 100).
  const double cap = type.largest - 1;
  const bool summed = op_ && op_->kind == OpKind::sum;
  modulus_ = summed ? static_cast<std::uint64_t>(std::min(1000.0, cap / ranks)) : 100;
  modulus_ = std::max<std::uint64_t>(modulus_, 2);
}

double Pattern::value(int rank, std::uint64_t element) const {
  if (op_ && op_->kind == OpKind::prod) {
    // One rank contributes 2 at each element, a few contribute -1 (signed types): the product
    // is +-2 and overflows no type, yet a missing or doubled contribution changes it.
    if ((element + rank) % ranks_ == 0) return 2;
    if (type_.kind != Kind::unsigned_int && (element * 3 + rank) % 7 == 0) return -1;
    return 1;
  }
  return static_cast<double>((rank * 7919ull + element * 31ull + 1) % modulus_);
}

double Pattern::reduced(std::uint64_t element) const {
  double acc = value(0, element);
  for (int r = 1; r < ranks_; ++r) {
    const double v = value(r, element);
    switch (op_->kind) {
      case OpKind::sum: acc += v; break;
      case OpKind::prod: acc *= v; break;
      case OpKind::max: acc = std::max(acc, v); break;
      case OpKind::min: acc = std::min(acc, v); break;
    }
  }
  return acc;
}

void Pattern::store(void* buf, std::uint64_t index, double value) const {
  const bool is_signed = type_.kind == Kind::signed_int;
  switch (type_.size) {
    case 1:
      is_signed ? store_as<std::int8_t>(buf, index, value)
                : store_as<std::uint8_t>(buf, index, value);
      break;
    case 2:
      is_signed ? store_as<std::int16_t>(buf, index, value)
                : store_as<std::uint16_t>(buf, index, value);
      break;
    case 4:
      if (type_.kind == Kind::floating)
        store_as<float>(buf, index, value);
      else if (is_signed)
        store_as<std::int32_t>(buf, index, value);
      else
        store_as<std::uint32_t>(buf, index, value);
      break;
    default:
      if (type_.kind == Kind::floating)
        store_as<double>(buf, index, value);
      else if (is_signed)
        store_as<std::int64_t>(buf, index, value);
      else
        store_as<std::uint64_t>(buf, index, value);
  }
}

void Pattern::poison(void* buf, std::uint64_t count) const {
  // Unsigned: the largest value; signed and floating: a large negative one. No contribution or
  // reduction reaches either.
  const double bad = type_.kind == Kind::unsigned_int ? type_.largest : -type_.largest;
  if (count == 0) return;
  store(buf, 0, bad);
  auto* bytes = static_cast<unsigned char*>(buf);
  for (std::uint64_t done = 1; done < count;) {  // doubling copies: memcpy speed
    const std::uint64_t n = std::min(done, count - done);
    std::memcpy(bytes + done * type_.size, bytes, n * type_.size);
    done += n;
  }
}

std::uint64_t Pattern::count_wrong(const void* got, const void* expected,
                                   std::uint64_t count) const {
  const std::size_t size = type_.size;
  if (std::memcmp(got, expected, count * size) == 0) return 0;
  const auto* a = static_cast<const unsigned char*>(got);
  const auto* b = static_cast<const unsigned char*>(expected);
  std::uint64_t wrong = 0;
  for (std::uint64_t j = 0; j < count; ++j)
    wrong += std::memcmp(a + j * size, b + j * size, size) != 0;
  return wrong;
}

}  // namespace topocoll::bench
