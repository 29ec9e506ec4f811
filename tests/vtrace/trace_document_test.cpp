// The vtools.trace document: writer and reader agree, and the reader refuses bad fields with their JSON path.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/text_stream.hpp"
#include "formats/trace/trace_reader.hpp"
#include "formats/trace/trace_writer.hpp"

using namespace vtools::vtrace;

namespace {

Trace sample_trace() {
  Trace t;
  t.run.command = {"./app", "--n", "1000"};
  t.run.exit_status = 134;
  t.run.signal = 6;
  t.run.mode = "accesses";
  t.run.notes = {"a note"};
  t.devices.push_back({0, "H100", "9.0", 132, 85045460992, "", "", ""});
  Kernel k;
  k.name = "fill(float*, int, float)";
  k.mangled_name = "_Z4fillPfif";
  k.grid = {4, 2, 1};
  k.block = {256, 1, 1};
  k.registers_per_thread = 16;
  k.start_ns = 1763823000000000000;
  k.end_ns = 1763823000000002650;
  t.kernels.push_back(k);
  t.memcpys.push_back({"htod", 4000, 10, 20, 0, 1, 7, 11});
  t.memsets.push_back({4096, 0, 30, 40, 0, 1, 7, 12});
  Allocation a;
  a.id = 1;
  a.address = 0x7f3a2c000000;
  a.size = 4000;
  a.name = "x";
  a.freed_ns = 99;
  t.allocations.push_back(a);
  t.failed_launches.push_back({"cudaLaunchKernel", "fill(float*, int, float)", 9, 5});
  Access acc;
  acc.kernel = k.name;
  acc.block = {3, 0, 0};
  acc.allocation = 1;
  acc.ranges = {{0, 128}, {256, 512}};
  acc.loads = 96;
  acc.bytes_loaded = 384;
  acc.sectors_per_request = 4;
  acc.bulk_copies = 2;
  acc.argument = 1;
  acc.argument_type = "float const*";
  t.accesses.push_back(acc);
  Finding f;
  f.kernel = k.name;
  f.block = {3, 0, 0};
  f.thread = {232, 0, 0};
  f.address = 0x7f3a2c000fa0;
  f.size = 4;
  f.operation = "load";
  f.allocation = 1;
  t.findings.push_back(f);
  SourceLine line;
  line.file = "k.cu";
  line.line = 6;
  line.column = 2;
  line.function = "twice(float const*, int)";
  line.inlined_at.push_back({"k.cu", 19, 0, "scaled(float const*, float*, int)"});
  line.text = "  return 2.0f * p[i];";
  f.source = line;
  f.sass = "LDG.E R2, desc[UR4][R2.64]";
  t.findings.push_back(f);
  t.tma_kernels = {"tma_gemm"};
  t.partial = true;
  t.dropped_records = 3;
  t.filtered_kernels = 2;
  return t;
}

std::string error_of(const std::string& text) {
  try {
    read_trace(text, "t.json");
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kDataError);
    return e.what();
  }
  return "no error";
}

const std::string kHead =
    R"({"format": "vtools.trace", "version": 1, "tool": {"name": "vtrace", "version": "0"}, "created": "x", )";

/// `text`, a JSON document, with its top-level `keys` moved to its end in that order (as a tool that reorders an
/// object's keys may write it).
std::string with_keys_last(const std::string& text, const std::vector<std::string>& keys) {
  vtools::OrderedJson doc = vtools::OrderedJson::parse(text);
  for (const std::string& key : keys) {
    vtools::OrderedJson v = std::move(doc[key]);
    doc.erase(key);
    doc[key] = std::move(v);
  }
  return doc.dump();
}

/// Every field of an access record, for comparing records whole.
auto access_fields(const Access& a) {
  return std::tuple(a.kernel.str(), a.process_id, a.launch, a.block, a.allocation, a.argument, a.argument_type,
                    a.ranges, a.ranges_exact, a.ranges_merged, a.loads, a.stores, a.atomics, a.bytes_loaded,
                    a.bytes_stored, a.bulk_copies, a.sectors_per_request, a.active_lanes_per_request);
}

