// `vbench list`: the config table with parameter counts, FLOPs per token and bytes per forward, and with --device
// the roofline floor of each config on the detected device.
#include <cstdio>
#include <sstream>

#include "libcommon/error.hpp"
#include "libcommon/human_units.hpp"
#include "libcommon/output_file.hpp"
#include "libcommon/table.hpp"
#include "tools/vbench/backend_choice.hpp"
#include "tools/vbench/commands.hpp"
#include "tools/vbench/forward_cost.hpp"
#include "tools/vbench/gpt_configs.hpp"

namespace vtools::vbench {

int list_command(const ListOptions& o) {
  if (o.batch <= 0 || o.seq <= 0) throw Error(ExitCode::kUsage, "--batch and --seq must be positive");
  const DType dtype = parse_dtype(o.dtype);
  DeviceInfo device;
  std::unique_ptr<Backend> backend;
  if (o.device) {
    backend = choose_backend(o.backend, o.gpu, nullptr);
    device = backend->device_for(dtype);  // bf16's peak for a bf16 list (device() is fp32's until a prepare)
  }
  using A = Table::Align;
  Table t;
  t.headers = {"config", "layers", "heads", "embd", "vocab", "block", "params", "FLOPs/token", "bytes/fwd"};
  t.align = {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight};
  if (o.device) {
    t.headers.insert(t.headers.end(), {"floor", "bound"});
    t.align.insert(t.align.end(), {A::kRight, A::kLeft});
  }
  int too_long = 0;  // configs whose block size T exceeds: no forward of theirs runs at this T (vbench run refuses it)
  for (const auto& c : builtin_configs()) {
    const ForwardCost cost = forward_cost(c, o.batch, o.seq, dtype);
    const bool fits = o.seq <= c.block_size;
    too_long += !fits;
    std::vector<std::string> row = {c.name,
                                    std::to_string(c.n_layer),
                                    std::to_string(c.n_head),
                                    std::to_string(c.n_embd),
                                    std::to_string(c.vocab_size),
                                    std::to_string(c.block_size),
                                    format_si(static_cast<double>(count_parameters(c).total)),
                                    fits ? format_si(cost.flops / (static_cast<double>(o.batch) * o.seq)) : "-",
                                    fits ? format_bytes(static_cast<std::uint64_t>(cost.bytes)) : "-"};
    if (o.device) {
      const Floor floor = fits ? roofline_floor(cost, device) : Floor{};  // no floor: "-" "-"
      row.push_back(floor.floor_ms > 0 ? format_duration_ms(floor.floor_ms) : "-");
      row.push_back(floor.bound.empty() ? "-" : floor.bound);
    }
    t.add_row(std::move(row));
  }
  std::ostringstream text;
  text << "FLOPs and bytes per forward at B=" << o.batch << " T=" << o.seq << ", " << dtype_name(dtype);
  if (o.device) {
    text << "; floor on " << (backend ? backend->name() : "") << " " << device.name << " ("
         << format_si(device.peak_bandwidth_bytes_per_s) << "B/s, " << format_si(device.peak_flops) << "FLOP/s)";
  }
  text << "\n";
  if (resolve_format(o.out, "table", false) == "markdown") write_markdown_table(t, text);
  else write_text_table(t, text);
  if (too_long)
    text << "\n-: T=" << o.seq << " exceeds the block size of " << too_long << " config(s); vbench run refuses them\n";
  write_output(o.out.output, text.str());
  return 0;
}

}  // namespace vtools::vbench
