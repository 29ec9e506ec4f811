// What both injection libraries (cupti_injection.cpp, sanitizer_tool.cpp) record about the process they run in,
// so that a trace of either mode says who the process was in its job and when it ran: the host and launcher
// variables (kIdentity; process_identity.hpp decides the rank from them in the parent), clock anchors
// (kClockAnchor: a clock read between two CLOCK_REALTIME reads) and a device's properties, UUID and PCI location
// (kDevice, kDeviceIdentity) through the driver already loaded in the process. Nothing here throws or exits.
#pragma once

#include <cstdint>
#include <string>

#include "tools/vtrace/raw_record_writer.hpp"

namespace vtools::vtrace::injection {

/// "host\0KEY=VALUE\0...": this process's host name and the kRankVariables set in its environment.
std::string identity_bytes();

/// `read_clock()` between two CLOCK_REALTIME reads, the tightest of a few tries (a preemption between the reads
/// only widens the window, which the record states): realtime_ns is the middle of the two reads, half_window_ns half
/// their distance plus 1 ns. `clock` (raw::kClockCupti, raw::kClockMonotonic) says what read_clock reads.
raw::ClockAnchorRecord clock_anchor(std::uint32_t clock, std::uint64_t (*read_clock)()) noexcept;

/// Appends device `ordinal`'s kDevice record (name, compute capability, SMs, memory) and, where the driver gives
/// them, its kDeviceIdentity (UUID, PCI domain:bus:device), read through the libcuda.so.1 already loaded in this
/// process (dlopen RTLD_NOLOAD: no link-time dependency). Appends nothing when no driver is loaded.
void add_device_records(raw::RecordBatch& batch, int ordinal);

/// Appends only device `ordinal`'s kDeviceIdentity, as above: for the devices CUPTI reports that this process made
/// no context on (a rank sees every GPU of its host), so that every device record of a job carries its UUID and
/// the ranks' records of one GPU are joined into one device.
void add_device_identity(raw::RecordBatch& batch, int ordinal);

}  // namespace vtools::vtrace::injection
