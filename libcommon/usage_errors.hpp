// Command-line mistakes in vtools' own wording: CLI11's messages ("--iters: At Most 1 required but received 2",
// "Could not convert: --seq = 64,abc", "The following argument was not expected: rnu") become lowercase
// "expected X, got Y" lines with a did-you-mean from the real choices, and the --help hint names the subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace vtools {

/// The message for a failed parse of `app` (without "tool: error: "), ending in "(run 'tool sub --help')".
std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error);

/// A check that the value is one of `choices`: "expected json, table or csv, got 'tabel'; did you mean 'table'?".
/// `also_accepted` are taken too but not offered (older spellings).
CLI::Validator one_of(std::vector<std::string> choices, std::vector<std::string> also_accepted = {});

/// "a, b or c".
std::string choice_list(const std::vector<std::string>& choices);

}  // namespace vtools
