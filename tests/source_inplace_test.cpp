// SPDX-License-Identifier: Apache-2.0
// A JSON reader from a Source reads an array or object whose whole text is in the chunk it
// holds in place, as a text in memory is read (SourceInput::buffered_value, then simdjson);
// anything else goes through RapidJSON a byte at a time. A Source that hands out one byte at
// a time never holds a whole container, so its read is the byte-at-a-time read alone: every
// read here, cut anywhere, must give its values and its errors (code, byte, line, column,
// path, message), and the counter says which path each value took.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "support/step_source.h"
#include "testing.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Error;
using transit::ReadOptions;
using transit::Value;
using transit::detail::testing::json_buffered_reads;

// What the tests that count values read in place say in a library built without simdjson,
// which reads every value from a Source through RapidJSON (the values are the same).
constexpr const char* kCountsSimdjson =
    "counts values simdjson reads in place; this library has no simdjson";

// Every value read and the error that ended them, if any, with all the error says.
struct Outcome {
  std::vector<Value> values;
  std::string error;
  std::size_t offset = 0, line = 0, column = 0;
  std::string path;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend std::ostream& operator<<(std::ostream& out, const Outcome& o) {
    for (const Value& v : o.values) out << transit::write(v, Encoding::json_verbose) << " ";
    return out << (o.error.empty() ? "end" : o.error) << " line " << o.line << " column "
               << o.column << " path " << o.path;
  }
};

// The values of `source` read through a Reader, and how many were read in place.
Outcome read_source(transit::Source& source, const ReadOptions& options, std::size_t* in_place = nullptr) {
  Outcome o;
  const std::size_t before = json_buffered_reads();
  try {
    transit::Reader reader(source, Encoding::json, options);
    while (auto v = reader.next()) o.values.push_back(std::move(*v));
  } catch (const Error& e) {
    o.error = e.what();
    o.offset = e.offset();
    o.line = e.line();
    o.column = e.column();
    o.path = e.path();
  }
  if (in_place) *in_place = json_buffered_reads() - before;
  return o;
}

Outcome read_in_steps(const std::string& text, std::size_t step, ReadOptions options,
                      std::size_t* in_place = nullptr) {
  transit::test::StepSource source(text, step);
  return read_source(source, options, in_place);
}

// The reference: one byte at a time, so no value is ever whole in the chunk.
Outcome bytewise(const std::string& text, const ReadOptions& options = {}) {
  std::size_t in_place = 0;
  Outcome o = read_in_steps(text, 1, options, &in_place);
  EXPECT_EQ(in_place, 0u);
  return o;
}

// Reads cut every 1 to 70 bytes, whole, and with chunks of 0, 1, 3, 7 and 64 bytes give the
// byte-at-a-time read's values and error.
void expect_as_bytewise(const std::string& text, ReadOptions options = {}) {
  const Outcome reference = bytewise(text, options);
  std::vector<std::size_t> steps;
  for (std::size_t s = 2; s <= 70; ++s) steps.push_back(s);
  steps.push_back(text.size() + 1);
  for (const std::size_t step : steps)
    EXPECT_EQ(read_in_steps(text, step, options), reference) << "step " << step << " text " << text;
  for (const std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{64}}) {
    ReadOptions o = options;
    o.chunk_size = chunk;
    EXPECT_EQ(read_in_steps(text, text.size() + 1, o), reference) << "chunk " << chunk << " text " << text;
  }
}

TEST(SourceInPlace, WholeValuesInTheChunkAreReadInPlace) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  const std::string text =
      "[1,2] {\"a\":[\"b\"]}\n[\"^ \",\"~:k\",\"v\",\"~:k2\",[\"~#set\",[1,\"^0\"]]] [] {}"
      "[\"~#'\",\"x\"][\"~:a]\\\"[b\\\\\",\"}{\"]";
  std::size_t in_place = 0;
  const Outcome whole = read_in_steps(text, text.size(), {}, &in_place);
  EXPECT_EQ(whole.values.size(), 7u);
  EXPECT_EQ(in_place, 7u);
  EXPECT_EQ(whole, bytewise(text));
  EXPECT_EQ(whole.values, transit::read_all(text));
  expect_as_bytewise(text);
}

// A Source that fails with Error(io) once it has handed out `fail_at` bytes.
class FailingSource final : public transit::Source {
 public:
  FailingSource(std::string data, std::size_t step, std::size_t fail_at)
      : data_(std::move(data)), step_(step), fail_at_(fail_at) {}
  std::size_t read(char* buffer, std::size_t size) override {
    if (pos_ >= fail_at_) throw Error(transit::Errc::io, {}, {}, "the source failed");
    const std::size_t n = std::min({size, step_, fail_at_ - pos_, data_.size() - pos_});
    data_.copy(buffer, n, pos_);
    pos_ += n;
    return n;
  }

