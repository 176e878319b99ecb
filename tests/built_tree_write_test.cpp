// SPDX-License-Identifier: Apache-2.0
// The write of a large array of records built by Value's constructors, whose walk asks for the
// records' nodes ahead (ValueAccess::built_records, prefetch_records_ahead): the bytes are those
// of the same value read back into an arena, which the walk never prefetches, in every
// encoding, through transit::write and through a Writer, and whatever the records hold.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/value_internal.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Entry;
using transit::Kind;
using transit::Value;
using transit::ValueAccess;

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

TEST(BuiltTreeWrite, BuiltRecordsAreToldFromEverythingElse) {
  const Value built = records(20);
  EXPECT_TRUE(ValueAccess::built_records(built));
  const Value read_back = transit::read(transit::write(built, Encoding::msgpack), Encoding::msgpack);
  EXPECT_FALSE(ValueAccess::built_records(read_back));  // in an arena
  EXPECT_FALSE(ValueAccess::built_records(Value::array({})));
  EXPECT_FALSE(ValueAccess::built_records(Value::array({Value::array({1}), record(1)})));
  EXPECT_FALSE(ValueAccess::built_records(Value::array({1, 2, 3})));
}

TEST(BuiltTreeWrite, DetachedRecordsAreBuilt) {
  // detach() copies an arena's parts to heap nodes of their own, as the constructors build them.
  const Value read_back = transit::read(transit::write(records(20), Encoding::json), Encoding::json);
  EXPECT_TRUE(ValueAccess::built_records(read_back.detach()));
}

TEST(BuiltTreeWrite, BytesAreThoseOfTheSameValueReadBack) {
  // Sizes around the prefetch's reach (4 items ahead) and the tracked container's threshold.
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
  // The walk decides by the first item; whatever follows it is asked for as it is.
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

TEST(BuiltTreeWrite, PrefetchFollowsEveryKindToAnyDepth) {
  // prefetch_tree only reads what a node holds; at any depth it must stop at inline values and
  // nodes that hold no items (text, UUID, tagged, object), and follow at most the first
  // kPrefetchFanOut items of each container.
  std::vector<Value> wide;
  for (int i = 0; i < 50; ++i) wide.push_back(record(i));
  const Value parts[] = {Value(),
                         Value(1),
                         Value("short"),
                         Value(std::string(300, 'x')),
                         Value::uuid({1, 2}),
                         Value::tagged("point", Value::array({1, 2})),
                         Value::array({}),
                         Value::map({}),
                         Value::array(wide),
                         Value::map({{Value::array({1, 2}), Value::array(wide)}}),
                         records(3)};
  // What it may not do is change anything or read past a node: the writes before and after
  // agree, and AddressSanitizer (in CI) checks the loads on the way.
  for (const Value& v : parts) {
    const std::string before = transit::write(v, Encoding::msgpack);
    for (unsigned depth = 0; depth < 6; ++depth) ValueAccess::prefetch_tree(v, depth);
    EXPECT_EQ(transit::write(v, Encoding::msgpack), before);
  }
  const Value array = records(10);
  const std::string before = transit::write(array, Encoding::json);
  const auto items = ValueAccess::items(array);
  for (std::size_t i = 0; i < items.size(); ++i) ValueAccess::prefetch_records_ahead(items, i);
  EXPECT_EQ(transit::write(array, Encoding::json), before);
}

}  // namespace
