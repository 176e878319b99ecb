// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: read, write, read again. The first byte picks the encoding the rest is read
// in; every value read is written in all three encodings and must read back equal. A mismatch
// aborts, so libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "transit/transit.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "roundtrip_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr transit::Encoding kEncodings[] = {transit::Encoding::json,
                                              transit::Encoding::json_verbose,
                                              transit::Encoding::msgpack};
  const transit::Encoding from = kEncodings[data[0] % 3];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  transit::ReadOptions options;
  options.max_depth = 64;
  // What is written may nest deeper than what was read: a map keyed by maps is one level in
  // lenient MessagePack but a cmap, ["~#cmap", [...]], in every writer's output; a tag and
  // its rep take two levels per level of value. So the text written reads back within twice
  // the depth, plus one for the top-level quote.
  transit::ReadOptions written_options = options;
  written_options.max_depth = 2 * options.max_depth + 1;
  std::vector<transit::Value> values;
  try {
    values = transit::read_all(input, from, options);
  } catch (const transit::Error&) {
    return 0;  // read_fuzz checks errors; only what reads is written here
  }
  for (const transit::Value& v : values) {
    for (transit::Encoding to : kEncodings) {
      std::string text;
      try {
        text = transit::write(v, to);
      } catch (const transit::Error& e) {
        fail("a value read could not be written", std::string(e.what()) + " for " + to_edn(v));
      }
      transit::Value back;
      try {
        back = transit::read(text, to, written_options);
      } catch (const transit::Error& e) {
        fail("written text does not read back", std::string(e.what()) + " for " + to_edn(v));
      }
      if (back != v) fail("round trip changed the value", to_edn(v) + " -> " + to_edn(back));
    }
  }
  return 0;
}
