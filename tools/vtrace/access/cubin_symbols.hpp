// The kernel names a loaded module defines, read from its cubin's ELF symbol table (glibc's <elf.h> layouts), so the
// preload library can leave unpatched every module without a kernel --kernel selects: those kernels then run at full
// speed. Header-only and free of libcommon, because the preload library uses it; a unit test feeds it real cubins.
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace vtools::vtrace::access {

/// Global function symbols of the ELF64 image [data, data + size) (kernels are global functions of a cubin), or
/// nullopt when it is not a well-formed ELF64 image (then nothing can be concluded from its names).
inline std::optional<std::vector<std::string>> cubin_function_names(const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  Elf64_Ehdr eh;
  if (!data || size < sizeof eh) return std::nullopt;
  std::memcpy(&eh, bytes, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return std::nullopt;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      eh.e_shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr))
    return std::nullopt;
  auto section = [&](std::size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  std::vector<std::string> names;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_SYMTAB) continue;
    if (symtab.sh_link >= eh.e_shnum || symtab.sh_offset > size || symtab.sh_size > size - symtab.sh_offset)
      return std::nullopt;
    const Elf64_Shdr strtab = section(symtab.sh_link);
    if (strtab.sh_offset > size || strtab.sh_size > size - strtab.sh_offset) return std::nullopt;
    for (std::size_t at = 0; at + sizeof(Elf64_Sym) <= symtab.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes + symtab.sh_offset + at, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || ELF64_ST_BIND(sym.st_info) != STB_GLOBAL) continue;
      if (sym.st_name >= strtab.sh_size) return std::nullopt;
      const char* name = reinterpret_cast<const char*>(bytes + strtab.sh_offset + sym.st_name);
      names.emplace_back(name, strnlen(name, strtab.sh_size - sym.st_name));
    }
  }
  return names;
}

}  // namespace vtools::vtrace::access
