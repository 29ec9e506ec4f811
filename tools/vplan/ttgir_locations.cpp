#include "tools/vplan/ttgir_locations.hpp"

namespace vtools::vplan {

int LocTable::add(LocNode node) {
  nodes_.push_back(std::move(node));
  cache_.emplace_back();
  return static_cast<int>(nodes_.size()) - 1;
}

void LocTable::define_alias(const std::string& name, int node) { aliases_[name] = node; }

SourceLoc LocTable::resolve(int node) {
  if (node < 0) return {};
  if (!cache_[node]) cache_[node] = resolve_uncached(node, 0);
  return *cache_[node];
}

SourceLoc LocTable::resolve_uncached(int index, int depth) {
  const LocNode& node = nodes_[index];
  // Alias chains in real dumps are a few levels deep; a cycle or absurd depth is bad input, not a crash.
  if (depth > 64)
    throw Error(ExitCode::kDataError, "expected location aliases without a cycle, got a chain deeper than 64",
                node.where);
  auto child = [&](int i) { return resolve_uncached(i, depth + 1); };
  switch (node.kind) {
    case LocNode::Kind::kUnknown: return {};
    case LocNode::Kind::kAliasRef: {
      auto it = aliases_.find(node.text);
      if (it == aliases_.end())
        throw Error(ExitCode::kDataError, "expected a defined alias, got unknown alias '" + node.text + "'",
                    node.where);
      return child(it->second);
    }
    case LocNode::Kind::kFile: return SourceLoc{"", node.text, node.line, node.column};
    case LocNode::Kind::kName: {
      SourceLoc out = node.children.empty() ? SourceLoc{} : child(node.children[0]);
      out.name = node.text;
      return out;
    }
    case LocNode::Kind::kCallSite: {
      SourceLoc callee = child(node.children[0]);
      SourceLoc caller = child(node.children[1]);
      if (caller.file.empty()) caller.file = callee.file, caller.line = callee.line, caller.column = callee.column;
      if (caller.name.empty()) caller.name = callee.name;
      if (!callee.name.empty()) caller.name = callee.name;
      return caller;
    }
    case LocNode::Kind::kFused: {
      SourceLoc out;
      for (int c : node.children) {
        SourceLoc part = child(c);
        if (out.name.empty()) out.name = part.name;
        if (out.file.empty()) out.file = part.file, out.line = part.line, out.column = part.column;
      }
      return out;
    }
  }
  return {};
}

}  // namespace vtools::vplan
