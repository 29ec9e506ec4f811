#include "tools/vtrace/injection/cupti_record_mapping.hpp"

#include <string>

namespace vtools::vtrace::injection {

void add_activity_record(const CUpti_Activity* rec, raw::RecordBatch& batch) {
  using raw::Tag;
  switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
      raw::KernelRecord r{};
      r.start_ns = k->start;
      r.end_ns = k->end;
      r.device_id = k->deviceId;
      r.context_id = k->contextId;
      r.stream_id = k->streamId;
      r.correlation_id = k->correlationId;
      r.grid[0] = k->gridX, r.grid[1] = k->gridY, r.grid[2] = k->gridZ;
      r.block[0] = k->blockX, r.block[1] = k->blockY, r.block[2] = k->blockZ;
      r.cluster[0] = k->clusterX, r.cluster[1] = k->clusterY, r.cluster[2] = k->clusterZ;
      r.registers_per_thread = k->registersPerThread;
      r.static_shared_bytes = k->staticSharedMemory;
      r.dynamic_shared_bytes = k->dynamicSharedMemory;
      r.local_bytes_per_thread = k->localMemoryPerThread;
      r.launch_type = k->launchType;
      r.local_bytes_total = k->localMemoryTotal_v2;
      r.graph_node_id = k->graphNodeId;
      r.graph_id = k->graphId;
      batch.add(Tag::kKernel, r, k->name ? k->name : "");
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
      raw::MemcpyRecord r{};
      r.start_ns = m->start;
      r.end_ns = m->end;
      r.bytes = m->bytes;
      r.copy_kind = m->copyKind;
      r.device_id = m->deviceId;
      r.context_id = m->contextId;
      r.stream_id = m->streamId;
      r.correlation_id = m->correlationId;
      batch.add(Tag::kMemcpy, r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
      raw::MemsetRecord r{};
      r.start_ns = m->start;
      r.end_ns = m->end;
      r.bytes = m->bytes;
      r.value = m->value;
      r.device_id = m->deviceId;
      r.context_id = m->contextId;
      r.stream_id = m->streamId;
      r.correlation_id = m->correlationId;
      batch.add(Tag::kMemset, r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(rec);
      raw::MemoryRecord r{};
      r.timestamp_ns = m->timestamp;
      r.address = m->address;
      r.bytes = m->bytes;
      r.operation = m->memoryOperationType;
      r.memory_kind = m->memoryKind;
      r.device_id = m->deviceId;
      r.context_id = m->contextId;
      batch.add(Tag::kMemory, r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(rec);
      raw::DeviceRecord r{};
      r.id = d->id;
      r.cc_major = d->computeCapabilityMajor;
      r.cc_minor = d->computeCapabilityMinor;
      r.sm_count = d->numMultiprocessors;
      r.memory_bytes = d->globalMemorySize;
      batch.add(Tag::kDevice, r, d->name ? d->name : "");
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {  // only the launch calls are enabled (cuptiActivityEnable*Api)
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(rec);
      batch.add(Tag::kLaunchCall, raw::LaunchCallRecord{a->start, a->end, a->correlationId, a->threadId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(rec);
      raw::MarkerRecord r{};
      r.timestamp_ns = m->timestamp;
      r.id = m->id;
      r.flags = m->flags;
      if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        r.process_id = m->objectId.pt.processId;
        r.thread_id = m->objectId.pt.threadId;
      }
      std::string tail = m->name ? m->name : "";
      tail.push_back('\0');
      if (m->domain) tail += m->domain;
      batch.add(Tag::kMarker, r, tail);
      break;
    }
    default:
      break;
  }
}

}  // namespace vtools::vtrace::injection
