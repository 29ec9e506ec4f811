// libFuzzer target: the -o pattern (first line) is expanded or refused with vtools::Error; launcher variables (the
// other lines, KEY=VALUE) give a rank below the world size, or none. Never a crash.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vtrace/process_identity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vtools::vtrace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t eol = text.find('\n');
  const std::string_view pattern = text.substr(0, eol);
  try {
    const std::string out = expand_output_pattern(pattern, {"node.example", "3", 42});
    if (!is_output_pattern(pattern) && out != pattern) std::abort();
  } catch (const vtools::Error& e) {
    if (e.code() != vtools::ExitCode::kUsage) std::abort();
  }
  Variables vars;
  for (std::size_t at = eol == std::string_view::npos ? text.size() : eol + 1; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    const std::size_t eq = line.find('=');
    if (eq != std::string_view::npos) vars.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    at = end + 1;
  }
  const RankInfo r = detect_rank(vars);
  if (r.rank >= 0 && r.world_size >= 0 && r.rank >= r.world_size) std::abort();
  if ((r.rank >= 0) != !r.launcher.empty()) std::abort();
  return 0;
}
