// Problems `vtrace check` reports.
#include <doctest/doctest.h>

#include "tools/vtrace/trace_check.hpp"

using namespace vtools::vtrace;

TEST_CASE("trace_check: failed launches then findings, one line each") {
  Trace t;
  t.failed_launches.push_back({"cudaLaunchKernel", "fill(float*, int, float)", 9, 4});
  Allocation a;
  a.id = 1;
  a.name = "x";
  t.allocations.push_back(a);
  Finding f;
  f.kernel = "k";
  f.block = {3, 0, 0};
  f.thread = {232, 0, 0};
  f.pc_offset = 0x170;
  f.address = 0x7f00;
  f.size = 4;
  f.operation = "load";
  f.allocation = 1;
  f.distance = 8;
  t.findings.push_back(f);
  f.allocation = 1;
  f.distance = -4;
  f.operation = "store";
  t.findings.push_back(f);
  f.allocation = -1;
  t.findings.push_back(f);
  f.allocation = 1;
  f.distance = 0;
  f.argument = 2;
  f.argument_type = "float const*";
  t.findings.push_back(f);
  auto p = trace_problems(t);
  REQUIRE(p.size() == 5);
  CHECK(p[0] == "failed launch: cudaLaunchKernel returned 9 for fill(float*, int, float)");
  CHECK(p[1] ==
        "out-of-bounds load of 4 bytes at 0x7f00\n"
        "    at k pc +0x170\n"
        "    by thread (232,0,0) in block (3,0,0) of k launch 0\n"
        "    8 bytes past the end of allocation 1 (x)");
  auto last_line = [](const std::string& text) { return text.substr(text.rfind("\n    ") + 5); };
  CHECK(last_line(p[2]) == "4 bytes before the start of allocation 1 (x)");
  CHECK(last_line(p[3]) == "outside every allocation");
  CHECK(last_line(p[4]) == "0 bytes past the end of allocation 1 (x), argument 2 (float const*)");
}

TEST_CASE("trace_check: a finding at its source line with its SASS and inlining, or its PC, SASS and why") {
  Trace t;
  Finding f;
  f.kernel = "scaled(float const*, float*, int)";
  f.block = {1, 0, 0};
  f.thread = {7, 0, 0};
  f.pc_offset = 0xc0;
  f.address = 0x7f00;
  f.size = 4;
  f.operation = "load";
  f.sass = "LDG.E R2, desc[UR4][R2.64]";
  SourceLine line;
  line.file = "k.cu";
  line.line = 6;
  line.function = "twice(float const*, int)";
  line.inlined_at.push_back({"k.cu", 19, 3, "scaled(float const*, float*, int)"});
  f.source = line;
  t.findings.push_back(f);
  f.source.reset();
  f.source_note = "no source line: the module has no line table (.debug_line): it was built without -lineinfo or -G";
  t.findings.push_back(f);
  auto p = trace_problems(t);
  REQUIRE(p.size() == 2);
  CHECK(p[0] ==
        "out-of-bounds load of 4 bytes at 0x7f00\n"
        "    at k.cu:6 in twice(float const*, int) (pc +0xc0: LDG.E R2, desc[UR4][R2.64])\n"
        "    inlined at k.cu:19:3 in scaled(float const*, float*, int)\n"
        "    by thread (7,0,0) in block (1,0,0) of scaled(float const*, float*, int) launch 0\n"
        "    outside every allocation");
  CHECK(p[1] ==
        "out-of-bounds load of 4 bytes at 0x7f00\n"
        "    at scaled(float const*, float*, int) pc +0xc0: LDG.E R2, desc[UR4][R2.64]\n"
        "    (no source line: the module has no line table (.debug_line): it was built without -lineinfo or -G)\n"
        "    by thread (7,0,0) in block (1,0,0) of scaled(float const*, float*, int) launch 0\n"
        "    outside every allocation");
}

TEST_CASE("trace_check: findings counted but not listed get a line per PC with the exact count and its line") {
  Trace t;
  Finding f;
  f.kernel = "gemm";
  f.size = 16;
  f.operation = "load";
  f.pc_offset = 0x20f0;
  SourceLine line;
  line.file = "gemm.cu";
  line.line = 88;
  f.source = line;
  t.findings.push_back(f);
  t.finding_sites.push_back({"gemm", 0x20f0, "load", 4718592, 1});
  t.finding_sites.push_back({"other", 0x10, "store", 2, 2});
  t.findings_total = 4718592 + 2 + 7;
  auto p = trace_problems(t);
  REQUIRE(p.size() == 3);
  CHECK(p[1] == "4718591 more out-of-bounds loads at pc +0x20f0 (gemm.cu:88) in gemm (4718592 in all)");
  CHECK(p[2] == "7 more out-of-bounds accesses at PCs past the device's per-launch table (counted, not listed)");
  Trace counted_only;  // nothing listed, yet counted: still a problem
  counted_only.findings_total = 3;
  CHECK(trace_problems(counted_only).size() == 1);
}

TEST_CASE("trace_check: a clean trace has no problems") { CHECK(trace_problems(Trace{}).empty()); }
