#include "tools/vbench/safetensors_reader.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "libcommon/error.hpp"
#include "tools/vbench/safetensors_writer.hpp"
#include "tools/vbench/weight_init.hpp"

using namespace vtools;
using namespace vtools::vbench;

namespace {
/// A safetensors file from a header text and a data buffer.
std::string make_file(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string error_of(const std::string& bytes) {
  try {
    read_safetensors(bytes, "w.safetensors");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  return "no error";
}

std::string load_error(const std::string& bytes, const GptConfig& config) {
  try {
    const auto file = read_safetensors(bytes, "w.safetensors");
    load_weights(file, config, "w.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const GptConfig kTiny{"tiny", 2, 2, 6, 11, 5, true};
}  // namespace

TEST_CASE("safetensors: write then read gives back every tensor bit for bit, and the config") {
  for (bool tied : {true, false}) {
    GptConfig c = kTiny;
    c.tied_head = tied;
    const GptWeights w = init_weights(c, 3);
    std::ostringstream out;
    write_safetensors(w, out, {{"seed", "3"}});
    const std::string bytes = out.str();
    const auto file = read_safetensors(bytes, "w.safetensors");
    CHECK(file.metadata.at("seed") == "3");
    bool found = false;
    const GptConfig back = config_from_metadata(file, "w.safetensors", &found);
    CHECK(found);
    CHECK(back.n_embd == 6);
    CHECK(back.tied_head == tied);
    const GptWeights r = load_weights(file, back, "w.safetensors");
    CHECK(r.wte == w.wte);
    CHECK(r.layers[1].fc_proj_w == w.layers[1].fc_proj_w);
    CHECK(r.lm_head == w.lm_head);
    CHECK((8 + bytes.size() - file.data.size()) % 8 == 0);  // header padded to 8 bytes
  }
}

TEST_CASE("safetensors: BF16 and F16 tensors are widened exactly") {
  // 1.0 = bf16 0x3f80, f16 0x3c00; -2.5 = bf16 0xc020, f16 0xc100; 2^-24 = f16 0x0001 (subnormal)
  const std::string data("\x80\x3f\x20\xc0\x00\x3c\x00\xc1\x01\x00", 10);
  const std::string bytes = make_file(
      R"({"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"F16","shape":[3],"data_offsets":[4,10]}})",
      data);
  const auto file = read_safetensors(bytes, "x");
  CHECK(tensor_as_float(file, "a", "x") == std::vector<float>{1.0f, -2.5f});
  CHECK(tensor_as_float(file, "b", "x") == std::vector<float>{1.0f, -2.5f, std::ldexp(1.0f, -24)});
}

TEST_CASE("safetensors: bad files are refused with a message naming the tensor") {
  CHECK(error_of("abc") == "w.safetensors: truncated safetensors file: 3 bytes, the header length needs 8");
  CHECK(error_of(make_file("{}", "").substr(0, 9)) ==
        "w.safetensors: safetensors header of 2 bytes runs past the end of the file (9 bytes)");
  std::string huge(8, '\0');
  huge[4] = 1;  // 2^32
  CHECK(error_of(huge) == "w.safetensors: safetensors header of 4294967296 bytes is over the limit of 100000000");
  CHECK(error_of(make_file(R"({"wte.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", std::string(8, '\0'))) ==
        "w.safetensors: tensor 'wte.weight': data_offsets [0, 16] out of range of the data buffer (8 bytes)");
  CHECK(error_of(make_file(R"({"wte.weight":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0'))) ==
        "w.safetensors: tensor 'wte.weight': shape [3] of F32 needs 12 bytes, data_offsets give 8");
  CHECK(error_of(make_file(R"({"wte.weight":{"dtype":"Q4","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0'))) ==
        "w.safetensors: tensor 'wte.weight': unknown dtype 'Q4'");
  CHECK(error_of(make_file(R"({"wte.weight":{"dtype":"F32","shape":[2]}})", std::string(8, '\0'))) ==
        "w.safetensors: tensor 'wte.weight': missing 'data_offsets' [begin, end]");
  CHECK(error_of(make_file(R"({"wte.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,1180591620717411303424]}})",
                           std::string(8, '\0'))) ==
        "w.safetensors: tensor 'wte.weight': data_offsets [0,1.1805916207174113e+21] is not [begin, end] of two unsigned "
        "64-bit integers");
  CHECK(error_of(make_file("[1]", "")) == "w.safetensors: safetensors header is not a JSON object");
}

TEST_CASE("safetensors: missing, mis-shaped and wrongly typed GPT-2 tensors are named") {
  GptWeights w = init_weights(kTiny, 1);
  std::ostringstream out;
  write_safetensors(w, out);
  GptConfig wider = kTiny;
  wider.n_embd = 8;
  CHECK(load_error(out.str(), wider) == "w.safetensors: tensor 'wte.weight' has shape [11, 6]; config 'tiny' needs [11, 8]");
  GptConfig deeper = kTiny;
  deeper.n_layer = 3;
  CHECK(load_error(out.str(), deeper) ==
        "w.safetensors: missing tensor 'h.2.ln_1.weight' (config 'tiny' needs [6])");
  const std::string ints = make_file(R"({"wte.weight":{"dtype":"I32","shape":[11,6],"data_offsets":[0,264]}})",
                                     std::string(264, '\0'));
  CHECK(load_error(ints, kTiny) == "w.safetensors: tensor 'wte.weight' has dtype I32; expected F32, BF16 or F16");
}