/// sample_trace with access records of two kernels and two processes, every field set somewhere.
Trace access_trace() {
  Trace t = sample_trace();
  Access b = t.accesses[0];
  b.kernel = "gemm(float*)";
  b.process_id = 7;
  b.launch = 3;
  b.block = {1, 2, 3};
  b.allocation = -1;
  b.argument = -1;
  b.argument_type.clear();
  b.ranges = {{8, 16}};
  b.ranges_exact = false;
  b.ranges_merged = 5;
  b.stores = 4;
  b.atomics = 2;
  b.bytes_stored = 16;
  b.active_lanes_per_request = 24;
  t.accesses.push_back(b);
  t.accesses.push_back(t.accesses[0]);
  t.accesses[2].launch = 1;
  return t;
}

}  // namespace

TEST_CASE("trace_writer: what is written reads back the same") {
  Trace t = sample_trace();
  Trace back = read_trace(vtools::dump_json(trace_to_document(t)), "t.json");
  CHECK(back.run.command == t.run.command);
  CHECK(back.run.exit_status == 134);
  CHECK(back.run.signal == 6);
  CHECK(back.run.notes == t.run.notes);
  REQUIRE(back.devices.size() == 1);
  CHECK(back.devices[0].memory_bytes == 85045460992);
  REQUIRE(back.kernels.size() == 1);
  CHECK(back.kernels[0].name == t.kernels[0].name);
  CHECK(back.kernels[0].grid == Dim3{4, 2, 1});
  CHECK(back.kernels[0].end_ns == 1763823000000002650);
  CHECK(back.memcpys[0].kind == "htod");
  CHECK(back.memsets[0].bytes == 4096);
  CHECK(back.allocations[0].address == 0x7f3a2c000000);
  CHECK(back.allocations[0].freed_ns == std::optional<std::uint64_t>(99));
  CHECK(back.failed_launches[0].status == 9);
  REQUIRE(back.accesses.size() == 1);
  CHECK(back.accesses[0].ranges == t.accesses[0].ranges);
  CHECK(back.accesses[0].bulk_copies == 2);
  CHECK(back.accesses[0].argument == 1);
  CHECK(back.accesses[0].argument_type == "float const*");
  CHECK(back.findings[0].argument == -1);
  CHECK(back.findings[0].thread == Dim3{232, 0, 0});
  CHECK_FALSE(back.findings[0].source);
  REQUIRE(back.findings.size() == 2);
  REQUIRE(back.findings[1].source);
  const SourceLine& line = *back.findings[1].source;
  CHECK(line.file == "k.cu");
  CHECK(line.line == 6);
  CHECK(line.column == 2);
  CHECK(line.function == "twice(float const*, int)");
  REQUIRE(line.inlined_at.size() == 1);
  CHECK(line.inlined_at[0].line == 19);
  CHECK(line.inlined_at[0].function == "scaled(float const*, float*, int)");
  CHECK(back.findings[1].sass == "LDG.E R2, desc[UR4][R2.64]");
  CHECK(line.text == "  return 2.0f * p[i];");
  CHECK(back.tma_kernels == t.tma_kernels);
  CHECK(back.partial);
  CHECK(back.dropped_records == 3);
  CHECK(back.filtered_kernels == 2);
}

