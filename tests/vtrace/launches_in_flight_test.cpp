// The access preload's list of launches in flight: order and bytes, the oldest taken out and put back, and the
// waits of a stream's or context's end for launches other threads hold (with real threads; no GPU).
#include "tools/vtrace/injection/launches_in_flight.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using vtools::vtrace::injection::LaunchesInFlight;

namespace {

using List = LaunchesInFlight<std::string>;

std::vector<std::string> take_all(List& list) {
  return list.take([](const std::string&) { return true; }, false).launches;
}

/// A thread holding the oldest launch, as the reader thread does while it polls one that has not finished, until
/// release() (then it goes back to the list).
class HoldingThread {
 public:
  explicit HoldingThread(List& list) : thread_([this, &list] {
    List::Oldest oldest(list);
    holding_.set_value();
    release_.get_future().wait();
  }) {
    holding_.get_future().wait();
  }
  HoldingThread(const HoldingThread&) = delete;
  HoldingThread& operator=(const HoldingThread&) = delete;
  ~HoldingThread() { release(); }
  void release() {
    if (!thread_.joinable()) return;
    release_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> holding_, release_;  // before thread_, which uses them
  std::thread thread_;
};

}  // namespace

TEST_CASE("launches in flight: pushed in order, taken by a predicate, bytes kept") {
  List list;
  CHECK(list.push("a0", 10) == 10);
  CHECK(list.push("b1", 20) == 30);
  CHECK(list.push("a2", 5) == 35);
  const auto a = list.take([](const std::string& l) { return l[0] == 'a'; }, false);
  CHECK(a.launches == std::vector<std::string>{"a0", "a2"});
  CHECK_FALSE(a.timed_out);
  CHECK(list.bytes() == 20);
  CHECK(take_all(list) == std::vector<std::string>{"b1"});
  CHECK(list.bytes() == 0);
}

TEST_CASE("launches in flight: the oldest goes back to the front unless taken") {
  List list;
  list.push("first", 7);
  list.push("second", 3);
  {
    List::Oldest oldest(list);
    REQUIRE(oldest);
    CHECK(*oldest == "first");
    CHECK(list.bytes() == 3);  // out of the list while held
  }
  CHECK(list.bytes() == 10);
  {
    List::Oldest oldest(list);
    CHECK(oldest.take() == "first");
  }
  CHECK(list.bytes() == 3);
  CHECK(take_all(list) == std::vector<std::string>{"second"});
  List::Oldest none(list);
  CHECK_FALSE(none);
}

TEST_CASE("launches in flight: an exception while the oldest is held puts it back") {
  List list;
  list.push("held", 1);
  try {
    List::Oldest oldest(list);
    throw std::runtime_error("copy failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(take_all(list) == std::vector<std::string>{"held"});
}

TEST_CASE("launches in flight: a stream's end waits for the launch another thread holds, then sees it") {
  List list;
  list.push("on stream", 4);
  HoldingThread reader(list);
  auto end = std::async(std::launch::async,
                        [&] { return list.take([](const std::string&) { return true; }, true).launches; });
  CHECK(end.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);  // waits for the holder
  CHECK(take_all(list).empty());  // without all_back it would miss the launch
  {
    List::Oldest another(list);  // a poller cannot keep the waiting end out
    CHECK_FALSE(another);
  }
  reader.release();
  REQUIRE(end.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(end.get() == std::vector<std::string>{"on stream"});
}

TEST_CASE("launches in flight: the holder's own end does not wait for itself") {
  List list;
  list.push("mine", 1);
  list.push("other", 1);
  List::Oldest oldest(list);
  CHECK(list.take([](const std::string&) { return true; }, true).launches == std::vector<std::string>{"other"});
}

TEST_CASE("launches in flight: a reader thread reads every launch once, in order, and stops") {
  List list;
  std::vector<std::string> read;
  std::atomic<int> polls{0}, done{0};
  std::thread reader([&] {
    while (list.wait_for_launch()) {
      List::Oldest oldest(list);
      if (!oldest) continue;
      if (++polls % 3 == 0) {  // "finished" every third poll; else back it goes
        read.push_back(oldest.take());
        ++done;
      }
    }
  });
  for (int i = 0; i < 20; ++i) list.push("launch " + std::to_string(i), 1);
  for (int waited = 0; done < 20 && waited < 10000; ++waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  list.stop();
  reader.join();
  REQUIRE(read.size() == 20);
  for (int i = 0; i < 20; ++i) CHECK(read[static_cast<std::size_t>(i)] == "launch " + std::to_string(i));
  CHECK(list.bytes() == 0);
  CHECK_FALSE(list.wait_for_launch());  // stopped stays stopped
}

TEST_CASE("launches in flight: a stream's end also waits for launches a synchronize callback took and reads") {
  List list;
  list.push("synchronized", 2);
  std::promise<void> taken, release;
  std::thread callback([&] {
    auto batch = list.take([](const std::string&) { return true; }, false);
    CHECK(batch.launches.size() == 1);
    taken.set_value();
    release.get_future().wait();  // reading them back
  });
  taken.get_future().wait();
  auto end = std::async(std::launch::async, [&] { return list.take([](const std::string&) { return true; }, true); });
  CHECK(end.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
  release.set_value();
  callback.join();
  REQUIRE(end.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  const auto result = end.get();
  CHECK(result.launches.empty());  // read by the callback, not missed
  CHECK_FALSE(result.timed_out);
}

TEST_CASE("launches in flight: a stream's end gives up waiting after its timeout, and says so") {
  List list;
  list.push("stuck", 1);
  list.push("free", 1);
  HoldingThread stuck(list);
  const auto end = list.take([](const std::string&) { return true; }, true, std::chrono::milliseconds(20));
  CHECK(end.timed_out);
  CHECK(end.launches == std::vector<std::string>{"free"});
  stuck.release();
  CHECK(take_all(list) == std::vector<std::string>{"stuck"});  // put back by its holder
}

TEST_CASE("launches in flight: while a stream's end waits, synchronize callbacks take nothing (no starving it)") {
  List list;
  list.push("held", 1);
  list.push("synchronized", 1);
  HoldingThread holder(list);
  auto end = std::async(std::launch::async, [&] { return list.take([](const std::string&) { return true; }, true); });
  // Wait until the end is waiting: a probe then gets no oldest (it puts back what it gets before that).
  bool waiting = false;
  for (int i = 0; i < 1000 && !waiting; ++i) {
    waiting = !List::Oldest(list);
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(waiting);
  // Another thread's synchronize callback meanwhile takes nothing, so it cannot become a new holder.
  std::vector<std::string> got = {"unset"};
  std::thread callback([&] { got = take_all(list); });
  callback.join();
  CHECK(got.empty());
  holder.release();
  REQUIRE(end.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  const auto result = end.get();
  CHECK(result.launches == std::vector<std::string>{"held", "synchronized"});
  CHECK_FALSE(result.timed_out);
}
