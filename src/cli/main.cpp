// SPDX-License-Identifier: Apache-2.0
// The `transit` command-line tool: inspect and convert Transit data.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string_view>
#include <vector>

#include "commands.h"
#include "transit/error.h"

namespace {

constexpr const char* kUsage =
    "usage: transit <command> [options]\n"
    "       transit help <command>\n"
    "       transit --version\n"
    "\n"
    "commands:\n"
    "  convert    convert values between json, json-verbose and msgpack\n"
    "  roundtrip  read values one at a time and write each straight back (verification protocol)\n"
    "  edn        print values as EDN, indented to the terminal width\n"
    "  stats      sizes in each encoding, cache codes, counts by type, depth\n"
    "  demo       write a built-in sample in every encoding, read it back, check equality\n"
    "  bench      time reading and writing a file's values in every encoding; sizes, charts\n"
    "\n"
    "Run 'transit help <command>' or 'transit <command> --help' for a command's options.\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  bad input (the message names the byte, line, column and path; every value completed\n"
    "     before it has been written, nothing of the one that failed), or output lost (a\n"
    "     full disk, a closed pipe)\n"
    "  2  bad usage: an unknown command, option or encoding\n";

struct Command {
  std::string_view name;
  int (*run)(transit::cli::Args);
};

constexpr Command kCommands[] = {
    {"convert", transit::cli::convert}, {"roundtrip", transit::cli::roundtrip},
    {"edn", transit::cli::edn},         {"stats", transit::cli::stats},
    {"demo", transit::cli::demo},       {"bench", transit::cli::bench},
};

const Command* find_command(std::string_view name) {
  for (const Command& command : kCommands)
    if (command.name == name) return &command;
  return nullptr;
}

/// What std::cout (through stdio's stdout) could not write is lost output: exit status 1 with
/// a message, never 0. Commands that write through an FdSink report failures as they happen.
int check_stdout(int status) {
  errno = 0;
  std::cout.flush();  // through stdio: this is the fflush that meets the error, if any
  const bool stream_failed = !std::cout;
  int error = errno;
  const bool flush_failed = std::fflush(stdout) != 0;
  if (!stream_failed && !flush_failed && !std::ferror(stdout)) return status;
  if (error == 0) error = errno;
  std::cerr << "transit: io: cannot write the output"
            << (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
  return status == transit::cli::kOk ? transit::cli::kBadInput : status;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return transit::cli::kBadUsage;
  }
  const std::string_view name = argv[1];
  if (name == "--version" || name == "-V" || name == "version") {
    std::cout << "transit " << TRANSIT_VERSION << "\n";
    return transit::cli::kOk;
  }
  if (name == "--help" || name == "-h" ||
      (name == "help" && (argc == 2 || (argc == 3 && std::string_view(argv[2]) == "help")))) {
    std::cout << kUsage;
    return transit::cli::kOk;
  }
  if (name == "help") {
    const Command* command = argc == 3 ? find_command(argv[2]) : nullptr;
    if (command == nullptr) {
      // It was given one name, and no command has it: say so, not that it takes one.
      if (argc == 3)
        std::cerr << "transit: help: unknown command '" << argv[2] << "'\n" << kUsage;
      else
        std::cerr << "transit: help takes one command name\n" << kUsage;
      return transit::cli::kBadUsage;
    }
    const std::vector<std::string_view> help{"--help"};
    return command->run(help);
  }
  const std::vector<std::string_view> args(argv + 2, argv + argc);
  const Command* command = find_command(name);
  if (command == nullptr) {
    std::cerr << "transit: unknown command '" << name << "'\n" << kUsage;
    return transit::cli::kBadUsage;
  }
  try {
    return command->run(args);
  } catch (const transit::Error& e) {
    std::cerr << e.what() << "\n";
    return transit::cli::kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "transit " << name << ": " << e.what() << "\n";
    return transit::cli::kBadInput;
  }
}

}  // namespace

int main(int argc, char** argv) { return check_stdout(run(argc, argv)); }
