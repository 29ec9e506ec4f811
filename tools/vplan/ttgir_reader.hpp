// Reads Triton's TTGIR text (MLIR as printed, no MLIR dependency) into a Module: aliases, module attributes,
// functions, ops with nested regions, types and resolved locations. Grammar notes are in ttgir_reader.cpp.
#pragma once

#include <string_view>

#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

/// Parses `text`; `name` is used in messages. Throws Error(kDataError) at name:line:col with
/// "expected X, got Y" on malformed input (unbalanced braces, bad types, unknown aliases, truncation).
Module read_ttgir(std::string_view text, std::string_view name);

}  // namespace vtools::vplan
