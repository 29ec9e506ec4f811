// The TTGIR module as read from text: aliases, module attributes, functions, ops with operands, attributes, types
// and nested regions, and resolved source locations. Ops the reader does not know are kept generically (name,
// operands, attributes, types); the plan (plan_builder) decides what they mean.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/plan/source_loc.hpp"

namespace vtools::vplan {

/// A type as printed, with the parts vplan uses taken apart. `shape` is empty for scalars; -1 is a dynamic dim.
struct Type {
  enum class Kind { kScalar, kTensor, kMemDesc, kPointer, kTensorDesc, kTuple, kFunction, kOther };
  Kind kind = Kind::kOther;
  std::string text;
  std::vector<std::int64_t> shape;
  std::string element_type;  ///< "f16", "i64", "" when none
  std::string encoding;      ///< the layout/encoding alias or attribute ("#shared1"), "" when none
  bool tensor_memory = false;  ///< memdesc in #ttng.tensor_memory (else shared memory)
  bool mutable_memory = false;
};

/// A type of the module: ops and regions point into Module::types, which holds each distinct type text once (a
/// 10^6-op module names a few hundred types; a Type by value in every op was ~40% of the module).
using TypeRef = const Type*;

struct Attribute {
  std::string key;
  std::string value;  ///< the value's text as printed ("array<i32: 1>", "0 : i32"); "" for unit attributes
};

struct Region;

/// The parts of an op that few ops have, kept apart so that the other ops do not carry them (a 10^6-op module).
struct OpDetails {
  std::vector<std::string> more_results;  ///< result names after the first ("%b" of "%a, %b = ...")
  std::vector<std::string> defined_args;  ///< values the op defines for its regions (induction vars, iter_args)
  std::vector<std::string> keywords;      ///< bare words and literals of the op itself ("public", "false", "sgt")
  std::string symbol;                     ///< "@matmul_ws" for functions
};

/// One operation. Values are named as printed ("%44", "%acc_60#2" for result 2 of "%acc_60:6").
struct Op {
  std::string name;                  ///< "ttg.local_alloc"; generic ops without quotes
  std::string result;                ///< the first result name ("%acc_60" once even for several results), or ""
  std::vector<std::string> operands;     ///< values used by the op itself (not by ops in its regions), in order
  std::vector<Attribute> attributes;     ///< op attributes and properties (`{...}`, `<{...}>`, `attributes {...}`)
  std::vector<TypeRef> types;            ///< operand_types() then result_types(), one array for both
  std::vector<Region> regions;
  std::unique_ptr<OpDetails> details;    ///< null when the op has none of them
  SourceLoc loc;
  int result_count = 0;
  int line = 0;    ///< where the op starts in the input
  int column = 0;
  std::uint32_t result_types_at = 0;     ///< where result_types() start in `types`

  /// The value of attribute `key`, or nullptr.
  [[nodiscard]] const std::string* attribute(const std::string& key) const;
  /// The types written in the op, in order, less as many at the end as there are result types: a generic op's
  /// operand types (not kept twice).
  [[nodiscard]] std::span<const TypeRef> operand_types() const { return {types.data(), result_types_at}; }
  /// Types after the last '->', else after 'to', else after ':'.
  [[nodiscard]] std::span<const TypeRef> result_types() const {
    return std::span<const TypeRef>(types).subspan(result_types_at);
  }
  [[nodiscard]] const std::vector<std::string>& defined_args() const;
  [[nodiscard]] const std::vector<std::string>& keywords() const;
  [[nodiscard]] const std::string& symbol() const;  ///< "" when none
  /// details, made when the op has none yet (for the reader).
  OpDetails& details_to_fill();
};

/// A region with its entry-block arguments; warp_specialize regions carry their label and warp count.
struct Region {
  std::string label;  ///< "default", "partition0", ... or "" for plain regions
  int num_warps = 0;  ///< from `num_warps(N)`, 0 when not given
  std::vector<std::string> args;
  std::vector<TypeRef> arg_types;
  std::vector<Op> ops;
};

struct Module {
  std::string name;  ///< the input's display name
  std::map<std::string, std::string> attributes;  ///< module attributes, keys unquoted ("ttg.num-warps")
  std::map<std::string, std::string> aliases;     ///< "#shared1" -> its definition text
  std::vector<Op> functions;                      ///< tt.func / func.func ops (body in regions[0])
  std::deque<Type> types;                         ///< what the ops' TypeRefs point to (stable when moved)
  /// Where the module op starts, else the end of the input: where a missing function is reported. 0 when unknown.
  int line = 0;
  int column = 0;

  Module() = default;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;
  Module(const Module&) = delete;  // a copy's ops would point into this module's types
  Module& operator=(const Module&) = delete;

  /// An integer module attribute ("ttg.num-warps" = 4 : i32 -> 4), or nullopt.
  [[nodiscard]] std::optional<std::int64_t> int_attribute(const std::string& key) const;
  /// A string module attribute without quotes ("ttg.target" -> "cuda:90"), or "".
  [[nodiscard]] std::string string_attribute(const std::string& key) const;
};

}  // namespace vtools::vplan
