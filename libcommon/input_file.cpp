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

#include <zlib.h>
#include <zstd.h>

#include "error.hpp"
#include "human_units.hpp"
#include "truncation_guard.hpp"

namespace vtools {

std::uint64_t max_input_bytes(std::uint64_t default_bytes) {
  const char* env = std::getenv("VTOOLS_MAX_INPUT_BYTES");
  if (!env) return default_bytes;
  const std::string text(env);
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE || v == 0)
    throw Error(ExitCode::kUsage, "VTOOLS_MAX_INPUT_BYTES='" + text +
                                      "': expected a whole number of bytes from 1 to 18446744073709551615");
  return v;
}

void check_stdin_once(const std::vector<std::string>& paths) {
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    throw Error(ExitCode::kUsage, "'-' (standard input) is given more than once: it can be read only once");
}

std::string input_display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

[[noreturn]] static void refuse_large_named(const std::string& display_name, std::uint64_t limit) {
  throw Error(ExitCode::kDataError,
              "input is larger than the " + format_bytes(limit) +
                  " limit (raise it with VTOOLS_MAX_INPUT_BYTES=<bytes>)",
              SourceLocation{display_name});
}

static void refuse_large(const std::string& path, std::uint64_t limit) {
  refuse_large_named(input_display_name(path), limit);
}

void check_input_size(const std::string& display_name, std::uint64_t size, std::uint64_t default_limit) {
  const std::uint64_t limit = max_input_bytes(default_limit);
  if (size > limit) refuse_large_named(display_name, limit);
}

namespace {

bool starts_with_bytes(const std::string& data, std::initializer_list<unsigned char> magic) {
  if (data.size() < magic.size()) return false;
  std::size_t i = 0;
  for (unsigned char b : magic)
    if (static_cast<unsigned char>(data[i++]) != b) return false;
  return true;
}

[[noreturn]] void refuse_corrupt(const std::string& path, const std::string& what) {
  throw Error(ExitCode::kDataError, what, SourceLocation{input_display_name(path)});
}

/// gzip (one or more members, as `cat a.gz b.gz` gives) -> text, at most `limit` bytes.
std::string gunzip(const std::string& data, const std::string& path, std::uint64_t limit) {
  std::string out;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) refuse_corrupt(path, "invalid gzip data: zlib could not start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());  // inputs are capped far below 4 GiB of compressed data
  char buf[1 << 16];
  int rc = Z_OK;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > limit) {
      inflateEnd(&z);
      refuse_large(path, limit);
    }
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // another member follows
      continue;
    }
    if (rc != Z_OK) break;
    if (z.avail_in == 0 && z.avail_out != 0) break;  // nothing more to read and not at the end: cut short
  }
  const std::string message = z.msg ? z.msg : "";
  inflateEnd(&z);
  if (rc == Z_STREAM_END) return out;
  if (rc == Z_OK || rc == Z_BUF_ERROR) refuse_corrupt(path, "invalid gzip data: it ends early (a cut file?)");
  refuse_corrupt(path, "invalid gzip data" + (message.empty() ? std::string() : ": " + message));
}

/// zstd (one or more frames) -> text, at most `limit` bytes.
std::string unzstd(const std::string& data, const std::string& path, std::uint64_t limit) {
  std::string out;
  ZSTD_DCtx* z = ZSTD_createDCtx();
  if (!z) refuse_corrupt(path, "invalid zstd data: no memory for the decoder");
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  char buf[1 << 16];
  std::size_t rc = 0;
  // zstd consumes a frame's last byte only once it has handed out all of its output: consumed input is the end.
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf, sizeof buf, 0};
    rc = ZSTD_decompressStream(z, &o, &in);
    if (ZSTD_isError(rc)) break;
    out.append(buf, o.pos);
    if (out.size() > limit) {
      ZSTD_freeDCtx(z);
      refuse_large(path, limit);
    }
  }
  ZSTD_freeDCtx(z);
  if (ZSTD_isError(rc)) refuse_corrupt(path, std::string("invalid zstd data: ") + ZSTD_getErrorName(rc));
  if (rc != 0) refuse_corrupt(path, "invalid zstd data: it ends early (a cut file?)");
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
  if (content == InputContent::kText) {
    if (starts_with_bytes(data, {0x1f, 0x8b})) return gunzip(data, path, limit);
    if (starts_with_bytes(data, {0x28, 0xb5, 0x2f, 0xfd})) return unzstd(data, path, limit);
  }
  return data;
}

namespace {

std::int64_t mtime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

InputText::InputText(InputText&& other) noexcept
    : held_(std::move(other.held_)), map_(other.map_), size_(other.size_), dropped_(other.dropped_),
      fd_(other.fd_), name_(std::move(other.name_)), mtime_ns_(other.mtime_ns_), guard_(other.guard_) {
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
  if (!map_) return;
  const std::size_t upto = std::min(offset, size_) / page * page;  // the mapping starts on a page
  if (upto < dropped_) dropped_ = 0;  // a reader that starts over (the depth check, then the parser)
  if (upto <= dropped_) return;
  // A read-only private mapping: the dropped pages come back from the file if they are read again.
  ::madvise(const_cast<char*>(map_) + dropped_, upto - dropped_, MADV_DONTNEED);
  dropped_ = upto;
}

InputText read_input_text(const std::string& path, std::uint64_t default_limit) {
  const std::uint64_t limit = max_input_bytes(default_limit);
  // Whatever is not a plain, readable, uncompressed file within the limit goes through read_input, with its messages.
  const auto held = [&] { return InputText(read_input(path, default_limit)); };
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
  const auto* bytes = static_cast<const unsigned char*>(map);
  if (guard < 0 || (bytes[0] == 0x1f && bytes[1] == 0x8b) ||
      (bytes[0] == 0x28 && bytes[1] == 0xb5 && bytes[2] == 0x2f && bytes[3] == 0xfd)) {
    unguard_mapping(guard);
    ::munmap(map, size);  // compressed (read_input decompresses it), or no guard left: read into memory
    ::close(fd);
    return held();
  }
  ::madvise(map, size, MADV_SEQUENTIAL);
  return InputText(static_cast<const char*>(map), size, fd, input_display_name(path), mtime_ns(st), guard);
}

}  // namespace vtools