 private:
  std::string data_;
  std::size_t step_, fail_at_, pos_ = 0;
};

// The read in `step`s, which reads `expected_in_place` values in place.
Outcome read_counting(const std::string& text, std::size_t step, const ReadOptions& options,
                      std::size_t expected_in_place) {
  std::size_t in_place = 0;
  Outcome o = read_in_steps(text, step, options, &in_place);
  EXPECT_EQ(in_place, expected_in_place) << "step " << step << " text " << text;
  return o;
}

TEST(SourceInPlace, ValueLongerThanTheChunk) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  std::string big = "[";
  for (int i = 0; i < 40; ++i) big += (i ? ",\"~:key" : "\"~:key") + std::to_string(i) + "\"";
  big += "]";
  const std::string text = "[1] " + big + " [2]";
  ReadOptions options;
  options.chunk_size = 64;
  // The Source fills each chunk: more are read ahead, and the long value is read in place.
  const Outcome o = read_counting(text, 1000, options, 3);
  EXPECT_EQ(o.values.size(), 3u);
  EXPECT_EQ(o, bytewise(text, options));
  // Reads that come short may have waited for their bytes: none is read ahead after one.
  EXPECT_EQ(read_counting(text, 63, options, 2), o);
  // Longer than the cap (here max_string_length, which bounds it): a byte at a time.
  options.max_string_length = 200;
  ASSERT_GT(big.size(), 200u);
  EXPECT_EQ(read_counting(text, 1000, options, 2), o);
  expect_as_bytewise(text, options);
}

TEST(SourceInPlace, ValueEndingExactlyAtTheChunkEdge) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  // Each value is 8 bytes, and the chunk 8: every one ends at a chunk's last byte.
  const std::string text = "[1,2,33][4,5,66]{\"a\":1}";
  ReadOptions options;
  options.chunk_size = 8;
  const Outcome o = read_counting(text, 8, options, 3);
  EXPECT_EQ(o.values.size(), 3u);
  EXPECT_EQ(o, bytewise(text, options));
  // One byte short of it: the closing bracket in the next chunk, read ahead.
  options.chunk_size = 7;
  EXPECT_EQ(read_counting(text, 7, options, 3), o);
  // And the Source handing out less than a chunk: nothing read ahead.
  EXPECT_EQ(read_counting(text, 6, options, 0), o);
}

// The read with values in place and without (RapidJSON a byte at a time, as before this
// path), with the same Source and the same chunks, give the same values and the same error,
// to the byte, line, column and path: where a too-large value fails depends on the chunks, so
// only reads with the same chunks can be compared so.
void expect_same_in_place_or_not(const std::string& text, const ReadOptions& options,
                                 std::size_t step) {
  std::size_t in_place = 0;
  const Outcome with = read_in_steps(text, step, options, &in_place);
  transit::detail::testing::set_json_in_place(false);
  const Outcome without = read_in_steps(text, step, options);
  transit::detail::testing::set_json_in_place(true);
  EXPECT_EQ(with, without) << "step " << step << " chunk " << options.chunk_size << " text " << text;
}

TEST(SourceInPlace, SameWithAndWithoutInPlace) {
  std::string long_map = "[\"^ \"";
  for (int i = 0; i < 30; ++i) long_map += ",\"~:k" + std::to_string(i) + "\",[" + std::to_string(i) + ",\"s\\\"]\"]";
  long_map += "]";
  const std::vector<std::string> texts = {
      "[1,2] {\"a\":[\"b\"]}\n[\"^ \",\"~:k\",\"v\",\"~:k2\",[\"~#set\",[1,\"^0\"]]] [] {} 7 \"x\"",
      "[1,2,345]      [1,2]     [\"abcdefgh\"]    \n\n   [3]",
      long_map + " " + long_map + "\n[1]",
      "[1]  [\"~:a\",\n\"~:b\",  \"^0\", [1,2,[3,[4,[5]]]]] [1,]",
      "[\"~:abc\",\"~:def\",\"~:ghi\",\"^9\"] [1]",
      "{\"~:abc\":{\"~:def\":[1,2,3]}",
      "[\"a\\\"]\\\\\",\"\xff\"]",
      "[1e400] [0e400] [2]",
      "[[[[[[1]]]]]] [1,2,3,4,5,6,7]",
  };
  std::vector<ReadOptions> variants(6);
  variants[1].max_value_bytes = 9;
  variants[2].max_value_bytes = 30;
  variants[3].max_string_length = 8;
  variants[4].max_depth = 3;
  variants[5].max_collection_length = 3;
  for (const std::string& text : texts)
    for (ReadOptions options : variants)
      for (const std::size_t chunk : {1, 2, 3, 5, 8, 13, 16, 64, 4096}) {
        options.chunk_size = chunk;
        for (const std::size_t step : {chunk, chunk + 1, chunk > 1 ? chunk - 1 : 1, std::size_t{1}})
          expect_same_in_place_or_not(text, options, step);
      }
}

