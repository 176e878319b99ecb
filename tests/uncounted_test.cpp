// SPDX-License-Identifier: Apache-2.0
// Containers whose count nobody announced (RapidJSON's events: every read from a Source, and
// in-memory text simdjson leaves to RapidJSON) take the decoder's uncounted path. Whatever
// that path does with their items (the value stack today; round twenty-one measured slots of
// a guessed size, grown in place or spilled to the stack: docs/performance-log.md), a read must
// give the values and the errors (code, byte, path, message) of a read with counts
// (simdjson's walk), cut anywhere by its Source, and a tree of scalars no bigger than the
// counted read's, to the byte.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend.h"
#include "support/step_source.h"
#include "transit/transit.h"
#include "model/value_internal.h"

namespace {

using transit::Encoding;
using transit::Error;
using transit::ReadOptions;
using transit::Value;

// Every value of `text` and the error that ended it, if any.
struct Outcome {
  std::vector<Value> values;
  std::string error;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend std::ostream& operator<<(std::ostream& out, const Outcome& o) {
    for (const Value& v : o.values) out << transit::write(v, Encoding::json_verbose) << " ";
    return out << (o.error.empty() ? "end" : o.error);
  }
};

// The values of the reader `make()` builds, and the error that ended them, if any.
template <class MakeReader>
Outcome read_all(MakeReader make) {
  Outcome o;
  try {
    auto reader = make();
    while (auto v = reader->next()) o.values.push_back(std::move(*v));
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

// With counts: simdjson's walk (RapidJSON's when the library is built without simdjson).
Outcome counted(std::string_view text, const ReadOptions& options) {
  return read_all([&] { return transit::detail::make_json_reader(text, options); });
}

// With no counts: RapidJSON in memory.
Outcome uncounted(std::string_view text, const ReadOptions& options) {
  return read_all([&] { return transit::detail::make_json_reader(text, options, false); });
}

// With no counts from a Source handing out `step` bytes at a time.
Outcome from_source(const std::string& text, std::size_t step, const ReadOptions& options) {
  transit::test::StepSource source(text, step);
  return read_all([&] { return std::make_unique<transit::Reader>(source, Encoding::json, options); });
}

// All three reads agree, the Source cut at every `step` (1: at every byte).
void expect_same(const std::string& text, const ReadOptions& options = {}, std::size_t step = 1) {
  const Outcome reference = counted(text, options);
  EXPECT_EQ(uncounted(text, options), reference) << "text: " << text.substr(0, 300);
  EXPECT_EQ(from_source(text, step, options), reference) << "text: " << text.substr(0, 300);
}

std::string ints(int n, int from = 0) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(from + i);
  return s;
}

// A map array of `n` keyword keys (inline: 13 bytes at most) and integer values.
std::string map_array(int n) {
  std::string s = "[\"^ \"";
  for (int i = 0; i < n; ++i) s += ",\"~:k" + std::to_string(i) + "\"," + std::to_string(i);
  return s + "]";
}

// The bytes a document's nodes took in its arena (ValueAccess::arena_used_bytes).
std::size_t used(const Value& v) { return transit::ValueAccess::arena_used_bytes(v); }

Value read_source(const std::string& text, std::size_t step = 64 * 1024) {
  transit::test::StepSource source(text, step);
  transit::Reader reader(source, Encoding::json);
  auto v = reader.next();
  EXPECT_TRUE(v.has_value());
  return v ? std::move(*v) : Value();
}

// Arrays and maps of scalars and inline keys, short and long (past the sizes a guess would
// start at and double to, and past an arena block): the tree a read with counts builds, to
// the byte.
TEST(Uncounted, ContainersOfScalarsTakeTheBytesOfACountedRead) {
  for (const int n : {1, 3, 4, 5, 8, 9, 100, 1000, 5000}) {
    SCOPED_TRACE(n);
    for (const std::string& text : {"[" + ints(n) + "]", map_array(n), "[" + map_array(n) + "]"}) {
      expect_same(text, {}, 4096);
      const Value memory = transit::read(text, Encoding::json);
      const Value source = read_source(text);
      ASSERT_EQ(source, memory);
      EXPECT_EQ(used(source), used(memory)) << text.substr(0, 100);
    }
  }
  // JSON objects (JSON-Verbose) too.
  std::string object = "{";
  for (int i = 0; i < 50; ++i) object += std::string(i ? "," : "") + "\"~:k" + std::to_string(i) + "\":" + std::to_string(i);
  object += "}";
  expect_same(object, {}, 4096);
  EXPECT_EQ(used(read_source(object)), used(transit::read(object, Encoding::json)));
}

// Containers with a child or a long string allocated between their items (which a node
// reserved before them could not grow over): the counted read's values and bytes.
TEST(Uncounted, ContainersWithAllocationsBetweenTheirItems) {
  const std::string long_text = "a string too long to be inline";
  for (const int n : {4, 5, 6, 9, 17, 100}) {
    SCOPED_TRACE(n);
    std::string arrays = "[", strings = "[", maps = "[\"^ \"", mixed = "[";
    for (int i = 0; i < n; ++i) {
      arrays += std::string(i ? "," : "") + "[" + ints(i % 3 + 1, i) + "]";
      strings += std::string(i ? "," : "") + "\"" + long_text + std::to_string(i) + "\"";
      maps += ",\"~:k" + std::to_string(i) + "\",[" + std::to_string(i) + "]";
      // Scalars, and now and then a child.
      mixed += std::string(i ? "," : "") + (i % 5 == 4 ? "[\"" + long_text + "\"]" : std::to_string(i));
    }
    for (const std::string& text : {arrays + "]", strings + "]", maps + "]", mixed + "]"}) {
      expect_same(text);
      const Value memory = transit::read(text, Encoding::json);
      const Value source = read_source(text);
      ASSERT_EQ(source, memory);
      EXPECT_EQ(used(source), used(memory)) << text.substr(0, 100);
    }
  }
}

// A short container after a long one at the same depth (a guess by the last length would be
// too big), with and without a long string after it, and a stream of values of every shape.
TEST(Uncounted, AShortContainerAfterALongOne) {
  const std::string text = "[[" + ints(60) + "],[1,2,3],[" + ints(60) + "],[4]]";
  expect_same(text);
  const Value memory = transit::read(text, Encoding::json);
  const Value source = read_source(text);
  ASSERT_EQ(source, memory);
  EXPECT_EQ(used(source), used(memory));
  // The same for maps.
  const std::string maps = "[" + map_array(40) + "," + map_array(2) + ",[" + ints(30) + "]," + map_array(3) + "]";
  expect_same(maps);
  EXPECT_EQ(used(read_source(maps)), used(transit::read(maps, Encoding::json)));
  // A long string after the short one.
  const std::string kept = "[[" + ints(60) + "],[1,\"a string too long to be inline\"],[2]]";
  expect_same(kept);
  // One value of a stream after another, whatever their shape.
  expect_same("[" + ints(50) + "] [1] " + map_array(30) + " {\"~:a\":1} [[1,2,3]] [[\"^ \"]] []");
}

// The forms decided by a container's first item, in uncounted containers and around them: map
// arrays (`"^ "`), tagged values (`["~#tag", rep]`, `{"~#tag": rep}`), sets, lists, cmaps,
// cache codes, duplicate keys, empty containers, quotes.
TEST(Uncounted, TransitFormsInsideUncountedContainers) {
  const std::vector<std::string> texts = {
      R"([["^ ","~:a",1,"~:b",2,"^0",3,"~:c",4,"~:d",5,"~:e",6],["^ ","^0",7]])",
      R"(["~#set",[1,2,3,4,5,6,7,8,9,10]])",
      R"([["~#set",[1,2,2,3,4,5,6,7,8,9]],["~#list",[1,2,3,4,5,6,7,8,9,10]],["~#list",[]]])",
      R"(["~#cmap",[["^ ","~:a",1],2,[1,2],3,[1,2,3,4,5,6],4,"x",5]])",
      R"(["~#'",[1,2,3,4,5,6]])",
      R"([["^ ","~:kw-one",["~#set",["~:kw-one","^0","~:kw-two","^1"]],"^1",["^ ","^0","^1"]]])",
      R"([["~#point",[1,2,3,4,5]],["~#point",[1,2]],["~#unknown-tag",["^ ","~:a",1]]])",
      R"([["^ "],["^ ","~:a",[]],[[]],[{}],["~#set",[]]])",
      R"({"~#set":[1,2,3,4,5,6,7,8,9]})",
      R"([{"~:a":1,"~:b":2,"~:a":3,"~:c":4,"~:d":5,"~:e":6}])",
      R"([{"~#list":[1,2,3,4,5]},{"~:a":{"~:b":{"~:c":[1,2,3,4,5,6,7,8]}}}])",
      R"(["~#m",1234567890])",
      R"([["~#u",[1,2]],"~u5a2cbea3-e8c6-428b-b525-21239370dd55",["~#m",12]])",
      R"([["^ ","~:key-long-enough",1],["^ ","^0",2,"^0",3,"~:another-long-key",4,"^1",5]])",
  };
  for (const std::string& text : texts) expect_same(text);
}

// Errors keep their code, byte, path and message: odd map arrays, a tag not first, second
// reps, a cache code with no entry, a bad `~i`, in short and long containers.
TEST(Uncounted, ErrorsAreTheCountedReadsErrors) {
  const std::vector<std::string> texts = {
      R"(["^ ","~:a",1,"~:b"])",
      R"([["^ ","~:a",1,"~:b",2,"~:c",3,"~:d",4,"~:e"]])",
      R"([["^ ","~:a",[1],"~:b",2,"~:c",3,"~:d",4,"~:e",[5],"~:f"]])",
      R"([1,2,3,4,5,"~#tag",6])",
      R"([1,2,3,4,5,6,7,8,9,"^9"])",
      R"([["~#set",[1],[2]]])",
      R"([["~#cmap",[1,2,3]]])",
      R"([1,2,3,4,5,"~i12x"])",
      R"([["^ ","~:a",1,"~:b",2,"~:c",3,"~:d",4,"~:e",5,"~:f",{"~#set":1,"~:g":2}]])",
  };
  for (const std::string& text : texts) {
    expect_same(text);
    EXPECT_FALSE(counted(text, {}).error.empty()) << text;
  }
}

// What only a container's first item may be (`"^ "`, a tag, a cache code naming a tag), as a
// later item of an uncounted container: an uncounted frame stays pending while its items go
// onto the stack (Decoder::uncounted_begin), so these ask whether it holds any item yet. The
// counted read's values and errors, and past kSlotsFrom items (where an array moves to slots
// of its own and a map array's limits are checked again) the same.
TEST(Uncounted, FirstItemFormsLaterInAContainer) {
  const std::vector<std::string> texts = {
      R"(["a","^ "])",
      R"([1,"^ ",2])",
      R"([["^ ","~:a",1],[2,"^ "]])",
      R"(["^ ","~:a","^ "])",
      R"({"~:a":1,"~#set":[1]})",
      R"([{"~:a":1,"~#set":[1]}])",
      R"([1,"~#set",[1]])",
      R"([["~#set",[1]],[1,"^0",[2]]])",
      R"([["~#set",[1]],{"~:a":1,"^0":[2]}])",
      R"([["~#set",[1]],["^0",[2]],{"^0":[3]}])",
      R"([[],"^ ",{}])",
      R"([{},["^ "],["^ ","^ ",1]])",
  };
  for (const std::string& text : texts) expect_same(text);
  expect_same("[" + ints(70000) + "]", {}, 1 << 16);
  expect_same("[" + map_array(40000) + "," + map_array(3) + "]", {}, 1 << 16);
  expect_same("[[" + ints(70000) + "],\"^ \"]", {}, 1 << 16);
}

// Errors' lines and columns from a Source that dropped chunks holding no newline, one, or
// several (SourceInput counts them as it drops each chunk): the in-memory read's.
TEST(Uncounted, ErrorLinesAcrossDroppedChunks) {
  const std::vector<std::string> texts = {
      "[1,\n2,\n\n3,\n[4,\n\n\n5,]]",
      "\n\n\n\n[\"^ \",\n\"~:a\",1,\n\n\"~:b\"\n]",
      "[\"abc\",\n\"~#set\",\n1]",
      "[1,2,3]\n\n[4,\n5,\n\"^9\"]",
      "\n  [\"abc\\ud800\\u0041\"]",
  };
  for (const std::string& text : texts)
    for (const std::size_t step : {1u, 2u, 3u, 5u, 8u, 64u}) {
      SCOPED_TRACE(step);
      expect_same(text, {}, step);
      EXPECT_NE(counted(text, {}).error.find("line"), std::string::npos) << text;
    }
}

// max_collection_length at 0 to 18, around the sizes a guess would start at and double to
// (4, 8, 16), with and without allocations between the items: the counted read's error, at
// the same item.
TEST(Uncounted, LimitsAtEverySmallSize) {
  for (std::size_t limit = 0; limit <= 18; ++limit) {
    SCOPED_TRACE(limit);
    ReadOptions options;
    options.max_collection_length = limit;
    for (const int n : {1, 3, 4, 5, 7, 8, 9, 16, 17, 19}) {
      if (static_cast<std::size_t>(n) > limit + 2 && n != 19) continue;
      std::string object = "{";
      for (int i = 0; i < n; ++i) object += std::string(i ? "," : "") + "\"~:k" + std::to_string(i) + "\":" + std::to_string(i);
      object += "}";
      std::string spilled = "[";
      for (int i = 0; i < n; ++i) spilled += std::string(i ? "," : "") + (i % 3 == 2 ? "\"a string too long to be inline\"" : std::to_string(i));
      spilled += "]";
      for (const std::string& text : {"[" + ints(n) + "]", map_array(n), object, spilled,
                                      "[" + map_array(n) + "," + map_array(n + 1) + "]",
                                      "[[" + ints(n) + "],[" + ints(n + 1) + "]]"})
        expect_same(text, options);
    }
  }
  // Nothing to spare past the limit: exactly the limit's items read, one more refused.
  ReadOptions five;
  five.max_collection_length = 5;
  EXPECT_EQ(from_source("[" + ints(5) + "]", 1, five).error, "");
  EXPECT_NE(from_source("[" + ints(6) + "]", 1, five).error, "");
  EXPECT_EQ(from_source(map_array(5), 1, five).error, "");
  EXPECT_NE(from_source(map_array(6), 1, five).error, "");
}

// Depth limits, with uncounted containers at every level.
TEST(Uncounted, DepthLimits) {
  for (const std::size_t depth : {1u, 2u, 3u, 10u, 70u}) {
    ReadOptions options;
    options.max_depth = depth;
    for (const std::size_t levels : {depth - 1, depth, depth + 1}) {
      if (levels == 0) continue;
      std::string arrays, maps;
      for (std::size_t i = 0; i < levels; ++i) arrays += "[1,2,3,4,5,";
      arrays += "6" + std::string(levels, ']');
      for (std::size_t i = 0; i < levels; ++i) maps += R"(["^ ","~:a",1,"~:b",2,"~:c",3,"~:d",4,"~:e",)";
      maps += "1" + std::string(levels, ']');
      expect_same(arrays, options, 3);
      expect_same(maps, options, 3);
    }
  }
}

// A user's builder sees every item of an uncounted container.
TEST(Uncounted, UserBuildersStillSeeEveryItem) {
  transit::ReadHandlers handlers;
  std::size_t arrays = 0, maps = 0;
  handlers.set_array_builder([&](std::span<Value> items) {
    ++arrays;
    return Value::list(std::vector<Value>(items.begin(), items.end()));
  });
  handlers.set_map_builder([&](std::span<Value> flat) {
    ++maps;
    return Value(static_cast<std::int64_t>(flat.size()));
  });
  ReadOptions options;
  options.handlers = &handlers;
  const std::string text = "[[" + ints(9) + "]," + map_array(7) + "]";
  expect_same(text, options);
  arrays = maps = 0;
  const Outcome o = from_source(text, 5, options);
  ASSERT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.values[0].size(), 2u);
  EXPECT_EQ(o.values[0][0].kind(), transit::Kind::list);
  EXPECT_EQ(o.values[0][1], Value(std::int64_t{14}));
  EXPECT_EQ(arrays, 2u);
  EXPECT_EQ(maps, 1u);
}

}  // namespace

