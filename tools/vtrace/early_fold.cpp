#include "tools/vtrace/early_fold.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "tools/vtrace/raw_records.hpp"

namespace vtools::vtrace {

namespace fs = std::filesystem;

namespace {

/// Whether the file's last bytes are an end record's frame (header and payload). A site record's bytes could look
/// the same; EarlyFold then folds early and its result is dropped when the file grows.
bool ends_with_end_record(int fd, std::uint64_t bytes) {
  constexpr std::size_t kFrame = sizeof(raw::FrameHeader) + sizeof(raw::EndRecord);
  if (bytes < sizeof raw::kMagic + kFrame) return false;
  raw::FrameHeader h{};
  if (::pread(fd, &h, sizeof h, static_cast<off_t>(bytes - kFrame)) != static_cast<ssize_t>(sizeof h)) return false;
  return h.tag == static_cast<std::uint32_t>(raw::Tag::kEnd) && h.bytes == sizeof(raw::EndRecord);
}

}  // namespace

std::vector<RawFileStamp> stamp_raw_files(const std::string& dir) {
  std::vector<RawFileStamp> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".bin") continue;
    RawFileStamp s;
    s.path = it->path().string();
    const int fd = ::open(s.path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0) {
      s.bytes = static_cast<std::uint64_t>(st.st_size);
      s.modified_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
      s.inode = st.st_ino;
      s.ended = ends_with_end_record(fd, s.bytes);
    }
    if (fd >= 0) ::close(fd);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const RawFileStamp& a, const RawFileStamp& b) { return a.path < b.path; });
  return out;
}

bool all_ended(const std::vector<RawFileStamp>& stamps) {
  return !stamps.empty() && std::all_of(stamps.begin(), stamps.end(), [](const RawFileStamp& s) { return s.ended; });
}

void block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace vtools::vtrace