TEST(SourceInPlace, ASourceFailingWhileReadAhead) {
  std::string text = "[1] [\"~:a\",\"~:b\",\"~:c\",[\"~:d\",{\"~:e\":2}],\"^0\"] [3]";
  for (const std::size_t chunk : {4, 7, 16}) {
    for (std::size_t fail_at = 1; fail_at < text.size(); ++fail_at) {
      ReadOptions options;
      options.chunk_size = chunk;
      FailingSource with_source(text, chunk, fail_at);
      const Outcome with = read_source(with_source, options);
      transit::detail::testing::set_json_in_place(false);
      FailingSource without_source(text, chunk, fail_at);
      const Outcome without = read_source(without_source, options);
      transit::detail::testing::set_json_in_place(true);
      EXPECT_EQ(with, without) << "chunk " << chunk << " fail at " << fail_at;
    }
  }
}

TEST(SourceInPlace, ScalarsAtChunkEdges) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  // Top-level scalars are never read in place; a number cut by a chunk is one number.
  const std::string text = "1 2 12 345 -6.5e1 \"a\" \"b\\\"]\" true null 12345678901234567890123 [7]";
  std::size_t in_place = 0;
  const Outcome whole = read_in_steps(text, text.size(), {}, &in_place);
  EXPECT_EQ(in_place, 1u);  // [7]
  ASSERT_EQ(whole.values.size(), 11u);
  EXPECT_EQ(whole.values, transit::read_all(text));
  EXPECT_EQ(whole.values[2], Value(12));
  expect_as_bytewise(text);
}

TEST(SourceInPlace, ErrorsInAValueWholeInTheChunk) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  // Each refused by simdjson or by the decoder after simdjson: the byte-at-a-time read then
  // places the error, after values read in place.
  const std::vector<std::string> bad = {
      "[1,]", "[1 2]", "{\"a\"}", "[\"^ \",\"^9\",1]", "[\"^0\"]", "[1e400]", "[0e400]",
      "[\"\\u00\"]", "[\"\xff\"]", "[\"a\x1b\"]", "[\"~#set\",[1],2]", "[1}", "{\"a\":1]",
      "[\"~zNOPE\"]", "[\"~i1x\"]", "[\"^ \",1]", "[[[[[[[[1]]]]]]]]", "[\"abcdefghij\"]",
      "[1,2,3,4,5,6]"};
  ReadOptions options;
  options.max_depth = 6;
  options.max_string_length = 8;
  options.max_collection_length = 5;
  for (const std::string& b : bad) {
    const std::string text = "[1]\n [\"~:a\"] " + b + " [2]";
    std::size_t in_place = 0;
    const Outcome o = read_in_steps(text, text.size(), options, &in_place);
    EXPECT_EQ(in_place, 2u) << b;
    EXPECT_EQ(o.values.size(), 2u) << b;
    EXPECT_FALSE(o.error.empty()) << b;
    EXPECT_EQ(o.line, 2u) << b;
    EXPECT_EQ(o, bytewise(text, options)) << b;
    expect_as_bytewise(text, options);
  }
}

TEST(SourceInPlace, ErrorsInAValueLongerThanTheChunk) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  ReadOptions options;
  options.chunk_size = 16;
  for (const std::string b : {"[\"~:abc\",\"~:def\",\"~:ghi\",1,]", "[\"~:abc\",\"~:def\",\"^9\"]",
                              "{\"~:abc\":{\"~:def\":[1,2,3]}", "[\"~:abcdefghijklmnopqrstuvwxyz\",\"\xff\"]"}) {
    const std::string text = "[1] " + b;
    std::size_t in_place = 0;
    const Outcome o = read_in_steps(text, text.size(), options, &in_place);
    EXPECT_EQ(in_place, 1u) << b;
    EXPECT_FALSE(o.error.empty()) << b;
    EXPECT_EQ(o, bytewise(text, options)) << b;
    expect_as_bytewise(text, options);
  }
}

