// SPDX-License-Identifier: Apache-2.0
// transit-cpp: the wire encodings.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace transit {

/// The three Transit encodings.
enum class Encoding : std::uint8_t {
  json,          ///< compact JSON: maps as ["^ ", ...] arrays, cached keys
  json_verbose,  ///< human-readable JSON: maps as objects, no cache, ~t dates
  msgpack,       ///< MessagePack
};

/// "json", "json-verbose" or "msgpack".
std::string_view encoding_name(Encoding e) noexcept;
/// The encoding named `name` (as encoding_name spells it), or nullopt.
std::optional<Encoding> parse_encoding(std::string_view name) noexcept;

}  // namespace transit
