// SPDX-License-Identifier: Apache-2.0
#include "transit/encoding.h"

namespace transit {

std::string_view encoding_name(Encoding e) noexcept {
  switch (e) {
    case Encoding::json: return "json";
    case Encoding::json_verbose: return "json-verbose";
    case Encoding::msgpack: return "msgpack";
  }
  return "?";
}

std::optional<Encoding> parse_encoding(std::string_view name) noexcept {
  for (Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack})
    if (encoding_name(e) == name) return e;
  return std::nullopt;
}

}  // namespace transit
