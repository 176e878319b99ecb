// SPDX-License-Identifier: Apache-2.0
// transit-fresh-output FILE [RUNS]: why `transit bench` (a fresh output string per write) and
// transit-bench (one buffer reused) disagree on the first encoding timed (docs/performance.md,
// "transit bench beside transit-bench"). FILE is read as Transit JSON into a Value; then, for
// each encoding in the order given by ORDER (default json,json-verbose,msgpack), RUNS writes
// with `transit::write` (a fresh std::string each, as a service writing one message per request
// does) and RUNS writes into one std::string cleared between writes, each followed by RUNS reads.
// Prints page faults (getrusage minor faults) and microseconds per operation.
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

#include "transit/transit.h"

namespace {

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

}  // namespace

int main(int argc, char** argv) {
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
      std::fprintf(stderr, "transit-fresh-output: unknown encoding '%s'\n", std::string(name).c_str());
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
