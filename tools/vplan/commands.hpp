// The subcommands of vplan as library functions: main.cpp binds flags to Options and calls one of these. Each
// returns the exit code (0, or 1 when `check` finds the plan over budget) and throws vtools::Error otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "libcommon/cli.hpp"

namespace vtools::vplan {

struct Options {
  std::string input = "-";          ///< TTGIR file, '-', a directory, a vtools.plan JSON, a dump log or a .dot
  OutputOptions out;                ///< -o (a directory for several kernels / extract: "" = the current one), -q
  std::string graph = "combined";   ///< dot: smem | tmem | combined
  bool markers = false;             ///< dot: add the planner's === marker lines
  std::string function;             ///< kernel to plan when a module has several functions
  std::int64_t triton_shared = -1;  ///< Triton's own shared-memory total (overrides metadata JSON), -1 = unknown
  std::string input_b;              ///< diff: the second (after) input; `input` is the first
};

int run_analyze(const Options& options);
int run_dot(const Options& options);
int run_table(const Options& options);
int run_check(const Options& options);
int run_extract(const Options& options);
int run_import(const Options& options);
/// Exit 0 whether or not the plans differ (the document says which); a kernel that cannot be read is an error.
int run_diff(const Options& options);

}  // namespace vtools::vplan
