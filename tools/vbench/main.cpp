// vbench CLI: binds flags to the Options structs of options.hpp and calls one commands.hpp function per
// subcommand; see tools/vbench/README.md and man/vbench.1.
#include "libcommon/cli.hpp"
#include "libcommon/flag_ranges.hpp"
#include "tools/vbench/commands.hpp"

namespace vb = vtools::vbench;

namespace {

// `several`: --config takes a list (run, verify); init writes one config.
void add_model_flags(CLI::App* cmd, vb::ModelOptions& m, bool several) {
  cmd->add_option("--config", m.configs,
                  several ? "config name(s): all, or a,b,c (default gpt_nano)"
                          : "config name, or --n-layer/--n-head/--n-embd for a custom one (default gpt_nano)")
      ->check(vtools::non_empty("a config name (vbench list names them)"));
  cmd->add_option("--n-layer", m.n_layer, "custom config: layers");
  cmd->add_option("--n-head", m.n_head, "custom config: heads");
  cmd->add_option("--n-embd", m.n_embd, "custom config: embedding width");
  cmd->add_option("--vocab", m.vocab, "custom config: vocabulary size")->capture_default_str();
  cmd->add_option("--block", m.block, "custom config: block size (largest T)")->capture_default_str();
  cmd->add_flag("--untied", m.untied, "separate LM head (minGPT) instead of tying it to wte");
}

CLI::Option* add_gpu_flag(CLI::App* cmd, int& gpu) {
  return cmd
      ->add_option("--gpu", gpu, "CUDA device index as CUDA_VISIBLE_DEVICES numbers them (default 0); asks for cuda")
      ->check(vtools::integer_range(0, 65535));
}

void add_run_flags(CLI::App* cmd, vb::RunOptions& o, bool timing) {
  add_model_flags(cmd, o.model, true);
  // Checked whole: CLI11's own list splitting drops an empty item ("-B 4,,8" would run B=4 and 8 without a word).
  vtools::add_integer_list_option(cmd, "--batch,-B", o.batches, 1, 2147483647,
                                  "batch size B, or a list: 1,4,16 (every config at each)");
  vtools::add_integer_list_option(cmd, "--seq,-T", o.seqs, 1, 2147483647,
                                  "sequence length T, or a list: 32,64 (every config at each B and T)");
  cmd->add_option("--dtype", o.dtype, "fp32|tf32|bf16")->capture_default_str();
  cmd->add_option("--backend", o.backend, "cpu|cuda|auto")->capture_default_str();
  add_gpu_flag(cmd, o.gpu);
  if (timing) {
    cmd->add_option("--warmup", o.warmup, "untimed forwards first, 0 to 100000")
        ->check(vtools::integer_range(0, 100000))
        ->capture_default_str();
    cmd->add_option("--iters", o.iters, "timed forwards, 1 to 100000 (the samples a benchmark keeps)")
        ->check(vtools::integer_range(1, 100000))
        ->capture_default_str();
    cmd->add_option("--min-time", o.min_time,
                    "then more timed forwards until they add up to SECONDS, 0 to 3600 (at most 100000 samples)")
        ->capture_default_str();
    cmd->add_option("--repetitions", o.repetitions,
                    "time each benchmark N times, each after its own prepare of the same forward")
        ->capture_default_str();
    cmd->add_option("--caches", o.caches, "warm|cold: caches as the forward before left them, or flushed first")
        ->capture_default_str();
    cmd->add_flag("--no-check", o.no_check, "skip the correctness gate");
    auto* impl = cmd->add_option("--impl", o.impls,
                                 "benchmark an external forward: a command line speaking vbench.impl (repeatable)");
    cmd->add_option("--impl-timeout", o.impl_timeout, "seconds one --impl process may run")
        ->capture_default_str()
        ->needs(impl);
  }
  cmd->add_option("--seed", o.seed, "weights and tokens seed (0 to 2^64-1)")
      ->check(vtools::unsigned64_range())
      ->capture_default_str();
  cmd->add_option("--weights", o.weights, "load weights from a .safetensors file");
  auto* forward = cmd->add_option("--forward", o.forward,
                                  "cuda: run this forward (a name plan_search gives) instead of searching at prepare");
  cmd->add_option("--forwards-from", o.forwards_from,
                  "cuda: each benchmark runs the forward it kept in this vbench document (no search)")
      ->excludes(forward);
  vtools::add_output_options(cmd, o.out, {"json", "table", "markdown", "csv"});
}

}  // namespace

