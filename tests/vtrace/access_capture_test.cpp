// access_capture: raw records of access mode (allocations, launches, sites) read back and turned into the trace.
#include <doctest/doctest.h>

#include <algorithm>

#include "libcommon/error.hpp"
#include "tools/vtrace/access/access_capture.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "tools/vtrace/trace_builder.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::access::testing;

namespace {

/// A kAccessSite payload as the preload library writes it: the ranges cut to range_count.
std::string site_bytes(const raw::AccessSite& s) {
  return std::string(reinterpret_cast<const char*>(&s),
                     raw::site_record_bytes(std::min<std::uint32_t>(s.range_count, raw::kRangesPerSite)));
}

}  // namespace

TEST_CASE("access_capture: allocations, launches and device site summaries in file order become the trace") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{77, 0});
  b.add(Tag::kMemory, raw::MemoryRecord{1, 0x10000, 4000, 1, 3, 0, 0});
  raw::LaunchRecord skipped{};
  skipped.kernel_launch = 0;
  b.add(Tag::kLaunch, skipped, "_Z4fillPfif");  // recorded = 0: left out by --kernel/--launch
  raw::LaunchRecord l{};
  l.kernel_launch = 1;
  l.grid[0] = 1, l.grid[1] = 1, l.grid[2] = 1;
  l.block[0] = 32, l.block[1] = 1, l.block[2] = 1;
  l.recorded = 1;
  l.sites = 2;
  l.requests_dropped = 2;
  l.findings = 24;
  b.add(Tag::kLaunch, l, "_Z4fillPfif");
  // fill(float*, int, float): a pointer into the allocation
  b.add_bytes_record(Tag::kLaunchParams, param_words({{0, 0x10000 + 16}, {1, 1000}, {2, 0}}));
  // One warp store at 3968 + 4 * lane: lanes 0..7 inside (argument 0), lanes 8..31 past the end.
  raw::FindingSite f{};
  f.pc = 0x40;
  f.count = 24;
  f.operation = 1;
  for (std::uint32_t i = 0; i < raw::kFirstFindingsPerSite; ++i)
    f.first[i] = {{0, 0, 0}, 8 + i, 0x10000 + 4000 + 4 * i, 4, 0};
  b.add(Tag::kFindingSite, f);
  raw::AccessSite inside{};
  inside.allocation = 0x10000;  // by start address
  inside.argument = 0;
  inside.stores = 8;
  inside.bytes_stored = 32;
  inside.requests = 1;
  inside.sectors = 1;
  inside.lanes = 8;
  inside.range_count = 1;
  inside.ranges[0][0] = 3968;
  inside.ranges[0][1] = 4000;
  raw::AccessSite outside = inside;
  outside.allocation = 0;
  outside.argument = raw::kNoArgument;
  outside.stores = 24;
  outside.bytes_stored = 96;
  outside.lanes = 24;
  outside.sectors = 3;
  outside.ranges[0][0] = 0x10000 + 4000;
  outside.ranges[0][1] = 0x10000 + 4096;
  b.add_bytes_record(Tag::kAccessSite, site_bytes(inside));
  b.add_bytes_record(Tag::kAccessSite, site_bytes(outside));
  b.add(Tag::kMemory, raw::MemoryRecord{2, 0x10000, 4000, 2, 3, 0, 0});
  b.add(Tag::kEnd, raw::EndRecord{0});
  raw::Capture c = raw::read_capture(b.bytes(), "raw.bin");
  CHECK(c.access_order.size() == 4);
  CHECK(c.launches[1].params.size() == 3 * sizeof(raw::ParamWord));
  CHECK(c.launches[1].sites.size() == 2);
  CHECK(c.launches[1].finding_sites.size() == 1);

  Trace t;
  t.run.mode = "accesses";
  add_access_captures({c}, BlockSampling(), 1000, t);
  REQUIRE(t.allocations.size() == 1);
  CHECK(t.allocations[0].freed_ns == std::optional<std::uint64_t>(2));
  CHECK(t.allocations[0].name == "fill.arg0");
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].name == "fill(float*, int, float)");
  CHECK(t.kernels[0].block == Dim3{32, 1, 1});
  CHECK(t.filtered_kernels == 1);
  CHECK(t.dropped_records == 2);
  REQUIRE(t.accesses.size() == 2);  // allocation -1 sorts before allocation 1
  CHECK(t.accesses[1].allocation == 1);
  CHECK(t.accesses[1].stores == 8);
  CHECK(t.accesses[1].ranges == Ranges{{3968, 4000}});
  CHECK(t.accesses[1].argument == 0);  // fill's float* points 16 bytes into the allocation
  CHECK(t.accesses[1].argument_type == "float*");
  CHECK(t.accesses[0].stores == 24);
  CHECK(t.accesses[0].ranges == Ranges{{0x10000 + 4000, 0x10000 + 4096}});
  CHECK(t.findings_total == 24);
  REQUIRE(t.finding_sites.size() == 1);
  CHECK(t.finding_sites[0].count == 24);
  CHECK(t.finding_sites[0].listed == raw::kFirstFindingsPerSite);
  REQUIRE(t.findings.size() == raw::kFirstFindingsPerSite);
  CHECK(t.findings[0].kernel == "fill(float*, int, float)");
  CHECK(t.findings[0].launch == 1);
  CHECK(t.findings[0].thread == Dim3{8, 0, 0});
  CHECK(t.findings[0].distance == 0);
  CHECK(t.findings[0].operation == "store");
  CHECK(t.findings[0].pc_offset == 0x40);
  CHECK(t.findings[0].argument == 0);
  CHECK(t.findings[3].distance == 12);
  CHECK(t.run.notes ==
        std::vector<std::string>{"1 launches were left out by --kernel/--launch",
                                 "launch 1 of fill(float*, int, float): 2 warp requests of 1 blocks found no room in "
                                 "the per-launch site table (raise --max-bytes)",
                                 "2 warp requests found no room in their launch's site table (raise --max-bytes)"});
}

