// Raw record files: what the injection library writes is what vtrace run reads back, torn tails are tolerated.
#include <doctest/doctest.h>

#include "libcommon/error.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/raw_record_writer.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::raw;

namespace {

std::string sample_file(bool with_end) {
  RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, ProcessRecord{4242, 1000});
  b.add(Tag::kDevice, DeviceRecord{0, 9, 0, 132, 80ull << 30}, "NVIDIA H100 80GB HBM3");
  KernelRecord k{};
  k.start_ns = 2000;
  k.end_ns = 2500;
  k.grid[0] = 4, k.grid[1] = 1, k.grid[2] = 1;
  k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
  k.registers_per_thread = 16;
  b.add(Tag::kKernel, k, "_Z4fillPfif");
  b.add(Tag::kMemcpy, MemcpyRecord{100, 200, 4096, 1, 0, 1, 7, 11, 0});
  b.add(Tag::kMemset, MemsetRecord{300, 350, 4096, 0, 0, 1, 7, 12, 0});
  b.add(Tag::kMemory, MemoryRecord{50, 0x7f0000000000, 4096, 1, 3, 0, 1});
  b.add(Tag::kFailedLaunch, FailedLaunchRecord{9, 77}, std::string("cudaLaunchKernel\0_Z4fillPfif", 28));
  b.add(Tag::kDropped, DroppedRecord{5});
  b.add(Tag::kDropped, DroppedRecord{2});
  b.add_note("CUPTI is already in use");
  if (with_end) b.add(Tag::kEnd, EndRecord{9000});
  return b.bytes();
}

}  // namespace

TEST_CASE("raw_record_reader: every record kind round-trips through the writer") {
  Capture c = read_capture(sample_file(true), "raw-4242.bin");
  CHECK(c.process.pid == 4242);
  REQUIRE(c.devices.size() == 1);
  CHECK(c.devices[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(c.devices[0].record.sm_count == 132);
  REQUIRE(c.kernels.size() == 1);
  CHECK(c.kernels[0].mangled_name == "_Z4fillPfif");
  CHECK(c.kernels[0].record.grid[0] == 4);
  CHECK(c.kernels[0].record.end_ns == 2500);
  REQUIRE(c.memcpys.size() == 1);
  CHECK(c.memcpys[0].bytes == 4096);
  REQUIRE(c.memsets.size() == 1);
  REQUIRE(c.memory.size() == 1);
  CHECK(c.memory[0].address == 0x7f0000000000);
  REQUIRE(c.failed_launches.size() == 1);
  CHECK(c.failed_launches[0].api == "cudaLaunchKernel");
  CHECK(c.failed_launches[0].kernel == "_Z4fillPfif");
  CHECK(c.failed_launches[0].record.status == 9);
  CHECK(c.dropped == 7);
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0] == "CUPTI is already in use");
  CHECK(c.ended);
  CHECK(c.torn_bytes == 0);
}

TEST_CASE("raw_record_reader: a file cut inside a record keeps what came before and counts the torn bytes") {
  std::string full = sample_file(false);
  for (std::size_t cut : {std::size_t{3}, std::size_t{7}, std::size_t{11}}) {
    Capture c = read_capture(std::string_view(full).substr(0, full.size() - cut), "raw.bin");
    CHECK_FALSE(c.ended);
    CHECK(c.torn_bytes > 0);
    CHECK(c.kernels.size() == 1);
    CHECK(c.notes.empty());  // the note was the last record and is torn
  }
}

TEST_CASE("raw_record_reader: a file without the end record is not ended") {
  Capture c = read_capture(sample_file(false), "raw.bin");
  CHECK_FALSE(c.ended);
  CHECK(c.torn_bytes == 0);
}

