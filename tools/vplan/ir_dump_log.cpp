#include "tools/vplan/ir_dump_log.hpp"

#include <algorithm>
#include <vector>

#include "libcommon/error.hpp"

namespace vtools::vplan {

namespace {
constexpr std::string_view kHeader = "// -----// IR Dump";
}

bool looks_like_ir_dump_log(std::string_view text) { return text.find(kHeader) != std::string_view::npos; }

std::string last_ttgir_dump(std::string_view text, std::string_view name) {
  std::vector<std::size_t> starts;
  for (std::size_t pos = text.find(kHeader); pos != std::string_view::npos; pos = text.find(kHeader, pos + 1))
    starts.push_back(pos);
  for (std::size_t i = starts.size(); i-- > 0;) {
    std::size_t body = text.find('\n', starts[i]);
    if (body == std::string_view::npos) continue;
    ++body;
    std::size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
    std::string_view dump = text.substr(body, end - body);
    bool ttgir = dump.find("ttg.") != std::string_view::npos && dump.find("llvm.func") == std::string_view::npos;
    if (!ttgir) continue;
    const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.begin() + body, '\n'));
    return std::string(newlines, '\n') + std::string(dump);
  }
  throw Error(ExitCode::kDataError,
              "expected an IR dump at TTGIR level (ttg. ops, no llvm.func), got " + std::to_string(starts.size()) +
                  " dumps without one",
              SourceLocation{std::string(name)});
}

}  // namespace vtools::vplan
