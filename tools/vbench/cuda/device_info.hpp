// What the cuda backend reports about its GPU: identity, versions and the roofline peaks for a dtype.
#pragma once

#include <string>

#include "tools/vbench/backend.hpp"

namespace vtools::vbench::cuda {

/// Dense FLOPs per clock per SM for compute capability major.minor in `dtype` (fp32: CUDA cores, 2 per FMA lane;
/// tf32/bf16: tensor cores), from NVIDIA's architecture whitepapers; 0 for architectures not listed.
/// For example 9.0 (H100): fp32 256, tf32 2048, bf16 4096.
double flops_per_clock_per_sm(int major, int minor, DType dtype);

/// Peak DRAM bandwidth in bytes/s: 2 transfers per clock (DDR) x memory clock x bus width / 8.
double peak_bandwidth_bytes_per_s(double memory_clock_khz, int bus_width_bits);

/// The NVIDIA driver's version ("580.159.04") from the text of /proc/driver/nvidia/version ("NVRM version: NVIDIA
/// UNIX x86_64 Kernel Module  580.159.04  ..." or "... Open Kernel Module for x86_64  580.159.04 ..."); "" when the
/// text holds none.
std::string driver_version_from_proc(const std::string& text);

/// Fills DeviceInfo for `device`: name, CC, SMs, memory, driver ("580.159.04 (CUDA 13.0)": the kernel module's
/// version where /proc tells it, and the CUDA version the driver supports), runtime and cuBLASLt versions, the device
/// index and PCI bus id, peak bandwidth and peak FLOPs = SMs x max SM clock x flops_per_clock_per_sm (an upper
/// bound: tensor cores throttle below the max clock, measured bf16 GEMMs on H100 reach ~80% of it). Throws Error
/// naming the failing CUDA call.
DeviceInfo query_device_info(int device, DType dtype);

}  // namespace vtools::vbench::cuda
