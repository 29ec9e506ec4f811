#include "tools/vtrace/sass_disassembler.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace vtools::vtrace {

namespace {

namespace fs = std::filesystem;

/// A temporary file that is removed when this goes out of scope.
class TempFile {
 public:
  explicit TempFile(const char* suffix) {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "vtrace-sass-XXXXXX").string() + suffix;
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = mkstemps(name.data(), static_cast<int>(std::string_view(suffix).size()));
    if (fd >= 0) {
      close(fd);
      path_ = name.data();
    }
  }
  ~TempFile() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool executable(const fs::path& p) { return !p.empty() && access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

}  // namespace

std::string find_nvdisasm() {
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (true) {
      const auto colon = rest.find(':');
      const std::string dir(rest.substr(0, colon));
      if (!dir.empty() && executable(fs::path(dir) / "nvdisasm")) return (fs::path(dir) / "nvdisasm").string();
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && executable(fs::path(home) / "bin/nvdisasm"))
    return (fs::path(home) / "bin/nvdisasm").string();
  if (executable("/usr/local/cuda/bin/nvdisasm")) return "/usr/local/cuda/bin/nvdisasm";
  return "";
}

Disassembly disassemble(std::string_view cubin, const std::string& nvdisasm) {
  if (nvdisasm.empty()) return {"", "no SASS: nvdisasm (CUDA toolkit) is not installed where the trace was built"};
  TempFile image(".cubin"), out(".sass"), err(".err");
  if (image.path().empty() || out.path().empty() || err.path().empty())
    return {"", "no SASS: no temporary file for nvdisasm"};
  {
    std::ofstream f(image.path(), std::ios::binary);
    f.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
    if (!f) return {"", "no SASS: the module image could not be written for nvdisasm"};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.path().c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.path().c_str(), O_WRONLY | O_TRUNC, 0);
  std::vector<std::string> args{nvdisasm, "-c", image.path()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The spawning thread may block the stop signals (early_fold.hpp): nvdisasm gets none blocked, and their defaults.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, stops;
  sigemptyset(&none);
  sigemptyset(&stops);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&stops, s);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &stops);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, nvdisasm.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) return {"", "no SASS: cannot run " + nvdisasm};
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = read_all(err.path());
    why = why.substr(0, why.find('\n'));
    return {"", "no SASS: nvdisasm failed on the module" + (why.empty() ? std::string() : " (" + why + ")")};
  }
  return {read_all(out.path()), ""};
}

}  // namespace vtools::vtrace
