#include "tools/vtrace/access/access_capture.hpp"

#include <algorithm>
#include <set>

#include "tools/vtrace/access/access_aggregator.hpp"
#include "tools/vtrace/access/argument_mapping.hpp"
#include "tools/vtrace/access/device_block_filter.hpp"
#include "tools/vtrace/trace_builder.hpp"

namespace vtools::vtrace::access {

void add_access_captures(const std::vector<raw::Capture>& captures, const BlockSampling& blocks,
                         std::uint64_t max_findings, Trace& trace) {
  std::uint64_t dropped_requests = 0, left_out = 0, sampled_out_blocks = 0, unsited = 0, unread = 0;
  std::vector<std::string> limit_notes;  // which launches hit the site table's limit, and by how much
  std::set<std::string> tma;  // recorded kernels whose SASS issues TMA tensor copies
  for (const auto& c : captures) {
    AllocationMap live;
    AccessAggregator aggregator(live, blocks, max_findings);
    LaunchInfo current;
    for (const auto& [tag, index] : c.access_order) {
      if (tag == raw::Tag::kMemory) {
        const raw::MemoryRecord& m = c.memory[index];
        if (m.operation == 1) {
          Allocation a;
          a.id = trace.allocations.size() + 1;
          a.address = m.address;
          a.size = m.bytes;
          a.device_id = trace_device_id(c, trace, m.device_id);
          a.allocated_ns = m.timestamp_ns;
          live.add(a);
          trace.allocations.push_back(a);
        } else {
          live.remove(m.address);
          for (auto it = trace.allocations.rbegin(); it != trace.allocations.rend(); ++it)
            if (it->address == m.address && !it->freed_ns) {
              it->freed_ns = m.timestamp_ns;
              break;
            }
        }
      } else if (tag == raw::Tag::kLaunch) {
        const raw::NamedLaunch& l = c.launches[index];
        current = LaunchInfo{demangle(l.kernel), l.record.kernel_launch,
                             {l.record.grid[0], l.record.grid[1], l.record.grid[2]},
                             {l.record.block[0], l.record.block[1], l.record.block[2]},
                             {}};
        if (!l.record.recorded) {
          ++left_out;
          continue;
        }
        if (l.awaiting_result) ++unread;
        dropped_requests += l.record.requests_dropped;
        unsited += l.record.findings_unsited;
        std::uint64_t grid_blocks = 1;
        for (std::int32_t d : l.record.grid) grid_blocks *= static_cast<std::uint64_t>(std::max(d, 1));
        const std::uint64_t kept_blocks = blocks.kept(grid_blocks);
        sampled_out_blocks += grid_blocks - kept_blocks;
        if (std::find(c.tma_functions.begin(), c.tma_functions.end(), l.kernel) != c.tma_functions.end())
          tma.insert(current.kernel);
        std::vector<PointerArgument> arguments = map_pointer_arguments(l.params, live);
        name_allocations(trace.allocations, current.kernel, arguments);
        current.arguments = LaunchArguments(std::move(arguments));
        Kernel k;
        k.name = current.kernel;
        k.mangled_name = l.kernel;
        k.code_hash = code_hash_text(c.function_codes, l.kernel);
        k.process_id = c.process.pid;
        k.device_id = trace_device_id(c, trace, l.record.device_id);
        k.grid = current.grid;
        k.block = current.block_dim;
        trace.kernels.push_back(k);
        if (l.record.requests_dropped && limit_notes.size() < 10)
          limit_notes.push_back("launch " + std::to_string(current.launch) + " of " + current.kernel + ": " +
                                std::to_string(l.record.requests_dropped) + " warp requests of " +
                                std::to_string(grid_blocks) +
                                " blocks found no room in the per-launch site table (raise --max-bytes)");
        aggregator.add(current, l.sites);
        for (const auto& site : l.finding_sites) aggregator.add(current, site);
      }
    }
    // Each record names its process: a merged trace (or one of several CUDA processes) holds every rank's launch 0.
    const std::size_t first_access = trace.accesses.size(), first_finding = trace.findings.size(),
                      first_site = trace.finding_sites.size();
    aggregator.finish(trace);
    for (std::size_t i = first_access; i < trace.accesses.size(); ++i) trace.accesses[i].process_id = c.process.pid;
    for (std::size_t i = first_finding; i < trace.findings.size(); ++i) trace.findings[i].process_id = c.process.pid;
    for (std::size_t i = first_site; i < trace.finding_sites.size(); ++i)
      trace.finding_sites[i].process_id = c.process.pid;
  }
  // TMA tensor copies have no Sanitizer API instruction id: the kernels whose code issues them (UTMALDG/UTMASTG in
  // their SASS, found at module load) are listed, so no one reads their records as all they touched.
  for (const auto& name : tma)
    if (std::find(trace.tma_kernels.begin(), trace.tma_kernels.end(), name) == trace.tma_kernels.end())
      trace.tma_kernels.push_back(name);
  if (!tma.empty())
    trace.run.notes.push_back(std::to_string(tma.size()) +
                              " kernels issue TMA tensor copies (UTMALDG/UTMASTG in their SASS): the bytes those copies "
                              "move are invisible to the Compute Sanitizer API, their other accesses are recorded; see "
                              "tma_kernels");
  trace.filtered_kernels += left_out;
  trace.dropped_records += dropped_requests;
  trace.findings_total += unsited;
  if (unsited)
    trace.run.notes.push_back(std::to_string(unsited) +
                              " out-of-bounds accesses at PCs past the per-launch table were counted, not listed");
  if (sampled_out_blocks) {
    raw::DeviceBlockFilter device{};
    trace.run.notes.push_back("--blocks " + blocks.str() + " left out " + std::to_string(sampled_out_blocks) +
                              " blocks of the recorded launches (" +
                              (parse_device_block_filter(blocks.str(), device) ? "skipped on the device"
                                                                               : "recorded, then dropped on the host") +
                              ")");
  }
  if (unread) {
    trace.partial = true;
    trace.run.notes.push_back(std::to_string(unread) +
                              " recorded launches were never read back (their process ended before synchronizing with "
                              "them and without exit()): their accesses and findings are missing");
  }
  if (left_out) trace.run.notes.push_back(std::to_string(left_out) + " launches were left out by --kernel/--launch");
  // The preload subscribes only in the command's own process (VTRACE_TARGET_PID), so that the compilers and shells it
  // starts stay inert; a launcher's ranks are such children too. Say so rather than leave an empty trace unexplained.
  const bool launched = std::any_of(captures.begin(), captures.end(), [](const raw::Capture& c) {
    return !c.launches.empty();
  });
  if (!captures.empty() && !launched)
    trace.run.notes.push_back(
        "the traced process (pid " + std::to_string(captures.front().process.pid) +
        ") launched no kernel: access mode traces only the command's own process, not the processes it starts (a "
        "launcher such as torchrun or mpirun starts its ranks as children, which run untraced): trace each rank "
        "(torchrun --no-python ... vtrace run --accesses -o t.%r.json -- python train.py) and join the traces with "
        "vtrace merge");
  trace.run.notes.insert(trace.run.notes.end(), limit_notes.begin(), limit_notes.end());
  if (dropped_requests)
    trace.run.notes.push_back(std::to_string(dropped_requests) +
                              " warp requests found no room in their launch's site table (raise --max-bytes)");
}

}  // namespace vtools::vtrace::access