// ---- round twenty-five: a container's node made from its items on the stack by the counted
// path's reserve and finish (Decoder::node_of_stack), its end in one call (uncounted_end), a
// `"^ "` taken without string() ----

// `n` entries of keyword keys (inline, or `long_keys`: a node each, and cached) and integer
// values, as a map array; every `dup`-th key (from the 2nd) repeats an earlier one (or names
// one not seen yet) written again, or, `by_code` with long keys, is the first key's cache
// code `^0`.
std::string map_with_duplicates(int n, int dup, bool long_keys, bool by_code) {
  std::string s = "[\"^ \"";
  for (int i = 0; i < n; ++i) {
    const bool again = dup != 0 && i != 0 && i % dup == 0;
    const int k = again ? i / 2 : i;
    std::string key = "\"~:" + std::string(long_keys ? "a-key-long-enough-for-a-node-" : "k") + std::to_string(k) + "\"";
    if (again && by_code && long_keys) key = "\"^0\"";
    s += "," + key + "," + std::to_string(i);
  }
  return s + "]";
}

// The same map as a JSON object (JSON-Verbose), whose keys are read as written.
std::string object_with_duplicates(int n, int dup) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) {
    const int k = dup != 0 && i != 0 && i % dup == 0 ? i / 2 : i;
    s += std::string(i ? "," : "") + "\"~:k" + std::to_string(k) + "\":" + std::to_string(i);
  }
  return s + "}";
}

