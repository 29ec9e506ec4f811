// Human-readable sizes, durations and addresses for tables and messages (never for JSON, which keeps raw numbers).
#pragma once

#include <cstdint>
#include <string>

namespace vtools {

/// 1536 -> "1.5 KiB"; below 1 KiB exact bytes ("512 B"). Binary units, one decimal.
std::string format_bytes(std::uint64_t bytes);

/// Nanoseconds -> "850 ns", "12.3 us", "4.56 ms", "1.23 s" (three significant digits).
std::string format_duration_ns(double ns);

/// A sample standard deviation for a table: format_duration_ns(std_ns), or "-" below two samples, which have no
/// spread (stats::sample_std gives 0 there, which would read as a measured spread of 0 ns).
std::string format_std_duration_ns(double std_ns, std::uint64_t samples);

/// Milliseconds -> same as format_duration_ns(ms * 1e6).
std::string format_duration_ms(double ms);

/// 0x7f00_0000 style: "0x" + lowercase hex, no padding.
std::string format_address(std::uint64_t address);

/// 1234567 -> "1,234,567".
std::string format_count(std::uint64_t n);

/// 1.23e12 -> "1.23 T" with SI prefixes (k, M, G, T, P), three significant digits.
std::string format_si(double value);

/// format_bytes, format_count and format_address of a number read from a document, which may hold anything: the
/// value rounded toward zero where it lies in [0, 2^64), else the number itself as "%.4g" ("-5", "1.106e+80").
/// Converting such a value to an integer type would be undefined behaviour (a fuzzer found one in vrender).
std::string format_bytes_of(double v);
std::string format_count_of(double v);
std::string format_address_of(double v);

}  // namespace vtools
