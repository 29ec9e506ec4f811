// PC -> source line and SASS: the line tables of real cubins (tests/data/vtrace/line_kernels.cu built with and
// without -lineinfo), nvdisasm's listing format, the per-module module images of the access tool, and findings
// placed at their lines through the raw records.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "libcommon/input_file.hpp"
#include "tools/vtrace/injection/module_images.hpp"
#include "tools/vtrace/finding_sources.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "tools/vtrace/sass_listing.hpp"
#include "tools/vtrace/source_map.hpp"
#include "tools/vtrace/source_text.hpp"

using namespace vtools::vtrace;

namespace {

std::string fixture(const std::string& name) {
  return vtools::read_input(std::string(VTOOLS_TEST_DATA "/vtrace/") + name);
}

const char* const kFile = "/tmp/vtools-fixture/line_kernels.cu";  // where the fixture was compiled
const char* const kOffByOne = "_Z8offbyonePKfPfi";
const char* const kScaled = "_Z6scaledPKfPfi";

// Hand-made from the layout of `nvdisasm -c` (sm_90): what SassListing must read; the real listing of the fixture
// comes from tests/vtrace/samples/gen_line_fixture.sh on the GPU machine.
const char* const kListing = R"sass(	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
	.elftype	@"ET_EXEC"

//--------------------- .text._Z8offbyonePKfPfi  --------------------------
	.section	.text._Z8offbyonePKfPfi,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=8"
	.align	128
        .global         _Z8offbyonePKfPfi
        .type           _Z8offbyonePKfPfi,@function
_Z8offbyonePKfPfi:
.text._Z8offbyonePKfPfi:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*00c0*/                   LDG.E R2, desc[UR4][R2.64] ;  /* 0x0000000402027981 */
                                                                 /* 0x000ea2000c1e1900 */
        /*00f0*/              @!P0 STG.E desc[UR4][R4.64], R7 ;
.L_x_0:
        /*0110*/                   BRA `(.L_x_0) ;
//--------------------- .text._Z6scaledPKfPfi  --------------------------
	.section	.text._Z6scaledPKfPfi,"ax",@progbits
        /*00c0*/                   LDG.E R2, desc[UR4][R2.64] ;
)sass";

}  // namespace

#ifdef VTOOLS_HAVE_LIBDW
TEST_CASE("source_map: the load of a -lineinfo kernel maps to its source line, the first PC to the kernel's line") {
  const SourceMap map = SourceMap::read(fixture("line_kernels.cubin"), "line_kernels.cubin");
  CHECK(map.unavailable().empty());
  auto first = map.lookup(kOffByOne, 0);
  REQUIRE(first.line);
  CHECK(first.line->file == kFile);
  CHECK(first.line->line == 9);  // __global__ void offbyone(...) {
  CHECK(first.line->column == 0);  // nvcc's tables have no columns
  CHECK(first.line->function == "offbyone(float const*, float*, int)");
  CHECK(first.line->inlined_at.empty());
  auto load = map.lookup(kOffByOne, 0xc0);  // LDG (opcode 0x981 in the fixture's code)
  REQUIRE(load.line);
  CHECK(load.line->line == 12);  //     float v = in[i];
  auto store = map.lookup(kOffByOne, 0xf0);  // STG
  REQUIRE(store.line);
  CHECK(store.line->line == 13);  //     out[i] = v + 1.0f;
  auto exit = map.lookup(kOffByOne, 0x100);
  REQUIRE(exit.line);
  CHECK(exit.line->line == 15);  // }
}

TEST_CASE("source_map: an inlined device function's load gives the callee's line and the call site") {
  const SourceMap map = SourceMap::read(fixture("line_kernels.cubin"), "line_kernels.cubin");
  auto load = map.lookup(kScaled, 0xc0);
  REQUIRE(load.line);
  CHECK(load.line->line == 6);  //   return 2.0f * p[i];
  CHECK(load.line->function == "twice(float const*, int)");
  REQUIRE(load.line->inlined_at.size() == 1);
  CHECK(load.line->inlined_at[0].file == kFile);
  CHECK(load.line->inlined_at[0].line == 19);  //   if (i < n) out[i] = twice(in, i);
  CHECK(load.line->inlined_at[0].function == "scaled(float const*, float*, int)");
  auto store = map.lookup(kScaled, 0xf0);  // the store is the kernel's own
  REQUIRE(store.line);
  CHECK(store.line->line == 19);
  CHECK(store.line->inlined_at.empty());
  CHECK(map.lookup(kScaled, 0).line->line == 17);
}

// Against the toolkit: when tests/vtrace/samples/gen_line_fixture.sh has been run on the GPU machine and its
// nvdisasm --print-line-info table committed, every instruction it lists must map to the same line (and call site).
TEST_CASE("source_map: every PC maps to the line nvdisasm --print-line-info gives (when its table is committed)") {
  const std::string path = VTOOLS_TEST_DATA "/vtrace/line_kernels.lineinfo.txt";
  if (!std::filesystem::exists(path)) {
    MESSAGE("no " << path << " yet (tests/vtrace/samples/gen_line_fixture.sh on the GPU machine makes it)");
    return;
  }
  const SourceMap map = SourceMap::read(fixture("line_kernels.cubin"), "line_kernels.cubin");
  // nvdisasm writes a location's frames innermost first, one `//## File` line each (the last is the outermost call
  // site), and may add the PTX line (file ".nv_debug_ptx_txt"); a location holds until the next one.
  const std::regex file_line(R"re(//## File "([^"]*)", line (\d+)( inlined at "[^"]*", line (\d+))?)re");
  const std::regex section(R"(\.section\s+\.text\.([^,]+),)");
  const std::regex instruction(R"(^\s*/\*([0-9a-f]+)\*/)");
  std::ifstream in(path);
  std::string text, function;
  int line = 0, call_line = 0, compared = 0;
  bool first_frame = true;  // the next `//## File` line starts a new location
  std::smatch m;
  while (std::getline(in, text)) {
    if (std::regex_search(text, m, section)) {
      function = m[1];
      line = 0;
    } else if (std::regex_search(text, m, file_line)) {
      if (first_frame && m[1] != ".nv_debug_ptx_txt") {
        line = std::stoi(m[2]);
        call_line = m[4].matched ? std::stoi(m[4]) : 0;
        first_frame = false;
      }
    } else if (std::regex_search(text, m, instruction)) {
      first_frame = true;
      if (line == 0 || function.empty()) continue;
      const std::uint64_t pc = std::stoull(m[1], nullptr, 16);
      auto found = map.lookup(function, pc);
      INFO(function << " +0x" << std::hex << pc);
      REQUIRE(found.line);
      CHECK(static_cast<int>(found.line->line) == line);
      if (call_line) {
        REQUIRE_FALSE(found.line->inlined_at.empty());
        CHECK(static_cast<int>(found.line->inlined_at[0].line) == call_line);
      }
      ++compared;
    }
  }
  CHECK(compared > 20);
}

TEST_CASE("source_map: PCs past a function's code, unknown functions and modules without line info say why") {
  const SourceMap map = SourceMap::read(fixture("line_kernels.cubin"), "line_kernels.cubin");
  auto past = map.lookup(kOffByOne, 0x200);
  CHECK_FALSE(past.line);
  CHECK(past.note == "pc +0x200 lies outside the line table of offbyone(float const*, float*, int)");
  CHECK(map.lookup("_Z5otherv", 0).note == "the line table has no rows for other()");
  const SourceMap plain = SourceMap::read(fixture("line_kernels_noline.cubin"), "line_kernels_noline.cubin");
  CHECK(plain.unavailable() == "the module has no line table (.debug_line): it was built without -lineinfo or -G");
  CHECK(plain.lookup(kOffByOne, 0xc0).note == plain.unavailable());
  CHECK(SourceMap::read("not an elf", "x").unavailable() == "the module image is not an ELF file");
}

TEST_CASE("source_map: a cut or damaged image never crashes and never answers wrongly past its damage") {
  const std::string cubin = fixture("line_kernels.cubin");
  for (std::size_t cut = 0; cut < cubin.size(); cut += 61) {
    const SourceMap map = SourceMap::read(std::string_view(cubin).substr(0, cut), "cut");
    auto r = map.lookup(kOffByOne, 0xc0);
    if (r.line) CHECK(r.line->line == 12);
  }
  std::string flipped = cubin;
  for (std::size_t at = 0x6d8; at < 0x900 && at < flipped.size(); at += 7) {
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    (void)SourceMap::read(flipped, "flipped").lookup(kScaled, 0xc0);
  }
}
#endif

TEST_CASE("sass_listing: instructions by function and offset, predicates kept, encodings and labels left out") {
  const SassListing listing = SassListing::parse(kListing);
  CHECK(listing.function_count() == 2);
  REQUIRE(listing.instruction(kOffByOne, 0xc0));
  CHECK(*listing.instruction(kOffByOne, 0xc0) == "LDG.E R2, desc[UR4][R2.64]");
  CHECK(*listing.instruction(kOffByOne, 0xf0) == "@!P0 STG.E desc[UR4][R4.64], R7");
  CHECK(*listing.instruction(kOffByOne, 0x110) == "BRA `(.L_x_0)");
  CHECK(*listing.instruction(kScaled, 0xc0) == "LDG.E R2, desc[UR4][R2.64]");
  CHECK(listing.instruction(kOffByOne, 0xd0) == nullptr);
  CHECK(listing.instruction("_Z5otherv", 0) == nullptr);
  CHECK(SassListing::parse("").function_count() == 0);
  CHECK(SassListing::parse("/*0000*/ NOP ;\n").function_count() == 0);  // outside any .text section
  const SassListing labelled = SassListing::parse(".text._Z1fv:\n        /*0010*/                   EXIT ;\n");
  REQUIRE(labelled.instruction("_Z1fv", 0x10));
  CHECK(*labelled.instruction("_Z1fv", 0x10) == "EXIT");
}

TEST_CASE("sass_listing: the fixture's real nvdisasm listing (when committed) has the load where the tests put it") {
  const std::string path = VTOOLS_TEST_DATA "/vtrace/line_kernels.sass.txt";
  if (!std::filesystem::exists(path)) {
    MESSAGE("no " << path << " yet (tests/vtrace/samples/gen_line_fixture.sh on the GPU machine makes it)");
    return;
  }
  const SassListing listing = SassListing::parse(fixture("line_kernels.sass.txt"));
  REQUIRE(listing.instruction(kOffByOne, 0xc0));
  CHECK(listing.instruction(kOffByOne, 0xc0)->rfind("LDG", 0) == 0);
  REQUIRE(listing.instruction(kOffByOne, 0xf0));
  CHECK(listing.instruction(kOffByOne, 0xf0)->rfind("STG", 0) == 0);
  REQUIRE(listing.instruction(kScaled, 0xc0));
  CHECK(listing.instruction(kScaled, 0xc0)->rfind("LDG", 0) == 0);
}

TEST_CASE("sass_disassembler: no nvdisasm is an answer with a reason, not an error") {
  const Disassembly d = disassemble("bytes", "");
  CHECK(d.listing.empty());
  CHECK(d.note == "no SASS: nvdisasm (CUDA toolkit) is not installed where the trace was built");
  const Disassembly failed = disassemble("bytes", "/bin/false");
  CHECK(failed.note == "no SASS: nvdisasm failed on the module");
}

TEST_CASE("source_text: a line of a readable file, without its line end; nothing for what cannot be read") {
  const auto dir = std::filesystem::temp_directory_path() / ("vtrace-source-text-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "k.cu").string();
  std::ofstream(path, std::ios::binary) << "__global__ void k() {\r\n  float v = in[i];\r\n" << std::string(400, 'x')
                                        << "\n";
  SourceText texts;
  CHECK(texts.line(path, 2) == std::optional<std::string>("  float v = in[i];"));
  CHECK(texts.line(path, 3)->size() == 300);
  CHECK_FALSE(texts.line(path, 0));
  CHECK_FALSE(texts.line(path, 4));
  CHECK_FALSE(texts.line(dir.string(), 1));  // a directory
  CHECK_FALSE(texts.line((dir / "missing.cu").string(), 1));
  std::filesystem::remove_all(dir);
  CHECK(texts.line(path, 2) == std::optional<std::string>("  float v = in[i];"));  // read once, kept
}

TEST_CASE("module_images: an image is written once, only for a launch with findings or PCs, and dropped after") {
  injection::ModuleImages images(100);
  const std::string cubin = "0123456789";
  int a = 0, b = 0, c = 0;
  images.loaded(&a, cubin.data(), cubin.size());
  images.loaded(&b, std::string(95, 'x').data(), 95);  // past the budget: numbered, not kept
  CHECK(images.kept_bytes() == 10);
  CHECK(images.not_kept() == 1);
  raw::RecordBatch batch;
  batch.add_magic();
  batch.add(raw::Tag::kProcess, raw::ProcessRecord{7, 0});
  raw::LaunchRecord launch{};
  batch.add(raw::Tag::kLaunch, launch, "_Z1kv");
  images.add_for_launch(&a, batch);
  batch.add(raw::Tag::kLaunch, launch, "_Z1kv");
  images.add_for_launch(&a, batch);  // second time: the number only
  batch.add(raw::Tag::kLaunch, launch, "_Z1kv");
  images.add_for_launch(&b, batch);
  batch.add(raw::Tag::kLaunch, launch, "_Z1kv");
  images.add_for_launch(&c, batch);  // never seen loaded
  CHECK(images.kept_bytes() == 0);
  const raw::Capture capture = raw::read_capture(batch.bytes(), "raw.bin");
  REQUIRE(capture.launches.size() == 4);
  CHECK(capture.launches[0].module == 1);
  CHECK(capture.launches[1].module == 1);
  CHECK(capture.launches[2].module == 2);
  CHECK(capture.launches[3].module == 0);
  REQUIRE(capture.module_images.size() == 1);
  CHECK(capture.module_images.at(1) == cubin);
  images.unloaded(&a);
  images.loaded(&a, cubin.data(), cubin.size());  // a reloaded module is a new one
  raw::RecordBatch again;
  images.add_for_launch(&a, again);
  CHECK(again.records() == 2);
}

TEST_CASE("raw_record_reader: module records out of place or of the wrong size are refused") {
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{7, 0});
  raw::RecordBatch early = b;
  early.add(raw::Tag::kLaunchModule, raw::ModuleRecord{1});
  CHECK_THROWS_WITH(raw::read_capture(early.bytes(), "raw.bin"),
                    doctest::Contains("a launch module record before any launch record"));
  raw::RecordBatch zero = b;
  zero.add(raw::Tag::kModuleImage, raw::ModuleRecord{0}, "ELF");
  CHECK_THROWS_WITH(raw::read_capture(zero.bytes(), "raw.bin"), doctest::Contains("module image record for module 0"));
  raw::RecordBatch small = b;
  small.add_bytes_record(raw::Tag::kModuleImage, "abc");
  CHECK_THROWS_WITH(raw::read_capture(small.bytes(), "raw.bin"),
                    doctest::Contains("module image record of 3 bytes, expected at least 8"));
}

TEST_CASE("finding_sources: findings get line and SASS once per module and PC; missing pieces are explained") {
  raw::Capture c;
  c.module_images[1] = fixture("line_kernels.cubin");
  c.module_images[2] = fixture("line_kernels_noline.cubin");
  raw::NamedLaunch with_lines{}, without{}, unknown{};
  with_lines.kernel = kOffByOne;
  with_lines.module = 1;
  with_lines.finding_sites.push_back(raw::FindingSite{0xc0, 3, 0, 0, {}});
  without.kernel = kScaled;
  without.module = 2;
  without.finding_sites.push_back(raw::FindingSite{0xc0, 1, 0, 0, {}});
  unknown.kernel = "_Z5otherv";
  unknown.finding_sites.push_back(raw::FindingSite{0x10, 1, 0, 0, {}});
  c.launches = {with_lines, without, unknown};
  Trace t;
  for (int i = 0; i < 3; ++i) {
    Finding f;
    f.kernel = "offbyone(float const*, float*, int)";
    f.pc_offset = 0xc0;
    t.findings.push_back(f);
  }
  Finding s;
  s.kernel = "scaled(float const*, float*, int)";
  s.pc_offset = 0xc0;
  t.findings.push_back(s);
  Finding o;
  o.kernel = "other()";
  o.pc_offset = 0x10;
  t.findings.push_back(o);
  int runs = 0;
  PcSymbolizer symbolizer([&](std::string_view) {
    ++runs;
    return Disassembly{kListing, ""};
  });
  add_finding_sources({c}, symbolizer, t);
  CHECK(runs == 2);  // once per module
  CHECK(symbolizer.pcs_described() == 2);
  CHECK(t.findings[0].sass == "LDG.E R2, desc[UR4][R2.64]");
  CHECK(t.findings[3].sass == "LDG.E R2, desc[UR4][R2.64]");
#ifdef VTOOLS_HAVE_LIBDW
  REQUIRE(t.findings[0].source);
  CHECK(t.findings[0].source->line == 12);
  CHECK(t.findings[0].source_note.empty());
  CHECK(t.findings[2].source->line == 12);
  CHECK_FALSE(t.findings[3].source);
  CHECK(t.findings[3].source_note ==
        "no source line: the module has no line table (.debug_line): it was built without -lineinfo or -G");
#endif
  CHECK_FALSE(t.findings[4].source);
  CHECK(t.findings[4].source_note == "no source line or SASS: the trace does not say which module the kernel ran from");
}