TEST_CASE("raw_record_reader: the access-mode fuzz seed, framed by hand from the documented layouts, reads back") {
  // tests/vtrace/raw_corpus/access.bin: written by a script from raw_records.hpp and access_records.hpp's layouts, so
  // this also pins those layouts (LaunchRecord 80 bytes, AccessSite's fixed part 120, FindingSite 152).
  const std::string bytes = read_binary(VTOOLS_TEST_DATA "/../vtrace/raw_corpus/access.bin");
  std::vector<raw::Capture> captures{raw::read_capture(bytes, "access.bin")};
  CHECK(captures[0].ended);
  CHECK(captures[0].tma_functions == std::vector<std::string>{"_Z8tma_load14CUtensorMap_stPf"});
  Trace t;
  t.run.mode = "accesses";
  add_access_captures(captures, BlockSampling(), 1000, t);
  CHECK(t.findings_total == 24);
  CHECK(t.findings.size() == raw::kFirstFindingsPerSite);
  REQUIRE(t.accesses.size() == 2);
  CHECK(t.accesses[1].ranges == Ranges{{3968, 4000}});
  CHECK(t.accesses[1].argument == 0);
  CHECK(t.tma_kernels.empty());  // a TMA function that never launched
}

TEST_CASE("raw_record_reader: a site record before any launch, or with too many ranges, is refused") {
  auto error_of = [](raw::Tag tag, const raw::AccessSite& site) {
    raw::RecordBatch b;
    b.add_magic();
    b.add(raw::Tag::kProcess, raw::ProcessRecord{1, 0});
    if (tag == raw::Tag::kLaunch) {
      b.add(raw::Tag::kLaunch, raw::LaunchRecord{}, "k");
      tag = raw::Tag::kAccessSite;
    }
    b.add_bytes_record(tag, tag == raw::Tag::kAccessSite ? site_bytes(site) : std::string());
    try {
      raw::read_capture(b.bytes(), "raw.bin");
    } catch (const vtools::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(raw::Tag::kAccessSite, raw::AccessSite{}) ==
        "raw.bin: byte 32: an access site record before any launch record");
  raw::AccessSite many{};
  many.range_count = raw::kRangesPerSite + 1;
  CHECK(error_of(raw::Tag::kLaunch, many).find("access site with 17 ranges, at most 16") != std::string::npos);
  raw::AccessSite two{};
  two.range_count = 2;
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{1, 0});
  b.add(raw::Tag::kLaunch, raw::LaunchRecord{}, "k");
  b.add_bytes_record(raw::Tag::kAccessSite, site_bytes(two).substr(0, raw::site_record_bytes(1)));  // one range short
  try {
    raw::read_capture(b.bytes(), "raw.bin");
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(std::string(e.what()).find("for 2 ranges, expected") != std::string::npos);
  }
}

