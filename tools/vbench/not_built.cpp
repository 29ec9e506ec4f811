// Placeholder library source until vbench's subcommands land: every subcommand reports that it is not built yet.
#include "libcommon/error.hpp"

namespace vtools::vbench {

[[noreturn]] void not_built(const char* subcommand) {
  throw Error(ExitCode::kUnavailable, std::string("'") + subcommand + "' is not built yet in this version of vbench");
}

}  // namespace vtools::vbench
