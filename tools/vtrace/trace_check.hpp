// `vtrace check`: the problems a trace holds (failed launches; in access mode out-of-bounds findings), one line
// each, for CI. Exit 1 when there is any.
#pragma once

#include <string>
#include <vector>

#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// One entry per problem, failed launches first (one line each), then findings in document order, each in
/// compute-sanitizer's shape on indented lines (what; where: file:line in the function with the PC and its SASS, or
/// the PC and SASS alone without line info; inlined-at call sites; thread, block and launch; the allocation and the
/// distance), then one line per PC whose out-of-bounds accesses were not all listed (with the exact count), and one
/// for any counted at no PC.
std::vector<std::string> trace_problems(const Trace& trace);

}  // namespace vtools::vtrace
