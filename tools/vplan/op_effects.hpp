// What an op does to memory, by op name: key-op kind (load/store/MMA/tensor math), synchronisation, views that
// alias a buffer, and how each operand is accessed (read, written, both, sync). Unknown ops are generic users.
#pragma once

#include <cstddef>
#include <string_view>

#include "formats/plan/plan_model.hpp"
#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

enum class Access { kUse, kRead, kWrite, kReadWrite, kSync };

/// The op name without its dialect ("ttng.tc_gen5_mma" -> "tc_gen5_mma").
std::string_view op_base_name(std::string_view name);

/// Key-op kind (formats/ws-planner-dot.md "Key ops"); math counts only when the result is a tensor.
KeyKind classify_key(const Op& op);
/// Barrier, fence and wait ops: synchronisation, never data.
bool is_sync_op(const Op& op);
/// Ops whose result is a view of operand 0's memory (memdesc_index, subviews, trans, reshape, reinterpret).
bool is_view_op(const Op& op);
/// ttg.local_alloc / ttng.tmem_alloc.
bool is_alloc_op(const Op& op);
/// MMA ops that accumulate into operand 2 (tc_gen5_mma*): operand 3 is use-accumulator.
bool is_tmem_mma(const Op& op);
bool is_loop_op(const Op& op);
bool is_dealloc_op(const Op& op);

/// How `op` accesses its operand `index`, which names a data buffer (barrier buffers are always kSync).
/// `use_acc_false` says whether the MMA's use-accumulator operand is the constant false.
Access operand_access(const Op& op, std::size_t index, bool use_acc_false);

}  // namespace vtools::vplan
