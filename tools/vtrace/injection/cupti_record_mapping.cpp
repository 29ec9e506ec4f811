#include "tools/vtrace/injection/cupti_record_mapping.hpp"

#include <string>

#include "tools/vtrace/injection/process_records.hpp"

namespace vtools::vtrace::injection {

const CUpti_CallbackId kRuntimeLaunches[8] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,            CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
const CUpti_CallbackId kDriverLaunches[8] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,             CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
const CUpti_CallbackId kRuntimeBlocking[15] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020};
const CUpti_CallbackId kDriverBlocking[17] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy, CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync};

static_assert(CUPTI_CB_DOMAIN_DRIVER_API == raw::kDriverDomain && CUPTI_CB_DOMAIN_RUNTIME_API == raw::kRuntimeDomain);

namespace {

bool is_launch_call(CUpti_ActivityKind kind, CUpti_CallbackId cbid) {
  const CUpti_CallbackId* ids = kind == CUPTI_ACTIVITY_KIND_RUNTIME ? kRuntimeLaunches : kDriverLaunches;
  for (int i = 0; i < 8; ++i)
    if (ids[i] == cbid) return true;
  return false;
}

}  // namespace

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
      add_device_identity(batch, static_cast<int>(d->id));
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {  // only launch and blocking calls are enabled (cuptiActivityEnable*Api)
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(rec);
      if (is_launch_call(rec->kind, a->cbid)) {
        batch.add(Tag::kLaunchCall, raw::LaunchCallRecord{a->start, a->end, a->correlationId, a->threadId});
        break;
      }
      const std::uint32_t domain = rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API
                                                                             : CUPTI_CB_DOMAIN_DRIVER_API;
      batch.add(Tag::kApiCall, raw::ApiCallRecord{a->start, a->end, a->correlationId, a->threadId, domain, a->cbid});
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