TEST_CASE("trace_writer: processes, device identities and merge sources read back the same") {
  Trace t = sample_trace();
  t.devices[0].uuid = "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f";
  t.devices[0].pci_bus_id = "0000:2a:00.0";
  t.devices[0].host = "node3";
  Process p;
  p.id = p.pid = 77;
  p.host = "node3";
  p.rank = 1;
  p.world_size = 2;
  p.launcher = "torchrun";
  p.clock_start = ClockAnchor{100, 1700000000000000100, 25};
  t.processes.push_back(p);
  Process unranked;
  unranked.id = unranked.pid = 78;
  unranked.clock_end = ClockAnchor{5000, 1700000000000000900, 30, AnchorClock::kMonotonic};  // access mode's
  t.processes.push_back(unranked);
  t.merged_from.push_back({"a.json", "node3", "2026-11-29T04:00:00Z", {"python", "x.py"}, -1234, 50});
  Trace back = read_trace(vtools::dump_json(trace_to_document(t)), "t.json");
  CHECK(back.format_version == vtools::kTraceFormat.version);
  CHECK(back.devices[0].uuid == t.devices[0].uuid);
  CHECK(back.devices[0].pci_bus_id == "0000:2a:00.0");
  CHECK(back.devices[0].host == "node3");
  REQUIRE(back.processes.size() == 2);
  CHECK(back.processes[0].rank == 1);
  CHECK(back.processes[0].local_rank == -1);  // written as null
  CHECK(back.processes[0].world_size == 2);
  CHECK(back.processes[0].launcher == "torchrun");
  REQUIRE(back.processes[0].clock_start);
  CHECK(back.processes[0].clock_start->realtime_ns == 1700000000000000100);
  CHECK(back.processes[0].clock_start->uncertainty_ns == 25);
  CHECK_FALSE(back.processes[0].clock_end);
  CHECK(back.processes[0].clock_start->clock == AnchorClock::kCupti);
  CHECK(back.processes[0].clock_start->clock_ns == 100);
  CHECK(back.processes[1].rank == -1);
  CHECK_FALSE(back.processes[1].clock_start);
  REQUIRE(back.processes[1].clock_end);  // written as monotonic_ns, read back as that clock
  CHECK(back.processes[1].clock_end->clock == AnchorClock::kMonotonic);
  CHECK(back.processes[1].clock_end->clock_ns == 5000);
  const std::string text = vtools::dump_json(trace_to_document(t));
  CHECK(text.find("\"monotonic_ns\": 5000") != std::string::npos);
  CHECK(text.find("\"cupti_ns\": 5000") == std::string::npos);
  REQUIRE(back.merged_from.size() == 1);
  CHECK(back.merged_from[0].shift_ns == -1234);
  CHECK(back.merged_from[0].uncertainty_ns == 50);
  CHECK(back.merged_from[0].command == std::vector<std::string>{"python", "x.py"});
}

TEST_CASE("trace_writer: launch mode documents carry no access-mode arrays") {
  Trace t = sample_trace();
  t.run.mode = "launches";
  auto doc = trace_to_document(t);
  CHECK_FALSE(doc.contains("accesses"));
  CHECK_FALSE(doc.contains("findings"));
  CHECK(doc["allocations"][0]["freed_ns"] == 99);
}

TEST_CASE("trace_writer: a big trace (kernels formatted on several threads) keeps every kernel, in order") {
  Trace t = sample_trace();
  const Kernel k = t.kernels.front();
  t.kernels.clear();
  for (int i = 0; i < 50000; ++i) {
    Kernel copy = k;
    copy.correlation_id = static_cast<std::uint32_t>(i);
    copy.name = i % 7 == 0 ? "k\"quoted\"" : k.name;
    t.kernels.push_back(copy);
  }
  const std::string text = trace_document_text(t);
  Trace back = read_trace(text, "big.json");
  REQUIRE(back.kernels.size() == t.kernels.size());
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    CHECK(back.kernels[i].correlation_id == i);
    CHECK(back.kernels[i].name == t.kernels[i].name);
  }
  // One kernel per line: the document's lines = the kernels + the rest of the document.
  Trace small = t;
  small.kernels.resize(1);
  auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
  CHECK(lines(text) - lines(trace_document_text(small)) == 49999);
}

TEST_CASE("trace_reader: reads the committed sample trace") {
  Trace t = read_trace(vtools::read_input(VTOOLS_TEST_DATA "/vtrace/sample.trace.json"), "sample.trace.json");
  CHECK(t.kernels.size() == 4);
  CHECK(t.findings.size() == 1);
  CHECK(t.allocations.size() == 4);
  CHECK(t.run.mode == "accesses");
}

