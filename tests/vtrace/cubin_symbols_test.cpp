// injection/cubin_symbols: a cubin's kernel names, code hashes and TMA functions.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>

#include "tools/vtrace/injection/cubin_symbols.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::injection;
using namespace vtools::vtrace::access::testing;

TEST_CASE("cubin_tma_functions: the kernel whose SASS holds UTMALDG, not its neighbour; nothing from a non-image") {
  // tests/data/vtrace/tma_kernels.cu built with nvcc -cubin -arch=sm_90a: tma_load issues
  // cp.async.bulk.tensor (UTMALDG), plain does not.
  const std::string cubin = read_binary(VTOOLS_TEST_DATA "/vtrace/tma_kernels.cubin");
  CHECK(cubin_tma_functions(cubin.data(), cubin.size()) == std::vector<std::string>{"_Z8tma_load14CUtensorMap_stPf"});
  const std::string plain = read_binary(VTOOLS_TEST_DATA "/vtrace/two_kernels.cubin");
  CHECK(cubin_tma_functions(plain.data(), plain.size()).empty());
  CHECK(cubin_tma_functions("not an elf", 10).empty());
  for (std::size_t cut = 0; cut < cubin.size(); cut += 97) cubin_tma_functions(cubin.data(), cut);  // no overread
}

TEST_CASE("cubin_function_names: the kernels of a real cubin; anything else is not an ELF image") {
  const std::string cubin = read_binary(VTOOLS_TEST_DATA "/vtrace/two_kernels.cubin");
  auto names = cubin_function_names(cubin.data(), cubin.size());
  REQUIRE(names);
  std::sort(names->begin(), names->end());
  CHECK(*names == std::vector<std::string>{"_Z10scale_rowsPfif", "_Z3addPKfS0_Pfi"});
  CHECK_FALSE(cubin_function_names(nullptr, 0));
  CHECK_FALSE(cubin_function_names("not an elf", 10));
  for (std::size_t cut : {std::size_t(16), std::size_t(64), cubin.size() / 2, cubin.size() - 1}) {
    auto partial = cubin_function_names(cubin.data(), cut);  // a cut image: refused or read within bounds
    if (partial) CHECK(partial->size() <= 2);
  }
}

TEST_CASE("cubin_function_codes: each kernel's code hashed; a changed instruction changes its kernel's hash only") {
  std::string cubin = read_binary(VTOOLS_TEST_DATA "/vtrace/two_kernels.cubin");
  auto codes = cubin_function_codes(cubin.data(), cubin.size());
  REQUIRE(codes.size() == 2);
  std::sort(codes.begin(), codes.end(), [](const FunctionCode& x, const FunctionCode& y) { return x.name < y.name; });
  CHECK(codes[0].name == "_Z10scale_rowsPfif");
  CHECK(codes[1].name == "_Z3addPKfS0_Pfi");
  CHECK(codes[0].hash != codes[1].hash);
  CHECK(codes[0].bytes % 16 == 0);
  CHECK(codes[0].bytes > 0);
  // Flip one byte inside add's code: its hash moves, scale_rows' does not.
  const ElfImage elf(cubin.data(), cubin.size());
  const Elf64_Shdr names = elf.section(elf.header().e_shstrndx);
  for (std::size_t i = 0; i < elf.section_count(); ++i) {
    const Elf64_Shdr sh = elf.section(i);
    if (elf.string_at(names, sh.sh_name) == std::optional<std::string>(".text._Z3addPKfS0_Pfi")) cubin[sh.sh_offset + 8] ^= 1;
  }
  auto changed = cubin_function_codes(cubin.data(), cubin.size());
  std::sort(changed.begin(), changed.end(), [](const FunctionCode& x, const FunctionCode& y) { return x.name < y.name; });
  REQUIRE(changed.size() == 2);
  CHECK(changed[0].hash == codes[0].hash);
  CHECK(changed[1].hash != codes[1].hash);
  CHECK(cubin_function_codes("not an elf", 10).empty());
  for (std::size_t cut = 0; cut < cubin.size(); cut += 97) cubin_function_codes(cubin.data(), cut);  // no overread
  CHECK(function_code_hash(nullptr, 0) == 0xcbf29ce484222325ull);  // FNV-1a's offset basis
}
