// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: typed round trips of generated values. The input is not Transit: it is the
// choices tests/support/typed_gen.h makes to generate up to kMostValues typed values (their
// types from a catalogue of records, std containers, optional, variant, tuple, time points,
// every integer width and the library's types). Each must read back equal with read<T>, from
// Values with from_value<T>, and as equal Values in all three encodings; then all of them,
// through one Writer and one Reader per encoding, must read back in order (the write and read
// caches live across the stream's values), from memory and from a Source cut anywhere. A mismatch
// aborts, so libFuzzer keeps the input. tests/typed_roundtrip_test.cpp runs the same checks on
// choices from a PRNG.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "support/typed_gen.h"

namespace {

namespace gen = transit::test::typed_gen;

// Values per input: enough for cache codes to cross values, few enough to stay fast.
constexpr std::size_t kMostValues = 8;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "typed_roundtrip_fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gen::Picker p(std::span<const std::uint8_t>(data, size));
  std::vector<gen::Sample> samples;
  do {
    samples.push_back(gen::make_sample(p));
    if (std::string f = gen::check_alone(samples.back()); !f.empty()) fail(f);
  } while (!p.exhausted() && samples.size() < kMostValues);
  // Bytes a read of the stream's Source: the choice after the values (1 once they ran out).
  const std::size_t step = 1 + p.below(16);
  if (samples.size() > 1)
    for (transit::Encoding e : gen::kEncodings)
      if (std::string f = gen::check_stream(samples, e, step); !f.empty()) fail(f);
  return 0;
}
