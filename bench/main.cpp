// SPDX-License-Identifier: Apache-2.0
// transit-bench: prepares and verifies every corpus, prints the size and memory tables, then
// runs the suites. `--sizes` prints the tables to stdout and stops there; `--dump DIR` writes
// each corpus's Transit JSON and JSON-Verbose texts to DIR/NAME.json and DIR/NAME.verbose.json
// (for instruction counts with transit-read-file) and its MessagePack bytes to DIR/NAME.msgpack
// (to compare the writers' output before and after a change), and stops there.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include "corpora.h"
#include "sizes.h"

int main(int argc, char** argv) {
  using namespace transit::bench;
  bool sizes_only = false;
  // Listing the benchmarks prints their names and nothing else: the tables measure every corpus
  // first, which is slow and is not what a caller of --benchmark_list_tests reads.
  bool listing = false;
  const char* dump_dir = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--benchmark_list_tests" || arg == "--benchmark_list_tests=true" ||
        arg == "--benchmark_list_tests=1")
      listing = true;
    if (arg == "--dump" && i + 1 < argc) {
      dump_dir = argv[i + 1];
      break;
    }
    if (arg == "--sizes") {
      sizes_only = true;
      std::copy(argv + i + 1, argv + argc, argv + i);
      --argc;
      break;
    }
  }
  if (dump_dir) {
    for (const auto& c : load_corpora())
      for (const auto& [suffix, text] : {std::pair{".json", &c->json}, {".verbose.json", &c->verbose}, {".msgpack", &c->msgpack}}) {
        const std::string path = std::string(dump_dir) + "/" + c->name + suffix;
        std::ofstream file(path, std::ios::binary);
        if (!(file << *text)) {
          std::cerr << "transit-bench: cannot write " << path << "\n";
          return EXIT_FAILURE;
        }
        std::cout << path << "\n";
      }
    return EXIT_SUCCESS;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return EXIT_FAILURE;

  const std::vector<std::unique_ptr<Corpus>> corpora = load_corpora();
  if (!listing) {
    std::vector<transit::cli::SizeRow> rows;
    for (const auto& c : corpora)
      rows.push_back({c->name, transit::cli::measure_sizes(std::span(&c->value, 1))});
    // Tables go to stderr in a benchmark run so that --benchmark_format=json output stays clean.
    std::ostream& out = sizes_only ? std::cout : std::cerr;
    transit::cli::print_size_table(out, rows);
    out << "\n";
    print_memory_table(out, corpora);
    out << "\n";
    if (sizes_only) return EXIT_SUCCESS;
  }

  register_codec_benchmarks();
  register_message_benchmarks();
  for (const auto& c : corpora) {
    register_json_benchmarks(*c);
    register_msgpack_benchmarks(*c);
    register_typed_benchmarks(*c);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return EXIT_SUCCESS;
}
