#include "tools/vbench/impl_protocol.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "libcommon/error.hpp"

using namespace vtools::vbench;

namespace {

ImplRequest tiny_request() {
  ImplRequest q;
  q.config = {"custom", 1, 1, 4, 11, 8, true};
  q.dtype = "bf16";
  q.batch_size = 2;
  q.seq_len = 3;
  q.weights_path = "/w.safetensors";
  q.tokens_path = "/t.i32";
  q.warmup = 1;
  q.iters = 2;
  q.repetitions = 2;
  q.caches = "cold";
  q.logits_path = "/l.f32";
  q.reply_path = "/r.json";
  return q;
}

/// The message of the Error that parse_impl_reply throws for `text` (location included), "" when it accepts it.
std::string reply_error(const std::string& text) {
  try {
    parse_impl_reply(text, "reply", tiny_request());
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kDataError);
    return e.what();
  }
  return "";
}

const std::string kHead = R"({"protocol":"vbench.impl","version":1,"implementation":{"name":"x"},)";

}  // namespace

TEST_CASE("impl_protocol: a request survives its JSON (what a C++ implementation reads back)") {
  const ImplRequest q = tiny_request();
  const ImplRequest r = parse_impl_request(impl_request_json(q), "request");
  CHECK(r.config.n_embd == 4);
  CHECK(r.config.vocab_size == 11);
  CHECK(r.config.tied_head);
  CHECK(r.dtype == "bf16");
  CHECK(r.batch_size == 2);
  CHECK(r.seq_len == 3);
  CHECK(r.repetitions == 2);
  CHECK(r.caches == "cold");
  CHECK(r.gpu == -1);
  CHECK(r.logits_path == "/l.f32");
  CHECK(r.reply_path == "/r.json");
  ImplRequest unchecked = q;
  unchecked.logits_path.clear();
  CHECK(parse_impl_request(impl_request_json(unchecked), "request").logits_path.empty());
}

TEST_CASE("impl_protocol: a reply survives its JSON; samples go through as given") {
  ImplReply reply{{"numpy-gpt", "1.0", "cpu"}, {{1.5, 2.5}, {3.0, 4.0, 5.0}}, {"a note"}};
  const ImplReply back = parse_impl_reply(impl_reply_json(reply), "reply", tiny_request());
  CHECK(back.implementation.name == "numpy-gpt");
  CHECK(back.implementation.device == "cpu");
  REQUIRE(back.repetitions.size() == 2);
  CHECK(back.repetitions[1] == std::vector<double>{3.0, 4.0, 5.0});
  CHECK(back.notes == std::vector<std::string>{"a note"});
}

TEST_CASE("impl_protocol: malformed replies, each with its message") {
  CHECK(reply_error("[1]") == "reply: expected a JSON object");
  CHECK(reply_error(R"({"protocol":"other","version":1})") == "reply: 'protocol' is 'other', expected 'vbench.impl'");
  CHECK(reply_error(R"({"protocol":"vbench.impl","version":2})") == "reply: protocol version 2 is not 1");
  CHECK(reply_error(R"({"protocol":"vbench.impl","version":1})") ==
        "reply: missing object 'implementation' (name, version, device)");
  CHECK(reply_error(kHead + R"("repetitions":[{"samples_ms":[1,2]}]})") ==
        "reply: 'repetitions' has 1 entries, expected 2");
  CHECK(reply_error(kHead + R"("repetitions":[{"samples_ms":[1,2]},{"samples_ms":[1]}]})") ==
        "reply: repetitions[1] has 1 samples, expected at least 2 (--iters)");
  CHECK(reply_error(kHead + R"("repetitions":[{"samples_ms":[1,2]},{"samples_ms":[1,-2]}]})") ==
        "reply: repetitions[1].samples_ms[1] is -2, expected a positive number of milliseconds, at most 86400000 "
        "(a day)");
  CHECK(reply_error(kHead + R"("repetitions":[{"samples_ms":[1,2]},{"samples_ms":[1,"2"]}]})") ==
        "reply: repetitions[1].samples_ms[1] is \"2\", expected a positive number of milliseconds, at most 86400000 "
        "(a day)");
  CHECK(reply_error(kHead + R"("repetitions":[{"samples_ms":[1,2]},{"samples_ms":[1,1e308]}]})") ==
        "reply: repetitions[1].samples_ms[1] is 1e+308, expected a positive number of milliseconds, at most "
        "86400000 (a day)");  // the mean of such samples would be inf, no number for the document
  CHECK(reply_error(kHead + R"("repetitions":[{"samples":[1,2]},{"samples_ms":[1,2]}]})") ==
        "reply: repetitions[0] has no array 'samples_ms'");
  CHECK(reply_error(R"({"protocol":"vbench.impl","version":1,"implementation":{"name":""},"repetitions":[]})") ==
        "reply: 'implementation.name' is empty");
  CHECK(reply_error(kHead + R"("notes":[1],"repetitions":[]})") == "reply: 'notes' holds a non-string");
  CHECK(reply_error("{\"protocol\":").starts_with("reply:1:12: invalid JSON"));  // with line:column
}

TEST_CASE("impl_protocol: the logits file must hold exactly B*T*V float32") {
  const ImplRequest q = tiny_request();  // 2 x 3 x 11 = 66 values
  const std::vector<float> values(66, 0.5f);
  CHECK(parse_impl_logits(logits_bytes(values), "l.f32", q) == values);
  try {
    parse_impl_logits(logits_bytes(std::vector<float>(65)), "l.f32", q);
    FAIL("accepted 65 values");
  } catch (const vtools::Error& e) {
    CHECK(std::string(e.what()) == "l.f32: logits file holds 260 bytes, expected 264 (float32 [2][3][11])");
  }
  const std::vector<std::int32_t> tokens{0, 7, 10};
  CHECK(parse_tokens(tokens_bytes(tokens), "t") == tokens);
  CHECK_THROWS_AS(parse_tokens("abc", "t"), vtools::Error);
}