int main(int argc, char** argv) {
  auto app = vtools::make_app("vbench", "benchmark GPT forward passes on CPU and CUDA",
                              "  vbench list --device\n"
                              "  vbench run --config gpt_nano --backend cpu --batch 4 --seq 64 -o cpu.json\n"
                              "  vbench run --config all --backend cuda --dtype bf16 -o new.json\n"
                              "  vbench run --impl 'python3 -m vbench_impl.hf_gpt2' --config gpt2 -o hf.json\n"
                              "  vbench compare old.json new.json --fail-on-regression 5\n"
                              "  vbench merge a.json b.json -o all.json\n"
                              "  vbench show new.json --format markdown\n"
                              "  vbench init --config gpt2 -o gpt2.safetensors\n"
                              "  vbench verify --config all --backend cuda\n");
  vb::RunOptions run, verify;
  for (int i = 0; i < argc; ++i) run.command_line += (i ? " " : "") + std::string(argv[i]);
  verify.command_line = run.command_line;
  run.cuda = verify.cuda = vb::cuda_options_from_environment();  // the one read of VTOOLS_VBENCH_* (man ENVIRONMENT)
  vb::ListOptions list;
  vb::InitOptions init;
  vb::CompareOptions compare;
  vb::MergeOptions merge;

  auto* run_cmd = app->add_subcommand("run", "benchmark configs: correctness gate, then timed forwards -> vtools.bench");
  add_run_flags(run_cmd, run, true);
  auto* verify_cmd = app->add_subcommand("verify", "correctness gate only (exit 1 on a mismatch)");
  add_run_flags(verify_cmd, verify, false);

  auto* list_cmd = app->add_subcommand("list", "configs with parameters, FLOPs per token, bytes per forward");
  auto* list_device = list_cmd->add_flag("--device", list.device, "add the roofline floor on the detected device");
  list_cmd->add_option("--backend", list.backend, "device for --device: cpu|cuda|auto")->capture_default_str();
  add_gpu_flag(list_cmd, list.gpu)->needs(list_device);
  list_cmd->add_option("--batch,-B", list.batch, "batch size for the costs")->capture_default_str();
  list_cmd->add_option("--seq,-T", list.seq, "sequence length for the costs")->capture_default_str();
  list_cmd->add_option("--dtype", list.dtype, "fp32|tf32|bf16")->capture_default_str();
  vtools::add_output_options(list_cmd, list.out, {"table", "markdown"});

  auto* init_cmd = app->add_subcommand("init", "write seed-initialised weights as .safetensors (GPT-2 names)");
  add_model_flags(init_cmd, init.model, false);
  init_cmd->add_option("--seed", init.seed, "weights seed (0 to 2^64-1)")
      ->check(vtools::unsigned64_range())
      ->capture_default_str();
  init_cmd->add_option("-o,--output", init.output, "output .safetensors file")->required();

  auto* compare_cmd = app->add_subcommand("compare", "compare two vtools.bench documents -> vtools.compare");
  compare_cmd->add_option("baseline", compare.baseline, "baseline document ('-' = stdin)")->required();
  compare_cmd->add_option("candidate", compare.candidate, "candidate document")->required();
  compare_cmd->add_option("--fail-on-regression", compare.fail_on_regression_pct,
                          "exit 1 when a config is significantly slower by more than PCT percent (0 to 1000)")
      ->check(vtools::number_range(0, 1000));
  vtools::add_output_options(compare_cmd, compare.out, {"json", "table", "markdown", "csv"});

  auto* merge_cmd = app->add_subcommand("merge", "join vtools.bench documents into one");
  merge_cmd->add_option("inputs", merge.inputs, "documents")->required();
  merge_cmd->add_flag("--allow-mixed", merge.allow_mixed, "merge runs of different batch/seq/dtype");
  vtools::add_output_options(merge_cmd, merge.out, {});

  vb::ShowOptions show;
  auto* show_cmd = app->add_subcommand("show", "a vtools.bench document's table again: table, markdown or csv");
  show_cmd->add_option("input", show.input, "document ('-' = stdin)")->required();
  vtools::add_output_options(show_cmd, show.out, {"table", "markdown", "csv"});

  return vtools::run_main(*app, argc, argv, [&] {
    if (*run_cmd) return vb::run_command(run);
    if (*verify_cmd) return vb::verify_command(verify);
    if (*list_cmd) return vb::list_command(list);
    if (*init_cmd) return vb::init_command(init);
    if (*compare_cmd) return vb::compare_command(compare);
    if (*merge_cmd) return vb::merge_command(merge);
    if (*show_cmd) return vb::show_command(show);
    std::cout << app->help();
    return 2;
  });
}
