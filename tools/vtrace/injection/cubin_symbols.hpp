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

namespace vtools::vtrace::injection {

/// A bounds-checked view of an ELF64 image: its header and section headers, and the bytes of a section.
class ElfImage {
 public:
  ElfImage(const void* data, std::size_t size) : bytes_(static_cast<const unsigned char*>(data)), size_(size) {
    if (!data || size < sizeof header_) return;
    std::memcpy(&header_, bytes_, sizeof header_);
    valid_ = std::memcmp(header_.e_ident, ELFMAG, SELFMAG) == 0 && header_.e_ident[EI_CLASS] == ELFCLASS64 &&
             header_.e_shentsize == sizeof(Elf64_Shdr) && header_.e_shoff <= size &&
             header_.e_shnum <= (size - header_.e_shoff) / sizeof(Elf64_Shdr);
  }
  [[nodiscard]] bool valid() const { return valid_; }
  [[nodiscard]] const Elf64_Ehdr& header() const { return header_; }
  [[nodiscard]] std::size_t section_count() const { return valid_ ? header_.e_shnum : 0; }
  [[nodiscard]] Elf64_Shdr section(std::size_t i) const {
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes_ + header_.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  }
  /// The section's bytes, or nullptr when they lie outside the image (a cut or damaged file).
  [[nodiscard]] const unsigned char* contents(const Elf64_Shdr& sh) const {
    return sh.sh_offset <= size_ && sh.sh_size <= size_ - sh.sh_offset ? bytes_ + sh.sh_offset : nullptr;
  }
  /// The NUL-terminated string at `offset` of string table `table` (cut at the table's end), nullopt outside it.
  [[nodiscard]] std::optional<std::string> string_at(const Elf64_Shdr& table, std::uint64_t offset) const {
    const unsigned char* text = contents(table);
    if (!text || offset >= table.sh_size) return std::nullopt;
    const char* s = reinterpret_cast<const char*>(text + offset);
    return std::string(s, strnlen(s, table.sh_size - offset));
  }

 private:
  const unsigned char* bytes_;
  std::size_t size_;
  Elf64_Ehdr header_{};
  bool valid_ = false;
};

/// Global function symbols of the ELF64 image [data, data + size) (kernels are global functions of a cubin), or
/// nullopt when it is not a well-formed ELF64 image (then nothing can be concluded from its names).
inline std::optional<std::vector<std::string>> cubin_function_names(const void* data, std::size_t size) {
  const ElfImage elf(data, size);
  if (!elf.valid()) return std::nullopt;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < elf.section_count(); ++i) {
    const Elf64_Shdr symtab = elf.section(i);
    if (symtab.sh_type != SHT_SYMTAB) continue;
    const unsigned char* symbols = elf.contents(symtab);
    if (!symbols || symtab.sh_link >= elf.section_count()) return std::nullopt;
    const Elf64_Shdr strtab = elf.section(symtab.sh_link);
    for (std::size_t at = 0; at + sizeof(Elf64_Sym) <= symtab.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, symbols + at, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || ELF64_ST_BIND(sym.st_info) != STB_GLOBAL) continue;
      auto name = elf.string_at(strtab, sym.st_name);
      if (!name) return std::nullopt;
      names.push_back(std::move(*name));
    }
  }
  return names;
}

/// Calls `visit(name, code, bytes)` for each function of `elf` with code (section ".text.<name>", inside the image).
template <class Visit>
void for_each_function_code(const ElfImage& elf, Visit visit) {
  if (!elf.valid() || elf.header().e_shstrndx >= elf.section_count()) return;
  const Elf64_Shdr names = elf.section(elf.header().e_shstrndx);
  for (std::size_t i = 0; i < elf.section_count(); ++i) {
    const Elf64_Shdr text = elf.section(i);
    if (text.sh_type != SHT_PROGBITS) continue;
    auto name = elf.string_at(names, text.sh_name);
    const unsigned char* code = elf.contents(text);
    if (!name || !code || name->rfind(".text.", 0) != 0) continue;
    visit(name->substr(6), code, static_cast<std::size_t>(text.sh_size));
  }
}

/// SASS opcodes (bits 0-8 of an instruction's low 64-bit word, sm_90; bits 9-11 select the operand form) of the TMA
/// tensor copies: UTMALDG (global -> shared) and UTMASTG (shared -> global). Read off `nvdisasm -hex` of Triton
/// tensor-descriptor kernels on an H200 with CUDA 13.0 (UTMALDG.2D 0x...15b4, UTMASTG.2D 0x...23b5).
constexpr std::uint32_t kSassUtmaldg = 0x1b4, kSassUtmastg = 0x1b5;

/// Functions of an sm_90 cubin whose code (section ".text.<name>", 16-byte instructions) holds a TMA tensor copy.
/// Empty when the image is not a well-formed ELF64 image or is for another architecture family.
inline std::vector<std::string> cubin_tma_functions(const void* data, std::size_t size) {
  std::vector<std::string> out;
  const ElfImage elf(data, size);
  if (!elf.valid() || elf.header().e_shstrndx >= elf.section_count()) return out;
  // The SM version in e_flags: bits 8-15 in the layout of recent toolkits, bits 0-7 in the older one (Triton's
  // bundled ptxas may write either). The opcodes above are sm_90's.
  auto sm9x = [](std::uint32_t sm) { return sm >= 90 && sm < 100; };
  const std::uint32_t flags = elf.header().e_flags;
  if (!sm9x((flags >> 8) & 0xff) && !sm9x(flags & 0xff)) return out;
  for_each_function_code(elf, [&](std::string name, const unsigned char* code, std::size_t bytes) {
    for (std::size_t at = 0; at + 16 <= bytes; at += 16) {
      std::uint64_t word;
      std::memcpy(&word, code + at, 8);
      const std::uint32_t opcode = static_cast<std::uint32_t>(word & 0x1ff);
      if (opcode == kSassUtmaldg || opcode == kSassUtmastg) {
        out.push_back(std::move(name));
        break;
      }
    }
  });
  return out;
}

/// FNV-1a (64-bit) of `size` bytes: the code hash of a function. The code a cubin holds for a function is its SASS
/// before relocation (relocated words are zero here), so one build of a kernel always hashes the same.
inline std::uint64_t function_code_hash(const unsigned char* code, std::size_t size) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= code[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

struct FunctionCode {
  std::string name;  ///< mangled
  std::uint64_t hash = 0, bytes = 0;
};

/// Every function of the ELF64 image with code (section ".text.<name>"): its name and code hash. Empty when the
/// image is not a well-formed ELF64 image.
inline std::vector<FunctionCode> cubin_function_codes(const void* data, std::size_t size) {
  std::vector<FunctionCode> out;
  for_each_function_code(ElfImage(data, size), [&](std::string name, const unsigned char* code, std::size_t bytes) {
    out.push_back({std::move(name), function_code_hash(code, bytes), bytes});
  });
  return out;
}

}  // namespace vtools::vtrace::injection
