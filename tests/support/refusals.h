// SPDX-License-Identifier: Apache-2.0
// A default read handler that refuses some values in every way user code can, for the fuzzers
// that read on past refusals (docs/errors.md, "A Reader that has thrown"): read_fuzz.cpp and
// typed_fuzz.cpp.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

// What reading on past refusals from memory and from a Source gave differently (empty: the
// same), per call a value, the end, or an error (each starting "error "), a failure of one
// value starting `one_value`: the same calls, but for the input's error, whose place may differ
// (in memory a claim beyond the input fails the value at once, where a Source reads on in it
// and may meet a failure of the value first).
inline std::string read_on_difference(std::vector<std::string> memory, std::vector<std::string> stream,
                                      std::string_view one_value) {
  if (memory.back().starts_with("error ") && stream.back().starts_with("error ")) {
    if (memory.back().starts_with("error transit: truncated") && stream.size() == memory.size() + 1 &&
        stream[stream.size() - 2].starts_with(one_value))
      stream.erase(stream.end() - 2);
    memory.back() = stream.back() = "error";
  }
  if (memory == stream) return {};
  std::string detail;
  for (const auto* calls : {&memory, &stream}) {
    for (const std::string& c : *calls) detail += c + " | ";
    detail += "\n";
  }
  return detail;
}

}  // namespace transit::test
