// SPDX-License-Identifier: Apache-2.0
// The `transit` command-line tool.
#include <cstring>
#include <iostream>
#include <string_view>

#include "demo.h"
#include "transit/error.h"

namespace {

constexpr const char* kUsage =
    "usage: transit <command> [options]\n"
    "\n"
    "commands:\n"
    "  demo     write a built-in sample in every encoding, read it back, check equality\n"
    "\n"
    "Run 'transit <command> --help' for a command's options.\n";

constexpr const char* kDemoUsage =
    "usage: transit demo\n"
    "\n"
    "Writes a built-in sample of typed values (keywords, symbols, dates, UUIDs, URIs, big\n"
    "numbers, sets, lists, a map with composite keys, a tagged value) as Transit JSON and\n"
    "JSON-Verbose, reads both back, and prints the texts, their sizes and \"round trip: ok\".\n";

bool wants_help(int argc, char** argv, int from) {
  for (int i = from; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  try {
    if (command == "demo") {
      if (wants_help(argc, argv, 2)) {
        std::cout << kDemoUsage;
        return 0;
      }
      if (argc > 2) {
        std::cerr << "transit demo: unexpected argument '" << argv[2] << "'\n" << kDemoUsage;
        return 2;
      }
      return transit::cli::run_demo(std::cout);
    }
    std::cerr << "transit: unknown command '" << command << "'\n" << kUsage;
    return 2;
  } catch (const transit::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
