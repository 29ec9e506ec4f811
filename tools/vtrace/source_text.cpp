#include "tools/vtrace/source_text.hpp"

#include <sys/stat.h>

#include <fstream>

namespace vtools::vtrace {

std::optional<std::string> SourceText::line(const std::string& path, std::uint32_t line) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    std::optional<std::vector<std::string>> lines;
    struct stat st {};
    if (!path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) <= kMaxFileBytes) {
      std::ifstream in(path, std::ios::binary);
      if (in) {
        lines.emplace();
        for (std::string text; std::getline(in, text);) {
          if (!text.empty() && text.back() == '\r') text.pop_back();
          lines->push_back(std::move(text));
        }
      }
    }
    it = files_.emplace(path, std::move(lines)).first;
  }
  if (!it->second || line == 0 || line > it->second->size()) return std::nullopt;
  std::string text = (*it->second)[line - 1];
  if (text.size() > 300) text.resize(300);
  return text;
}

}  // namespace vtools::vtrace
