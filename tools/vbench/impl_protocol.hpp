// The messages of the external-forward protocol (`vbench run --impl CMD`, man/vbench.1 "IMPLEMENTATIONS"): the
// request vbench hands an implementation on its standard input, the reply it writes back, and the raw logits file.
// Readers check every field against the request; the process side lives in impl_process, the loop in impl_harness.
// Shapes documented by schemas/vbench.impl.schema.json (kImplProtocolVersion is kept in sync with it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/vbench/model.hpp"

namespace vtools::vbench {

inline constexpr std::string_view kImplProtocol = "vbench.impl";
inline constexpr int kImplProtocolVersion = 1;  ///< keep in sync with schemas/vbench.impl.schema.json

/// What vbench asks of one benchmark: everything the implementation needs to build, check and time its forward.
struct ImplRequest {
  GptConfig config;
  std::string dtype = "fp32";  ///< fp32 | tf32 | bf16
  int batch_size = 0, seq_len = 0;
  std::string weights_path;    ///< safetensors with GPT-2 names (vbench init's layout), config in __metadata__
  std::string tokens_path;     ///< int32 little-endian [B][T]
  int warmup = 0, iters = 0;
  double min_time_s = 0;       ///< after `iters`, more timed forwards until they add up to this (each repetition)
  int repetitions = 1;
  std::string caches = "warm";  ///< warm | cold (flush the caches, untimed, before every forward)
  int gpu = -1;                 ///< --gpu index; -1: the implementation's default device
  std::string logits_path;      ///< where to write float32 little-endian [B][T][V]; "" = no gate (--no-check)
  std::string reply_path;       ///< where to write the reply JSON
};

/// Who answered: the implementation's self-description.
struct ImplIdentity {
  std::string name;     ///< e.g. "hf-gpt2-eager"; names the benchmark's backend
  std::string version;  ///< e.g. "transformers 5.17, torch 2.11"
  std::string device;   ///< e.g. "NVIDIA H200"
};

struct ImplReply {
  ImplIdentity implementation;
  std::vector<std::vector<double>> repetitions;  ///< timed forward durations in ms, one list per repetition
  std::vector<std::string> notes;                ///< free text the implementation wants recorded
};

/// The request as JSON text (one object, one line).
std::string impl_request_json(const ImplRequest& request);
/// Parses a request (for implementations written in C++, e.g. examples/vbench_impl_example.cpp). Error(kDataError)
/// at `name` for anything missing or mistyped.
ImplRequest parse_impl_request(std::string_view text, std::string_view name);

/// The reply as JSON text.
std::string impl_reply_json(const ImplReply& reply);
/// Parses and checks a reply against `request`: protocol and version, a non-empty implementation name, exactly
/// request.repetitions lists, each of at least request.iters samples (kMaxSamples in all at most), every sample
/// finite and positive. Error(kDataError) at `name` saying what is wrong.
ImplReply parse_impl_reply(std::string_view text, std::string_view name, const ImplRequest& request);

/// Error(kDataError) at `name` unless `bytes` is the size of B·T·V float32 values.
void check_logits_size(std::uint64_t bytes, std::string_view name, const ImplRequest& request);
/// The logits file's values, size checked (check_logits_size). Non-finite values pass: the gate reports them.
std::vector<float> parse_impl_logits(std::string_view bytes, std::string_view name, const ImplRequest& request);

/// int32 little-endian bytes of `tokens` (the tokens file), and back (Error(kDataError) for a size not a multiple
/// of 4).
std::string tokens_bytes(const std::vector<std::int32_t>& tokens);
std::vector<std::int32_t> parse_tokens(std::string_view bytes, std::string_view name);
/// float32 little-endian bytes of `logits` (what an implementation writes).
std::string logits_bytes(const std::vector<float>& logits);

}  // namespace vtools::vbench
