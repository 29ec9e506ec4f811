// The raw-record sink both injection libraries write through: what it appends, the lost-record count and end records
// it closes with, once, and nothing after a fork or when the file cannot be opened. Read back with the parent's reader.
#include "tools/vtrace/injection/raw_record_sink.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tools/vtrace/raw_record_reader.hpp"
#include "tests/vtrace/scratch_dir.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::raw;
using vtools::vtrace::injection::RawRecordSink;

namespace {

/// A fresh directory for one case; the sink's file in it is raw-<this pid>.bin.
struct RawDir : vtools::vtrace::testing::ScratchDir {
  explicit RawDir(const std::string& name) : ScratchDir("vtrace-sink", name) {}
  [[nodiscard]] std::string file_bytes() const {
    std::ifstream in(path / ("raw-" + std::to_string(::getpid()) + ".bin"), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

RecordBatch first_batch() {
  RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, ProcessRecord{::getpid(), 10});
  return b;
}

}  // namespace

TEST_CASE("raw_record_sink: batches in order, then the lost count and the end records, once") {
  RawDir dir("order");
  RawRecordSink sink;
  REQUIRE(sink.open(dir.path.string()));
  sink.write(first_batch());
  sink.write_note("first note");
  sink.count_lost(3);
  CHECK_FALSE(sink.finished());
  REQUIRE(sink.begin_finish());
  CHECK(sink.finished());
  CHECK_FALSE(sink.begin_finish());  // exit after a failed start: one end only
  sink.close_with([](RecordBatch& b) { b.add(Tag::kEnd, EndRecord{77}); });
  sink.write_note("after close");  // the file is closed: lost, not written

  const Capture c = read_capture(dir.file_bytes(), "raw.bin");
  CHECK(c.process.pid == ::getpid());
  CHECK(c.notes == std::vector<std::string>{"first note"});
  CHECK(c.dropped == 3);
  CHECK(c.ended);
  CHECK(c.torn_bytes == 0);
}

TEST_CASE("raw_record_sink: no lost records, no dropped record") {
  RawDir dir("clean");
  RawRecordSink sink;
  REQUIRE(sink.open(dir.path.string()));
  sink.write(first_batch());
  REQUIRE(sink.begin_finish());
  sink.close_with([](RecordBatch& b) { b.add(Tag::kEnd, EndRecord{0}); });
  const std::string bytes = dir.file_bytes();
  RecordBatch expected = first_batch();
  expected.add(Tag::kEnd, EndRecord{0});
  CHECK(bytes == expected.bytes());
}

TEST_CASE("raw_record_sink: records written while the file is closed count as lost at the end") {
  RawDir dir("reopen");
  RawRecordSink sink;
  sink.write_note("before open");  // no file yet: one lost record
  REQUIRE(sink.open(dir.path.string()));
  sink.write(first_batch());
  REQUIRE(sink.begin_finish());
  sink.close_with([](RecordBatch& b) { b.add(Tag::kEnd, EndRecord{0}); });
  const Capture c = read_capture(dir.file_bytes(), "raw.bin");
  CHECK(c.notes.empty());
  CHECK(c.dropped == 1);
  CHECK(c.ended);
}

TEST_CASE("raw_record_sink: after a fork the child writes nothing and never ends the parent's file") {
  RawDir dir("fork");
  RawRecordSink sink;
  REQUIRE(sink.open(dir.path.string()));
  sink.write(first_batch());
  sink.detach_after_fork();
  CHECK(sink.finished());
  sink.write_note("from the child");
  CHECK_FALSE(sink.begin_finish());
  CHECK(dir.file_bytes() == first_batch().bytes());
}

TEST_CASE("raw_record_sink: a directory that cannot be opened leaves the sink inert") {
  RawRecordSink sink;
  CHECK_FALSE(sink.open("/nonexistent-vtrace-raw-dir"));
  sink.write(first_batch());  // counted as lost, nowhere to go; must not crash
  CHECK_FALSE(sink.finished());
}

TEST_CASE("raw_record_sink: a writer thread writes the batches of many threads in the order they were queued") {
  RawDir direct_dir("direct"), background_dir("background");
  RawRecordSink direct, background;
  REQUIRE(direct.open(direct_dir.path.string()));
  REQUIRE(background.open(background_dir.path.string()));
  background.write_in_background(4096);  // small: writers wait for room (a queue over it holds one batch)
  direct.write(first_batch());
  background.write(first_batch());
  for (int i = 0; i < 300; ++i) {
    RecordBatch b;
    b.add_note("note " + std::to_string(i) + std::string(static_cast<std::size_t>(i) * 7, 'x'));
    direct.write(b);
    background.write(std::move(b));
  }
  for (RawRecordSink* s : {&direct, &background}) {
    REQUIRE(s->begin_finish());
    s->close_with([](RecordBatch& b) { b.add(Tag::kEnd, EndRecord{0}); });
  }
  CHECK(background_dir.file_bytes() == direct_dir.file_bytes());
  const Capture c = read_capture(background_dir.file_bytes(), "raw.bin");
  CHECK(c.notes.size() == 300);
  CHECK(c.ended);

  RawDir threads_dir("threads");  // batches from several threads at once: each whole, none lost
  RawRecordSink shared;
  REQUIRE(shared.open(threads_dir.path.string()));
  shared.write_in_background(1 << 16);
  shared.write(first_batch());
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&shared, t] {
      for (int i = 0; i < 200; ++i) shared.write_note("thread " + std::to_string(t) + " note " + std::to_string(i));
    });
  for (auto& w : writers) w.join();
  REQUIRE(shared.begin_finish());
  shared.close_with([](RecordBatch& b) { b.add(Tag::kEnd, EndRecord{0}); });
  const Capture all = read_capture(threads_dir.file_bytes(), "raw.bin");
  CHECK(all.notes.size() == 800);
  CHECK(all.dropped == 0);
  CHECK(all.ended);
}

