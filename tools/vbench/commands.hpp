// One entry point per vbench subcommand: each reads its inputs, calls the analyses and writes the output; main.cpp
// calls exactly one of these. Return values are process exit codes (errors are thrown as vtools::Error).
#pragma once

#include "tools/vbench/options.hpp"

namespace vtools::vbench {

int run_command(const RunOptions& options);
int verify_command(const RunOptions& options);  ///< gate only; exit 1 when any config fails
int list_command(const ListOptions& options);
int init_command(const InitOptions& options);
int compare_command(const CompareOptions& options);  ///< exit 1 on a regression over --fail-on-regression
int merge_command(const MergeOptions& options);
int show_command(const ShowOptions& options);  ///< a document's table again (table, markdown or csv)

}  // namespace vtools::vbench
