// MLIR location expressions (`loc("acc"(#loc17))`, `loc(callsite(#loc3 at #loc10))`, `loc("k.py":7:0)`) kept as a
// small tree, with `#locN` aliases, and resolved to a name and the user's file:line. The parser builds the nodes.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "libcommon/error.hpp"
#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

struct LocNode {
  enum class Kind { kUnknown, kAliasRef, kFile, kName, kCallSite, kFused };
  Kind kind = Kind::kUnknown;
  std::string text;  ///< alias name, file name or location name
  int line = 0;
  int column = 0;
  std::vector<int> children;  ///< kName: {child} or {}; kCallSite: {callee, caller}; kFused: the parts
  SourceLocation where;       ///< where the node was written (for "unknown alias" errors)
};

class LocTable {
 public:
  int add(LocNode node);
  void define_alias(const std::string& name, int node);
  [[nodiscard]] bool has_alias(const std::string& name) const { return aliases_.count(name) != 0; }
  /// How many nodes there are. truncate(n) drops those added since: an op's own location, once resolved (only
  /// alias definitions are referred to later), so that a 10^6-op module's nodes are not all held.
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  void truncate(std::size_t n) {
    nodes_.resize(n);
    cache_.resize(n);
  }

  /// Name = innermost name location; file:line = the file location, through call sites to the caller (the user's
  /// line, not the library's). Throws Error(kDataError) for a reference to an undefined alias.
  SourceLoc resolve(int node);

 private:
  SourceLoc resolve_uncached(int node, int depth);

  std::vector<LocNode> nodes_;
  std::vector<std::optional<SourceLoc>> cache_;
  std::unordered_map<std::string, int> aliases_;
};

}  // namespace vtools::vplan
