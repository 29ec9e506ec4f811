// CUPTI activity record -> raw record (raw_records.hpp): the one place that knows the CUDA 13.0 record structs
// (CUpti_ActivityKernel10, Memcpy6, Memset4, Memory4, Device5, Marker2, API). Needs the CUPTI headers, not a GPU, so it is
// unit-tested on synthetic records (tests/vtrace/cupti_record_mapping_test.cpp).
#pragma once

#include <cupti.h>

#include "tools/vtrace/raw_record_writer.hpp"

namespace vtools::vtrace::injection {

/// The launch calls (cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch, ... and their per-thread-stream forms).
extern const CUpti_CallbackId kRuntimeLaunches[8];
extern const CUpti_CallbackId kDriverLaunches[8];
/// The calls that can block the host thread, recorded with --api: device/context, stream and event synchronizes,
/// synchronous copies and sets (and cudaMemcpyAsync, which blocks on pageable memory), frees.
extern const CUpti_CallbackId kRuntimeBlocking[15];
extern const CUpti_CallbackId kDriverBlocking[17];

/// Appends the raw record for `rec` to `batch`; kinds vtrace does not record are skipped. An API record is a launch
/// call (kLaunchCall) when its id is one of the launch calls, else a blocking call (kApiCall).
void add_activity_record(const CUpti_Activity* rec, raw::RecordBatch& batch);

}  // namespace vtools::vtrace::injection
