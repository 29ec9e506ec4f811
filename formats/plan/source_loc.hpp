// Where an op of a kernel came from (Triton's `loc(...)`): shared by the TTGIR model (tools/vplan) and the plan.
#pragma once

#include <string>

namespace vtools::vplan {

/// A source location after following `#loc` aliases: the innermost name (`loc("acc"(...))`) and the user's
/// file:line (for call sites, the caller's). Empty fields when unknown.
struct SourceLoc {
  std::string name;
  std::string file;
  int line = 0;
  int column = 0;
};

}  // namespace vtools::vplan
