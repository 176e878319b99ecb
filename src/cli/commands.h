// SPDX-License-Identifier: Apache-2.0
// The `transit` tool's subcommands. Each takes its arguments (after the command name) and
// returns the exit status: 0 success, 1 bad input, 2 bad usage.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "transit/value.h"

namespace transit::cli {

using Args = std::span<const std::string_view>;

inline constexpr int kOk = 0;
inline constexpr int kBadInput = 1;
inline constexpr int kBadUsage = 2;

int convert(Args args);
int roundtrip(Args args);
int edn(Args args);
int stats(Args args);
int demo(Args args);

/// Pretty-prints EDN for `value` so that lines fit in `width` columns where they can.
std::string pretty_edn(const Value& value, std::size_t width);

}  // namespace transit::cli