TEST(SourceInPlace, MaxValueBytes) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  // A value of exactly the limit is read in place; one byte more is too large, placed as
  // the byte-at-a-time read places it.
  ReadOptions options;
  options.max_value_bytes = 9;
  std::size_t in_place = 0;
  const std::string fits = "[1,2,345] [1,2,3456]";
  const Outcome o = read_in_steps(fits, fits.size(), options, &in_place);
  EXPECT_EQ(in_place, 1u);
  EXPECT_EQ(o.values.size(), 1u);
  EXPECT_NE(o.error.find("too_large"), std::string::npos) << o.error;
  EXPECT_EQ(o, bytewise(fits, options));
  expect_as_bytewise(fits, options);
  // Whitespace between values crossing a chunk edge past the last value's limit was an
  // Error(too_large) with no byte, line or path: the limit is a value's, not the stream's.
  // (Where a too-large value fails depends on the chunks, as before: a chunk edge past the
  // limit fails at the token being read, else the first token past the limit fails. The
  // string here is that token either way, its raw bytes counted: read whole, it was let
  // through by its 8 bytes unescaped and the ']' after it failed, at byte 36 in $[1].)
  const std::string spaced = "[1,2,345]      [1,2]     [\"abcdefgh\"]";
  const Outcome s = bytewise(spaced, options);
  EXPECT_EQ(s.values.size(), 2u) << s;
  EXPECT_EQ(s.offset, 26u) << s;
  EXPECT_EQ(s.path, "$[0]") << s;
  const Outcome whole = read_in_steps(spaced, spaced.size(), options, &in_place);
  EXPECT_EQ(whole.values, s.values);
  EXPECT_EQ(in_place, 2u);
  EXPECT_EQ(whole, s);
}

TEST(SourceInPlace, EscapesAndBracketsInStringsAtEveryPlace) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  // Backslashes, quotes and brackets inside strings at every place of a 16-byte block.
  for (std::size_t k = 0; k < 40; ++k) {
    const std::string pad(k, 'x');
    const std::string text = "[\"" + pad + "\\\\\",\"]\\\"[\"]{\"" + pad + "}\":\"{\\\\\\\"\"}" +
                             "[\"" + pad + "]]]\",[\"" + pad + "\"]]";
    std::size_t in_place = 0;
    const Outcome o = read_in_steps(text, text.size(), {}, &in_place);
    EXPECT_TRUE(o.error.empty()) << o.error << " " << text;
    EXPECT_EQ(in_place, 3u) << text;
    EXPECT_EQ(o.values, transit::read_all(text)) << text;
    EXPECT_EQ(o, bytewise(text));
  }
}

TEST(SourceInPlace, TypedReadsBetweenValuesReadInPlace) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << kCountsSimdjson;
  // Typed reads take RapidJSON's path, over bytes a value before them may have read ahead.
  const std::string text = "[1,2,3] [4,5,6,7,8,9,10,11,12] [13] [14,15,16,17,18,19,20] [21]";
  const auto read = [&](bool in_place) {
    transit::detail::testing::set_json_in_place(in_place);
    transit::test::StepSource source(text, 8);
    ReadOptions options;
    options.chunk_size = 8;
    transit::Reader reader(source, Encoding::json, options);
    std::vector<std::vector<std::int64_t>> out;
    for (int i = 0; i < 5; ++i) {
      if (i % 2 == 0) {
        const std::optional<Value> v = reader.next();
        out.emplace_back();
        for (const Value& item : v->items()) out.back().push_back(item.as_int());
      } else {
        out.push_back(*reader.next<std::vector<std::int64_t>>());
      }
    }
    EXPECT_FALSE(reader.next().has_value());
    transit::detail::testing::set_json_in_place(true);
    return out;
  };
  const std::size_t before = json_buffered_reads();
  const auto with = read(true);
  EXPECT_EQ(json_buffered_reads() - before, 3u);
  EXPECT_EQ(with, read(false));
  EXPECT_EQ(with[4], std::vector<std::int64_t>{21});
}

TEST(SourceInPlace, ChunkSizeNearSizeMax) {
  // The chunk has room for simdjson's padding after it: a chunk size that would wrap around
  // when the padding is added is refused as any impossible allocation, not taken for a small
  // buffer the Source then writes past (AddressSanitizer's builds catch that).
  transit::test::StepSource source("[1,2,3]", 100);
  ReadOptions options;
  options.chunk_size = SIZE_MAX - 8;
  EXPECT_THROW(transit::Reader(source, Encoding::json, options), std::length_error);
}

TEST(SourceInPlace, ASourceFailingMidValue) {
  const std::string text = "[1] {\"~:a\":[\"b\",{\"~:c\":2}]} [3]";
  for (std::size_t fail_at = 1; fail_at < text.size(); ++fail_at) {
    FailingSource one(text, 1, fail_at);
    const Outcome reference = read_source(one, {});
    for (const std::size_t step : {std::size_t{4}, std::size_t{9}, text.size()}) {
      FailingSource source(text, step, fail_at);
      EXPECT_EQ(read_source(source, {}), reference) << "fail at " << fail_at << " step " << step;
    }
  }
}

}  // namespace