// Maps of 1, 2, 8, 9 and more entries (finish_map checks up to 2 keys pairwise, up to 8 by a
// filter, up to 64 by a table, more by compact_entries), with no duplicate and with duplicates at several
// places, as keys written again and as cache codes: the counted read's values (the last value
// for a key, in the key's first place) and node bytes, from a Source cut anywhere.
TEST(Uncounted, MapsFromTheStackKeepTheCountedReadsKeys) {
  for (const int n : {1, 2, 3, 8, 9, 10, 17, 64, 65, 200}) {
    SCOPED_TRACE(n);
    for (const int dup : {0, 2, 3, 7}) {
      for (const bool long_keys : {false, true}) {
        for (const bool by_code : {false, true}) {
          const std::string text = map_with_duplicates(n, dup, long_keys, by_code);
          expect_same(text, {}, 7);
          expect_same("[" + text + "," + text + "]", {}, 64);
          const Value memory = transit::read(text, Encoding::json);
          const Value source = read_source(text, 5);
          ASSERT_EQ(source, memory) << text.substr(0, 200);
          EXPECT_EQ(used(source), used(memory)) << text.substr(0, 200);
        }
      }
      const std::string object = object_with_duplicates(n, dup);
      expect_same(object, {}, 7);
      const Value memory = transit::read(object, Encoding::json);
      const Value source = read_source(object, 5);
      ASSERT_EQ(source, memory);
      EXPECT_EQ(used(source), used(memory));
    }
  }
  // A duplicate's value replaces the first one's, in the first one's place.
  const Value v = read_source(R"(["^ ","~:a",1,"~:b",2,"~:a",3])", 1);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v, transit::read(R"({"~:a":3,"~:b":2})", Encoding::json_verbose));
}

