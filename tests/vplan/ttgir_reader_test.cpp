#include "tools/vplan/ttgir_reader.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"

using namespace vtools;
using namespace vtools::vplan;

namespace {

std::string fixture(const char* name) { return read_input(std::string(VTOOLS_TEST_DATA) + "/ttgir/" + name); }

std::string error_of(std::string_view text) {
  try {
    read_ttgir(text, "t.ttgir");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  return "no error";
}

const Op* find_op(const std::vector<Op>& ops, std::string_view name) {
  for (const Op& op : ops) {
    if (op.name == name) return &op;
    for (const Region& r : op.regions)
      if (const Op* found = find_op(r.ops, name)) return found;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("ttgir_reader: module attributes, aliases, function and warp_specialize regions") {
  std::string text = fixture("matmul_ws_sm90.ttgir");
  Module m = read_ttgir(text, "matmul_ws_sm90.ttgir");
  CHECK(m.string_attribute("ttg.target") == "cuda:90");
  CHECK(m.int_attribute("ttg.num-warps") == 4);
  CHECK(m.aliases.at("#shared1") == "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>");
  REQUIRE(m.functions.size() == 1);
  CHECK(m.functions[0].symbol() == "@matmul_ws");
  CHECK(m.functions[0].regions[0].args.size() == 6);
  const Op* ws = find_op(m.functions[0].regions[0].ops, "ttg.warp_specialize");
  REQUIRE(ws != nullptr);
  CHECK(ws->operands.size() == 14);
  REQUIRE(ws->regions.size() == 3);
  CHECK(ws->regions[0].label == "default");
  CHECK(ws->regions[1].label == "partition0");
  CHECK(ws->regions[1].num_warps == 4);
  CHECK(ws->regions[2].label == "partition1");
  CHECK(ws->regions[2].args.size() == 14);
  CHECK(ws->regions[2].arg_types[5]->text == "!ttg.memdesc<3x64x64xf16, #shared1, #smem, mutable>");
  CHECK(ws->attribute("requestedRegisters") != nullptr);
}

TEST_CASE("ttgir_reader: memdesc types are taken apart") {
  Module m = read_ttgir(fixture("attn_ws_sm100.ttgir"), "attn_ws_sm100.ttgir");
  const Op* tmem = find_op(m.functions[0].regions[0].ops, "ttng.tmem_alloc");
  REQUIRE(tmem != nullptr);
  REQUIRE(tmem->result_types().size() == 1);
  const Type& t = *tmem->result_types()[0];
  CHECK(t.kind == Type::Kind::kMemDesc);
  CHECK(t.shape == std::vector<std::int64_t>{1, 128, 128});
  CHECK(t.element_type == "f32");
  CHECK(t.encoding == "#tmem");
  CHECK(t.tensor_memory);
  CHECK(t.mutable_memory);
}

TEST_CASE("ttgir_reader: locations resolve through aliases, names and call sites") {
  Module m = read_ttgir(fixture("matmul_ws_sm90.ttgir"), "matmul_ws_sm90.ttgir");
  const Op* dot = find_op(m.functions[0].regions[0].ops, "ttng.warp_group_dot");
  REQUIRE(dot != nullptr);
  // loc(#loc49), #loc49 = loc("acc"(#loc20)), #loc20 = loc("kernels.py":17:29)
  CHECK(dot->loc.name == "acc");
  CHECK(dot->loc.file == "kernels.py");
  CHECK(dot->loc.line == 17);
  CHECK(dot->loc.column == 29);
  // #loc38 = loc(callsite(#loc3 at #loc10)): the library line (standard.py:43) called from kernels.py:15.
  Module m2 = read_ttgir(
      "#loc3 = loc(\"std.py\":43:17)\n#loc10 = loc(\"k.py\":15:36)\n#loc38 = loc(callsite(#loc3 at #loc10))\n"
      "module {\n  tt.func @f() {\n    %0 = arith.addi %a, %b : i32 loc(#loc38)\n    tt.return loc(#loc10)\n  }\n}\n",
      "c.ttgir");
  const Op& add = m2.functions[0].regions[0].ops[0];
  CHECK(add.loc.file == "k.py");
  CHECK(add.loc.line == 15);
  CHECK(add.operands == std::vector<std::string>{"%a", "%b"});
  CHECK(add.result_types()[0]->text == "i32");
  // MLIR escapes in a location's strings are decoded: the name q\"x\\y reads q"x\y, the file a\09b.py a<tab>b.py.
  Module m3 = read_ttgir(
      "module {\n  tt.func @f() {\n    tt.return loc(\"q\\\"x\\\\y\"(\"a\\09b.py\":1:2))\n  }\n}\n", "e.ttgir");
  CHECK(m3.functions[0].regions[0].ops[0].loc.name == "q\"x\\y");
  CHECK(m3.functions[0].regions[0].ops[0].loc.file == "a\tb.py");
}

TEST_CASE("ttgir_reader: generic ops with regions and block arguments; ops without locations") {
  Module m = read_ttgir(
      "module {\n  tt.func @f(%x: tensor<4xf32>) {\n"
      "    %r = \"tt.reduce\"(%x) <{axis = 0 : i32}> ({\n    ^bb0(%a: f32, %b: f32):\n"
      "      %s = arith.addf %a, %b : f32\n      tt.reduce.return %s : f32\n    }) : (tensor<4xf32>) -> f32\n"
      "    tt.return\n  }\n}\n",
      "g.ttgir");
  const auto& ops = m.functions[0].regions[0].ops;
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].name == "tt.reduce");
  CHECK(ops[0].attribute("axis") != nullptr);
  REQUIRE(ops[0].regions.size() == 1);
  CHECK(ops[0].regions[0].args == std::vector<std::string>{"%a", "%b"});
  CHECK(ops[0].regions[0].ops.size() == 2);
  CHECK(ops[1].name == "tt.return");
}

TEST_CASE("ttgir_reader: scf.if / else and scf.while regions on one op") {
  Module m = read_ttgir(
      "module {\n  tt.func @f(%c: i1, %n: i32) {\n"
      "    %r = scf.if %c -> (i32) {\n      scf.yield %n : i32\n    } else {\n      scf.yield %n : i32\n    }\n"
      "    %w = scf.while (%i = %n) : (i32) -> i32 {\n      scf.condition(%c) %i : i32\n    } do {\n"
      "    ^bb0(%j: i32):\n      scf.yield %j : i32\n    }\n    tt.return\n  }\n}\n",
      "w.ttgir");
  const auto& ops = m.functions[0].regions[0].ops;
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].name == "scf.if");
  CHECK(ops[0].regions.size() == 2);
  CHECK(ops[0].result_types()[0]->text == "i32");
  CHECK(ops[1].name == "scf.while");
  CHECK(ops[1].regions.size() == 2);
  CHECK(ops[1].regions[1].args == std::vector<std::string>{"%j"});
  CHECK(ops[1].defined_args() == std::vector<std::string>{"%i"});
}