TEST_CASE("access_capture: TMA kernels are named from their code, never from an absence of accesses") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{1, 0});
  b.add_bytes_record(Tag::kTmaFunction, "sm90_xmma_gemm_tma");    // its SASS holds UTMALDG
  b.add_bytes_record(Tag::kTmaFunction, "never_launched_tma");
  raw::LaunchRecord l{};
  l.recorded = 1;
  l.sites = 1;
  b.add(Tag::kLaunch, l, "sm90_xmma_gemm_tma");
  raw::AccessSite scratch{};  // it touched something (a descriptor in its scratch): still a TMA kernel
  scratch.stores = 1;
  b.add_bytes_record(Tag::kAccessSite, site_bytes(scratch));
  l.sites = 0;
  b.add(Tag::kLaunch, l, "silent_kernel");  // no access at all, but no TMA in its code: not listed
  b.add(Tag::kEnd, raw::EndRecord{0});
  Trace t;
  t.run.mode = "accesses";
  add_access_captures({raw::read_capture(b.bytes(), "raw.bin")}, BlockSampling(), 1000, t);
  CHECK(t.tma_kernels == std::vector<std::string>{"sm90_xmma_gemm_tma"});
  REQUIRE(t.run.notes.size() == 1);
  CHECK(t.run.notes[0].rfind("1 kernels issue TMA tensor copies (UTMALDG/UTMASTG in their SASS)", 0) == 0);
}

TEST_CASE("access_capture: blocks left out by --blocks are counted per recorded launch") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{77, 0});
  raw::LaunchRecord l{};
  l.grid[0] = 10, l.grid[1] = 3, l.grid[2] = 1;  // 30 blocks: every:8 keeps 0, 8, 16, 24
  l.block[0] = 32, l.block[1] = 1, l.block[2] = 1;
  l.recorded = 1;
  b.add(Tag::kLaunch, l, "_Z4fillPfif");
  l.kernel_launch = 1;
  b.add(Tag::kLaunch, l, "_Z4fillPfif");
  b.add(Tag::kEnd, raw::EndRecord{0});
  raw::Capture c = raw::read_capture(b.bytes(), "raw.bin");
  Trace t;
  t.run.mode = "accesses";
  add_access_captures({c}, BlockSampling::parse("every:8"), 1000, t);
  CHECK(std::count(t.run.notes.begin(), t.run.notes.end(),
                   "--blocks every:8 left out 52 blocks of the recorded launches (skipped on the device)") == 1);
  CHECK(t.tma_kernels.empty());  // no access, but no TMA in its code
  Trace none;
  add_access_captures({c}, BlockSampling::parse("100-200"), 1000, none);  // every block sampled out
  CHECK(none.tma_kernels.empty());
  CHECK(std::count(none.run.notes.begin(), none.run.notes.end(),
                   "--blocks 100-200 left out 60 blocks of the recorded launches (skipped on the device)") == 1);
  Trace many;
  std::string list;
  for (int i = 0; i < 17; ++i) list += (i ? "," : "") + std::to_string(i);  // 0..16 kept: 13 of 30 left out, twice
  add_access_captures({c}, BlockSampling::parse(list), 1000, many);
  CHECK(std::count(many.run.notes.begin(), many.run.notes.end(),
                   "--blocks " + BlockSampling::parse(list).str() +
                       " left out 26 blocks of the recorded launches (recorded, then dropped on the host)") == 1);
}

