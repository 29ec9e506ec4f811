#include "tools/vplan/plan_inputs.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"

namespace vtools::vplan {

namespace fs = std::filesystem;

namespace {

// Triton's cache keeps <kernel>.json beside <kernel>.ttgir with "shared"; the bundled fixtures keep one
// metadata.json keyed by stem. A metadata file that does not parse is ignored (it is optional context).
std::optional<std::int64_t> triton_shared_for(const fs::path& ttgir) {
  auto read_shared = [&](const fs::path& file, const std::string& key) -> std::optional<std::int64_t> {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    // k.plan.json's sibling k.plan.json is the input itself, a plan document: parsed whole, it cost ~7x its size
    if (file == ttgir || fs::equivalent(file, ttgir, ec)) return std::nullopt;
    try {
      OrderedJson j = parse_json(read_input(file.string()), file.string());
      const OrderedJson* obj = &j;
      if (!key.empty()) {
        if (!j.contains(key)) return std::nullopt;
        obj = &j[key];
      }
      if (!obj->is_object() || !obj->contains("shared")) return std::nullopt;
      const std::optional<std::int64_t> shared = json_integer<std::int64_t>((*obj)["shared"]);  // a byte count
      if (shared && *shared >= 0) return shared;
    } catch (const Error&) {
    }
    return std::nullopt;
  };
  const fs::path dir = ttgir.parent_path();
  const std::string stem = ttgir.stem().string();
  if (auto v = read_shared(dir / (stem + ".json"), "")) return v;
  return read_shared(dir / "metadata.json", stem);
}

KernelInput load_file(const fs::path& path) {
  KernelInput in;
  in.name = path.string();
  in.stem = path.stem().string();
  in.text.emplace(read_input_text(path.string(), kStreamedMaxInputBytes));
  in.triton_shared = triton_shared_for(path);
  return in;
}

}  // namespace

bool is_file_or_unknown(const fs::directory_entry& entry) {
  std::error_code ec;
  return entry.is_regular_file(ec) || (ec && ec != std::errc::no_such_file_or_directory);
}

std::vector<KernelInput> collect_inputs(const std::string& path) {
  if (path == "-") {
    std::vector<KernelInput> out(1);
    out[0].name = "<stdin>";
    out[0].stem = "stdin";
    out[0].text.emplace(read_input("-", kStreamedMaxInputBytes));
    return out;
  }
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    std::vector<KernelInput> out;
    out.push_back(load_file(path));
    return out;
  }
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".ttgir" && is_file_or_unknown(*it)) files.push_back(it->path());
  if (ec) throw Error(ExitCode::kNoInput, "cannot read directory '" + path + "': " + ec.message());
  if (files.empty()) throw Error(ExitCode::kNoInput, "no .ttgir file in directory '" + path + "'");
  std::sort(files.begin(), files.end());
  std::vector<KernelInput> out;
  for (const auto& f : files) out.push_back(load_file(f));
  // Kernels of one name in several folders (a Triton cache keeps each specialization under its own hash) would
  // write the same -o DIR/<stem>.plan.json: those keep their folders, DIR/<sub>/<stem>.plan.json.
  std::map<std::string, int> uses;
  for (const auto& in : out) ++uses[in.stem];
  for (std::size_t i = 0; i < out.size(); ++i)
    if (uses[out[i].stem] > 1)
      out[i].stem = (files[i].lexically_relative(path).parent_path() / out[i].stem).generic_string();
  return out;
}

}  // namespace vtools::vplan
