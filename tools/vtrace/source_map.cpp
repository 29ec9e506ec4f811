#include "tools/vtrace/source_map.hpp"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "tools/vtrace/trace_builder.hpp"

namespace vtools::vtrace {

namespace {

/// NVIDIA's relocation type for a 64-bit absolute address (R_CUDA_64): the one DW_LNE_set_address carries.
constexpr std::uint32_t kRelocCuda64 = 2;

/// A line table address after relocation: the section index of the function's code in the high 32 bits, the offset
/// into that section in the low 32 (every section of a cubin starts at address 0, so the index tells them apart).
std::uint64_t section_address(std::size_t section, std::uint64_t offset) {
  return (static_cast<std::uint64_t>(section) << 32) | (offset & 0xffffffffull);
}

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

struct DwarfCloser {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
using DwarfHandle = std::unique_ptr<Dwarf, DwarfCloser>;

ElfHandle open_elf(std::string& image) {
  static const bool versioned = elf_version(EV_CURRENT) != EV_NONE;
  if (!versioned) return nullptr;
  ElfHandle e(elf_memory(image.data(), image.size()));
  if (!e || elf_kind(e.get()) != ELF_K_ELF) return nullptr;
  return e;
}

struct FunctionSymbol {
  std::uint64_t value = 0;
  std::string name;
};

/// What the first pass learns from the unmodified image: the functions per code section and the patches that
/// relocate .debug_line.
struct Layout {
  std::string problem;  ///< why there is no usable line table
  std::map<std::size_t, std::vector<FunctionSymbol>> functions;  ///< section index -> its functions by value
  std::vector<std::pair<std::uint64_t, std::uint64_t>> patches;  ///< (file offset, value): 8 bytes each
  std::size_t function_count = 0;
};

Layout read_layout(std::string& image) {
  Layout out;
  ElfHandle elf = open_elf(image);
  if (!elf) return {"the module image is not an ELF file", {}, {}, 0};
  std::size_t names_index = 0;
  if (elf_getshdrstrndx(elf.get(), &names_index) != 0) return {"the module image has no section names", {}, {}, 0};
  Elf_Scn* line_section = nullptr;
  std::size_t line_index = 0;
  GElf_Shdr line_header{};
  std::vector<Elf_Scn*> relocations, symbol_tables;
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf.get(), names_index, sh.sh_name);
    if (name && std::strcmp(name, ".debug_line") == 0 && sh.sh_type == SHT_PROGBITS) {
      line_section = scn;
      line_index = elf_ndxscn(scn);
      line_header = sh;
    }
    if (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) relocations.push_back(scn);
    if (sh.sh_type == SHT_SYMTAB) symbol_tables.push_back(scn);
  }
  if (!line_section)
    return {"the module has no line table (.debug_line): it was built without -lineinfo or -G", {}, {}, 0};
  // Function symbols, and every symbol's section and value for the relocations.
  struct Symbol {
    std::size_t section = 0;
    std::uint64_t value = 0;
  };
  std::map<Elf_Scn*, std::vector<Symbol>> symbols;
  for (Elf_Scn* scn : symbol_tables) {
    GElf_Shdr sh;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!gelf_getshdr(scn, &sh) || !data || sh.sh_entsize == 0) continue;
    auto& list = symbols[scn];
    for (std::size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
      list.push_back({sym.st_shndx, sym.st_value});
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
        continue;
      const char* name = elf_strptr(elf.get(), sh.sh_link, sym.st_name);
      if (!name) continue;
      out.functions[sym.st_shndx].push_back({sym.st_value, name});
      ++out.function_count;
    }
  }
  for (auto& [section, list] : out.functions)
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.value < b.value; });
  for (Elf_Scn* scn : relocations) {
    GElf_Shdr sh;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!gelf_getshdr(scn, &sh) || !data || sh.sh_info != line_index || sh.sh_entsize == 0) continue;
    const auto table = symbols.find(elf_getscn(elf.get(), sh.sh_link));
    if (table == symbols.end()) continue;
    for (std::size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Rela rela{};
      if (sh.sh_type == SHT_RELA) {
        if (!gelf_getrela(data, static_cast<int>(i), &rela)) break;
      } else {
        GElf_Rel rel;
        if (!gelf_getrel(data, static_cast<int>(i), &rel)) break;
        rela.r_offset = rel.r_offset;
        rela.r_info = rel.r_info;
      }
      const std::size_t sym = GELF_R_SYM(rela.r_info);
      if (GELF_R_TYPE(rela.r_info) != kRelocCuda64 || sym >= table->second.size()) continue;
      if (rela.r_offset > line_header.sh_size || line_header.sh_size - rela.r_offset < 8) continue;
      const Symbol& s = table->second[sym];
      out.patches.emplace_back(line_header.sh_offset + rela.r_offset,
                               section_address(s.section, s.value + static_cast<std::uint64_t>(rela.r_addend)));
    }
  }
  return out;
}

}  // namespace

