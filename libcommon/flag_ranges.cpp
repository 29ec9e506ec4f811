#include "flag_ranges.hpp"

#include <charconv>
#include <cmath>
#include <sstream>
#include <type_traits>

#include "error.hpp"

namespace vtools {

// from_chars over the whole of `value` (a leading '+' allowed, as strtol allows it): false on anything left over,
// on a sign it cannot take, and on out of range.
template <class T>
static bool parse_whole(const std::string& value, T& out) {
  const char* first = value.data();
  const char* last = value.data() + value.size();
  if (first != last && *first == '+') ++first;
  if (first == last || *first == '+' || (*first == '-' && std::is_unsigned_v<T>)) return false;
  if constexpr (std::is_floating_point_v<T>) {
    const auto [end, ec] = std::from_chars(first, last, out, std::chars_format::fixed | std::chars_format::scientific);
    return ec == std::errc() && end == last && std::isfinite(out);
  } else {
    const auto [end, ec] = std::from_chars(first, last, out);
    return ec == std::errc() && end == last;
  }
}

static std::string shortest(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

CLI::Validator integer_range(std::int64_t lo, std::int64_t hi) {
  const std::string range = "from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& value) {
        std::int64_t x = 0;
        if (parse_whole(value, x) && x >= lo && x <= hi) return std::string();
        return "expected an integer " + range + ", got " + quoted_value(value);
      },
      "");
}

namespace {
std::vector<std::string> list_items(const std::string& value) {
  std::vector<std::string> items(1);
  for (char c : value) {
    if (c == ',' || c == '\n')
      items.emplace_back();
    else
      items.back() += c;
  }
  return items;
}
}  // namespace

CLI::Validator integer_list(std::int64_t lo, std::int64_t hi) {
  const std::string range = "from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& value) {
        for (const auto& item : list_items(value)) {
          std::int64_t x = 0;
          if (!parse_whole(item, x) || x < lo || x > hi)
            return "expected integers " + range + " separated by commas, got " + quoted_value(value);
        }
        return std::string();
      },
      "");
}

std::vector<int> integer_list_values(const std::string& value) {
  std::vector<int> out;
  for (const auto& item : list_items(value)) {
    std::int64_t x = 0;
    if (parse_whole(item, x)) out.push_back(static_cast<int>(x));
  }
  return out;
}

CLI::Option* add_integer_list_option(CLI::App* cmd, const std::string& names, std::vector<int>& values,
                                     std::int64_t lo, std::int64_t hi, const std::string& description) {
  return cmd
      ->add_option_function<std::string>(
          names, [&values](const std::string& v) { values = integer_list_values(v); }, description)
      ->check(integer_list(lo, hi))
      ->multi_option_policy(CLI::MultiOptionPolicy::Join)
      ->default_str(values.empty() ? std::string() : std::to_string(values.front()));
}

CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) { return value.empty() ? "expected " + what + ", got ''" : std::string(); }, "");
}

CLI::Validator unsigned64_range() {
  return CLI::Validator(
      [](std::string& value) {
        std::uint64_t x = 0;
        if (parse_whole(value, x)) return std::string();
        return "expected an integer from 0 to 18446744073709551615, got " + quoted_value(value);
      },
      "");
}

CLI::Validator number_range(double lo, double hi) {
  const std::string range = "from " + shortest(lo) + " to " + shortest(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& value) {
        double x = 0;
        if (parse_whole(value, x) && x >= lo && x <= hi) return std::string();
        return "expected a number " + range + ", got " + quoted_value(value);
      },
      "");
}

}  // namespace vtools