TEST_CASE("trace_reader: bad fields are refused with their JSON path") {
  CHECK(error_of(kHead + R"("kernels": []})") ==
        "t.json: run: missing, expected an object");
  CHECK(error_of(kHead + R"("run": {}})") ==
        "t.json: kernels: missing, expected an array");
  CHECK(error_of(kHead + R"("run": {"exit_status": "0"}, "kernels": []})") ==
        "t.json: run.exit_status: expected an integer from -2147483648 to 2147483647, got \"0\"");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{"name": "k", "grid": [1, 2]}]})") ==
        "t.json: kernels[0].grid: expected an array of 3 integers, got [1,2]");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{}, {"start_ns": 5, "end_ns": 4}]})") ==
        "t.json: kernels[1].end_ns: expected at least start_ns (5), got 4");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [], "accesses": [{"ranges": [[8, 4]]}]})") ==
        "t.json: accesses[0].ranges[0]: expected [lo, hi) of two integers from 0 to 18446744073709551615 with lo <= "
        "hi, got [8,4]");
  CHECK(error_of(kHead + R"("run": {}, "kernels": {}})") == "t.json: kernels: expected an array, got {}");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [], "findings": [{"source": {"line": -1}}]})") ==
        "t.json: findings[0].source.line: expected an integer from 0 to 4294967295, got -1");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [], "findings": [{"source": {"inlined_at": [{"file": 1}]}}]})") ==
        "t.json: findings[0].source.inlined_at[0].file: expected a string, got 1");
  // A value its field cannot hold is refused, not wrapped around (device ids are 32-bit).
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{"device_id": 4294967296}]})") ==
        "t.json: kernels[0].device_id: expected an integer from 0 to 4294967295, got 4294967296");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{"block": [1, 1, 18446744073709551615]}]})") ==
        "t.json: kernels[0].block[2]: expected an integer from 0 to 9223372036854775807, got "
        "18446744073709551615");
  CHECK(error_of(R"({"format": "vtools.plan", "version": 1})") ==
        "t.json: document format 'vtools.plan' where 'vtools.trace' was expected");
  // A key given twice: JSON tools keep the last list; joining both would double the records without a word.
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{"name": "a"}], "kernels": [{"name": "b"}]})") ==
        "t.json: kernels: given twice, expected once");
  // One time without the other would read as a kernel that ran from 0 ns (57 years of GPU time).
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{"name": "k", "end_ns": 1795812958603246824}]})") ==
        "t.json: kernels[0].start_ns: missing, expected an integer");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{"name": "k", "start_ns": 5}]})") ==
        "t.json: kernels[0].end_ns: missing, expected an integer");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [{"name": "k", "grid": [-1, 1, 1]}]})") ==
        "t.json: kernels[0].grid[0]: expected an integer from 0 to 9223372036854775807, got -1");
}

TEST_CASE("trace_reader: unknown fields are ignored") {
  Trace t = read_trace(kHead + R"("run": {"future": 1}, "kernels": [{"name": "k", "new_field": [1]}], "extra": {}})",
                       "t.json");
  CHECK(t.kernels.size() == 1);
}

TEST_CASE("trace_reader: access records name their kernel by kernel_id (version 2) or by name (version 1)") {
  const std::string v2 =
      R"J({"format": "vtools.trace", "version": 2, "tool": {"name": "vtrace", "version": "0"}, "created": "x", )J"
      R"J("run": {"mode": "accesses"}, "kernels": [], "access_kernels": ["gemm(float*)", "fill(int*)"], )J"
      R"J("accesses": [{"kernel_id": 1, "launch": 0, "block": [0, 0, 0], "allocation": 1, "ranges": [[0, 4]]},)J"
      R"J({"kernel_id": 0, "launch": 2, "block": [1, 0, 0], "allocation": 1, "ranges": [[0, 4]]}]})J";
  const std::string v1 =
      R"J({"format": "vtools.trace", "version": 1, "tool": {"name": "vtrace", "version": "0"}, "created": "x", )J"
      R"J("run": {"mode": "accesses"}, "kernels": [], "accesses": [)J"
      R"J({"kernel": "fill(int*)", "launch": 0, "block": [0, 0, 0], "allocation": 1, "ranges": [[0, 4]]},)J"
      R"J({"kernel": "gemm(float*)", "launch": 2, "block": [1, 0, 0], "allocation": 1, "ranges": [[0, 4]]}]})J";
  for (const std::string& text : {v2, v1}) {
    const Trace t = read_trace(text, "t.json");
    REQUIRE(t.accesses.size() == 2);
    CHECK(t.accesses[0].kernel == std::string_view("fill(int*)"));
    CHECK(t.accesses[1].kernel == std::string_view("gemm(float*)"));
    CHECK(t.accesses[1].launch == 2);
  }
  // Written again, a version-1 trace becomes version 2 with the same records.
  const Trace again = read_trace(trace_document_text(read_trace(v1, "t.json")), "again.json");
  CHECK(again.accesses[0].kernel == std::string_view("fill(int*)"));
  CHECK(error_of(kHead + R"J("run": {}, "kernels": [], "access_kernels": ["k"], "accesses": [{"kernel_id": 1}]})J") ==
        "t.json: accesses[0].kernel_id: expected an index into access_kernels (1 names), got 1");
}