SourceMap SourceMap::read(std::string_view cubin, std::string_view name) {
  SourceMap map;
  std::string image(cubin);
  Layout layout = read_layout(image);
  if (!layout.problem.empty()) {
    map.unavailable_ = layout.problem;
    return map;
  }
  // Applied to the copy before libdw reads it: libdw itself relocates only through libdwfl, which does not know
  // NVIDIA's relocation types. An ELF image is little-endian here (cubins are ELFDATA2LSB).
  for (const auto& [offset, value] : layout.patches)
    if (offset <= image.size() && image.size() - offset >= 8) std::memcpy(image.data() + offset, &value, 8);
  ElfHandle elf = open_elf(image);
  DwarfHandle dwarf(elf ? dwarf_begin_elf(elf.get(), DWARF_C_READ, nullptr) : nullptr);
  if (!dwarf) {
    map.unavailable_ = "the line table of " + std::string(name) + " cannot be read: " + dwarf_errmsg(-1);
    return map;
  }
  // The one function a module without relocations can mean (some producers write final addresses).
  const FunctionSymbol* only = nullptr;
  if (layout.function_count == 1) only = &layout.functions.begin()->second.front();
  std::map<std::string, std::size_t> file_index;
  std::vector<Row> all;  // every row of every table, in table order; contexts index into it
  std::vector<std::string> owners;  // the function each row of `all` belongs to ("" when none)
  Dwarf_Off offset = 0, next = 0;
  Dwarf_CU* cu = nullptr;
  int status = 0;
  std::size_t tables = 0;
  Dwarf_Lines* lines = nullptr;
  std::size_t count = 0;
  Dwarf_Files* files = nullptr;
  std::size_t file_count = 0;
  // One line table after another (a cubin has one; a linked one may have more), until the end (1) or a damaged
  // one (-1): the tables before it are kept.
  while ((status = dwarf_next_lines(dwarf.get(), offset, &next, &cu, &files, &file_count, &lines, &count)) == 0) {
    ++tables;
    const std::size_t base = all.size();
    std::unordered_map<const Dwarf_Line*, std::size_t> index_of;
    for (std::size_t i = 0; i < count; ++i) index_of[dwarf_onesrcline(lines, i)] = base + i;
    for (std::size_t i = 0; i < count; ++i) {
      Dwarf_Line* line = dwarf_onesrcline(lines, i);
      Row row;
      Dwarf_Addr address = 0;
      int number = 0, column = 0;
      bool end = false;
      dwarf_lineaddr(line, &address);
      dwarf_lineno(line, &number);
      dwarf_linecol(line, &column);
      dwarf_lineendsequence(line, &end);
      row.end = end;
      row.line = number > 0 ? static_cast<std::uint32_t>(number) : 0;
      row.column = column > 0 ? static_cast<std::uint32_t>(column) : 0;
      const char* file = dwarf_linesrc(line, nullptr, nullptr);
      auto [it, added] = file_index.emplace(file ? file : "", map.files_.size());
      if (added) map.files_.push_back(it->first);
      row.file = static_cast<std::uint32_t>(it->second);
      if (Dwarf_Line* context = dwarf_linecontext(lines, line)) {
        auto found = index_of.find(context);
        if (found != index_of.end()) row.context = static_cast<std::int64_t>(found->second);
        const char* callee = dwarf_linefunctionname(dwarf.get(), line);
        row.inlined_function = callee ? callee : "";
      }
      // Which function: the symbol of the relocated section at or below the address.
      std::string owner;
      const std::size_t section = address >> 32;
      const std::uint64_t in_section = address & 0xffffffffull;
      auto fs = layout.functions.find(section);
      if (section != 0 && fs != layout.functions.end()) {
        auto f = std::upper_bound(fs->second.begin(), fs->second.end(), in_section,
                                  [](std::uint64_t a, const FunctionSymbol& s) { return a < s.value; });
        if (f != fs->second.begin()) {
          --f;
          owner = f->name;
          row.address = in_section - f->value;
        }
      } else if (section == 0 && only) {
        owner = only->name;
        row.address = in_section - std::min(in_section, only->value);
      }
      all.push_back(std::move(row));
      owners.push_back(std::move(owner));
    }
    offset = next;
  }
  if (status < 0 && tables == 0) {
    map.unavailable_ = "the line table of " + std::string(name) + " cannot be read: " + dwarf_errmsg(-1);
    return map;
  }
  map.rows_ = std::move(all);
  for (std::size_t i = 0; i < map.rows_.size(); ++i)
    if (!owners[i].empty()) map.functions_[owners[i]].push_back(i);
  for (auto& [function, rows] : map.functions_)
    std::stable_sort(rows.begin(), rows.end(),
                     [&](std::size_t a, std::size_t b) { return map.rows_[a].address < map.rows_[b].address; });
  if (map.functions_.empty())
    map.unavailable_ = "the line table of " + std::string(name) + " names no function of the module";
  return map;
}

