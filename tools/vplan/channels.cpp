#include "tools/vplan/channels.hpp"

#include <algorithm>
#include <map>

namespace vtools::vplan {

std::vector<Channel> build_channels(std::vector<Buffer>& buffers, const std::vector<BufferAccess>& accesses,
                                    const OpOrder& order) {
  // buffer -> op -> strongest access (read-write wins over write over read)
  std::vector<std::map<int, Access>> by_buffer(buffers.size());
  for (const auto& a : accesses) {
    if (a.access == Access::kUse || a.access == Access::kSync) continue;
    auto [it, fresh] = by_buffer[a.buffer].emplace(a.op, a.access);
    if (!fresh && it->second != a.access) it->second = Access::kReadWrite;
  }
  std::vector<Channel> channels;
  for (Buffer& b : buffers) {
    if (b.barrier) continue;
    const auto& ops = by_buffer[b.id];
    auto is_rw = [&](int op) {
      auto it = ops.find(op);
      return it != ops.end() && it->second == Access::kReadWrite;
    };
    for (const auto& [writer, access] : ops) {
      if (access == Access::kRead) continue;
      const int wp = order.ops[writer].partition;
      Channel ch;
      ch.buffer = b.id;
      ch.space = b.space;
      ch.producer = {writer, wp};
      bool operand_d = is_rw(writer);
      for (const auto& [reader, racc] : ops) {
        if (reader == writer || racc == Access::kWrite) continue;
        if (order.ops[reader].partition == wp) continue;
        ch.consumers.push_back({reader, order.ops[reader].partition});
        operand_d = operand_d || is_rw(reader);
      }
      if (ch.consumers.empty()) continue;
      ch.operand_d = operand_d;
      ch.id = static_cast<int>(channels.size());
      b.channels.push_back(ch.id);
      if (operand_d) ++b.operand_d;
      channels.push_back(std::move(ch));
    }
  }
  return channels;
}

}  // namespace vtools::vplan
