// libcommon input_file: a mapped input cut short or rewritten while it is read is an I/O error (exit 74) naming the
// file, never a SIGBUS (libcommon truncation_guard); an unchanged one reads as it is, its reader's own errors untouched;
// a SIGBUS elsewhere is left alone.
#include "libcommon/input_file.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "libcommon/error.hpp"

using namespace vtools;

namespace {

/// A file of `size` bytes of '{' (not compressed, so read_input_text maps it) in the temporary folder.
std::string temp_file(const std::string& name, std::size_t size) {
  const std::string path = std::string(P_tmpdir) + "/vtools_input_file_test_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << std::string(size, '{');
  return path;
}

/// The sum of every byte of `text`, read front to back as a reader does.
std::size_t byte_sum(std::string_view text) {
  std::size_t sum = 0;
  for (const char c : text) sum += static_cast<unsigned char>(c);
  return sum;
}

std::string io_error_of(const InputText& input, const std::function<std::size_t()>& read) {
  try {
    (void)input.read_checked(read);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kIoError);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

}  // namespace

TEST_CASE("input_file: a mapped file cut short while it is read is 'file changed while being read', not SIGBUS") {
  const std::string path = temp_file("cut", 1 << 20);
  const InputText input = read_input_text(path);
  std::size_t zeros = 0;
  const std::string what = io_error_of(input, [&] {
    const std::size_t first = byte_sum(input.text().substr(0, 100));
    REQUIRE(::truncate(path.c_str(), 10) == 0);  // pages past the new end are gone: reading them raises SIGBUS
    const std::size_t all = byte_sum(input.text());
    zeros = input.text().size() - all / '{';
    return first + all;
  });
  CHECK(what == path + ": file changed while being read");
  CHECK(zeros >= (1 << 20) - 4096);  // the lost pages read as zeros
  std::remove(path.c_str());
}

TEST_CASE("input_file: a file cut inside its last page (no SIGBUS) or rewritten is told by its size and time") {
  const std::string path = temp_file("tail", 10000);
  {
    const InputText input = read_input_text(path);
    CHECK(io_error_of(input, [&] {
            REQUIRE(::truncate(path.c_str(), 9000) == 0);
            return byte_sum(input.text());
          }) == path + ": file changed while being read");
  }
  {
    const InputText input = read_input_text(path);
    CHECK(io_error_of(input, [&] {
            std::ofstream(path, std::ios::binary | std::ios::in) << "}";  // same size, a new modification time
            struct timespec times[2] = {{0, UTIME_OMIT}, {1, 0}};
            REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
            return byte_sum(input.text());
          }) == path + ": file changed while being read");
  }
  std::remove(path.c_str());
}

TEST_CASE("input_file: an unchanged file reads as it is; its reader's errors pass through") {
  const std::string path = temp_file("same", 5000);
  const InputText input = read_input_text(path);
  CHECK(input.read_checked([&] { return byte_sum(input.text()); }) == 5000u * '{');
  CHECK_THROWS_WITH_AS(input.read_checked([&]() -> int { throw Error(ExitCode::kDataError, "bad", {path}); }),
                       (path + ": bad").c_str(), Error);
  // Held text (not a mapped file) cannot change.
  const InputText held(std::string("{}"));
  CHECK(held.read_checked([&] { return held.text().size(); }) == 2);
  std::remove(path.c_str());
}

TEST_CASE("input_file: a reader's error on a file that changed becomes the I/O error") {
  const std::string path = temp_file("error", 5000);
  const InputText input = read_input_text(path);
  CHECK(io_error_of(input, [&]() -> std::size_t {
          REQUIRE(::truncate(path.c_str(), 100) == 0);
          throw Error(ExitCode::kDataError, "invalid JSON", {path});
        }) == path + ": file changed while being read");
  std::remove(path.c_str());
}

TEST_CASE("input_file: a SIGBUS outside every guarded mapping still ends the process with SIGBUS") {
  const std::string guarded = temp_file("guarded", 5000), other = temp_file("other", 1 << 16);
  const InputText input = read_input_text(guarded);  // installs the handler
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(other.c_str(), O_RDONLY);
    const auto* map = static_cast<const volatile char*>(::mmap(nullptr, 1 << 16, PROT_READ, MAP_PRIVATE, fd, 0));
    if (::truncate(other.c_str(), 10) != 0) ::_exit(13);
    const char c = map[1 << 15];  // past the new end, in a mapping nobody guards
    ::_exit(c == 0 ? 11 : 12);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
#if defined(__SANITIZE_ADDRESS__)
  // Under ASan the handler ours hands on to is ASan's: it reports the BUS and exits 1 instead of dying by it.
  CHECK((WIFSIGNALED(status) ? WTERMSIG(status) == SIGBUS : WEXITSTATUS(status) == 1));
#else
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGBUS);
#endif
  CHECK(input.read_checked([&] { return byte_sum(input.text()); }) == 5000u * '{');
  std::remove(guarded.c_str());
  std::remove(other.c_str());
}
