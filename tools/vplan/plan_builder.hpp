// Builds the plan of one kernel from a parsed TTGIR module: op order and partitions, buffers, liveness, channels,
// offsets and budget. The one entry point the CLI, tests and the benchmark call for TTGIR input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/plan/plan_model.hpp"
#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

struct PlanOptions {
  std::string function;                          ///< kernel to plan ("" = the first public function)
  std::optional<std::int64_t> triton_shared;     ///< Triton's own shared-memory total, when known
};

/// Throws Error(kDataError) when the module has no function (or not the one asked for).
Plan build_plan(const Module& module, const PlanOptions& options);
/// The same from a module given up: its ops' names, operands and locations move into the plan, and its functions
/// are freed before the plan's last passes (a 10^6-op module and its plan are not held whole at once).
Plan build_plan(Module&& module, const PlanOptions& options);

/// "128x128xf32" for a shaped type, "" otherwise.
std::string shape_string(const Type& type);

}  // namespace vtools::vplan
