#include "tools/vplan/plan_builder.hpp"

#include <map>

#include "libcommon/error.hpp"
#include "tools/vplan/budget.hpp"
#include "tools/vplan/buffers.hpp"
#include "tools/vplan/channels.hpp"
#include "tools/vplan/liveness.hpp"
#include "tools/vplan/op_effects.hpp"
#include "tools/vplan/op_order.hpp"
#include "tools/vplan/reuse_hazards.hpp"

namespace vtools::vplan {

std::string shape_string(const Type& type) {
  if (type.kind != Type::Kind::kTensor && type.kind != Type::Kind::kMemDesc) return "";
  std::string out;
  for (auto d : type.shape) out += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return out + type.element_type;
}

namespace {

const Op& pick_function(const Module& module, const std::string& wanted) {
  std::vector<std::string> names;
  for (const Op& f : module.functions) {
    std::string name = f.symbol().empty() ? "" : f.symbol().substr(1);
    if (!wanted.empty() && name == wanted) return f;
    names.push_back(name);
  }
  if (!wanted.empty())
    throw Error(ExitCode::kDataError, with_suggestion("no function '" + wanted + "' in the module", wanted, names),
                SourceLocation{module.name});
  for (const Op& f : module.functions)
    for (const auto& k : f.keywords())
      if (k == "public") return f;
  if (module.functions.empty())  // at the module op, else at the end of the input (ttgir_reader)
    throw Error(ExitCode::kDataError, "expected a 'tt.func' in the module, got none",
                SourceLocation{module.name, module.line, module.column});
  return module.functions.front();
}

// TMEM buffers that must share lanes, by buffer id (-1: none): an MMA whose A operand is a 64-row TMEM buffer
// keeps it in the accumulator's lanes ("HW restriction", Triton's TensorMemoryAllocation.cpp); each group is
// named by its lowest buffer id. A is the MMA's TMEM read, the accumulator its TMEM write (op_effects.hpp).
std::vector<int> tmem_row_groups(const std::vector<Buffer>& buffers, const std::vector<BufferAccess>& accesses,
                                 const OpOrder& order) {
  std::vector<int> group(buffers.size(), -1);
  auto leader = [&](int id) {
    while (group[id] >= 0 && group[id] != id) id = group[id];
    return id;
  };
  std::map<int, std::pair<std::vector<int>, std::vector<int>>> mma;  // op -> (64-row A buffers, accumulators)
  for (const BufferAccess& a : accesses) {
    const Buffer& b = buffers[a.buffer];
    if (b.space != MemorySpace::kTmem || !is_tmem_mma(*order.ops[a.op].op)) continue;
    if (a.access == Access::kRead && b.rows == 64) mma[a.op].first.push_back(b.id);
    if (a.access == Access::kWrite || a.access == Access::kReadWrite) mma[a.op].second.push_back(b.id);
  }
  for (const auto& [op, operands] : mma)
    for (int lhs : operands.first)
      for (int acc : operands.second) {
        const int x = leader(lhs), y = leader(acc);
        group[x] = group[y] = std::min(x, y);
      }
  for (std::size_t i = 0; i < group.size(); ++i)
    if (group[i] >= 0) group[i] = leader(static_cast<int>(i));
  return group;
}

void collect_ws(const std::vector<Op>& ops, std::vector<const Op*>& out) {
  for (const Op& op : ops) {
    if (op.name == "ttg.warp_specialize") out.push_back(&op);
    for (const Region& r : op.regions) collect_ws(r.ops, out);
  }
}

// `owned` is `module` when the caller gives it up: the ops' names, operands and locations then move into the plan
// (not copied), and the module and the op order are freed before the budget and hazard passes, so that a 10^6-op
// module and its plan are not both held whole.
Plan build(const Module& module, Module* owned, const PlanOptions& options) {
  const Op& function = pick_function(module, options.function);
  Plan plan;
  plan.kernel.name = function.symbol().empty() ? "" : function.symbol().substr(1);
  plan.kernel.target = module.string_attribute("ttg.target");
  plan.kernel.num_warps = static_cast<int>(module.int_attribute("ttg.num-warps").value_or(4));
  plan.kernel.source = module.name;

  OpOrder order = order_ops(function, plan.kernel.num_warps);
  plan.partitions = order.partitions;

  BufferTrace trace = trace_buffers(function, order, module);
  plan.buffers = std::move(trace.buffers);
  // Triton's view of SMEM (intervals, warp_specialize regions): its placement and the concurrent peak read it.
  const std::vector<SmemItem> view = compute_liveness(plan.buffers, order, function.name, trace.captures);
  for (Buffer& b : plan.buffers)  // the function's own scratch (warp indices) lives throughout
    if (b.scratch_op == function.name) b.start = 0, b.end = static_cast<int>(order.ops.size()) + 1;
  plan.channels = build_channels(plan.buffers, trace.accesses, order);
  const std::vector<int> row_groups = tmem_row_groups(plan.buffers, trace.accesses, order);
  trace.accesses = {};

  std::vector<const Op*> ws_ops;
  for (const Region& r : function.regions) collect_ws(r.ops, ws_ops);
  int partition_warps = 0;
  std::int64_t capture_bytes = 0;
  for (const Op* ws : ws_ops) {
    capture_bytes += warp_specialize_capture_bytes(*ws);
    for (const Region& r : ws->regions)
      if (r.label != "default") partition_warps += r.num_warps;
  }
  int total = plan.kernel.num_warps + partition_warps;
  // Triton launches warp-specialized kernels with whole warp groups (multiples of 4 warps).
  if (!ws_ops.empty()) total = (total + 3) / 4 * 4;
  plan.kernel.total_warps = total;

  CompilerTotals compiler;
  compiler.shared_bytes = module.int_attribute("ttg.shared");
  compiler.tmem_cols = module.int_attribute("ttg.tensor_memory_size");
  for (const char* key : {"ttg.shared", "ttg.tensor_memory_size"}) {
    auto it = module.attributes.find(key);
    const auto v = module.int_attribute(key);
    if (it != module.attributes.end() && (!v || *v < 0 || *v > 2147483647))
      throw Error(ExitCode::kDataError, std::string("expected a non-negative i32 for module attribute '") + key +
                                            "', got '" + it->second + "'",
                  SourceLocation{module.name});
  }
  std::vector<std::pair<int, std::string>> unknown;
  for (const auto& u : trace.unknown_scratch) unknown.emplace_back(u.buffer, u.why);

  // The ops last: nothing above reads plan.ops, and an owned module's ops are emptied here.
  plan.ops.reserve(order.ops.size());
  for (const OrderedOp& o : order.ops) {
    PlanOp p;
    p.id = o.id;
    p.partition = o.partition;
    p.shape = o.op->result_types().empty() || o.op->result.empty() ? "" : shape_string(*o.op->result_types()[0]);
    p.key = classify_key(*o.op);
    p.sync = is_sync_op(*o.op);
    p.parent = o.parent;
    if (owned) {
      Op& op = const_cast<Op&>(*o.op);  // an op of *owned, which is not const
      p.name = std::move(op.name);
      p.result = std::move(op.result);
      p.operands = std::move(op.operands);
      p.loc = std::move(op.loc);
    } else {
      p.name = o.op->name;
      p.result = o.op->result;
      p.operands = o.op->operands;
      p.loc = o.op->loc;
    }
    plan.ops.push_back(std::move(p));
  }
  if (owned) {
    order = {};
    owned->functions = std::vector<Op>();  // `function` is gone from here on
  }

  compute_budget(plan, limits_for_target(plan.kernel.target), capture_bytes, options.triton_shared, compiler, unknown,
                 view, row_groups);
  plan.reuse_hazards = find_reuse_hazards(plan);
  return plan;
}

}  // namespace

Plan build_plan(const Module& module, const PlanOptions& options) { return build(module, nullptr, options); }

Plan build_plan(Module&& module, const PlanOptions& options) { return build(module, &module, options); }

}  // namespace vtools::vplan
