// `vbench init`: writes the seed-initialised weights of one config as safetensors, so a peer (bench/peers/) or a
// later run loads the very same weights.
#include <sstream>

#include "libcommon/error.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vbench/commands.hpp"
#include "tools/vbench/model_selection.hpp"
#include "tools/vbench/safetensors_writer.hpp"
#include "tools/vbench/weight_init.hpp"

namespace vtools::vbench {

int init_command(const InitOptions& o) {
  const auto configs = select_configs(o.model);
  if (configs.size() != 1) throw Error(ExitCode::kUsage, "init writes one config at a time, not '" + o.model.configs + "'");
  if (o.output.empty()) throw Error(ExitCode::kUsage, "init needs -o FILE.safetensors");
  const GptWeights weights = init_weights(configs[0], o.seed);
  std::ostringstream bytes;
  write_safetensors(weights, bytes, {{"seed", std::to_string(o.seed)}});
  write_output(o.output, bytes.str());
  return 0;
}

}  // namespace vtools::vbench
