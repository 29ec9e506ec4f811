// The options of each vbench subcommand, bound to flags by main.cpp and consumed by commands.cpp. Defaults here are
// the documented defaults (man/vbench.1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libcommon/cli.hpp"
#include "tools/vbench/cuda_options.hpp"

namespace vtools::vbench {

/// Which model(s): named configs, or a custom one when --n-layer/--n-head/--n-embd are given.
struct ModelOptions {
  std::string configs;  ///< "all" or "a,b,c"; "" = gpt_nano (or the config stored in --weights)
  int n_layer = 0, n_head = 0, n_embd = 0;
  int vocab = 50257, block = 1024;
  bool untied = false;
};

struct RunOptions {
  ModelOptions model;
  std::vector<int> batches = {4}, seqs = {64};  ///< --batch and --seq lists: every config runs at each (B, T)
  std::string dtype = "fp32";
  std::string backend = "auto";  ///< cpu | cuda | auto
  int gpu = -1;                  ///< --gpu: CUDA device index; -1: not given (device 0)
  int warmup = 3, iters = 20;
  double min_time = 0;           ///< --min-time seconds of timed forwards at least (0: just --iters)
  int repetitions = 1;           ///< --repetitions: the timing this many times, each after its own prepare
  std::string caches = "warm";   ///< warm | cold (flushed before each forward)
  std::uint64_t seed = 1337;
  std::string weights;           ///< safetensors file; "" = init from seed
  bool no_check = false;
  std::string forward;           ///< --forward: the forward every benchmark runs, instead of prepare's search
  std::string forwards_from;     ///< --forwards-from: a vtools.bench document; each benchmark runs the one it kept
  std::vector<std::string> impls;  ///< --impl: external implementations (shell command lines) instead of a backend
  double impl_timeout = 600;       ///< --impl-timeout: seconds one implementation process may run
  CudaOptions cuda;                ///< the cuda backend's switches (main.cpp: from the VTOOLS_VBENCH_* variables)
  OutputOptions out;
  std::string command_line;      ///< recorded in metadata
};

struct ListOptions {
  bool device = false;           ///< add the roofline floor on the detected device
  std::string backend = "auto";
  int gpu = -1;                  ///< --gpu, as for run
  int batch = 4, seq = 64;
  std::string dtype = "fp32";
  OutputOptions out;
};

struct InitOptions {
  ModelOptions model;
  std::uint64_t seed = 1337;
  std::string output;
};

struct CompareOptions {
  std::string baseline, candidate;
  double fail_on_regression_pct = -1;  ///< < 0: never fail
  OutputOptions out;
};

struct ShowOptions {
  std::string input;
  OutputOptions out;
};

struct MergeOptions {
  std::vector<std::string> inputs;
  bool allow_mixed = false;
  OutputOptions out;
};

}  // namespace vtools::vbench
