// hot_lines: the PC tables of the raw records (kPcSites) folded per kernel and PC over launches and placed at their
// source lines through the line table of a real cubin (tests/data/vtrace/line_kernels.cu, -lineinfo and not);
// the per-kernel line summary and its tables; the raw record's checks.
#include <doctest/doctest.h>

#include <string>

#include "formats/trace/line_summary.hpp"
#include "libcommon/input_file.hpp"
#include "tools/vtrace/hot_lines.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/raw_record_writer.hpp"

using namespace vtools::vtrace;

namespace {

std::string fixture(const std::string& name) {
  return vtools::read_input(std::string(VTOOLS_TEST_DATA "/vtrace/") + name);
}

const char* const kOffByOne = "_Z8offbyonePKfPfi";
const char* const kScaled = "_Z6scaledPKfPfi";

raw::PcSite pc_site(std::uint64_t pc, std::uint32_t operation, std::uint64_t requests, std::uint64_t lanes,
                    std::uint64_t sectors) {
  raw::PcSite s{};
  s.pc = pc;
  s.operation = operation;
  s.size = 4;
  s.requests = requests;
  s.lanes = lanes;
  s.sectors = sectors;
  return s;
}

raw::NamedLaunch launch(const char* kernel, std::uint64_t module, std::vector<raw::PcSite> pcs) {
  raw::NamedLaunch l{};
  l.record.recorded = 1;
  l.kernel = kernel;
  l.module = module;
  l.pc_table = true;
  l.pc_sites = std::move(pcs);
  return l;
}

/// A disassembler that lists `sass` and counts its runs.
PcSymbolizer symbolizer_listing(int& runs) {
  return PcSymbolizer([&runs](std::string_view) {
    ++runs;
    return Disassembly{".text._Z6scaledPKfPfi:\n        /*00c0*/                   LDG.E R2, desc[UR4][R2.64] ;\n", ""};
  });
}

}  // namespace

#ifdef VTOOLS_HAVE_LIBDW
TEST_CASE("hot_lines: a kernel's PCs summed over launches at their source lines, nvdisasm never run for them") {
  raw::Capture c;
  c.module_images[1] = fixture("line_kernels.cubin");
  // offbyone: the load in[i] at +0xc0 (line 12) and the store out[i] at +0xf0 (line 13), two launches.
  c.launches.push_back(launch(kOffByOne, 1, {pc_site(0xc0, 0, 4, 128, 16), pc_site(0xf0, 1, 4, 120, 15)}));
  c.launches.push_back(launch(kOffByOne, 1, {pc_site(0xc0, 0, 2, 64, 8)}));
  c.launches.back().finding_sites.push_back(raw::FindingSite{0xc0, 3, 0, 0, {}});
  c.launches.back().pc_requests_dropped = 5;
  // scaled: the inlined load (twice(), line 6 of the callee) and the kernel's own store (line 19).
  c.launches.push_back(launch(kScaled, 1, {pc_site(0xc0, 0, 1, 32, 4), pc_site(0xf0, 1, 1, 32, 4)}));
  raw::NamedLaunch skipped = launch(kScaled, 1, {pc_site(0xc0, 0, 100, 100, 100)});
  skipped.record.recorded = 0;  // left out by --launch: not counted
  c.launches.push_back(skipped);
  Trace t;
  int runs = 0;
  PcSymbolizer symbolizer = symbolizer_listing(runs);
  add_hot_lines({c}, symbolizer, t);
  CHECK(runs == 0);
  REQUIRE(t.hot_lines.size() == 4);
  const HotLine& load = t.hot_lines[0];
  CHECK(load.kernel == "offbyone(float const*, float*, int)");
  CHECK(load.file == "/tmp/vtools-fixture/line_kernels.cu");
  CHECK(load.line == 12);
  CHECK(load.function == "offbyone(float const*, float*, int)");
  CHECK(load.pcs == 1);
  CHECK(load.pc_offset == 0xc0);
  CHECK(load.loads == 192);
  CHECK(load.bytes_loaded == 768);
  CHECK(load.stores == 0);
  CHECK(load.requests == 6);
  CHECK(load.sectors_per_request() == doctest::Approx(4.0));
  CHECK(load.active_lanes_per_request() == doctest::Approx(32.0));
  CHECK(load.findings == 3);
  CHECK(load.sass.empty());
  CHECK(load.note.empty());
  const HotLine& store = t.hot_lines[1];
  CHECK(store.line == 13);
  CHECK(store.stores == 120);
  CHECK(store.bytes_stored == 480);
  CHECK(store.active_lanes_per_request() == doctest::Approx(30.0));
  CHECK(t.hot_lines[2].kernel == "scaled(float const*, float*, int)");
  CHECK(t.hot_lines[2].line == 6);  // the innermost frame: inside the inlined twice()
  CHECK(t.hot_lines[2].function == "twice(float const*, int)");
  CHECK(t.hot_lines[2].loads == 32);
  CHECK(t.hot_lines[3].line == 19);
  CHECK(t.hot_lines_dropped_requests == 5);
  REQUIRE_FALSE(t.run.notes.empty());
  CHECK(t.run.notes.back().find("5 warp requests at PCs past their launch's PC table") == 0);
}
#endif

