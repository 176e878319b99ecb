// SPDX-License-Identifier: Apache-2.0
// Typed round trips of generated values (tests/support/typed_gen.h): what write<T> writes,
// read<T> gives back equal, in every encoding, alone and as one of many values through one
// Writer and one Reader (whose caches live across the stream's values); the same bytes read as
// Values bind to T too, and the three encodings read as equal Values. The fuzzer
// tests/fuzz/typed_roundtrip_fuzz.cpp runs the same checks on choices libFuzzer makes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/typed_gen.h"

namespace {

namespace gen = transit::test::typed_gen;

// Every type of the catalogue, kSamplesPerType values each, from one seed per type.
constexpr std::size_t kSamplesPerType = 30;

TEST(TypedRoundTrip, EveryTypeOfTheCatalogueAlone) {
  std::size_t checked = 0;
  for (std::size_t type = 0; type < gen::kCatalogueSize; ++type) {
    gen::Picker p(20261205 + type);
    for (std::size_t i = 0; i < kSamplesPerType; ++i) {
      const gen::Sample s = gen::make_sample(type, p);
      const std::string failure = gen::check_alone(s);
      ASSERT_EQ(failure, "") << "type " << type << ", sample " << i << ": "
                             << transit::to_edn(
                                    transit::read(s.write(transit::Encoding::json, false)));
      ++checked;
    }
  }
  EXPECT_EQ(checked, gen::kCatalogueSize * kSamplesPerType);
}

// Streams of up to 24 values of any type: keys, keywords and strings repeat across values
// (the generator draws them from a few common ones), so a cache code of one value that leaked
// into the next, on either side, reads as the wrong text or fails. Each stream is read from
// memory, taped 3 tokens at a time, and from a Source handing out 1 to 16 bytes a read.
TEST(TypedRoundTrip, ManyValuesThroughOneWriterAndOneReader) {
  gen::Picker p(27);
  for (int stream = 0; stream < 80; ++stream) {
    std::vector<gen::Sample> samples;
    for (std::size_t n = 2 + p.below(23); n > 0; --n) samples.push_back(gen::make_sample(p));
    for (transit::Encoding e : gen::kEncodings)
      ASSERT_EQ(gen::check_stream(samples, e, 1 + stream % 16), "") << "stream " << stream;
  }
}

// The same type many times in one stream: the records' keyword keys and the keywords the
// values share come back as cache codes from the second value on.
TEST(TypedRoundTrip, OneTypeManyTimesInOneStream) {
  gen::Picker p(2027);
  for (std::size_t type = 0; type < gen::kCatalogueSize; ++type) {
    std::vector<gen::Sample> samples;
    for (int n = 0; n < 6; ++n) samples.push_back(gen::make_sample(type, p));
    for (transit::Encoding e : gen::kEncodings)
      ASSERT_EQ(gen::check_stream(samples, e), "") << "type " << type;
  }
}

// The generator is driven by bytes as well as by a PRNG (the fuzzer's way): bytes that run out
// give zeros, and every generation still ends with a value that round-trips.
TEST(TypedRoundTrip, BytesDriveTheGeneratorAndRunOut) {
  const std::uint8_t bytes[] = {5, 200, 17, 3, 99, 255, 0, 42};
  for (std::size_t len = 0; len <= sizeof bytes; ++len) {
    gen::Picker p(std::span<const std::uint8_t>(bytes, len));
    for (int n = 0; n < 3; ++n) {
      const gen::Sample s = gen::make_sample(p);
      EXPECT_EQ(gen::check_alone(s), "") << "length " << len;
    }
    EXPECT_TRUE(p.exhausted());
  }
}

}  // namespace
