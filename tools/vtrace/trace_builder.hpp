// Turns the raw captures of every traced process into the trace model: demangles kernel names, names copy kinds and
// launch types, pairs allocations with their releases, applies --kernel, and decides whether the trace is partial.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/vtrace/kernel_filter.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// Demangles an Itanium C++ name ("_Z3addPfi" -> "add(float*, int)"); other names come back unchanged.
std::string demangle(const std::string& mangled);

/// A function's code hash (raw::Capture::function_codes) as Kernel::code_hash: 16 hex digits, "" when unknown.
std::string code_hash_text(const std::map<std::string, std::uint64_t>& codes, const std::string& mangled_name);

/// "GPU-8f2a...": a device UUID as nvidia-smi and CUDA_VISIBLE_DEVICES write it.
std::string uuid_text(const std::uint8_t (&uuid)[16]);

/// "0000:19:00.0": a PCI domain, bus and device as nvidia-smi writes them.
std::string pci_bus_id_text(std::uint32_t domain, std::uint32_t bus, std::uint32_t device);

/// A capture's process: host, rank (process_identity.hpp; a refused launcher's reason goes to `notes`), clock anchors.
Process process_of(const raw::Capture& c, std::vector<std::string>& notes);

/// The trace's id of device `ordinal` of capture `c` (build_trace tells GPUs apart by UUID and may renumber them: a
/// process's ordinal 0 is another GPU under another CUDA_VISIBLE_DEVICES); the ordinal itself when `c` recorded no
/// UUID for it.
std::uint32_t trace_device_id(const raw::Capture& c, const Trace& trace, std::uint32_t ordinal);

/// "htod", "dtoh", ... for a CUpti_ActivityMemcpyKind value; "unknown" for anything else.
std::string memcpy_kind_name(std::uint32_t kind);

/// "regular", "cooperative_single_device", ... for a CUpti_ActivityLaunchType value.
std::string launch_type_name(std::uint32_t type);

/// "pageable", "pinned", "device", "array", "managed", "device_static", "managed_static" or "unknown".
std::string memory_kind_name(std::uint32_t kind);

/// Builds the trace. `run` is copied in (command, status, times); kernels are sorted by start time. The trace is
/// partial when the command died of a signal, a process did not write its end record, or a file ends in a torn
/// record. In access mode (run.mode "accesses") allocations are left to access::add_access_captures.
Trace build_trace(const std::vector<raw::Capture>& captures, RunInfo run, const KernelFilter& filter);

}  // namespace vtools::vtrace