TEST_CASE("access_capture: a launch read back later (kLaunchResult) keeps its place among the allocations") {
  // The preload writes the launch record at launch end and what the launch found once the program synchronizes:
  // between the two, another launch ran and the allocation was freed and another made at the same address. The
  // sites still belong to the first launch, mapped with the allocations live when it was launched.
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{77, 0});
  b.add(Tag::kMemory, raw::MemoryRecord{1, 0x10000, 4000, 1, 3, 0, 0});
  raw::LaunchRecord first{};
  first.kernel_launch = 0;
  first.grid[0] = first.grid[1] = first.grid[2] = 1;
  first.block[0] = 32, first.block[1] = first.block[2] = 1;
  first.recorded = 1;
  first.serial = 1;
  b.add(Tag::kLaunch, first, "_Z4fillPfif");
  b.add_bytes_record(Tag::kLaunchParams, param_words({{0, 0x10000}, {1, 1000}, {2, 0}}));
  raw::LaunchRecord second = first;
  second.kernel_launch = 1;
  second.serial = 2;
  b.add(Tag::kLaunch, second, "_Z4fillPfif");
  b.add(Tag::kMemory, raw::MemoryRecord{2, 0x10000, 4000, 2, 3, 0, 0});
  b.add(Tag::kMemory, raw::MemoryRecord{3, 0x10000, 64, 1, 3, 0, 0});
  raw::AccessSite site{};
  site.allocation = 0x10000;
  site.argument = 0;
  site.stores = 8;
  site.bytes_stored = 32;
  site.requests = 1;
  site.range_count = 1;
  site.ranges[0][0] = 3968;
  site.ranges[0][1] = 4000;
  b.add(Tag::kLaunchResult, raw::LaunchResultRecord{2, 0, 0, 0, 0});  // results in any order
  b.add(Tag::kLaunchResult, raw::LaunchResultRecord{1, 1, 3, 0, 0});
  b.add_bytes_record(Tag::kAccessSite, site_bytes(site));
  b.add(Tag::kEnd, raw::EndRecord{0});
  raw::Capture c = raw::read_capture(b.bytes(), "raw.bin");
  REQUIRE(c.launches.size() == 2);
  CHECK(c.launches[0].sites.size() == 1);
  CHECK(c.launches[1].sites.empty());
  CHECK(c.launches[0].record.requests_dropped == 3);
  CHECK_FALSE(c.launches[0].awaiting_result);
  Trace t;
  t.run.mode = "accesses";
  add_access_captures({c}, BlockSampling(), 1000, t);
  REQUIRE(t.allocations.size() == 2);
  REQUIRE(t.accesses.size() == 1);
  CHECK(t.accesses[0].allocation == 1);  // the 4000-byte allocation of launch time, not the later 64-byte one
  CHECK(t.accesses[0].launch == 0);
  CHECK(t.accesses[0].ranges == Ranges{{3968, 4000}});
  CHECK(t.findings_total == 0);
  CHECK(t.dropped_records == 3);
  CHECK_FALSE(t.partial);
}

TEST_CASE("access_capture: a launch whose result never came makes the trace partial, with a note") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{77, 0});
  raw::LaunchRecord l{};
  l.grid[0] = l.grid[1] = l.grid[2] = 1;
  l.block[0] = l.block[1] = l.block[2] = 1;
  l.recorded = 1;
  l.serial = 7;
  b.add(Tag::kLaunch, l, "k");
  b.add(Tag::kEnd, raw::EndRecord{0});
  raw::Capture c = raw::read_capture(b.bytes(), "raw.bin");
  CHECK(c.launches[0].awaiting_result);
  Trace t;
  t.run.mode = "accesses";
  add_access_captures({c}, BlockSampling(), 1000, t);
  CHECK(t.partial);
  REQUIRE(t.kernels.size() == 1);
  CHECK(std::find_if(t.run.notes.begin(), t.run.notes.end(), [](const std::string& n) {
          return n.find("1 recorded launches were never read back") == 0;
        }) != t.run.notes.end());
}

