// Folding the raw records while the command exits: when it runs, and when its result is dropped (real files, a real
// thread; no GPU).
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "tools/vtrace/early_fold.hpp"
#include "tools/vtrace/raw_records.hpp"
#include "tests/vtrace/scratch_dir.hpp"

using namespace vtools::vtrace;

namespace {

struct Dir : vtools::vtrace::testing::ScratchDir {
  explicit Dir(const std::string& name) : ScratchDir("vtrace-early", name) {}
  /// Appends to `file` the magic (when new), `filler` bytes and, with `end`, an end record's frame.
  void append(const std::string& file, std::size_t filler, bool end) const {
    const auto p = path / file;
    const bool fresh = !std::filesystem::exists(p);
    std::ofstream out(p, std::ios::binary | std::ios::app);
    if (fresh) out.write(raw::kMagic, sizeof raw::kMagic);
    out << std::string(filler, '\x07');
    if (end) {
      raw::FrameHeader h{static_cast<std::uint32_t>(raw::Tag::kEnd), sizeof(raw::EndRecord)};
      raw::EndRecord e{0};
      out.write(reinterpret_cast<const char*>(&h), sizeof h);
      out.write(reinterpret_cast<const char*>(&e), sizeof e);
    }
  }
};

/// Waits (up to 5 s) until the early fold has run.
bool wait_folded(const EarlyFold<int>& early) {
  for (int i = 0; i < 500 && !early.folded(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return early.folded();
}

}  // namespace

TEST_CASE("early fold: stamps see which raw files ended") {
  Dir d("stamps");
  d.append("a.bin", 40, true);
  d.append("b.bin", 40, false);
  d.append("notes.txt", 40, true);  // not a raw file
  auto stamps = stamp_raw_files(d.path.string());
  REQUIRE(stamps.size() == 2);
  CHECK(stamps[0].ended);
  CHECK_FALSE(stamps[1].ended);
  CHECK_FALSE(all_ended(stamps));
  CHECK_FALSE(all_ended({}));
  d.append("b.bin", 0, true);
  CHECK(all_ended(stamp_raw_files(d.path.string())));
}

TEST_CASE("early fold: folds once every file ended, and its result is used when nothing changed after") {
  Dir d("used");
  d.append("raw-1.bin", 100, true);
  d.append("raw-2.bin", 100, true);
  std::atomic<int> calls{0};
  EarlyFold<int> early(d.path.string(), [&] { return 40 + ++calls; });
  early.start(1);
  REQUIRE(wait_folded(early));
  auto result = early.take();
  REQUIRE(result.has_value());
  CHECK(*result == 41);
  CHECK(calls == 1);
}

TEST_CASE("early fold: nothing before every file ended") {
  Dir d("unended");
  d.append("raw-1.bin", 100, true);
  d.append("raw-2.bin", 100, false);  // a process still running
  std::atomic<int> calls{0};
  EarlyFold<int> early(d.path.string(), [&] { return ++calls; });
  early.start(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(early.folded());
  CHECK_FALSE(early.take().has_value());
  CHECK(calls == 0);
}

TEST_CASE("early fold: dropped when a file grew or a new one came after it ran") {
  std::atomic<int> calls{0};
  SUBCASE("grew") {
    Dir d("grew");
    d.append("raw-1.bin", 100, true);  // a site record's bytes that look like an end record, say
    EarlyFold<int> early(d.path.string(), [&] { return ++calls; });
    early.start(1);
    REQUIRE(wait_folded(early));
    d.append("raw-1.bin", 10, true);
    CHECK_FALSE(early.take().has_value());
  }
  SUBCASE("new file") {
    Dir d("new");
    d.append("raw-1.bin", 100, true);
    EarlyFold<int> early(d.path.string(), [&] { return ++calls; });
    early.start(1);
    REQUIRE(wait_folded(early));
    d.append("raw-2.bin", 10, false);  // a process started after the first one ended
    CHECK_FALSE(early.take().has_value());
  }
  CHECK(calls == 1);
}

TEST_CASE("early fold: a fold that throws leaves the work to after the exit") {
  Dir d("throws");
  d.append("raw-1.bin", 100, true);
  EarlyFold<int> early(d.path.string(), []() -> int { throw std::runtime_error("unreadable"); });
  early.start(1);
  REQUIRE(wait_folded(early));
  CHECK_FALSE(early.take().has_value());
}

TEST_CASE("early fold: never started, or an empty directory: nothing") {
  Dir d("empty");
  EarlyFold<int> idle(d.path.string(), [] { return 1; });
  CHECK_FALSE(idle.take().has_value());
  EarlyFold<int> early(d.path.string(), [] { return 1; });
  early.start(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  CHECK_FALSE(early.folded());
  CHECK_FALSE(early.take().has_value());
}

TEST_CASE("early fold: waits for the command's own records, not only for the others'") {
  Dir d("own");
  d.append("raw-2.bin", 100, true);  // a process the command started ended; the command itself has no file yet
  std::atomic<int> calls{0};
  EarlyFold<int> early(d.path.string(), [&] { return ++calls; });
  early.start(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(early.folded());
  d.append("raw-1.bin", 100, true);
  REQUIRE(wait_folded(early));
  auto result = early.take();
  REQUIRE(result.has_value());
  CHECK(calls == 1);
}

TEST_CASE("early fold: folds again when the files changed and all ended again") {
  Dir d("again");
  d.append("raw-1.bin", 100, true);
  std::atomic<int> calls{0};
  EarlyFold<int> early(d.path.string(), [&] { return ++calls; });
  early.start(1);
  REQUIRE(wait_folded(early));
  d.append("raw-2.bin", 10, false);  // a late process: the first result goes
  for (int i = 0; i < 500 && early.dropped() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  d.append("raw-2.bin", 0, true);
  for (int i = 0; i < 500 && calls < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto result = early.take();
  REQUIRE(result.has_value());
  CHECK(*result == 2);
  CHECK(early.dropped() == 1);
}

TEST_CASE("early fold: nothing once vtrace was interrupted") {
  Dir d("cancelled");
  d.append("raw-1.bin", 100, true);
  std::atomic<int> calls{0};
  EarlyFold<int> early(d.path.string(), [&] { return ++calls; }, [] { return true; });
  early.start(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(early.take().has_value());
  CHECK(calls == 0);
}