// Composite keys (arrays and maps, which a map array may hold), equal ones among them, keys
// of every kind side by side, and maps as values of tagged values (a set's items, a user
// tag's rep, a cmap's entries), with and without duplicate keys.
TEST(Uncounted, CompositeKeysAndTaggedReps) {
  const std::vector<std::string> texts = {
      R"(["^ ",[1,2],"a",[1,2],"b",["^ ","~:x",1],"c",["^ ","~:x",1],"d",[1,[2]],"e"])",
      R"(["^ ",1,"a",1.5,"b","~:k","c",null,"d",true,"e","~m5","f","~u5a2cbea3-e8c6-428b-b525-21239370dd55","g",1,"h",null,"i"])",
      R"(["^ ",[],"a",["^ "],"b",[],"c",["^ "],"d"])",
      R"(["~#point",["^ ","~:x",1,"~:y",2,"~:x",3]])",
      R"(["~#set",[["^ ","~:a",1],["^ ","~:a",1],["^ ","~:a",1,"~:a",1]]])",
      R"(["~#cmap",[["^ ","~:a",1,"~:a",2],1,["^ ","~:a",2],2]])",
      R"({"~#point":{"~:x":1,"~:y":2,"~:x":3}})",
      R"([["~#'",["^ ","~:q",1,"~:q",2]],["~#list",[["^ ","~:l",1]]]])",
      // "^ " anywhere but first in an array is a string.
      R"([1,"^ ",["^ ","~:a","^ ","^ ",2],{"~:b":"^ "},["~#set",[1,"^ "]]])",
  };
  for (const std::string& text : texts) {
    expect_same(text);
    const Value memory = transit::read(text, Encoding::json);
    const Value source = read_source(text, 3);
    ASSERT_EQ(source, memory) << text;
    EXPECT_EQ(used(source), used(memory)) << text;
  }
}

