// SPDX-License-Identifier: Apache-2.0
// A default read handler that refuses some values in every way user code can, for the fuzzers
// that read on past refusals (docs/errors.md, "A Reader that has thrown"): read_fuzz.cpp and
// typed_fuzz.cpp.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "transit/transit.h"

namespace transit::test {

// What refuse_some throws that is no std::exception.
struct Refuse {};

// The detail of every Error refuse_some throws, and of those the reader makes of its
// std::exceptions after "... failed: ". Not searched for in the whole message: the fuzzer finds
// the text and puts it in a map key, which the message's path quotes.
inline constexpr std::string_view kRefusalMark = "(fuzz handler)";

inline bool refused_by_handler(const Error& e) {
  const std::string_view detail = e.detail();
  return detail == kRefusalMark ||
         (detail.ends_with(kRefusalMark) &&
          detail.substr(0, detail.size() - kRefusalMark.size()).ends_with(" failed: "));
}

// The default handler: refuses an integer rep by its value (a std::exception; an Error that
// says where already; an Error coded `truncated`, a code the input's end has), and a string rep
// starting with '!' (a Refuse); takes anything else as [tag, rep].
inline Value refuse_some(std::string_view tag, const Value& rep) {
  if (rep.kind() == Kind::integer) {
    switch (rep.as_int() & 3) {
      case 1:
        throw std::runtime_error(std::string(kRefusalMark));
      case 2:
        throw Error(Errc::bad_rep, Location{5, 1, 6}, "$", std::string(kRefusalMark));
      case 3:
        throw Error(Errc::truncated, Location{}, "", std::string(kRefusalMark));
      default:
        break;
    }
  }
  if (rep.kind() == Kind::string && rep.as_string().starts_with('!')) throw Refuse{};
  return Value::array({Value(std::string(tag)), rep});
}

}  // namespace transit::test
