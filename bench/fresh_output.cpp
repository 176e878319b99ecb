// SPDX-License-Identifier: Apache-2.0
// transit-fresh-output FILE [RUNS]: why `transit bench` (a fresh output string per write) and
// transit-bench (one buffer reused) disagree on the first encoding timed (docs/performance-log.md,
// "transit bench beside transit-bench"). FILE is read as Transit JSON into a Value; then, for
// each encoding in the order given by ORDER (default json,json-verbose,msgpack), RUNS writes
// with `transit::write` (a fresh std::string each, as a service writing one message per request
// does) and RUNS writes into one std::string cleared between writes, each followed by RUNS reads.
// Prints page faults (getrusage minor faults) and microseconds per operation.
//
// transit-fresh-output --paired FILE ENCODING [RUNS]: how much of the gap between `transit bench`
// and transit-bench (geojson's MessagePack write, 1.32x in round sixteen; docs/performance-log.md,
// "The two benchmarks, round seventeen") is the way `transit bench` writes. Reads every value of
// FILE (JSON-Verbose if it ends in .verbose.json, as bench_agreement.py gives `transit bench`,
// else Transit JSON) and, RUNS times, times four writes in ENCODING by the thread's CPU clock,
// each right after what precedes it in one of the two tools: A, the loop's write (one Writer and
// string, right after another such write, as transit-bench); B, `transit bench`'s write (a fresh
// Writer and string through the CLI's own write_values, right after a run of its floor,
// src/cli/floors.cpp, on the same bytes); C, the loop's write right after the floor's run; D, a
// fresh write right after a fresh write. Prints the medians of A and B and of B/A, C/A and D/A,
// each ratio taken between writes made a millisecond or so apart, so a change in the machine's
// speed between them is small: B/A is what `transit bench`'s way of writing costs over the loop's
// in one process, D/A what the fresh string and Writer cost, C/A what the floor's run before ours
// costs. B's median set beside `transit bench`'s own median of the same write, run as another
// process just before or after, says how much of the rest is the process.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "cpu_clock.h"
#include "floors.h"
#include "sizes.h"
#include "transit/transit.h"

namespace {

using transit::bench::thread_cpu_ns;

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

template <class Op>
void report(const char* what, std::string_view encoding, int runs, Op op) {
  const long f0 = minor_faults();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) op();
  const auto t1 = std::chrono::steady_clock::now();
  const long f1 = minor_faults();
  std::printf("%-13s %-22s faults/op %7.1f   us/op %9.1f\n", std::string(encoding).c_str(), what,
              static_cast<double>(f1 - f0) / runs,
              std::chrono::duration<double, std::micro>(t1 - t0).count() / runs);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int paired(const std::string& path, const std::string& text, transit::Encoding encoding, int runs) {
  const bool verbose = path.ends_with(".verbose.json");
  std::vector<transit::Value> values;
  transit::Reader reader(text, verbose ? transit::Encoding::json_verbose : transit::Encoding::json);
  while (std::optional<transit::Value> v = reader.next()) values.push_back(std::move(*v));
  transit::WriteOptions options;  // as `transit bench` writes (src/cli/bench.cpp, write_all)
  options.max_output_bytes = transit::cli::kDefaultMaxOutputBytes;
  const auto fresh = [&] { return transit::cli::write_values(values, encoding, options).size(); };
  const std::string bytes = transit::cli::write_values(values, encoding, options);
  const transit::cli::Floor floor(bytes, encoding);
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, encoding);
  const auto loop = [&] {
    out.clear();
    for (const transit::Value& v : values) writer.write(v);
    writer.flush();
    return out.size();
  };
  const auto timed = [](auto op) {
    const long long t0 = thread_cpu_ns();
    if (op() == 0) std::abort();
    return static_cast<double>(thread_cpu_ns() - t0);
  };
  std::vector<double> a, b, c, d, b_ns;
  long faults = 0;
  for (int i = 0; i < runs; ++i) {
    loop();
    const double ta = timed(loop);
    a.push_back(ta);
    floor.write();
    const long f0 = minor_faults();
    b_ns.push_back(timed(fresh));
    b.push_back(b_ns.back() / ta);
    faults += minor_faults() - f0;
    floor.write();
    c.push_back(timed(loop) / ta);
    fresh();
    d.push_back(timed(fresh) / ta);
  }
  std::printf(
      "%s %s: A (loop) %.1f us; B %.1f us; B/A (fresh after the floor, transit bench) %.3f; C/A "
      "(loop after the floor) %.3f; D/A (fresh after fresh) %.3f; faults per B %.1f\n",
      path.c_str(), std::string(transit::encoding_name(encoding)).c_str(), median(a) / 1e3,
      median(b_ns) / 1e3, median(b), median(c), median(d), static_cast<double>(faults) / runs);
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string_view(argv[1]) == "--paired") {
    std::ifstream file(argv[2], std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    const std::optional<transit::Encoding> encoding = transit::parse_encoding(argv[3]);
    const int runs = argc > 4 ? std::atoi(argv[4]) : 41;
    if (!file || !encoding || runs < 1) {
      std::fprintf(stderr, "usage: transit-fresh-output --paired FILE ENCODING [RUNS]\n");
      return EXIT_FAILURE;
    }
    return paired(argv[2], text.str(), *encoding, runs);
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: transit-fresh-output FILE [RUNS] [ORDER]\n");
    return EXIT_FAILURE;
  }
  std::ifstream file(argv[1], std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  const int runs = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::string order = argc > 3 ? argv[3] : "json,json-verbose,msgpack";

  const transit::Value value = transit::read(text.str(), transit::Encoding::json);
  std::string_view rest = order;
  while (!rest.empty()) {
    const std::string_view name = rest.substr(0, rest.find(','));
    rest.remove_prefix(std::min(rest.size(), name.size() + 1));
    const std::optional<transit::Encoding> parsed = transit::parse_encoding(name);
    if (!parsed) {
      std::fprintf(stderr, "transit-fresh-output: unknown encoding '%s'\n",
                   std::string(name).c_str());
      return EXIT_FAILURE;
    }
    const transit::Encoding encoding = *parsed;
    const std::string bytes = transit::write(value, encoding);
    report("write, fresh string", name, runs, [&] {
      if (transit::write(value, encoding).size() != bytes.size()) std::abort();
    });
    std::string reused;
    report("write, reused string", name, runs, [&] {
      reused.clear();
      transit::StringSink sink(reused);
      transit::Writer writer(sink, encoding);
      writer.write(value);
      writer.flush();
      if (reused.size() != bytes.size()) std::abort();
    });
    report("read", name, runs, [&] { (void)transit::read(bytes, encoding); });
  }
}
