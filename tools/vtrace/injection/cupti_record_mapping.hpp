// CUPTI activity record -> raw record (raw_records.hpp): the one place that knows the CUDA 13.0 record structs
// (CUpti_ActivityKernel10, Memcpy6, Memset4, Memory4, Device5, Marker2, API). Needs the CUPTI headers, not a GPU, so it is
// unit-tested on synthetic records (tests/vtrace/cupti_record_mapping_test.cpp).
#pragma once

#include <cupti.h>

#include "tools/vtrace/raw_record_writer.hpp"

namespace vtools::vtrace::injection {

/// Appends the raw record for `rec` to `batch`; kinds vtrace does not record are skipped.
void add_activity_record(const CUpti_Activity* rec, raw::RecordBatch& batch);

}  // namespace vtools::vtrace::injection
