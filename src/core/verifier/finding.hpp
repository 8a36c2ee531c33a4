#pragma once
// A violation found by the verifier, with where it happened (before the report is written).
#include <string>

#include "core/verifier/verifier.hpp"

namespace topocoll::detail {

struct Finding {
  Violation violation = Violation::none;
  int rank = -1;
  int step = -1;
  long long block = -1;
  std::string expected;
  std::string found;
  std::string what;  // the sentence, without the location prefix
};

}  // namespace topocoll::detail
