// Takes apart one printed MLIR type (`!ttg.memdesc<3x64x64xf16, #shared1, #smem, mutable>`, `tensor<128xf32, ...>`,
// `!tt.ptr<f16>`, `i32`): kind, shape, element type, encoding and memory space. Used by ttgir_parser.
#pragma once

#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

/// Parses `text` (a whole type as printed). `where` locates errors (the type's first character).
/// Throws Error(kDataError) for a malformed shape ("expected element type after memdesc shape '3x64x', ...").
Type parse_type_text(std::string_view text, const SourceLocation& where);

/// Bits of a scalar element type ("f16" -> 16, "i1" -> 1, "bf16" -> 16, "f8E4M3FN" -> 8), 0 when unknown.
int element_bits(std::string_view element_type);

}  // namespace vtools::vplan