TEST_CASE("trace_reader: access_kernels after the accesses (not where vtrace writes it) is still read") {
  const std::string text =
      R"J({"format": "vtools.trace", "version": 2, "tool": {"name": "vtrace", "version": "0"}, "created": "x", )J"
      R"J("run": {"mode": "accesses"}, "kernels": [], "accesses": [)J"
      R"J({"kernel_id": 1, "launch": 0, "block": [0, 0, 0], "allocation": 1, "ranges": [[0, 4]]}],)J"
      R"J("access_kernels": ["gemm(float*)", "fill(int*)"]})J";
  const Trace t = read_trace(text, "t.json");
  REQUIRE(t.accesses.size() == 1);
  CHECK(t.accesses[0].kernel == std::string_view("fill(int*)"));
  CHECK(error_of(kHead + R"J("run": {}, "kernels": [], "accesses": [{}, {"kernel_id": 2}], "access_kernels": ["k"]})J") ==
        "t.json: accesses[1].kernel_id: expected an index into access_kernels (1 names), got 2");
  CHECK(error_of(kHead + R"J("run": {}, "kernels": [], "access_kernels": [3]})J") ==
        "t.json: access_kernels[0]: expected a string, got 3");
  CHECK(error_of(kHead + R"J("run": {}, "kernels": [], "accesses": {}})J") == "t.json: accesses: expected an array, got {}");
}

TEST_CASE("trace_reader: access_columns, access_kernels and accesses are read in any key order") {
  const Trace t = access_trace();
  const std::string written = trace_document_text(t);
  // vtrace writes the columns and kernel names before the rows: the order read a row at a time.
  REQUIRE(written.find("\"access_columns\"") < written.find("\"accesses\": ["));
  REQUIRE(written.find("\"access_kernels\"") < written.find("\"accesses\": ["));
  const Trace first = read_trace(written, "t.json");
  REQUIRE(first.accesses.size() == t.accesses.size());
  for (std::size_t i = 0; i < t.accesses.size(); ++i)
    CHECK(access_fields(first.accesses[i]) == access_fields(t.accesses[i]));
  // Every order of the three keys, and of findings between them (an element of another key after the columns).
  std::vector<std::string> keys = {"access_columns", "access_kernels", "accesses", "findings"};
  int orders = 0;
  do {
    const std::string order = keys[0] + " " + keys[1] + " " + keys[2] + " " + keys[3];
    CAPTURE(order);
    const std::string text = with_keys_last(written, keys);
    const auto passes = [&text] { return std::make_unique<vtools::StringTextStream>(text, 7); };
    for (const Trace& back : {read_trace(text, "t.json"), read_trace(vtools::OpenText(passes), "t.json")}) {
      REQUIRE(back.accesses.size() == t.accesses.size());
      for (std::size_t i = 0; i < t.accesses.size(); ++i)
        CHECK(access_fields(back.accesses[i]) == access_fields(first.accesses[i]));
      CHECK(back.findings.size() == t.findings.size());
    }
    ++orders;
  } while (std::next_permutation(keys.begin(), keys.end()));
  CHECK(orders == 24);
}