TEST_CASE("ttgir_reader: malformed input gives located 'expected X, got Y' messages") {
  CHECK(error_of("module {\n  tt.func @f() {\n    tt.return\n") ==
        "t.ttgir:4:1: expected '}' to close the region of 'tt.func' @f opened at 2:16, got end of file "
        "(also unclosed: 'module' at 1:1)");
  CHECK(error_of("module {\n}\n}\n") == "t.ttgir:3:1: expected alias definition or 'module', got '}'");
  CHECK(error_of("#smem = #ttg.shared_memory\nmodule {\n  tt.func @f() {\n"
                 "    %0 = ttg.local_alloc : () -> !ttg.memdesc<3x64x, #s, #smem>\n  }\n}\n") ==
        "t.ttgir:4:34: expected element type after memdesc shape '3x64x', got end of shape");
  CHECK(error_of("#smem = #ttg.shared_memory\nmodule {\n  tt.func @f() {\n"
                 "    %0 = ttg.local_alloc : () -> !ttg.memdesc<64xf16, #nope, #smem>\n  }\n}\n") ==
        "t.ttgir:4:55: expected a defined alias, got unknown alias '#nope'");
  CHECK(error_of("module {\n  tt.func @f() {\n    %0 = arith.addi %a, %b : i32 loc(#loc9)\n  }\n}\n") ==
        "t.ttgir:3:38: expected a defined alias, got unknown alias '#loc9'");
  CHECK(error_of("module {\n  tt.func @f() {\n    %0 = arith.addi(%a, %b]\n  }\n}\n") ==
        "t.ttgir:3:27: expected ')' to close '(' at 3:20, got ']'");
  CHECK(error_of("module {\n  tt.func @f() {\n    %0 arith.addi\n  }\n}\n") ==
        "t.ttgir:3:8: expected '=' after op results, got 'arith.addi'");
}

