// SPDX-License-Identifier: Apache-2.0
// The `transit` command-line tool: inspect and convert Transit data.
#include <iostream>
#include <string_view>
#include <vector>

#include "commands.h"
#include "transit/error.h"

namespace {

constexpr const char* kUsage =
    "usage: transit <command> [options]\n"
    "\n"
    "commands:\n"
    "  convert    convert values between json, json-verbose and msgpack\n"
    "  roundtrip  read values one at a time and write each straight back (verification protocol)\n"
    "  edn        print values as EDN, indented to the terminal width\n"
    "  stats      sizes in each encoding, cache codes, counts by type, depth\n"
    "  demo       write a built-in sample in every encoding, read it back, check equality\n"
    "  bench      time reading and writing a file's values in every encoding; sizes, charts\n"
    "\n"
    "Run 'transit <command> --help' for a command's options.\n"
    "Exit status: 0 success, 1 bad input (the error names the byte), 2 bad usage.\n";

struct Command {
  std::string_view name;
  int (*run)(transit::cli::Args);
};

constexpr Command kCommands[] = {
    {"convert", transit::cli::convert}, {"roundtrip", transit::cli::roundtrip},
    {"edn", transit::cli::edn},         {"stats", transit::cli::stats},
    {"demo", transit::cli::demo},       {"bench", transit::cli::bench},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return transit::cli::kBadUsage;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    std::cout << kUsage;
    return transit::cli::kOk;
  }
  const std::vector<std::string_view> args(argv + 2, argv + argc);
  for (const Command& command : kCommands) {
    if (command.name != name) continue;
    try {
      return command.run(args);
    } catch (const transit::Error& e) {
      std::cerr << e.what() << "\n";
      return transit::cli::kBadInput;
    } catch (const std::exception& e) {
      std::cerr << "transit " << name << ": " << e.what() << "\n";
      return transit::cli::kBadInput;
    }
  }
  std::cerr << "transit: unknown command '" << name << "'\n" << kUsage;
  return transit::cli::kBadUsage;
}
