#include "tools/vbench/model_selection.hpp"

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "tools/vbench/safetensors_writer.hpp"

namespace vtools::vbench {

std::vector<GptConfig> select_configs(const ModelOptions& o) {
  std::vector<GptConfig> configs;
  if (o.n_layer || o.n_head || o.n_embd) {
    if (o.n_layer <= 0 || o.n_head <= 0 || o.n_embd <= 0)
      throw Error(ExitCode::kUsage, "a custom config needs all of --n-layer, --n-head and --n-embd (positive)");
    if (!o.configs.empty()) throw Error(ExitCode::kUsage, "--config cannot be combined with --n-layer/--n-head/--n-embd");
    configs.push_back({"custom", o.n_layer, o.n_head, o.n_embd, o.vocab, o.block, true});
  } else {
    configs = parse_config_list(o.configs.empty() ? "gpt_nano" : o.configs);
  }
  for (auto& c : configs) {
    if (o.untied) c.tied_head = false;
    validate_config(c);
    check_model_fits(c);
  }
  return configs;
}

std::vector<ConfigJob> select_jobs(const ModelOptions& o, const std::string& weights_path,
                                   std::unique_ptr<GptWeights>& storage) {
  if (weights_path.empty()) {
    std::vector<ConfigJob> jobs;
    for (const auto& c : select_configs(o)) jobs.push_back({c, nullptr});
    return jobs;
  }
  const std::string name = input_display_name(weights_path);
  const std::string bytes = read_input(weights_path, kDefaultMaxInputBytes, InputContent::kBinary);
  const SafetensorsFile file = read_safetensors(bytes, name);
  GptConfig config;
  const bool named = !o.configs.empty() || o.n_layer || o.n_head || o.n_embd;
  if (named) {
    auto configs = select_configs(o);
    if (configs.size() != 1) throw Error(ExitCode::kUsage, "--weights needs exactly one config, not '" + o.configs + "'");
    config = configs[0];
  } else {
    bool found = false;
    config = config_from_metadata(file, name, &found);
    if (!found)
      throw Error(ExitCode::kUsage, "'" + name + "' records no vbench config in its __metadata__; name one with --config");
    if (o.untied) config.tied_head = false;
    validate_config(config);
  }
  storage = std::make_unique<GptWeights>(load_weights(file, config, name));
  return {{config, storage.get()}};
}

}  // namespace vtools::vbench
