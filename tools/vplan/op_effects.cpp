#include "tools/vplan/op_effects.hpp"

#include <array>

namespace vtools::vplan {

namespace {

template <std::size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  for (auto x : set)
    if (s == x) return true;
  return false;
}

constexpr std::array<std::string_view, 6> kMmaOps = {"warp_group_dot", "tc_gen5_mma", "tc_gen5_mma_scaled", "dot",
                                                     "dot_scaled", "warpgroup_dot"};
constexpr std::array<std::string_view, 10> kLoadOps = {
    "descriptor_load", "load", "tmem_load", "local_load", "async_tma_copy_global_to_local", "async_copy_global_to_local",
    "descriptor_gather", "async_tma_gather", "tmem_copy", "async_load"};
constexpr std::array<std::string_view, 10> kStoreOps = {
    "descriptor_store", "store", "tmem_store", "local_store", "descriptor_reduce", "async_tma_copy_local_to_global",
    "async_tma_reduce", "async_tma_scatter", "descriptor_scatter", "async_store"};
constexpr std::array<std::string_view, 24> kMathOps = {
    "addf", "subf", "mulf", "divf", "addi", "subi", "muli", "divsi", "divui", "maxnumf", "minnumf", "maximumf",
    "minimumf", "maxsi", "minsi", "truncf", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "precise_sqrt"};
constexpr std::array<std::string_view, 14> kSyncOps = {
    "init_barrier", "wait_barrier", "arrive_barrier", "barrier_expect", "inval_barrier", "tc_gen5_commit", "barrier",
    "fence_async_shared", "async_tma_store_wait", "warp_group_dot_wait", "async_wait", "async_commit_group",
    "fence", "named_barrier_wait"};
constexpr std::array<std::string_view, 7> kViewOps = {"memdesc_index", "memdesc_subview", "memdesc_subslice",
                                                      "memdesc_trans", "memdesc_reshape", "memdesc_reinterpret",
                                                      "tmem_subslice"};

}  // namespace

std::string_view op_base_name(std::string_view name) {
  auto dot = name.find('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

KeyKind classify_key(const Op& op) {
  std::string_view base = op_base_name(op.name);
  std::string_view dialect = std::string_view(op.name).substr(0, op.name.find('.'));
  if (one_of(base, kMmaOps)) return KeyKind::kMma;
  if (one_of(base, kLoadOps) && dialect != "llvm") return KeyKind::kLoad;
  if (one_of(base, kStoreOps) && dialect != "llvm") return KeyKind::kStore;
  if ((dialect == "arith" || dialect == "math") && one_of(base, kMathOps)) {
    for (const auto& t : op.result_types())
      if (t->kind == Type::Kind::kTensor) return KeyKind::kMath;
  }
  return KeyKind::kNone;
}

bool is_sync_op(const Op& op) { return one_of(op_base_name(op.name), kSyncOps); }
bool is_view_op(const Op& op) { return one_of(op_base_name(op.name), kViewOps); }
bool is_alloc_op(const Op& op) { return op.name == "ttg.local_alloc" || op.name == "ttng.tmem_alloc"; }
bool is_tmem_mma(const Op& op) {
  auto base = op_base_name(op.name);
  return base == "tc_gen5_mma" || base == "tc_gen5_mma_scaled";
}
bool is_loop_op(const Op& op) { return op.name == "scf.for" || op.name == "scf.while"; }
bool is_dealloc_op(const Op& op) { return op.name == "ttg.local_dealloc" || op.name == "ttng.tmem_dealloc"; }

Access operand_access(const Op& op, std::size_t index, bool use_acc_false) {
  std::string_view base = op_base_name(op.name);
  if (is_sync_op(op)) return Access::kSync;
  if (base == "local_store" || base == "tmem_store") return index == 1 ? Access::kWrite : Access::kUse;
  if (base == "local_load" || base == "tmem_load") return Access::kRead;
  if (base == "tmem_copy") return index == 0 ? Access::kRead : Access::kWrite;
  if (base == "async_tma_copy_global_to_local" || base == "async_copy_global_to_local" ||
      base == "async_tma_gather" || base == "descriptor_load")
    return Access::kWrite;
  if (base == "async_tma_copy_local_to_global" || base == "async_tma_reduce" || base == "async_tma_scatter" ||
      base == "descriptor_store" || base == "descriptor_reduce")
    return Access::kRead;
  if (is_tmem_mma(op)) {
    if (index == 2) return use_acc_false ? Access::kWrite : Access::kReadWrite;
    return index < 2 ? Access::kRead : Access::kSync;
  }
  if (base == "warp_group_dot" || base == "dot") return index < 2 ? Access::kRead : Access::kUse;
  return Access::kUse;
}

}  // namespace vtools::vplan