TEST_CASE("ttgir_reader: a truncated file is reported at its end, naming the ops left open") {
  // Triton prints the #loc aliases after the module, so a cut file also lacks them; the cut is the error.
  CHECK(error_of("module {\n  tt.func @f(%n: i32) {\n    scf.for %i = %n to %n step %n {\n"
                 "      %0 = arith.addi %n, %n : i32 loc(#loc3)\n") ==
        "t.ttgir:5:1: expected '}' to close the region of 'scf.for' opened at 3:35, got end of file "
        "(also unclosed: 'tt.func' @f at 2:3, 'module' at 1:1)");
  CHECK(error_of("module {\n  tt.func @f(%n: i32) {\n    %0 = arith.addi %n, %n : i32 loc(#loc3)\n"
                 "    %1 = arith.addi(%n") ==
        "t.ttgir:4:23: expected ')' to close '(' at 4:20, got end of file "
        "(also unclosed: 'tt.func' @f at 2:3, 'module' at 1:1)");
  // Cut after a `{`: a region or attributes, the text cannot tell, so neither is named.
  CHECK(error_of("module {\n  tt.func @f(%n: i32) {\n    %0 = arith.addi %n, %n {") ==
        "t.ttgir:3:29: expected '}' to close '{' at 3:28, got end of file "
        "(also unclosed: 'tt.func' @f at 2:3, 'module' at 1:1)");

  const std::string text = fixture("matmul_ws_sm90.ttgir");
  const std::size_t body = text.find("module attributes");
  const std::size_t module_end = text.rfind("\n} loc(");
  REQUIRE(module_end != std::string::npos);
  REQUIRE(body < module_end);
  int cuts = 0;
  for (std::size_t cut = body + 200; cut < module_end; cut += 331, ++cuts) {
    const std::string_view part(text.data(), cut);
    const int last_line = 1 + static_cast<int>(std::count(part.begin(), part.end(), '\n'));
    const std::string message = error_of(part);
    CAPTURE(cut);
    CHECK_MESSAGE(message.rfind("t.ttgir:" + std::to_string(last_line) + ":", 0) == 0, message);
    CHECK_MESSAGE(message.find("unknown alias") == std::string::npos, message);
  }
  CHECK(cuts > 50);
}

TEST_CASE("ttgir_reader: tokens are lexed as the parser goes, and the first bad token still wins over parse errors") {
  // A parse error on line 1, a bad byte on line 3: the bad byte is reported (as when the text was lexed whole first).
  CHECK(error_of("module }\n  tt.func @f() {\n  \x01\n") == "t.ttgir:3:3: expected a token, got byte 0x01");
  // An unterminated string before a bad byte: the string is reported, not the byte after it.
  CHECK(error_of("module attributes {\"a\"-b\" = 4} {\n  tt.func @k\xe9() {\n") ==
        "t.ttgir:1:25: expected '\"' to end the string, got end of line");
  // An undefined alias after an op that uses an alias defined at the end: both passes see every token.
  CHECK(error_of("module {\n  tt.func @f() {\n    tt.return loc(#loc1)\n  } loc(#nope)\n}\n#loc1 = loc(\"k.py\":1:0)\n") ==
        "t.ttgir:4:9: expected a defined alias, got unknown alias '#nope'");
}