// Containers nested to the depth limit (the default's and the largest a reader takes), each
// level a map or an array with items before and after its child, and one level more: the
// counted read's values and errors.
TEST(Uncounted, NestedToTheDepthLimit) {
  for (const std::size_t depth : {std::size_t{512}, ReadOptions::kMaxDepthLimit}) {
    SCOPED_TRACE(depth);
    ReadOptions options;
    options.max_depth = depth;
    for (const std::size_t levels : {depth - 1, depth, depth + 1}) {
      std::string text;
      for (std::size_t i = 0; i < levels; ++i) text += i % 2 ? "[1,\"~:a\"," : "[\"^ \",\"~:k\",1,\"~:v\",";
      text += "[]";
      for (std::size_t i = levels; i-- > 0;) text += i % 2 ? ",2]" : ",\"~:k\",2]";
      expect_same(text, options, 4096);
      const Outcome o = from_source(text, 4096, options);
      EXPECT_EQ(o.error.empty(), levels < depth) << o.error;
    }
  }
}

// User code sees what it saw: a map builder every key and value of an uncounted map, a
// duplicate too, in order; an array builder every item; a read handler the map its tag's
// rep became, duplicates removed (a tagged value's rep is a plain map, not the builder's).
TEST(Uncounted, UserCodeSeesTheItemsOfUncountedContainers) {
  transit::ReadHandlers handlers;
  std::vector<std::vector<Value>> maps, arrays;
  std::vector<Value> reps;
  handlers.set_map_builder([&](std::span<Value> flat) {
    maps.emplace_back(flat.begin(), flat.end());
    return Value(static_cast<std::int64_t>(flat.size()));
  });
  handlers.set_array_builder([&](std::span<Value> items) {
    arrays.emplace_back(items.begin(), items.end());
    return Value::list(std::vector<Value>(items.begin(), items.end()));
  });
  handlers.add("point", [&](const Value& rep) {
    reps.push_back(rep);
    return Value("point");
  });
  ReadOptions options;
  options.handlers = &handlers;
  const std::string text =
      R"([["^ ","~:a",1,"~:b",2,"~:a",3],[1,2,3],["~#point",["^ ","~:x",1,"~:x",2]],{"~:c":4,"~:c":5}])";
  expect_same(text, options);
  maps.clear(), arrays.clear(), reps.clear();
  const Outcome o = from_source(text, 3, options);
  ASSERT_TRUE(o.error.empty()) << o.error;
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0], (std::vector<Value>{Value::keyword("a"), Value(std::int64_t{1}), Value::keyword("b"),
                                         Value(std::int64_t{2}), Value::keyword("a"), Value(std::int64_t{3})}));
  EXPECT_EQ(maps[1].size(), 4u);
  ASSERT_EQ(arrays.size(), 2u);  // [1,2,3] and the outer array
  EXPECT_EQ(arrays[0], (std::vector<Value>{Value(std::int64_t{1}), Value(std::int64_t{2}), Value(std::int64_t{3})}));
  ASSERT_EQ(reps.size(), 1u);
  EXPECT_EQ(reps[0], transit::read(R"({"~:x":2})", Encoding::json_verbose));
  ASSERT_EQ(o.values.size(), 1u);
  EXPECT_EQ(o.values[0][2], Value("point"));
}
