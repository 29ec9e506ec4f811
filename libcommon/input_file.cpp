#include "input_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "error.hpp"
#include "human_units.hpp"

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

static void refuse_large(const std::string& path, std::uint64_t limit) {
  throw Error(ExitCode::kDataError,
              "input is larger than the " + format_bytes(limit) +
                  " limit (raise it with VTOOLS_MAX_INPUT_BYTES=<bytes>)",
              SourceLocation{input_display_name(path)});
}

std::string read_input(const std::string& path, std::uint64_t default_limit) {
  const std::uint64_t limit = max_input_bytes(default_limit);
  FILE* f = stdin;
  if (path != "-") {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      throw Error(ExitCode::kNoInput, "cannot open '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error(ExitCode::kNoInput, "'" + path + "' is a directory, expected a file");
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limit) refuse_large(path, limit);
    f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error(ExitCode::kNoInput, "cannot open '" + path + "': " + std::strerror(errno));
  }
  std::string data;
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
  return data;
}

}  // namespace vtools
