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
        "out-of-bounds load of 4 bytes at 0x7f00 in k launch 0 block (3,0,0) thread (232,0,0) pc +0x170: 8 bytes past "
        "the end of allocation 1 (x)");
  CHECK(p[2].substr(p[2].find(": ") + 2) == "4 bytes before the start of allocation 1 (x)");
  CHECK(p[3].substr(p[3].find(": ") + 2) == "outside every allocation");
  CHECK(p[4].substr(p[4].find(": ") + 2) == "0 bytes past the end of allocation 1 (x), argument 2 (float const*)");
}

TEST_CASE("trace_check: findings counted but not listed get a line per PC with the exact count") {
  Trace t;
  Finding f;
  f.kernel = "gemm";
  f.size = 16;
  f.operation = "load";
  t.findings.push_back(f);
  t.finding_sites.push_back({"gemm", 0x20f0, "load", 4718592, 1});
  t.finding_sites.push_back({"other", 0x10, "store", 2, 2});
  t.findings_total = 4718592 + 2 + 7;
  auto p = trace_problems(t);
  REQUIRE(p.size() == 3);
  CHECK(p[1] == "4718591 more out-of-bounds loads at pc +0x20f0 in gemm (4718592 in all)");
  CHECK(p[2] == "7 more out-of-bounds accesses at PCs past the device's per-launch table (counted, not listed)");
  Trace counted_only;  // nothing listed, yet counted: still a problem
  counted_only.findings_total = 3;
  CHECK(trace_problems(counted_only).size() == 1);
}

TEST_CASE("trace_check: a clean trace has no problems") { CHECK(trace_problems(Trace{}).empty()); }
