// Range checks for numeric flags: CLI11 converts "-1" to 2^64-1 for an unsigned option, saturates 20-digit numbers
// and takes "nan", so every numeric flag is checked here first and refused (exit 2) with its valid range.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace vtools {

/// A check for a whole decimal integer from `lo` to `hi` (optional '+'; no exponent, no spaces). The message is
/// "expected an integer from LO to HI, got 'VALUE'".
CLI::Validator integer_range(std::int64_t lo, std::int64_t hi);
/// The same for the full unsigned 64-bit range (seeds).
CLI::Validator unsigned64_range();

/// A check for a finite decimal number from `lo` to `hi` ("nan", "inf" and "0x1p3" are refused):
/// "expected a number from LO to HI, got 'VALUE'".
CLI::Validator number_range(double lo, double hi);

/// A check for a list of whole integers from `lo` to `hi` separated by commas ("1,4,16"); an empty item ("4,,8",
/// ",4") is refused, as CLI11's own list splitting would drop it: "expected integers from LO to HI separated by
/// commas, got 'VALUE'".
CLI::Validator integer_list(std::int64_t lo, std::int64_t hi);
/// The integers of a list integer_list() accepted; items may also be separated by newlines (CLI11 joins the values of
/// a repeated flag with them).
std::vector<int> integer_list_values(const std::string& value);
/// An option `names` taking such a list from `lo` to `hi` into `values` (its default shown: values' first), checked
/// whole (integer_list); a repeated flag's lists are joined.
CLI::Option* add_integer_list_option(CLI::App* cmd, const std::string& names, std::vector<int>& values,
                                     std::int64_t lo, std::int64_t hi, const std::string& description);

/// A check that a value is not empty ("expected WHAT, got ''"): an empty --config must not fall back to a default.
CLI::Validator non_empty(const std::string& what);

}  // namespace vtools
