#pragma once
// Test data that depends on rank AND element (data that depends only on the rank hides
// wrong-block bugs), with every value and every reduction of P values an exact small integer
// in the datatype, so any reduction order gives bit-identical results and a byte comparison
// validates the output.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace topocoll::bench {

enum class Kind { signed_int, unsigned_int, floating };

struct TypeInfo {
  std::string name;
  MPI_Datatype mpi;
  int size;
  Kind kind;
  double largest;  // largest exactly representable value we may produce
};

enum class OpKind { sum, prod, max, min };

struct OpInfo {
  std::string name;
  MPI_Op mpi;
  OpKind kind;
};

// nullptr for an unknown name.
[[nodiscard]] const TypeInfo* find_type(const std::string& name);
[[nodiscard]] const OpInfo* find_op(const std::string& name);
[[nodiscard]] std::string type_names();
[[nodiscard]] std::string op_names();

class Pattern {
 public:
  // op is the reduction of a reduction collective (nullptr otherwise).
  Pattern(const TypeInfo& type, const OpInfo* op, int ranks);

  // The contribution of `rank` at `element` (an index into the whole vector).
  [[nodiscard]] double value(int rank, std::uint64_t element) const;
  // The reduction over every rank of their contributions at `element`.
  [[nodiscard]] double reduced(std::uint64_t element) const;

  // Writes element j of buf (j < count) as f(j), converted to the datatype.
  template <class F>
  void fill(void* buf, std::uint64_t count, F f) const;
  // A value no contribution or reduction ever takes, so an output never written is caught.
  void poison(void* buf, std::uint64_t count) const;
  // Elements of `got` that differ from `expected` (bytewise per element).
  [[nodiscard]] std::uint64_t count_wrong(const void* got, const void* expected,
                                          std::uint64_t count) const;

  [[nodiscard]] const TypeInfo& type() const { return type_; }

 private:
  void store(void* buf, std::uint64_t index, double value) const;

  const TypeInfo& type_;
  const OpInfo* op_;
  int ranks_;
  std::uint64_t modulus_;  // contributions are in [0, modulus_) for sum, max, min
};

template <class F>
void Pattern::fill(void* buf, std::uint64_t count, F f) const {
  for (std::uint64_t j = 0; j < count; ++j) store(buf, j, f(j));
}

}  // namespace topocoll::bench