TEST_CASE("hot_lines: without line info a row is one instruction and says why; SASS where a finding had it read") {
  raw::Capture c;
  c.module_images[2] = fixture("line_kernels_noline.cubin");
  c.launches.push_back(launch(kScaled, 2, {pc_site(0xc0, 0, 2, 64, 8)}));
  c.launches.push_back(launch(kScaled, 2, {pc_site(0xc0, 0, 1, 32, 4)}));
  c.launches.push_back(launch("_Z5otherv", 0, {pc_site(0x10, 2, 1, 1, 1)}));
  raw::NamedLaunch bulk = launch("_Z5otherv", 0, {});
  raw::PcSite copy{};
  copy.pc = 0x20;
  copy.operation = 3;
  copy.requests = 2;
  copy.lanes = 2;
  copy.bulk_bytes = 8192;
  bulk.pc_sites.push_back(copy);
  c.launches.push_back(bulk);
  Trace t;
  int runs = 0;
  PcSymbolizer symbolizer = symbolizer_listing(runs);
  add_hot_lines({c}, symbolizer, t);
  CHECK(runs == 0);  // nvdisasm on every module of a training step took 90 s: only findings run it
  REQUIRE(t.hot_lines.size() == 3);
  const HotLine& other = t.hot_lines[0];
  CHECK(other.kernel == "other()");
  CHECK(other.file.empty());
  CHECK(other.pc_offset == 0x10);
  CHECK(other.atomics == 1);
  CHECK(other.bytes_loaded == 4);
  CHECK(other.bytes_stored == 4);
  CHECK(other.note == "no source line or SASS: the trace does not say which module the kernel ran from");
  const HotLine& copied = t.hot_lines[1];
  CHECK(copied.loads == 2);
  CHECK(copied.bulk_copies == 2);
  CHECK(copied.bytes_loaded == 8192);
  CHECK(copied.requests == 0);  // bulk copies are not warp requests
  const HotLine& scaled = t.hot_lines[2];
  CHECK(scaled.kernel == "scaled(float const*, float*, int)");
  CHECK(scaled.file.empty());
  CHECK(scaled.line == 0);
  CHECK(scaled.loads == 96);
  CHECK(scaled.requests == 3);
  CHECK(scaled.sass.empty());
#ifdef VTOOLS_HAVE_LIBDW
  CHECK(scaled.note ==
        "no source line: the module has no line table (.debug_line): it was built without -lineinfo or -G; no SASS: "
        "nvdisasm runs only on modules with findings");
#endif

  // A finding in the module had it disassembled (add_finding_sources runs first): its rows get their SASS.
  Trace after_finding;
  (void)symbolizer.describe((std::uint64_t{0} << 40) | 2, c.module_images[2], kScaled, 0xc0);
  add_hot_lines({c}, symbolizer, after_finding);
  CHECK(runs == 1);
  REQUIRE(after_finding.hot_lines.size() == 3);
  CHECK(after_finding.hot_lines[2].sass == "LDG.E R2, desc[UR4][R2.64]");
#ifdef VTOOLS_HAVE_LIBDW
  CHECK(after_finding.hot_lines[2].note ==
        "no source line: the module has no line table (.debug_line): it was built without -lineinfo or -G");
#endif
}