TEST_CASE("trace_reader: rows read before their columns are refused as rows read after them") {
  const std::string head =
      R"J({"format": "vtools.trace", "version": 3, "tool": {"name": "vtrace", "version": "0"}, "created": "x", )J"
      R"J("run": {"mode": "accesses"}, "kernels": [], "access_kernels": ["k"], )J";
  const std::string columns = R"J("access_columns": ["kernel_id", "launch", "block", "allocation"])J";
  const std::string short_row = R"J("accesses": [[0, 0, [0, 0, 0], 1], [0, 1, [0, 0, 0]]])J";
  const std::string message = "t.json: accesses[1]: expected an array of 4 values (one per column), got [0,1,[0,0,0]]";
  CHECK(error_of(head + columns + ", " + short_row + "}") == message);
  CHECK(error_of(head + short_row + ", " + columns + "}") == message);
  const std::string bad_id = R"J("accesses": [[0, 0, [0, 0, 0], 1], [1, 0, [0, 0, 0], 1]])J";
  CHECK(error_of(head + bad_id + ", " + columns + "}") ==
        "t.json: accesses[1].kernel_id: expected an index into access_kernels (1 names), got 1");
  // Columns never given, or given empty: the rows have none to be read by, wherever they are.
  const std::string rows = R"J("accesses": [[0, 0, [0, 0, 0], 1]])J";
  CHECK(error_of(head + rows + "}") ==
        "t.json: accesses[0]: expected an object, or a row of access_columns (none given), got [0,0,[0,0,0],1]");
  CHECK(error_of(head + rows + R"J(, "access_columns": []})J") ==
        "t.json: accesses[0]: expected an object, or a row of access_columns (none given), got [0,0,[0,0,0],1]");
  CHECK(error_of(head + R"J("access_columns": [], )J" + rows + "}") ==
        "t.json: accesses[0]: expected an object, or a row of access_columns (none given), got [0,0,[0,0,0],1]");
  // Given twice (JSON keys should be unique): which list the rows read already follow cannot be told.
  const std::string twice = "t.json: access_columns: given twice, expected once";
  CHECK(error_of(head + columns + ", " + rows + ", " + columns + "}") == twice);
  CHECK(error_of(head + columns + ", " + columns + ", " + rows + "}") == twice);
  CHECK(error_of(head + columns + R"J(, "access_columns": [1], )J" + rows + "}") ==
        "t.json: access_columns[0]: expected a string, got 1");
}

TEST_CASE("trace_writer: hot lines (line rows and instruction rows) read back the same") {
  Trace t = sample_trace();
  HotLine line;
  line.kernel = "fill(float*, int, float)";
  line.file = "/src/k.cu";
  line.line = 12;
  line.function = "fill(float*, int, float)";
  line.text = "    float v = in[i];";
  line.pcs = 2;
  line.pc_offset = 0xc0;
  line.loads = 96;
  line.bytes_loaded = 384;
  line.requests = 3;
  line.sectors = 12;
  line.lanes = 96;
  line.findings = 1;
  HotLine pc;
  pc.kernel = line.kernel;
  pc.pc_offset = 0x1f0;
  pc.sass = "STG.E [R2.64], R5";
  pc.note = "no source line: the module has no line table";
  pc.stores = 32;
  pc.bytes_stored = 128;
  pc.bulk_copies = 1;
  t.hot_lines = {line, pc};
  t.hot_lines_dropped_requests = 7;
  const auto doc = trace_to_document(t);
  CHECK(doc["hot_lines"][0]["sectors_per_request"] == 4.0);
  CHECK(doc["hot_lines"][0]["active_lanes_per_request"] == 32.0);
  CHECK(doc["hot_lines"][1]["file"].is_null());
  CHECK(doc["hot_lines"][1]["line"].is_null());
  const Trace back = read_trace(vtools::dump_json(doc), "t.json");
  REQUIRE(back.hot_lines.size() == 2);
  const HotLine& l = back.hot_lines[0];
  CHECK(l.kernel == line.kernel);
  CHECK(l.file == "/src/k.cu");
  CHECK(l.line == 12);
  CHECK(l.function == line.function);
  CHECK(l.text == line.text);
  CHECK(l.pcs == 2);
  CHECK(l.pc_offset == 0xc0);
  CHECK(l.loads == 96);
  CHECK(l.bytes_loaded == 384);
  CHECK(l.requests == 3);
  CHECK(l.sectors == 12);
  CHECK(l.lanes == 96);
  CHECK(l.findings == 1);
  const HotLine& p = back.hot_lines[1];
  CHECK(p.file.empty());
  CHECK(p.line == 0);
  CHECK(p.pc_offset == 0x1f0);
  CHECK(p.sass == pc.sass);
  CHECK(p.note == pc.note);
  CHECK(p.stores == 32);
  CHECK(p.bytes_stored == 128);
  CHECK(p.bulk_copies == 1);
  CHECK(back.hot_lines_dropped_requests == 7);
  t.run.mode = "launches";
  CHECK_FALSE(trace_to_document(t).contains("hot_lines"));
  t.run.mode = "accesses";  // an access-mode trace without hot lines (VTRACE_ACCESS_PCS=0) keeps its bytes
  t.hot_lines.clear();
  t.hot_lines_dropped_requests = 0;
  CHECK_FALSE(trace_to_document(t).contains("hot_lines"));
}

