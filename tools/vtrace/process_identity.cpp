#include "tools/vtrace/process_identity.hpp"


#include <charconv>
#include <cstdlib>

#include "libcommon/error.hpp"

namespace vtools::vtrace {

namespace {

struct Launcher {
  const char* name;
  const char* rank;
  const char* local_rank;
  const char* world_size;
};

// Order: see kRankVariables.
constexpr Launcher kLaunchers[] = {
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
};

const std::string* find(const Variables& vars, std::string_view key) {
  for (const auto& [k, v] : vars)
    if (k == key) return &v;
  return nullptr;
}

/// A whole number >= 0, or nullopt.
std::optional<std::int64_t> whole_number(const std::string& text) {
  std::int64_t x = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, x);
  if (text.empty() || ec != std::errc() || p != end || x < 0) return std::nullopt;
  return x;
}

}  // namespace

RankInfo detect_rank(const Variables& vars) {
  RankInfo out;
  for (const Launcher& l : kLaunchers) {
    const std::string* rank = find(vars, l.rank);
    if (!rank) continue;
    RankInfo r;
    r.launcher = l.name;
    std::string problem;
    auto read = [&](const char* key, std::int64_t& to) {
      const std::string* v = find(vars, key);
      if (!v) return;
      if (auto x = whole_number(*v)) {
        to = *x;
      } else if (problem.empty()) {
        problem = std::string(key) + "='" + *v + "' is not a whole number";
      }
    };
    read(l.rank, r.rank);
    read(l.local_rank, r.local_rank);
    read(l.world_size, r.world_size);
    if (problem.empty() && r.world_size >= 0 && r.rank >= r.world_size)
      problem = std::string(l.rank) + "=" + *rank + " is not below " + l.world_size + "=" +
                std::to_string(r.world_size);
    if (problem.empty() && r.rank >= 0) {
      r.problem = out.problem;
      return r;
    }
    if (out.problem.empty()) out.problem = problem + " (" + l.name + "): ignored";
  }
  return out;
}

Variables rank_variables_from_environment() {
  Variables vars;
  for (const char* key : kRankVariables)
    if (const char* v = std::getenv(key)) vars.emplace_back(key, v);
  return vars;
}

bool is_output_pattern(std::string_view pattern) { return pattern.find('%') != std::string_view::npos; }

std::string expand_output_pattern(std::string_view pattern, const PatternValues& values) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (i + 1 == pattern.size())
      throw Error(ExitCode::kUsage, "-o '" + std::string(pattern) + "': a '%' at the end (write %% for a '%')");
    switch (pattern[++i]) {
      case 'h': out += values.host.substr(0, values.host.find('.')); break;
      case 'r': out += values.rank; break;
      case 'p': out += std::to_string(values.pid); break;
      case '%': out += '%'; break;
      default:
        throw Error(ExitCode::kUsage, "-o '" + std::string(pattern) + "': unknown directive '%" + pattern[i] +
                                          "' (%h host, %r rank, %p pid, %% a '%')");
    }
  }
  return out;
}

}  // namespace vtools::vtrace
