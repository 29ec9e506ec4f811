#include "libcommon/output_file.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"

using namespace vtools;
namespace fs = std::filesystem;

static fs::path fresh_dir() {
  auto dir = fs::temp_directory_path() / ("vtools-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Writes `path` in `dir` twice: the second content replaces the first, and no temporary is left beside it.
static void check_replaced_without_temporary(const fs::path& dir, const std::string& path) {
  write_output(path, "first");
  write_output(path, "second");
  CHECK(read_input(path) == "second");
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) (void)e, ++files;
  CHECK(files == 1);
}

TEST_CASE("output_file: write_output replaces content atomically and leaves no temporary") {
  auto dir = fresh_dir();
  check_replaced_without_temporary(dir, (dir / "out.json").string());
  fs::remove_all(dir);
}

TEST_CASE("output_file: a name at the file system's length limit is written, with no temporary left") {
  auto dir = fresh_dir();
  const std::string name(255, 'n');  // NAME_MAX: the temporary cannot be this name plus a suffix
  auto path = (dir / name).string();
  check_output_creatable(path);
  check_replaced_without_temporary(dir, path);
  fs::remove_all(dir);
}

TEST_CASE("output_file: a folder as output is refused before anything is written, '/' included") {
  auto dir = fresh_dir();
  for (const std::string& path : {dir.string(), std::string("/")}) {
    try {
      write_output(path, "x");
      FAIL("no error for " << path);
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kIoError);
      CHECK(e.message() == "cannot create output '" + path + "': Is a directory");
    }
  }
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST_CASE("output_file: an OutputStream writes its pieces in order, in place only at commit") {
  auto dir = fresh_dir();
  auto path = (dir / "out.json").string();
  write_output(path, "old");
  {
    OutputStream out(path);
    out.write("{\"a\": [");
    out.write("");
    out.write("1, 2]}\n");
    CHECK(read_input(path) == "old");
    out.commit();
  }
  CHECK(read_input(path) == "{\"a\": [1, 2]}\n");
  {
    OutputStream abandoned(path);
    abandoned.write("half");
  }
  CHECK(read_input(path) == "{\"a\": [1, 2]}\n");
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) (void)e, ++files;
  CHECK(files == 1);
  fs::remove_all(dir);
  if (fs::exists("/dev/full")) {
    try {
      OutputStream full("/dev/full");
      full.write("x");
      full.write(std::string(1 << 16, 'x'));
      full.commit();
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kIoError);
      CHECK(std::string(e.what()).find("/dev/full") != std::string::npos);
    }
  }
}

TEST_CASE("output_file: an uncommitted AtomicFile leaves the old file untouched") {
  auto dir = fresh_dir();
  auto path = (dir / "keep.txt").string();
  write_output(path, "precious");
  {
    AtomicFile f(path);
    f.write("half-writ");
    // no commit: as if the run failed here
  }
  CHECK(read_input(path) == "precious");
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) (void)e, ++files;
  CHECK(files == 1);
  fs::remove_all(dir);
}

static int count_files(const fs::path& dir) {
  int files = 0;
  for (auto& e : fs::recursive_directory_iterator(dir)) files += e.is_symlink() || e.is_regular_file();
  return files;
}

TEST_CASE("output_file: -o through a symlink replaces its target atomically and keeps the link") {
  auto dir = fresh_dir();
  fs::create_directories(dir / "runs");
  write_output((dir / "runs" / "x.html").string(), "old");
  fs::create_symlink("runs/x.html", dir / "latest.html");  // relative, as `ln -s runs/x.html latest.html` makes
  fs::create_symlink("latest.html", dir / "current.html");  // a chain of two
  write_output((dir / "current.html").string(), "new");
  CHECK(fs::is_symlink(dir / "latest.html"));
  CHECK(fs::is_symlink(dir / "current.html"));
  CHECK(fs::read_symlink(dir / "latest.html") == "runs/x.html");
  CHECK(read_input((dir / "runs" / "x.html").string()) == "new");
  CHECK(count_files(dir) == 3);  // no temporary left beside the link or the target
  fs::create_symlink("runs/y.html", dir / "dangling.html");
  write_output((dir / "dangling.html").string(), "made");
  CHECK(fs::is_symlink(dir / "dangling.html"));
  CHECK(read_input((dir / "runs" / "y.html").string()) == "made");
  fs::remove_all(dir);
}

TEST_CASE("output_file: -o to a FIFO writes through to its reader and leaves the FIFO in place") {
  auto dir = fresh_dir();
  auto fifo = (dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  check_output_creatable(fifo);  // passes without opening it (an open would wait for a reader)
  // A reader already waiting (opened non-blocking, so this one thread can be both ends): the pipe's buffer holds
  // the few bytes, and the reader sees them once write_output has closed its end.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  write_output(fifo, "through the pipe");
  std::string got;
  char buf[64];
  for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(reader);
  CHECK(got == "through the pipe");
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(count_files(dir) == 0);
  fs::remove_all(dir);
}

TEST_CASE("output_file: unwritable folder and full disk give kIoError") {
  try {
    write_output("/nonexistent-dir/x.json", "x");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kIoError);
    CHECK(std::string(e.what()).find("/nonexistent-dir/x.json") != std::string::npos);
  }
  if (fs::exists("/dev/full")) {
    try {
      write_output("/dev/full", std::string(1 << 16, 'x'));
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kIoError);
    }
  }
}

TEST_CASE("input_file: missing input is kNoInput, oversized input is refused with the limit") {
  try {
    read_input("/nonexistent/in.json");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kNoInput);
  }
  auto dir = fresh_dir();
  auto path = (dir / "big").string();
  write_output(path, std::string(4096, 'x'));
  ::setenv("VTOOLS_MAX_INPUT_BYTES", "1000", 1);
  try {
    read_input(path);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    CHECK(e.message() == "input is larger than the 1000 B limit (raise it with VTOOLS_MAX_INPUT_BYTES=<bytes>)");
  }
  ::unsetenv("VTOOLS_MAX_INPUT_BYTES");
  fs::remove_all(dir);
}

TEST_CASE("input_file: check_input_size refuses as read_input does, at the default limit or the variable's") {
  CHECK_NOTHROW(check_input_size("t.json", 512ull << 20));
  try {
    check_input_size("t.json", (512ull << 20) + 1);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    CHECK(std::string(e.what()) ==
          "t.json: input is larger than the 512.0 MiB limit (raise it with VTOOLS_MAX_INPUT_BYTES=<bytes>)");
  }
  CHECK_NOTHROW(check_input_size("t.json", 4ull << 30, kStreamedMaxInputBytes));
  ::setenv("VTOOLS_MAX_INPUT_BYTES", "1000", 1);
  CHECK_THROWS_AS(check_input_size("t.json", 1001, kStreamedMaxInputBytes), Error);
  ::unsetenv("VTOOLS_MAX_INPUT_BYTES");
}