TEST_CASE("line_summary: rows per kernel hottest first, equal rows summed, tables name file:line or the PC") {
  Trace t;
  HotLine a;
  a.kernel = "k";
  a.file = "/src/k.cu";
  a.line = 7;
  a.pcs = 1;
  a.loads = 32;
  a.bytes_loaded = 128;
  a.requests = 1;
  a.sectors = 4;
  a.lanes = 32;
  a.text = "    float v = in[i];";
  HotLine b = a;
  b.line = 9;
  b.bytes_loaded = 4096;
  HotLine pc;
  pc.kernel = "k";
  pc.pc_offset = 0x1f0;
  pc.stores = 1;
  pc.bytes_stored = 4;
  pc.sass = "STG.E [R2.64], R5";
  HotLine other = a;
  other.kernel = "small";
  t.hot_lines = {a, b, a, pc, other};
  const LineSummary s = summarize_lines(t);
  REQUIRE(s.kernels.size() == 2);
  CHECK(s.kernels[0].kernel == "k");
  REQUIRE(s.kernels[0].lines.size() == 3);
  CHECK(s.kernels[0].lines[0].line == 9);
  CHECK(s.kernels[0].lines[1].line == 7);
  CHECK(s.kernels[0].lines[1].loads == 64);  // the two rows of line 7 summed
  CHECK(s.kernels[0].lines[1].pcs == 1);
  CHECK(s.kernels[0].total.bytes_loaded == 4096 + 256);
  CHECK(s.kernels[0].total.bytes_stored == 4);
  CHECK(hot_line_place(s.kernels[0].lines[0]) == "k.cu:9");
  CHECK(hot_line_place(s.kernels[0].lines[2]) == "pc +0x1f0");
  const vtools::Table table = kernel_lines_table(s.kernels[0]);
  REQUIRE(table.rows.size() == 3);
  CHECK(table.rows[1] == std::vector<std::string>{"k.cu:7", "", "1", "64", "0", "0", "256 B", "0 B", "4.00",
                                                  "32.00", "0", "float v = in[i];"});
  CHECK(table.rows[2].back() == "STG.E [R2.64], R5");
  CHECK(table.rows[2][8] == "-");  // no warp requests: no averages
}

TEST_CASE("raw_record_reader: a PC table follows its launch; misplaced, cut or wrong ones are refused") {
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{7, 0});
  auto table = [](std::uint64_t pcs, std::vector<raw::PcSite> sites) {
    std::string payload;
    const raw::PcTableRecord r{pcs, 3};
    payload.append(reinterpret_cast<const char*>(&r), sizeof r);
    payload.append(reinterpret_cast<const char*>(sites.data()), sites.size() * sizeof(raw::PcSite));
    return payload;
  };
  raw::RecordBatch early = b;
  early.add_bytes_record(raw::Tag::kPcSites, table(0, {}));
  CHECK_THROWS_WITH(raw::read_capture(early.bytes(), "raw.bin"),
                    doctest::Contains("a PC table record before any launch record"));
  raw::LaunchRecord l{};
  l.recorded = 1;
  b.add(raw::Tag::kLaunch, l, "_Z1kv");
  raw::RecordBatch good = b;
  good.add_bytes_record(raw::Tag::kPcSites, table(2, {pc_site(0x10, 0, 1, 32, 4), pc_site(0x20, 1, 2, 64, 8)}));
  const raw::Capture c = raw::read_capture(good.bytes(), "raw.bin");
  REQUIRE(c.launches.size() == 1);
  CHECK(c.launches[0].pc_table);
  CHECK(c.launches[0].pc_requests_dropped == 3);
  REQUIRE(c.launches[0].pc_sites.size() == 2);
  CHECK(c.launches[0].pc_sites[1].pc == 0x20);
  CHECK(c.launches[0].pc_sites[1].lanes == 64);
  raw::RecordBatch cut = b;
  cut.add_bytes_record(raw::Tag::kPcSites, table(2, {pc_site(0x10, 0, 1, 32, 4)}));
  CHECK_THROWS_WITH(raw::read_capture(cut.bytes(), "raw.bin"),
                    doctest::Contains("PC table record of 64 bytes for 2 PCs, expected 16 + 48 per PC"));
  raw::RecordBatch bad_op = b;
  bad_op.add_bytes_record(raw::Tag::kPcSites, table(1, {pc_site(0x10, 9, 1, 32, 4)}));
  CHECK_THROWS_WITH(raw::read_capture(bad_op.bytes(), "raw.bin"),
                    doctest::Contains("PC table entry with operation 9, expected 0 to 4"));
  raw::RecordBatch small = b;
  small.add_bytes_record(raw::Tag::kPcSites, "abc");
  CHECK_THROWS_WITH(raw::read_capture(small.bytes(), "raw.bin"),
                    doctest::Contains("PC table record of 3 bytes, expected at least 16"));
}
