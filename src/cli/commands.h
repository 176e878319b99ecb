// SPDX-License-Identifier: Apache-2.0
// The `transit` tool's subcommands. Each takes its arguments (after the command name) and
// returns the exit status: 0 success, 1 bad input, 2 bad usage.
#pragma once

#include <iostream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "transit/encoding.h"
#include "transit/value.h"

namespace transit::cli {

using Args = std::span<const std::string_view>;

inline constexpr int kOk = 0;
inline constexpr int kBadInput = 1;
inline constexpr int kBadUsage = 2;

/// What one value may expand to when the tool writes it (--max-output-bytes): a small input
/// with cache codes must not become gigabytes of output. 1 GiB is far beyond any value the
/// readers accept (64 MiB on the wire) written out plainly.
inline constexpr std::size_t kDefaultMaxOutputBytes = std::size_t{1} << 30;

class Progress;

/// A command's --help text, which begins with its usage line.
struct Usage {
  const char* text;
};

/// Throws the std::invalid_argument that run_command turns into exit status 2.
[[noreturn]] void usage_error(const Usage& usage, const std::string& problem);
/// True when the arguments ask for --help (or -h).
bool is_help(Args args);
/// The encoding named by an argument; a usage error otherwise.
Encoding encoding_arg(const Usage& usage, std::string_view name);
/// Every value of the file at `path` (stdin when absent or "-"). Throws Error on bad input and
/// std::runtime_error when the file cannot be opened. Reports the bytes read to `progress`.
std::vector<Value> read_values(std::optional<std::string_view> path, Encoding from,
                               Progress* progress = nullptr);
/// The byte count given to --max-output-bytes: digits with an optional K, M or G (powers of
/// 1024); a usage error otherwise.
std::size_t byte_count_arg(const Usage& usage, std::string_view text);

/// Runs a command's body: prints the usage for --help, and turns a usage error into a message
/// and exit status 2.
template <class Body>
int run_command(Args args, const Usage& usage, Body body) {
  if (is_help(args)) {
    std::cout << usage.text << "\n";
    return kOk;
  }
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    std::cerr << "transit: " << e.what() << "\n";
    return kBadUsage;
  }
}

int convert(Args args);
int roundtrip(Args args);
int edn(Args args);
int stats(Args args);
int demo(Args args);
int bench(Args args);

/// Pretty-prints EDN for `value` so that lines fit in `width` columns where they can.
std::string pretty_edn(const Value& value, std::size_t width);

}  // namespace transit::cli
