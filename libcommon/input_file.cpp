#include "input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "decompress.hpp"
#include "error.hpp"
#include "human_units.hpp"
#include "truncation_guard.hpp"

namespace vtools {

std::uint64_t max_input_bytes(std::uint64_t default_bytes) {
  const char* env = std::getenv("VTOOLS_MAX_INPUT_BYTES");
  if (!env || !*env) return default_bytes;  // set but empty (VAR= in a Makefile or CI config): the default
  const std::string text(env);
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE || v == 0)
    throw Error(ExitCode::kUsage, "VTOOLS_MAX_INPUT_BYTES='" + text +
                                      "': expected a whole number of bytes from 1 to 18446744073709551615");
  return v;
}

void check_stdin_once(const std::vector<std::string>& paths) {
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    throw Error(ExitCode::kUsage, "'-' (standard input) is given more than once: it can be read only once");
}

std::string input_display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

void refuse_large_input(const std::string& display_name, std::uint64_t limit) {
  throw Error(ExitCode::kDataError,
              "input is larger than the " + format_bytes(limit) +
                  " limit (raise it with VTOOLS_MAX_INPUT_BYTES=<bytes>)",
              SourceLocation{display_name});
}

static void refuse_large(const std::string& path, std::uint64_t limit) {
  refuse_large_input(input_display_name(path), limit);
}

void check_input_size(const std::string& display_name, std::uint64_t size, std::uint64_t default_limit) {
  const std::uint64_t limit = max_input_bytes(default_limit);
  if (size > limit) refuse_large_input(display_name, limit);
}

namespace {

/// The whole text of compressed `data`, at most `limit` bytes.
std::string decompress(std::string_view data, Compression compression, const std::string& path, std::uint64_t limit) {
  const std::unique_ptr<TextStream> stream = decompress_stream(data, compression, input_display_name(path), limit);
  std::string out;
  std::size_t n = 0;
  do {
    out.resize(out.size() + (1u << 20));
    n = stream->read(out.data() + out.size() - (1u << 20), 1u << 20);
    out.resize(out.size() - (1u << 20) + n);
  } while (n > 0);
  return out;
}

}  // namespace

std::string read_input(const std::string& path, std::uint64_t default_limit, InputContent content) {
  const std::uint64_t limit = max_input_bytes(default_limit);
  FILE* f = stdin;
  std::string data;
  if (path != "-") {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      throw Error(ExitCode::kNoInput, "cannot open '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error(ExitCode::kNoInput, "'" + path + "' is a directory, expected a file");
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limit) refuse_large(path, limit);
    f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error(ExitCode::kNoInput, "cannot open '" + path + "': " + std::strerror(errno));
    if (S_ISREG(st.st_mode)) data.reserve(static_cast<std::size_t>(st.st_size));  // not 1.5x the file while growing
  }
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    data.append(buf, n);
    if (data.size() > limit) {
      if (f != stdin) std::fclose(f);
      refuse_large(path, limit);
    }
  }
  const bool failed = std::ferror(f);
  const int read_errno = errno;  // why, e.g. a directory given as standard input (EISDIR)
  if (f != stdin) std::fclose(f);
  if (failed)
    throw Error(ExitCode::kNoInput, "cannot read '" + input_display_name(path) + "': " + std::strerror(read_errno));
  if (content == InputContent::kText)
    if (const Compression c = compression_of(data); c != Compression::kNone) return decompress(data, c, path, limit);
  return data;
}