SourceFrame SourceMap::frame(const Row& row, std::string_view kernel) const {
  SourceFrame f;
  f.file = row.file < files_.size() ? files_[row.file] : "";
  f.line = row.line;
  f.column = row.column;
  f.function = demangle(row.context >= 0 && !row.inlined_function.empty() ? row.inlined_function : std::string(kernel));
  return f;
}

SourceLookup SourceMap::lookup(std::string_view mangled_function, std::uint64_t pc_offset) const {
  if (!unavailable_.empty()) return {std::nullopt, unavailable_};
  auto it = functions_.find(mangled_function);
  if (it == functions_.end())
    return {std::nullopt, "the line table has no rows for " + demangle(std::string(mangled_function))};
  const auto& rows = it->second;
  auto after = std::upper_bound(rows.begin(), rows.end(), pc_offset,
                                [&](std::uint64_t pc, std::size_t i) { return pc < rows_[i].address; });
  char pc[32];
  std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(pc_offset));
  if (after == rows.begin() || rows_[*std::prev(after)].end)
    return {std::nullopt, std::string("pc +") + pc + " lies outside the line table of " +
                              demangle(std::string(mangled_function))};
  const Row& row = rows_[*std::prev(after)];
  SourceLine line;
  static_cast<SourceFrame&>(line) = frame(row, mangled_function);
  // The call sites, innermost first; a context chain longer than any real inlining depth is a damaged table.
  std::int64_t at = row.context;
  for (int depth = 0; at >= 0 && static_cast<std::size_t>(at) < rows_.size() && depth < 64; ++depth) {
    line.inlined_at.push_back(frame(rows_[at], mangled_function));
    at = rows_[at].context;
  }
  return {std::move(line), ""};
}

}  // namespace vtools::vtrace