TEST_CASE("raw_record_sink: jobs run in order with the batches (on the writer thread, or here without one)") {
  RawDir direct_dir("jobs-direct"), background_dir("jobs-background");
  RawRecordSink direct, background;
  REQUIRE(direct.open(direct_dir.path.string()));
  REQUIRE(background.open(background_dir.path.string()));
  background.write_in_background(4096);
  const std::thread::id here = std::this_thread::get_id();
  std::atomic<int> jobs_here{0}, jobs_run{0};
  for (RawRecordSink* s : {&direct, &background}) {
    s->write(first_batch());
    for (int i = 0; i < 50; ++i) {
      s->write_note("batch " + std::to_string(i));
      s->write_job([&, i](const RawRecordSink::Emit& emit) {  // two batches from one job
        jobs_here += std::this_thread::get_id() == here;
        ++jobs_run;
        for (int k = 0; k < 2; ++k) {
          RecordBatch b;
          b.add_note("job " + std::to_string(i) + "." + std::to_string(k));
          emit(b);
        }
      });
    }
    s->write_job([](const RawRecordSink::Emit&) { throw std::runtime_error("lost"); });  // counted, not fatal
  }
  background.drain();  // every job has run
  CHECK(jobs_run == 100);
  CHECK(jobs_here == 50);  // only the direct sink's
  for (RawRecordSink* s : {&direct, &background}) {
    REQUIRE(s->begin_finish());
    s->close_with([](RecordBatch& b) { b.add(Tag::kEnd, EndRecord{0}); });
  }
  CHECK(background_dir.file_bytes() == direct_dir.file_bytes());
  const Capture c = read_capture(background_dir.file_bytes(), "raw.bin");
  REQUIRE(c.notes.size() == 150);
  CHECK(c.notes[0] == "batch 0");
  CHECK(c.notes[1] == "job 0.0");
  CHECK(c.notes[2] == "job 0.1");
  CHECK(c.notes[149] == "job 49.1");
  CHECK(c.dropped == 1);
}
