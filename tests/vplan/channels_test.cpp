// Channels on random buffers and accesses: the per-buffer build matches the plain one, writer by reader, channel for
// channel (ids, consumers in op order, OperandD and each buffer's channel list and OperandD count).
#include "tools/vplan/channels.hpp"

#include <map>
#include <random>

#include "doctest/doctest.h"

namespace vtools::vplan {
namespace {

// Channels as first written: every reader of the buffer scanned per writer (quadratic in one buffer's users). Kept
// as the reference the per-buffer build must match.
std::vector<Channel> reference_channels(std::vector<Buffer>& buffers, const std::vector<BufferAccess>& accesses,
                                        const OpOrder& order) {
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

bool same(const std::vector<Channel>& a, const std::vector<Channel>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Channel &x = a[i], &y = b[i];
    if (x.id != y.id || x.buffer != y.buffer || x.space != y.space || x.operand_d != y.operand_d ||
        x.producer.op != y.producer.op || x.producer.partition != y.producer.partition ||
        x.consumers.size() != y.consumers.size())
      return false;
    for (std::size_t k = 0; k < x.consumers.size(); ++k)
      if (x.consumers[k].op != y.consumers[k].op || x.consumers[k].partition != y.consumers[k].partition) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("channels: the per-buffer build matches the plain one on random accesses") {
  std::mt19937 rng(43);
  std::size_t consumers = 0, operand_d = 0;
  for (int round = 0; round < 500; ++round) {
    CAPTURE(round);
    OpOrder order;
    const int n_ops = 1 + static_cast<int>(rng() % 120);
    const int n_partitions = 1 + static_cast<int>(rng() % 5);
    int partition = kNoPartition;
    for (int i = 0; i < n_ops; ++i) {
      if (rng() % 6 == 0) partition = static_cast<int>(rng() % (n_partitions + 1)) - 1;  // runs of one partition
      OrderedOp op;
      op.id = i;
      op.partition = partition;
      order.ops.push_back(op);
    }
    std::vector<Buffer> buffers(1 + rng() % 8);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      buffers[i].id = static_cast<int>(i);
      buffers[i].space = rng() % 3 == 0 ? MemorySpace::kTmem : MemorySpace::kSmem;
      buffers[i].barrier = rng() % 10 == 0;
    }
    std::vector<BufferAccess> accesses(rng() % 300);
    for (auto& a : accesses) {
      a.buffer = static_cast<int>(rng() % buffers.size());
      a.op = static_cast<int>(rng() % n_ops);
      a.access = static_cast<Access>(rng() % 5);  // use, read, write, read-write, sync; an op twice merges
    }
    std::vector<Buffer> expected_buffers = buffers;
    const auto expected = reference_channels(expected_buffers, accesses, order);
    const auto got = build_channels(buffers, accesses, order);
    CHECK(same(got, expected));
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      CHECK(buffers[i].channels == expected_buffers[i].channels);
      CHECK(buffers[i].operand_d == expected_buffers[i].operand_d);
    }
    for (const auto& c : expected) consumers += c.consumers.size(), operand_d += c.operand_d ? 1 : 0;
  }
  CHECK(consumers > 1000);  // the rounds do make channels, OperandD ones among them
  CHECK(operand_d > 100);
}

}  // namespace vtools::vplan