TEST_CASE("trace_reader: bad hot lines are refused with their JSON path") {
  CHECK(error_of(kHead + R"("run": {}, "kernels": [], "hot_lines": [{"file": "k.cu"}]})") ==
        "t.json: hot_lines[0].line: missing, expected an integer from 1 to 4294967295 where file is given");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [], "hot_lines": [{"file": "k.cu", "line": 0}]})") ==
        "t.json: hot_lines[0].line: expected an integer from 1 to 4294967295, got 0");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [], "hot_lines": [{}, {"loads": -1}]})") ==
        "t.json: hot_lines[1].loads: expected an integer from 0 to 18446744073709551615, got -1");
  CHECK(error_of(kHead + R"("run": {}, "kernels": [], "hot_lines": {}})") ==
        "t.json: hot_lines: expected an array, got {}");
}

TEST_CASE("trace_reader: access records, findings and sites name their process; older documents their only one") {
  // A document from before process_id (issue 42): its one process owns every access-mode record.
  const Trace old = read_trace(vtools::read_input(VTOOLS_TEST_DATA "/vtrace/ranks/access_rank1.trace.json"),
                               "access_rank1.trace.json");
  REQUIRE(old.accesses.size() == 1);
  CHECK(old.accesses[0].process_id == 4200);
  REQUIRE(old.findings.size() == 1);
  CHECK(old.findings[0].process_id == 4200);
  REQUIRE(old.finding_sites.size() == 1);
  CHECK(old.finding_sites[0].process_id == 4200);
  // Several processes and no process_id: not recorded (0), never guessed.
  const std::string two =
      R"J({"format": "vtools.trace", "version": 3, "tool": {"name": "vtrace", "version": "0"}, "created": "x", )J"
      R"J("run": {"mode": "accesses", "process_ids": [1, 2]}, "kernels": [], "access_kernels": ["k"], )J"
      R"J("access_columns": ["kernel_id", "launch", "block", "allocation", "ranges"], )J"
      R"J("accesses": [[0, 0, [0, 0, 0], 1, [[0, 4]]]], "findings": [{"kernel": "k", "launch": 0}]})J";
  const Trace unknown = read_trace(two, "two.json");
  CHECK(unknown.accesses[0].process_id == 0);
  CHECK(unknown.findings[0].process_id == 0);
  // Written and read again, each record keeps its process.
  Trace t = old;
  t.processes.push_back(t.processes[0]);
  t.processes[1].id = t.processes[1].pid = 4300;
  t.accesses.push_back(t.accesses[0]);
  t.accesses[1].process_id = 4300;
  t.findings.push_back(t.findings[0]);
  t.findings[1].process_id = 4300;
  t.finding_sites.push_back(t.finding_sites[0]);
  t.finding_sites[1].process_id = 4300;
  HotLine h;
  h.kernel = "add(float*, float*, int)";
  h.process_id = 4300;
  h.file = "add.cu";
  h.line = 3;
  t.hot_lines.push_back(h);
  const Trace back = read_trace(trace_document_text(t), "t.json");
  REQUIRE(back.accesses.size() == 2);
  CHECK(back.accesses[0].process_id == 4200);
  CHECK(back.accesses[1].process_id == 4300);
  CHECK(back.findings[1].process_id == 4300);
  CHECK(back.finding_sites[1].process_id == 4300);
  REQUIRE(back.hot_lines.size() == 1);
  CHECK(back.hot_lines[0].process_id == 4300);
}
