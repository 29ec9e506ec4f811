// Shared by vplan's tests: the plan of a bundled TTGIR fixture (tests/data/ttgir/<stem>.ttgir).
#pragma once

#include <string>

#include "libcommon/input_file.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/ttgir_reader.hpp"

namespace vtools::vplan::testing {

inline Plan fixture_plan(const std::string& stem) {
  std::string name = std::string(VTOOLS_TEST_DATA) + "/ttgir/" + stem + ".ttgir";
  return build_plan(read_ttgir(read_input(name), name), {});
}

}  // namespace vtools::vplan::testing
