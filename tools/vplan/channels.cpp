#include "tools/vplan/channels.hpp"

#include <algorithm>
#include <map>

namespace vtools::vplan {

namespace {

// One op reading a buffer (a read or a read-write), in op order.
struct Reader {
  int op = 0;
  int partition = kNoPartition;
  bool read_write = false;
  int run_end = 0;  ///< the first later reader in another partition (or the reader count)
};

// Readers per partition of one buffer, sorted by partition: (partition, readers, read-write readers).
struct PartitionCount {
  int partition = kNoPartition;
  int readers = 0, read_write = 0;
};

}  // namespace

// Each channel lists every reader outside its producer's partition. Rather than scan every reader per writer (a
// buffer with N users would cost N^2 even when few pairs cross partitions), per buffer the readers are listed once,
// counted per partition, and each run of one partition skipped in one step: O(users log users + consumers). The
// consumers themselves are writers x cross-partition readers, which a buffer written and read N times across
// partitions makes quadratic: that is the output, not the scan.
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
  std::vector<Reader> readers;
  std::vector<PartitionCount> counts;
  for (Buffer& b : buffers) {
    if (b.barrier) continue;
    const auto& ops = by_buffer[b.id];
    readers.clear();
    counts.clear();
    int read_write_readers = 0;
    for (const auto& [op, access] : ops) {
      if (access == Access::kWrite) continue;
      readers.push_back({op, order.ops[op].partition, access == Access::kReadWrite, 0});
      counts.push_back({order.ops[op].partition, 1, access == Access::kReadWrite ? 1 : 0});
      read_write_readers += access == Access::kReadWrite ? 1 : 0;
    }
    const int n_readers = static_cast<int>(readers.size());
    if (n_readers == 0) continue;
    for (int i = n_readers; i-- > 0;) {
      const bool run_ends = i + 1 == n_readers || readers[i + 1].partition != readers[i].partition;
      readers[i].run_end = run_ends ? i + 1 : readers[i + 1].run_end;
    }
    std::sort(counts.begin(), counts.end(), [](const auto& u, const auto& v) { return u.partition < v.partition; });
    std::size_t kept = 0;  // merged per partition
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (kept > 0 && counts[kept - 1].partition == counts[i].partition) {
        counts[kept - 1].readers += counts[i].readers;
        counts[kept - 1].read_write += counts[i].read_write;
      } else {
        counts[kept++] = counts[i];
      }
    }
    counts.resize(kept);
    for (const auto& [writer, access] : ops) {
      if (access == Access::kRead) continue;
      const int wp = order.ops[writer].partition;
      auto own = std::lower_bound(counts.begin(), counts.end(), wp,
                                  [](const PartitionCount& c, int p) { return c.partition < p; });
      const bool has_own = own != counts.end() && own->partition == wp;
      const int consumers = n_readers - (has_own ? own->readers : 0);
      if (consumers == 0) continue;
      Channel ch;
      ch.buffer = b.id;
      ch.space = b.space;
      ch.producer = {writer, wp};
      ch.consumers.reserve(static_cast<std::size_t>(consumers));
      for (int i = 0; i < n_readers;) {
        if (readers[i].partition == wp) {
          i = readers[i].run_end;  // the writer's own partition reads in this run: no channel to it
          continue;
        }
        ch.consumers.push_back({readers[i].op, readers[i].partition});
        ++i;
      }
      ch.operand_d = access == Access::kReadWrite || read_write_readers - (has_own ? own->read_write : 0) > 0;
      ch.id = static_cast<int>(channels.size());
      b.channels.push_back(ch.id);
      if (ch.operand_d) ++b.operand_d;
      channels.push_back(std::move(ch));
    }
  }
  return channels;
}

}  // namespace vtools::vplan