TEST_CASE("raw_record_reader: launch results must name one launch record, once") {
  auto error_of = [](auto&& add) {
    raw::RecordBatch b;
    b.add_magic();
    b.add(raw::Tag::kProcess, raw::ProcessRecord{1, 0});
    add(b);
    try {
      raw::read_capture(b.bytes(), "raw.bin");
    } catch (const vtools::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  raw::LaunchRecord l{};
  l.recorded = 1;
  l.serial = 5;
  CHECK(error_of([&](raw::RecordBatch& b) { b.add(raw::Tag::kLaunchResult, raw::LaunchResultRecord{5, 0, 0, 0, 0}); })
            .find("a launch result for serial 5, which no launch record has") != std::string::npos);
  CHECK(error_of([&](raw::RecordBatch& b) {
          b.add(raw::Tag::kLaunch, l, "k");
          b.add(raw::Tag::kLaunch, l, "k");
        }).find("a second launch record with serial 5") != std::string::npos);
  CHECK(error_of([&](raw::RecordBatch& b) {
          b.add(raw::Tag::kLaunch, l, "k");
          b.add(raw::Tag::kLaunchResult, raw::LaunchResultRecord{5, 0, 0, 0, 0});
          b.add(raw::Tag::kLaunchResult, raw::LaunchResultRecord{5, 0, 0, 0, 0});
        }).find("a second launch result for serial 5") != std::string::npos);
  raw::LaunchRecord left_out{};
  left_out.serial = 3;
  CHECK(error_of([&](raw::RecordBatch& b) { b.add(raw::Tag::kLaunch, left_out, "k"); })
            .find("a launch left out with serial 3") != std::string::npos);
  CHECK(error_of([&](raw::RecordBatch& b) {
          b.add(raw::Tag::kLaunch, l, "k");
          b.add(raw::Tag::kLaunchResult, raw::LaunchResultRecord{5, 0, 0, 0, 0});
        }) == "no error");
}

TEST_CASE("raw_record_reader: the deferred read-back fuzz seed, framed by hand, reads back") {
  // tests/vtrace/raw_corpus/deferred.bin: two launches (serials 1, 2), a free between them and their results, the
  // results in the other order; written by a script from the documented layouts (LaunchResultRecord 40 bytes).
  const std::string bytes = read_binary(VTOOLS_TEST_DATA "/../vtrace/raw_corpus/deferred.bin");
  std::vector<raw::Capture> captures{raw::read_capture(bytes, "deferred.bin")};
  CHECK(captures[0].ended);
  REQUIRE(captures[0].launches.size() == 2);
  CHECK(captures[0].launches[0].sites.size() == 1);
  CHECK(captures[0].launches[0].record.requests_dropped == 3);
  Trace t;
  t.run.mode = "accesses";
  add_access_captures(captures, BlockSampling(), 1000, t);
  REQUIRE(t.accesses.size() == 1);
  CHECK(t.accesses[0].allocation == 1);
  CHECK(t.accesses[0].argument == 0);
  CHECK(t.accesses[0].ranges == Ranges{{3968, 4000}});
  CHECK_FALSE(t.partial);
}

namespace {

/// One rank of a torchrun job in access mode: process `pid` sees one GPU (UUID ending in `gpu`) as its device 0,
/// allocates at the same address as every rank, and runs launch 0 of fill() with one site and 2 out-of-bounds loads:
/// the raw file's bytes (a capture's sites point into them, so they must outlive it).
std::string rank_file(std::int64_t pid, std::uint8_t gpu) {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{pid, 0});
  b.add(Tag::kDevice, raw::DeviceRecord{0, 9, 0, 132, 1ull << 37}, "NVIDIA H200");
  raw::DeviceIdentityRecord id{0, 0, static_cast<std::uint32_t>(0x19 + gpu), 0, {}};
  id.uuid[15] = gpu;
  b.add(Tag::kDeviceIdentity, id);
  b.add(Tag::kMemory, raw::MemoryRecord{1, 0x10000, 4000, 1, 3, 0, 0});
  raw::LaunchRecord l{};
  l.grid[0] = l.grid[1] = l.grid[2] = 1;
  l.block[0] = 32, l.block[1] = 1, l.block[2] = 1;
  l.recorded = 1;
  l.sites = 1;
  l.findings = 2;
  l.device_id = 0;
  b.add(Tag::kLaunch, l, "_Z4fillPfif");
  raw::FindingSite f{};
  f.pc = 0x40;
  f.count = 2;
  f.first[0] = {{0, 0, 0}, 30, 0x10000 + 4000, 4, 0};
  b.add(Tag::kFindingSite, f);
  raw::AccessSite inside{};
  inside.allocation = 0x10000;
  inside.argument = raw::kNoArgument;
  inside.loads = 30 + static_cast<std::uint64_t>(gpu);
  inside.range_count = 1;
  inside.ranges[0][1] = 120;
  b.add_bytes_record(Tag::kAccessSite, site_bytes(inside));
  b.add(Tag::kEnd, raw::EndRecord{0});
  return std::string(b.bytes());
}

}  // namespace

TEST_CASE("access_capture: two ranks' launch 0 of one kernel stay apart, each on its own GPU") {
  // Rank 1 ran under CUDA_VISIBLE_DEVICES=1: its device 0 is the second GPU, which the trace numbers 1 (by UUID).
  const std::string rank0 = rank_file(100, 0), rank1 = rank_file(200, 1);
  const std::vector<raw::Capture> captures{raw::read_capture(rank0, "raw.100.bin"),
                                           raw::read_capture(rank1, "raw.200.bin")};
  RunInfo run;
  run.mode = "accesses";
  Trace t = build_trace(captures, run, KernelFilter(""));
  add_access_captures(captures, BlockSampling(), 1000, t);
  REQUIRE(t.devices.size() == 2);
  CHECK(t.devices[1].uuid == "GPU-00000000-0000-0000-0000-000000000001");
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.kernels[0].process_id == 100);
  CHECK(t.kernels[0].device_id == 0);
  CHECK(t.kernels[1].process_id == 200);
  CHECK(t.kernels[1].device_id == 1);
  REQUIRE(t.allocations.size() == 2);
  CHECK(t.allocations[1].device_id == 1);
  REQUIRE(t.accesses.size() == 2);
  CHECK(t.accesses[0].process_id == 100);
  CHECK(t.accesses[0].launch == 0);
  CHECK(t.accesses[0].allocation == 1);
  CHECK(t.accesses[0].loads == 30);
  CHECK(t.accesses[1].process_id == 200);
  CHECK(t.accesses[1].launch == 0);
  CHECK(t.accesses[1].allocation == 2);  // the same address, the other process's allocation
  CHECK(t.accesses[1].loads == 31);
  REQUIRE(t.findings.size() == 4);  // the 2 of each rank listed
  CHECK(t.findings[0].process_id == 100);
  CHECK(t.findings[1].process_id == 100);
  CHECK(t.findings[2].process_id == 200);
  CHECK(t.findings[2].allocation == 2);
  REQUIRE(t.finding_sites.size() == 2);
  CHECK(t.finding_sites[0].process_id == 100);
  CHECK(t.finding_sites[1].process_id == 200);
  CHECK(t.findings_total == 4);
}

TEST_CASE("access_capture: a traced process that launched nothing (a launcher of ranks) gets a note saying why") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{31, 0});
  b.add(Tag::kEnd, raw::EndRecord{0});
  Trace t;
  t.run.mode = "accesses";
  add_access_captures({raw::read_capture(b.bytes(), "raw.bin")}, BlockSampling(), 1000, t);
  REQUIRE(t.run.notes.size() == 1);
  CHECK(t.run.notes[0].rfind("the traced process (pid 31) launched no kernel: access mode traces only the command's "
                             "own process, not the processes it starts", 0) == 0);
  Trace ranks;  // a capture with a launch (rank_capture) says nothing of the kind
  ranks.run.mode = "accesses";
  const std::string rank0 = rank_file(100, 0);
  add_access_captures({raw::read_capture(rank0, "raw.bin")}, BlockSampling(), 1000, ranks);
  CHECK(std::none_of(ranks.run.notes.begin(), ranks.run.notes.end(),
                     [](const std::string& n) { return n.find("launched no kernel") != std::string::npos; }));
}
