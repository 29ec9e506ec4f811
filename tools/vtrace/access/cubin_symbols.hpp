// What the preload library reads from a loaded module's cubin (an ELF64 image; glibc's <elf.h> layouts): the kernel
// names it defines, so a module without a kernel --kernel selects stays unpatched and runs at full speed; and which
// functions issue TMA tensor copies, which the Compute Sanitizer API cannot see, decided from their SASS. Header-only
// and free of libcommon, because the preload library uses it; unit tests feed it real cubins.
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

/// SASS opcodes (bits 0-8 of an instruction's low 64-bit word, sm_90; bits 9-11 select the operand form) of the TMA
/// tensor copies: UTMALDG (global -> shared) and UTMASTG (shared -> global). Read off `nvdisasm -hex` of Triton
/// tensor-descriptor kernels on an H200 with CUDA 13.0 (UTMALDG.2D 0x...15b4, UTMASTG.2D 0x...23b5).
constexpr std::uint32_t kSassUtmaldg = 0x1b4, kSassUtmastg = 0x1b5;

/// Functions of an sm_90 cubin whose code (section ".text.<name>", 16-byte instructions) holds a TMA tensor copy.
/// Empty when the image is not a well-formed ELF64 image or is for another architecture family.
inline std::vector<std::string> cubin_tma_functions(const void* data, std::size_t size) {
  std::vector<std::string> out;
  const auto* bytes = static_cast<const unsigned char*>(data);
  Elf64_Ehdr eh;
  if (!data || size < sizeof eh) return out;
  std::memcpy(&eh, bytes, sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      eh.e_shnum > (size - eh.e_shoff) / sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum)
    return out;
  // The SM version in e_flags: bits 8-15 in the layout of recent toolkits, bits 0-7 in the older one (Triton's
  // bundled ptxas may write either). The opcodes above are sm_90's.
  auto sm9x = [](std::uint32_t sm) { return sm >= 90 && sm < 100; };
  if (!sm9x((eh.e_flags >> 8) & 0xff) && !sm9x(eh.e_flags & 0xff)) return out;
  auto section = [&](std::size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  const Elf64_Shdr names = section(eh.e_shstrndx);
  if (names.sh_offset > size || names.sh_size > size - names.sh_offset) return out;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr text = section(i);
    if (text.sh_type != SHT_PROGBITS || text.sh_name >= names.sh_size) continue;
    const char* name = reinterpret_cast<const char*>(bytes + names.sh_offset + text.sh_name);
    const std::string section_name(name, strnlen(name, names.sh_size - text.sh_name));
    if (section_name.rfind(".text.", 0) != 0 || text.sh_offset > size || text.sh_size > size - text.sh_offset)
      continue;
    for (std::size_t at = 0; at + 16 <= text.sh_size; at += 16) {
      std::uint64_t word;
      std::memcpy(&word, bytes + text.sh_offset + at, 8);
      const std::uint32_t opcode = static_cast<std::uint32_t>(word & 0x1ff);
      if (opcode == kSassUtmaldg || opcode == kSassUtmastg) {
        out.push_back(section_name.substr(6));
        break;
      }
    }
  }
  return out;
}

}  // namespace vtools::vtrace::access
