// vrender timing: a generated trace with N kernel launches (default 100000) on 4 streams -> parse -> page -> HTML,
// reporting milliseconds per step and the HTML size. Usage: vrender_perftest [N]. Target: <= 2 s, <= 5 MB at 100k.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "libcommon/document.hpp"
#include "tools/vrender/render.hpp"

int main(int argc, char** argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 100000;
  std::string text = R"({"format":"vtools.trace","version":1,"tool":{"name":"vtrace","version":"0.1.0"},)"
                     R"("created":"2026-11-22T15:00:00Z","run":{"command":["./app"],"exit_status":0},)"
                     R"("devices":[{"id":0,"name":"NVIDIA H100","compute_capability":"9.0"}],"kernels":[)";
  long long t = 1000000;
  for (long i = 0; i < n; ++i) {
    long long d = 2000 + (i * 7919) % 50000;
    text += std::string(i ? "," : "") + R"({"name":"kernel_)" + std::to_string(i % 23) + R"(","device_id":0,"stream_id":)" +
            std::to_string(7 + i % 4) + R"(,"grid":[128,1,1],"block":[256,1,1],"start_ns":)" + std::to_string(t) +
            R"(,"end_ns":)" + std::to_string(t + d) + "}";
    t += d / 3 + 500;
  }
  text += R"(],"partial":false})";
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::clock_t c0 = std::clock();
  auto t0 = clock::now();
  auto input = vtools::vrender::classify_input(text, "generated.json");
  auto t1 = clock::now();
  auto page = vtools::vrender::build_page({input});
  auto t2 = clock::now();
  std::string html = vtools::vrender::render_page(page, "html", {});
  auto t3 = clock::now();
  double cpu_ms = 1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  // Wall times suffer on a shared machine; the CPU time of parse + page + HTML is the figure to compare.
  std::printf("launches %ld  json %.1f MB  parse %.0f ms  page %.0f ms  html %.0f ms  total %.0f ms wall, %.0f ms cpu  "
              "html size %.2f MB\n",
              n, text.size() / 1e6, ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t0, t3), cpu_ms, html.size() / 1e6);
  return 0;
}
