#include "usage_errors.hpp"

#include <cctype>
#include <cstdint>
#include <limits>
#include <regex>
#include <sstream>

#include "error.hpp"
#include "flag_ranges.hpp"

namespace vtools {

std::string choice_list(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i)
    out += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return out;
}

CLI::Validator one_of(std::vector<std::string> choices, std::vector<std::string> also_accepted) {
  return CLI::Validator(
      [choices, also_accepted](std::string& value) {
        for (const auto& list : {choices, also_accepted})
          for (const auto& c : list)
            if (c == value) return std::string();
        return with_suggestion("expected " + choice_list(choices) + ", got " + quoted_value(value), value,
                               choices);
      },
      "");
}

namespace {

std::string lowercase_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string values(const std::string& n) { return n == "1" ? "1 value" : n + " values"; }

// Every spelling of every option of `cmd` ("--iters", "-B"), for did-you-mean.
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// Whether `v` reads as CLI11's type name `type` (INT, UINT, FLOAT; anything else is taken as text).
bool converts_as(const std::string& type, std::string v) {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr double kHuge = std::numeric_limits<double>::max();
  if (type == "INT") return integer_range(kMin, kMax)(v).empty();
  if (type == "UINT") return unsigned64_range()(v).empty();
  if (type == "FLOAT") return number_range(-kHuge, kHuge)(v).empty();
  return true;
}

std::string expected_of_type(const std::string& type) {
  if (type == "INT") return "an integer";
  if (type == "UINT") return "a non-negative integer";
  if (type == "FLOAT") return "a number";
  return "a " + lowercase_first(type);
}

// "Could not convert: --seq = 64,abc": name the option's type and the one value that is not of it.
std::string conversion_message(const CLI::App& cmd, const std::string& name, const std::string& joined) {
  const CLI::Option* opt = cmd.get_option_no_throw(name);
  const std::string type = opt ? opt->get_type_name() : "";
  std::string bad = joined;
  std::size_t start = 0;
  while (start <= joined.size()) {
    const std::size_t comma = std::min(joined.find(',', start), joined.size());
    const std::string part = joined.substr(start, comma - start);
    if (!converts_as(type, part)) {
      bad = part;
      break;
    }
    start = comma + 1;
  }
  return name + ": expected " + (type.empty() ? "another value" : expected_of_type(type)) + ", got " +
         quoted_value(bad);
}

std::string translate(const CLI::App& app, const CLI::App& cmd, const std::string& what) {
  std::smatch m;
  static const std::regex at_most(R"((.+): At Most (\d+) required but received (\d+))");
  static const std::regex at_least(R"((.+): At least (\d+) required but received (\d+))");
  static const std::regex exactly(R"(Expected exactly (\d+) arguments to (.+), got (\d+))");
  static const std::regex at_least_args(R"(Expected at least (\d+) arguments to (.+), got (\d+))");
  static const std::regex missing_value(R"((.+): \d+ required .* missing)");
  static const std::regex flag_value(R"((.+)(: too many inputs for a flag| was given a disallowed flag override))");
  static const std::regex true_false(R"((.+): Should be true/false or a number)");
  static const std::regex convert(R"(Could not convert: (.+) = (.*))");
  static const std::regex not_allowed(R"(The value (.*) is not an allowed value for (.+))");
  static const std::regex not_in_set(R"((.+): (.*) not in \{(.*)\})");
  static const std::regex not_in_range(R"((.+): Value (.*) not in range (.+) to (.+))");
  static const std::regex extras(R"(The following arguments? (?:was|were) not expected: (.*))");
  static const std::regex required(R"((.+) is required)");

  if (std::regex_match(what, m, at_most))
    return m[1].str() + ": expected at most " + values(m[2]) + ", got " + m[3].str();
  if (std::regex_match(what, m, at_least))
    return m[1].str() + ": expected at least " + values(m[2]) + ", got " + m[3].str();
  if (std::regex_match(what, m, exactly)) return m[2].str() + ": expected " + values(m[1]) + ", got " + m[3].str();
  if (std::regex_match(what, m, at_least_args))
    return m[2].str() + ": expected at least " + values(m[1]) + ", got " + m[3].str();
  if (std::regex_match(what, m, missing_value)) return m[1].str() + ": expected a value, got none";
  if (std::regex_match(what, m, flag_value)) return m[1].str() + ": expected no value (it is a flag)";
  if (std::regex_match(what, m, true_false)) return m[1].str() + ": expected true, false or a number";
  if (std::regex_match(what, m, convert)) return conversion_message(cmd, m[1], m[2]);
  if (std::regex_match(what, m, not_allowed))
    return m[2].str() + ": expected another value, got " + quoted_value(m[1]);
  if (std::regex_match(what, m, not_in_range))
    return m[1].str() + ": expected a value from " + m[3].str() + " to " + m[4].str() + ", got " +
           quoted_value(m[2]);
  if (std::regex_match(what, m, not_in_set)) {
    std::vector<std::string> choices;
    std::string set = m[3];
    for (std::size_t b = 0; b <= set.size();) {
      const std::size_t e = std::min(set.find(',', b), set.size());
      choices.push_back(set.substr(b, e - b));
      b = e + 1;
    }
    const std::string message = "expected " + choice_list(choices) + ", got " + quoted_value(m[2]);
    return m[1].str() + ": " + with_suggestion(message, m[2].str(), choices);
  }
  if (std::regex_match(what, m, extras)) {
    // CLI11 lists the leftovers ("3 --itres" for `--itres 3`): the unknown option, when there is one, is the news.
    std::istringstream words(m[1].str());
    std::string arg, word;
    while (words >> word) {
      if (arg.empty()) arg = word;
      if (word.size() > 1 && word[0] == '-' && !std::isdigit(static_cast<unsigned char>(word[1]))) {
        arg = word;
        break;
      }
    }
    if (arg.empty()) return lowercase_first(what);
    if (arg[0] == '-' && arg.size() > 1 && !std::isdigit(static_cast<unsigned char>(arg[1]))) {
      const std::string name = arg.substr(0, arg.find('='));
      return with_suggestion("unknown option " + quoted_value(name), name, option_names(cmd));
    }
    if (&cmd == &app && !subcommand_names(app).empty())
      return with_suggestion("unknown subcommand " + quoted_value(arg) + " (" +
                                 choice_list(subcommand_names(app)) + ")",
                             arg, subcommand_names(app));
    return "unexpected argument " + quoted_value(arg);
  }
  if (what == "A subcommand is required") return "missing a subcommand (" + choice_list(subcommand_names(app)) + ")";
  if (std::regex_match(what, m, required)) {
    const std::string name = m[1];
    return name[0] == '-' ? "missing required option " + name : "missing required argument " + quoted_value(name);
  }
  return lowercase_first(what);
}

}  // namespace

std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const auto parsed = app.get_subcommands();
  const CLI::App& cmd = parsed.empty() ? app : *parsed.back();
  std::string command = app.get_name() + (parsed.empty() ? "" : " " + cmd.get_name());
  return translate(app, cmd, error.what()) + " (run '" + command + " --help')";
}

}  // namespace vtools
