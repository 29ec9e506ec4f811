// MLIR_ENABLE_DUMP-style logs: many `// -----// IR Dump After <Pass> (...) //----- //` sections, each a whole
// module. vplan wants the last one still at TTGIR level (TritonGPU ops, before conversion to LLVM).
#pragma once

#include <string>
#include <string_view>

namespace vtools::vplan {

/// True when `text` holds at least one IR dump header.
bool looks_like_ir_dump_log(std::string_view text);

/// The text of the last dump whose module is TTGIR (has "ttg." attributes, no llvm.func). Throws
/// Error(kDataError) at `name` when there is none, naming how many dumps were seen. The dump is preceded by as many
/// newlines as come before it in the log, so parse errors point at the log's own line numbers.
std::string last_ttgir_dump(std::string_view text, std::string_view name);

}  // namespace vtools::vplan
