// SPDX-License-Identifier: Apache-2.0
// The write of a large array of records built by Value's constructors (each node on the heap,
// where malloc put it) and of the same value read back into an arena (in document order): the
// same bytes in every encoding, through transit::write and through a Writer (which tracks the
// first large container's progress to size its string), whatever the records hold. A write
// that treats built trees apart (round forty tried asking for their nodes ahead:
// docs/performance-log.md, "Timing the floors in pairs, round forty") must keep these.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

// A record with a part of every kind a node holds: long text, bytes, a nested map and array, a
// set, a list, a tagged value, a UUID, a big integer, a link-free composite key, and values
// kept inline.
Value record(std::int64_t i) {
  std::vector<Value> ids;
  for (std::int64_t k = 0; k <= i % 9; ++k) ids.push_back(i * 100 + k);
  return Value::map({
      {Value::keyword("id"), i},
      {Value::keyword("ids"), Value::array(std::move(ids))},
      {Value::keyword("title"), Value("a title long enough for a heap node #" + std::to_string(i))},
      {Value::keyword("nested"),
       Value::map({{Value::keyword("en"), Value::map({{Value::keyword("label"), Value("label " + std::to_string(i))}})},
                   {Value::keyword("fr"), Value("une étiquette qui ne tient pas dans la poignée")}})},
      {Value::keyword("tags"), Value::set({Value::keyword("a"), Value::keyword("b" + std::to_string(i % 3))})},
      {Value::keyword("list"), Value::list({1, 2, Value::symbol("a-symbol-of-some-length")})},
      {Value::keyword("point"), Value::tagged("point", Value::array({i, -i}))},
      {Value::keyword("uuid"), Value::uuid({0x0123456789abcdefULL, static_cast<std::uint64_t>(i)})},
      {Value::keyword("big"), Value::big_integer("123456789012345678901234567890")},
      {Value::keyword("bytes"), Value::bytes(std::string(40, static_cast<char>('a' + i % 26)))},
      {Value::array({1, 2}), Value("a composite key makes this map a cmap")},
      {Value::keyword("active"), i % 2 == 0},
  });
}

Value records(std::size_t n) {
  std::vector<Value> items;
  for (std::size_t i = 0; i < n; ++i) items.push_back(record(static_cast<std::int64_t>(i)));
  return Value::array(std::move(items));
}

std::string write_with_writer(const Value& v, Encoding encoding) {
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, encoding);
  writer.write(v);
  writer.flush();
  return out;
}

TEST(BuiltTreeWrite, BytesAreThoseOfTheSameValueReadBack) {
  // Sizes around the tracked container's threshold (16 items) and well past it.
  for (const std::size_t n : {16u, 17u, 19u, 20u, 21u, 64u, 1000u}) {
    const Value built = records(n);
    for (const Encoding encoding : kAll) {
      const std::string text = transit::write(built, encoding);
      const Value read_back = transit::read(text, encoding);
      ASSERT_EQ(read_back, built) << n;
      EXPECT_EQ(transit::write(read_back, encoding), text) << n;
      EXPECT_EQ(write_with_writer(built, encoding), text) << n;
      EXPECT_EQ(write_with_writer(read_back, encoding), text) << n;
    }
  }
}

TEST(BuiltTreeWrite, RecordsOfMixedPartsAndSequencesOfRecords) {
  // Records whose first item is a map and the rest anything; lists and sets of records; a
  // large array below the container the Writer tracks.
  std::vector<Value> mixed{record(0)};
  for (std::int64_t i = 1; i < 40; ++i) {
    switch (i % 6) {
      case 0: mixed.push_back(i); break;
      case 1: mixed.push_back(Value("a string long enough for a node " + std::to_string(i))); break;
      case 2: mixed.push_back(Value::array({record(i), Value::array({})})); break;
      case 3: mixed.push_back(Value::map({})); break;
      case 4: mixed.push_back(Value::tagged("point", Value::array({i, i}))); break;
      default: mixed.push_back(record(i)); break;
    }
  }
  std::vector<Value> items;
  for (std::int64_t i = 0; i < 30; ++i) items.push_back(record(i));
  const Value values[] = {
      Value::array(mixed),
      Value::list(items),
      Value::set(items),
      Value::map({{Value::keyword("records"), Value::array(items)}}),  // tracked below the top
  };
  for (const Value& v : values)
    for (const Encoding encoding : kAll) {
      const std::string text = transit::write(v, encoding);
      const Value read_back = transit::read(text, encoding);
      ASSERT_EQ(read_back, v);
      EXPECT_EQ(transit::write(read_back, encoding), text);
    }
}

}  // namespace
