// Runs the CUDA toolkit's disassembler, nvdisasm, on one module's cubin (written to a temporary file) and returns its
// listing for sass_listing. nvdisasm is looked up in PATH, then in $CUDA_HOME/bin and /usr/local/cuda/bin; it is
// there on the GPU machine, not necessarily where a trace is built, and its absence is an answer, not an error.
#pragma once

#include <string>
#include <string_view>

namespace vtools::vtrace {

struct Disassembly {
  std::string listing;  ///< nvdisasm's standard output ("" when it did not run or failed)
  std::string note;     ///< why there is no listing ("" when there is one)
};

/// The nvdisasm to run, "" when none is installed.
std::string find_nvdisasm();

/// `nvdisasm -c` of `cubin`. Never throws for a missing or failing nvdisasm: the note says what happened.
Disassembly disassemble(std::string_view cubin, const std::string& nvdisasm);

}  // namespace vtools::vtrace