TEST_CASE("raw_record_reader: bad input is refused with the byte offset") {
  auto message = [](const std::string& bytes) {
    try {
      read_capture(bytes, "raw.bin");
    } catch (const vtools::Error& e) {
      CHECK(e.code() == vtools::ExitCode::kDataError);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("VTRAW002") == "raw.bin: byte 0: not a vtrace raw record file (bad magic)");
  RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, ProcessRecord{1, 1});
  RecordBatch unknown = b;
  unknown.add(static_cast<Tag>(99), DroppedRecord{1});
  CHECK(message(unknown.bytes()) == "raw.bin: byte 32: unknown record tag 99");
  RecordBatch short_memcpy = b;
  short_memcpy.add(Tag::kMemcpy, DroppedRecord{1});
  CHECK(message(short_memcpy.bytes()) == "raw.bin: byte 32: memcpy record of 8 bytes, expected 48");
  RecordBatch no_process;
  no_process.add_magic();
  no_process.add(Tag::kDropped, DroppedRecord{1});
  CHECK(message(no_process.bytes()) == "raw.bin: byte 8: the first record is not a process record");
}

TEST_CASE("raw_record_reader: identity, clock anchors and device identities are read") {
  RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, ProcessRecord{4242, 1000});
  b.add_bytes_record(Tag::kIdentity, std::string("node3\0RANK=1\0WORLD_SIZE=2", 25));
  b.add(Tag::kClockAnchor, ClockAnchorRecord{1000, 1700000000000000000, 40});
  DeviceIdentityRecord id{1, 0, 0x19, 0, {}};
  id.uuid[0] = 0xab;
  b.add(Tag::kDeviceIdentity, id);
  b.add(Tag::kClockAnchor, ClockAnchorRecord{9000, 1700000000000008100, 30});
  Capture c = read_capture(b.bytes(), "raw-4242.bin");
  CHECK(c.host == "node3");
  REQUIRE(c.launcher_variables.size() == 2);
  CHECK(c.launcher_variables[0] == std::pair<std::string, std::string>{"RANK", "1"});
  CHECK(c.launcher_variables[1] == std::pair<std::string, std::string>{"WORLD_SIZE", "2"});
  REQUIRE(c.clock_anchors.size() == 2);
  CHECK(c.clock_anchors[1].realtime_ns == 1700000000000008100);
  REQUIRE(c.device_identities.size() == 1);
  CHECK(c.device_identities[0].pci_bus == 0x19);
  CHECK(c.device_identities[0].uuid[0] == 0xab);
}

TEST_CASE("raw_record_reader: an identity part without '=' is refused") {
  RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, ProcessRecord{4242, 1000});
  b.add_bytes_record(Tag::kIdentity, std::string("node3\0RANK", 10));
  CHECK_THROWS_WITH_AS(read_capture(b.bytes(), "raw-4242.bin"),
                       "raw-4242.bin: byte 32: identity record: expected KEY=VALUE, got 'RANK'", vtools::Error);
}

TEST_CASE("raw_record_reader: access mode's CLOCK_MONOTONIC anchors are read; an unknown clock is refused") {
  RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, ProcessRecord{4242, 0});
  b.add(Tag::kClockAnchor, ClockAnchorRecord{5000, 1700000000000000000, 40, kClockMonotonic});
  Capture c = read_capture(b.bytes(), "raw-4242.bin");
  REQUIRE(c.clock_anchors.size() == 1);
  CHECK(c.clock_anchors[0].clock == kClockMonotonic);
  CHECK(c.clock_anchors[0].clock_ns == 5000);
  RecordBatch bad;
  bad.add_magic();
  bad.add(Tag::kProcess, ProcessRecord{4242, 0});
  bad.add(Tag::kClockAnchor, ClockAnchorRecord{5000, 1700000000000000000, 40, 7});
  std::string message;
  try {
    read_capture(bad.bytes(), "raw.bin");
  } catch (const vtools::Error& e) {
    message = e.what();
  }
  CHECK(message == "raw.bin: byte 32: clock anchor of unknown clock 7");
}
