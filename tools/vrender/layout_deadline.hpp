// Graph layout under a time limit: Graphviz runs in a forked child that is killed when it runs past the limit
// (dot's time grows steeply with clusters and edges between them), and a crash inside Graphviz becomes an error
// instead of vrender's end. What is laid out is graph_layout's business.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace vtools::vrender {

/// Seconds one layout may take: VTOOLS_MAX_LAYOUT_SECONDS (whole seconds, 1..86400), else 30. Throws Error(kUsage)
/// for another value.
int max_layout_seconds();

/// Runs `work` in a forked child and returns what it returned. Rethrows the vtools::Error it threw (code, message and
/// place kept); throws Error(kDataError) at `name` when it runs past `limit_s` seconds (it is killed) or dies of a
/// signal, and Error(kInternal) when no child can be started.
std::string run_with_deadline(const std::function<std::string()>& work, int limit_s, std::string_view name);

}  // namespace vtools::vrender
