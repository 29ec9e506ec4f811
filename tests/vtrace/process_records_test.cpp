// What both injection libraries record about their process (injection/process_records): the identity and clock
// anchors as access mode now writes them, read back by the parent into a trace whose process names its rank, and
// refused by merge and summary --ranks with the reason. CPU only: no driver is loaded in this process.
#include "tools/vtrace/injection/process_records.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "formats/trace/rank_summary.hpp"
#include "formats/trace/trace_reader.hpp"
#include "formats/trace/trace_writer.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "tools/vtrace/access/access_capture.hpp"
#include "tools/vtrace/process_identity.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/trace_builder.hpp"
#include "tools/vtrace/trace_merge.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::injection;

namespace {

std::int64_t realtime_now() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

std::uint64_t fixed_clock() { return 424242; }

/// The environment of `RANK=1 LOCAL_RANK=0 WORLD_SIZE=2 vtrace run --accesses -- ...` (other launchers unset).
void set_rank_one() {
  for (const char* key : kRankVariables) unsetenv(key);
  setenv("RANK", "1", 1);
  setenv("LOCAL_RANK", "0", 1);
  setenv("WORLD_SIZE", "2", 1);
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

/// A raw file as the Sanitizer tool writes it: process (no CUPTI time), identity, a CLOCK_MONOTONIC anchor, one
/// unrecorded launch, the end anchor and the end record.
std::string access_raw_file(std::int64_t pid) {
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{pid, 0});
  b.add_bytes_record(raw::Tag::kIdentity, identity_bytes());
  b.add(raw::Tag::kClockAnchor, clock_anchor(raw::kClockMonotonic, raw::monotonic_ns));
  raw::LaunchRecord launch{};
  launch.grid[0] = launch.grid[1] = launch.grid[2] = 1;
  launch.block[0] = launch.block[1] = launch.block[2] = 32;
  launch.recorded = 1;
  b.add(raw::Tag::kLaunch, launch, "_Z3addPfS_i");
  b.add(raw::Tag::kClockAnchor, clock_anchor(raw::kClockMonotonic, raw::monotonic_ns));
  b.add(raw::Tag::kEnd, raw::EndRecord{0});
  return b.bytes();
}

Trace access_trace(std::int64_t pid) {
  const raw::Capture c = raw::read_capture(access_raw_file(pid), "raw-" + std::to_string(pid) + ".bin");
  RunInfo run;
  run.mode = "accesses";
  run.tool_version = "0.1.0";
  Trace t = build_trace({c}, run, KernelFilter(""));
  access::add_access_captures({c}, access::BlockSampling(), 1000, t);
  // Through the document, as `vtrace merge` and `vtrace summary` read it.
  return read_trace(vtools::dump_json(trace_to_document(t)), "t.json");
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const vtools::Error& e) {
    return std::to_string(static_cast<int>(e.code())) + " " + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("process_records: the identity is the host name and the launcher variables that are set") {
  set_rank_one();
  const std::string bytes = identity_bytes();
  CHECK(bytes == host_name() + std::string("\0RANK=1\0LOCAL_RANK=0\0WORLD_SIZE=2", 33));
  unsetenv("RANK");
  unsetenv("LOCAL_RANK");
  unsetenv("WORLD_SIZE");
  CHECK(identity_bytes() == host_name());
}

TEST_CASE("process_records: a clock anchor reads the clock between two CLOCK_REALTIME reads") {
  const std::int64_t before = realtime_now();
  const raw::ClockAnchorRecord a = clock_anchor(raw::kClockMonotonic, fixed_clock);
  const std::int64_t after = realtime_now();
  CHECK(a.clock == raw::kClockMonotonic);
  CHECK(a.clock_ns == 424242);
  CHECK(a.realtime_ns >= before);
  CHECK(a.realtime_ns <= after);
  CHECK(a.half_window_ns >= 1);
  CHECK(a.half_window_ns <= static_cast<std::uint64_t>(after - before) / 2 + 1);
  const std::uint64_t m0 = raw::monotonic_ns();
  const raw::ClockAnchorRecord m = clock_anchor(raw::kClockMonotonic, raw::monotonic_ns);
  const std::uint64_t m1 = raw::monotonic_ns();
  CHECK(m.clock_ns >= m0);
  CHECK(m.clock_ns <= m1);
  CHECK(clock_anchor(raw::kClockCupti, fixed_clock).clock == raw::kClockCupti);
}

TEST_CASE("process_records: no driver loaded in the process: no device records") {
  raw::RecordBatch b;
  add_device_records(b, 0);
  CHECK(b.records() == 0);
}

TEST_CASE("process_records: an access-mode trace names its host and rank and has CLOCK_MONOTONIC anchors") {
  set_rank_one();
  const std::int64_t before = realtime_now();
  const Trace t = access_trace(4242);
  const std::int64_t after = realtime_now();
  REQUIRE(t.processes.size() == 1);
  const Process& p = t.processes[0];
  CHECK(p.pid == 4242);
  CHECK(p.host == host_name());
  CHECK(p.rank == 1);
  CHECK(p.local_rank == 0);
  CHECK(p.world_size == 2);
  CHECK(p.launcher == "torchrun");
  REQUIRE(p.clock_start);
  REQUIRE(p.clock_end);
  CHECK(p.clock_start->clock == AnchorClock::kMonotonic);
  CHECK(p.clock_end->clock == AnchorClock::kMonotonic);
  CHECK(p.clock_start->realtime_ns >= before);
  CHECK(p.clock_end->realtime_ns <= after);
  CHECK(p.clock_start->clock_ns <= p.clock_end->clock_ns);
  CHECK_FALSE(t.partial);
  CHECK(std::find_if(t.run.notes.begin(), t.run.notes.end(), [](const std::string& n) {
          return n.rfind("clock anchors pair CLOCK_MONOTONIC with CLOCK_REALTIME (monotonic_ns)", 0) == 0;
        }) != t.run.notes.end());
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].process_id == 4242);
}

TEST_CASE("process_records: two ranks' access traces merge, records keeping their process; summary --ranks refuses") {
  set_rank_one();
  Trace rank1 = access_trace(4242);
  setenv("RANK", "0", 1);
  Trace rank0 = access_trace(4243);
  const Trace merged = merge_traces({{rank0, "rank0.json"}, {rank1, "rank1.json"}});
  REQUIRE(merged.processes.size() == 2);
  CHECK(merged.processes[0].rank == 1);  // by id: 4242 is rank 1
  CHECK(merged.processes[1].rank == 0);
  REQUIRE(merged.kernels.size() == 2);
  CHECK(merged.kernels[0].process_id == 4243);
  CHECK(merged.kernels[1].process_id == 4242);
  CHECK(error_of([&] { summarize_ranks(rank1); }) ==
        "65 an access-mode trace (--accesses) has no kernel times (access mode records no timestamps): summary "
        "--ranks reads launch-mode traces; vtrace check and summary give this one's findings and accesses, each with "
        "its process");
  unsetenv("RANK");
  unsetenv("LOCAL_RANK");
  unsetenv("WORLD_SIZE");
}
