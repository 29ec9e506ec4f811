#include "tools/vbench/backend_choice.hpp"

#include "libcommon/cli.hpp"
#include "libcommon/error.hpp"
#include "tools/vbench/cpu_backend.hpp"

namespace vtools::vbench {

std::unique_ptr<Backend> choose_backend(const std::string& name, int gpu, std::vector<std::string>* notes,
                                        const std::string& cuda_flag, const CudaOptions& cuda_options) {
  if (name != "cpu" && name != "cuda" && name != "auto") {
    const std::string message = "unknown backend '" + name + "' (cpu, cuda or auto)";
    // "gpu" is one letter from "cpu", but whoever types it means the other backend.
    if (name == "gpu" || name == "GPU" || name == "nvidia")
      throw Error(ExitCode::kUsage, message + "; did you mean 'cuda'?");
    throw Error(ExitCode::kUsage, with_suggestion(message, name, {"cpu", "cuda", "auto"}));
  }
  if (name == "cpu") {
    if (gpu >= 0) throw Error(ExitCode::kUsage, "--gpu " + std::to_string(gpu) + " names a GPU, but --backend is cpu");
    if (!cuda_flag.empty()) {
      throw Error(ExitCode::kUsage, cuda_flag + " picks among the cuda backend's forwards, but --backend is cpu");
    }
    return make_cpu_backend();
  }
  std::string why;
  if (auto cuda = make_cuda_backend(gpu, &why, cuda_options)) return cuda;
  if (name == "cuda") throw Error(ExitCode::kUnavailable, "--backend cuda: " + why);
  if (gpu >= 0) throw Error(ExitCode::kUnavailable, "--gpu " + std::to_string(gpu) + ": " + why);
  if (!cuda_flag.empty()) throw Error(ExitCode::kUnavailable, cuda_flag + ": " + why);
  const std::string note = "no CUDA backend (" + why + "); using the cpu backend";
  print_note(note);
  if (notes) notes->push_back(note);
  return make_cpu_backend();
}

}  // namespace vtools::vbench