namespace {

std::int64_t mtime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

InputText::InputText(InputText&& other) noexcept
    : held_(std::move(other.held_)), map_(other.map_), size_(other.size_), dropped_(other.dropped_),
      fd_(other.fd_), name_(std::move(other.name_)), mtime_ns_(other.mtime_ns_), guard_(other.guard_),
      compression_(other.compression_), limit_(other.limit_), decompressed_(std::move(other.decompressed_)) {
  other.map_ = nullptr;
  other.size_ = 0;
  other.fd_ = -1;
  other.guard_ = -1;
}

InputText::~InputText() {
  unguard_mapping(guard_);
  if (map_) ::munmap(const_cast<char*>(map_), size_);
  if (fd_ >= 0) ::close(fd_);
}

std::string_view InputText::text() const {
  if (compression_ == Compression::kNone) return bytes();
  if (!decompressed_) {
    std::string text;
    const std::unique_ptr<TextStream> stream = open();
    std::size_t n = 0;
    do {  // as read_input decompresses: in MiB steps, the string growing geometrically
      text.resize(text.size() + (1u << 20));
      n = stream->read(text.data() + text.size() - (1u << 20), 1u << 20);
      text.resize(text.size() - (1u << 20) + n);
    } while (n > 0);
    decompressed_ = std::move(text);
  }
  return *decompressed_;
}

std::unique_ptr<TextStream> InputText::open() const {
  return decompress_stream(bytes(), compression_, name_, limit_);
}

std::string InputText::head(std::size_t bytes) const {
  if (compression_ == Compression::kNone) return std::string(text().substr(0, bytes));
  std::string out(bytes, '\0');
  const std::unique_ptr<TextStream> stream = open();
  std::size_t got = 0;
  while (got < bytes) {
    const std::size_t n = stream->read(out.data() + got, bytes - got);
    if (n == 0) break;
    got += n;
  }
  out.resize(got);
  return out;
}

void InputText::check_unchanged() const {
  if (!map_) return;
  struct stat st {};
  // Lost pages, or a cut inside the last page (whose tail reads as zeros without a SIGBUS), or a rewrite in place.
  if (mapping_lost_pages(guard_) || ::fstat(fd_, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != size_ ||
      mtime_ns(st) != mtime_ns_)
    throw Error(ExitCode::kIoError, "file changed while being read", SourceLocation{name_});
}

void InputText::passed(std::size_t offset) const {
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (!map_ || compression_ != Compression::kNone) return;  // offsets in a compressed file's text are not its own
  const std::size_t upto = std::min(offset, size_) / page * page;  // the mapping starts on a page
  if (upto < dropped_) dropped_ = 0;  // a reader that starts over (the depth check, then the parser)
  if (upto <= dropped_) return;
  // A read-only private mapping: the dropped pages come back from the file if they are read again.
  ::madvise(const_cast<char*>(map_) + dropped_, upto - dropped_, MADV_DONTNEED);
  dropped_ = upto;
}

InputText read_input_text(const std::string& path, std::uint64_t default_limit) {
  const std::uint64_t limit = max_input_bytes(default_limit);
  // Whatever is not a plain, readable file within the limit goes through read_input, with its messages; compressed
  // bytes are kept as they are and decompressed as they are read (open()).
  const auto held = [&] {
    std::string bytes = read_input(path, default_limit, InputContent::kBinary);
    const Compression compression = compression_of(bytes);
    if (compression == Compression::kNone) return InputText(std::move(bytes));
    InputText input(std::move(bytes));
    input.compression_ = compression;
    input.limit_ = limit;
    input.name_ = input_display_name(path);
    return input;
  };
  if (path == "-") return held();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return held();
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 4 ||
      static_cast<std::uint64_t>(st.st_size) > limit) {
    ::close(fd);
    return held();
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    ::close(fd);
    return held();
  }
  // Guarded before the first byte is read: the file may be cut short at any time from here on.
  const int guard = guard_mapping(map, size);
  if (guard < 0) {
    ::munmap(map, size);  // no guard left: read into memory
    ::close(fd);
    return held();
  }
  ::madvise(map, size, MADV_SEQUENTIAL);
  InputText input(static_cast<const char*>(map), size, fd, input_display_name(path), mtime_ns(st), guard);
  input.compression_ = compression_of(std::string_view(static_cast<const char*>(map), 4));
  input.limit_ = limit;
  return input;
}

}  // namespace vtools
