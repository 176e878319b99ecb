// SPDX-License-Identifier: Apache-2.0
// The decoder driven by events directly, for what no backend of this library sends yet: a
// `"^ "` map array whose item count is announced (a JSON backend that knows its counts may).
// And the decoder's value stack, which drops the items a container's node took from it with
// no destructor run: only those, never what a user's builder was given.
#include <gtest/gtest.h>

#include <functional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "decoder.h"
#include "support/msgpack_items.h"
#include "transit/transit.h"
#include "value_internal.h"

namespace transit::detail {
namespace {

// ["^ ", "a", 1, "long...", "x", "a", 3]: its 7 items announced.
Value read_map_array(Decoder& d, const std::string& long_key) {
  d.reset();
  d.array_begin(7);
  d.string("^ ");
  d.string("a");
  d.integer(1);
  d.string(long_key);
  d.string("x");
  d.string("a");
  d.integer(3);
  d.array_end();
  EXPECT_TRUE(d.done());
  return d.take();
}

TEST(DecoderCounts, AnnouncedMapArrayIsBuiltInItsNodeWithoutDuplicates) {
  const std::string long_key(30, 'k');
  const Value expected = Value::map({{"a", 3}, {long_key, "x"}});
  Decoder d{ReadOptions{}};
  {
    const Value heap = read_map_array(d, long_key);
    EXPECT_EQ(heap, expected);
    EXPECT_EQ(heap.entries()[0].first, Value("a"));
  }
  Value kept;
  {
    ArenaScope arena;
    kept = read_map_array(d, long_key);
  }
  EXPECT_EQ(kept, expected);
  EXPECT_EQ(kept.entries()[1].first, Value(long_key));
}

TEST(DecoderCounts, MapArrayWithMoreEntriesThanAnnouncedFails) {
  Decoder d{ReadOptions{}};
  d.reset();
  d.array_begin(3);
  d.string("^ ");
  d.string("a");
  d.integer(1);
  try {
    d.string("b");
    FAIL() << "an entry beyond the count was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::syntax);
    EXPECT_NE(std::string(e.what()).find("map has more entries than the 1 it announced"),
              std::string::npos)
        << e.what();
  }
  // An odd count cannot be a map array: it is read on the stack, and found odd at its end.
  d.reset();
  d.array_begin(4);
  d.string("^ ");
  d.string("a");
  d.integer(1);
  d.string("b");
  try {
    d.array_end();
    FAIL() << "an odd map array was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::odd_map);
  }
}

// A user object that counts the live copies of itself, so that a test sees any item the
// decoder's value stack drops without destroying it (forgotten, it stays counted).
struct Tracked {
  static inline int live = 0;
  std::int64_t id;
  bool owner = true;
  explicit Tracked(std::int64_t i) : id(i) { ++live; }
  Tracked(Tracked&& other) noexcept : id(other.id), owner(std::exchange(other.owner, false)) {}
  Tracked(const Tracked&) = delete;
  Tracked& operator=(const Tracked&) = delete;
  Tracked& operator=(Tracked&&) = delete;
  ~Tracked() {
    if (owner) --live;
  }
  friend bool operator==(const Tracked& a, const Tracked& b) { return a.id == b.id; }
};

}  // namespace
}  // namespace transit::detail

template <>
struct std::hash<transit::detail::Tracked> {
  std::size_t operator()(const transit::detail::Tracked& t) const noexcept {
    return std::hash<std::int64_t>{}(t.id);
  }
};

namespace transit::detail {
namespace {

// `["~#obj", n]` reads as Tracked{n}. Read handlers run user code, so nothing is built in an
// arena: every node is on the heap, where a dropped item that was not destroyed leaks.
ReadHandlers tracking_handlers() {
  ReadHandlers h;
  h.add("obj", [](const Value& rep) { return Value::object(Tracked(rep.as_int())); });
  return h;
}

// Reads `json` as JSON (simdjson, then RapidJSON from a stream) and as MessagePack, and runs
// `check` on each value while it is held; no Tracked is left once it is dropped.
void read_each_way(std::string_view json, const ReadOptions& options,
                   const std::function<void(const Value&)>& check) {
  const std::string wire = transit::test::msgpack_items_of(json);
  for (int way = 0; way < 3; ++way) {
    SCOPED_TRACE(way == 0 ? "JSON in memory" : way == 1 ? "JSON from a stream" : "MessagePack");
    ASSERT_EQ(Tracked::live, 0);
    {
      Value v;
      if (way == 0) {
        v = transit::read(json, Encoding::json, options);
      } else if (way == 1) {
        std::istringstream in{std::string(json)};
        transit::IstreamSource source(in);
        v = *transit::Reader(source, Encoding::json, options).next();
      } else {
        v = transit::read(wire, Encoding::msgpack, options);
      }
      check(v);
    }
    EXPECT_EQ(Tracked::live, 0) << "items dropped from the stack without being destroyed";
    Tracked::live = 0;
  }
}

// A user's builder may keep any of its items or none: what it leaves on the stack is
// destroyed, not forgotten, whatever it moved.
TEST(DecoderStack, ItemsAUserBuilderLeavesAreDestroyed) {
  ReadHandlers h = tracking_handlers();
  h.set_array_builder([](std::span<Value> items) {
    // Keeps the first item, moved out, and leaves the rest where they are.
    return items.empty() ? Value() : Value::array({std::move(items[0])});
  });
  h.set_map_builder([](std::span<Value> kv) { return Value(static_cast<std::int64_t>(kv.size())); });
  ReadOptions options;
  options.handlers = &h;
  read_each_way(R"([["~#obj",1],["~#obj",2],[["~#obj",3],["~#obj",4]]])", options, [](const Value& v) {
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].get_if<Tracked>()->id, 1);
    EXPECT_EQ(Tracked::live, 1);
  });
  read_each_way(R"(["^ ","a",["~#obj",1],"b",["~#obj",2]])", options, [](const Value& v) {
    EXPECT_EQ(v, Value(4));
    EXPECT_EQ(Tracked::live, 0);
  });
  read_each_way(R"({"a":["~#obj",1],"b":[["~#obj",2],["~#obj",3]]})", options, [](const Value& v) {
    EXPECT_EQ(v, Value(4));
    EXPECT_EQ(Tracked::live, 0);
  });
}

// A map built on the heap from the stack (read handlers: no arena) with a duplicate key keeps
// the key's first copy and the last value; the later copy of the key, which the node does
// not take, is destroyed too (make_map leaves every item moved from).
TEST(DecoderStack, DuplicateKeysOnTheHeapAreDestroyed) {
  const ReadHandlers h = tracking_handlers();
  ReadOptions options;
  options.handlers = &h;
  read_each_way(R"([["^ ",["~#obj",1],"x",["~#obj",2],"y",["~#obj",1],"z"]])", options, [](const Value& v) {
    const Value& m = v[0];
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m.entries()[0].first.get_if<Tracked>()->id, 1);
    EXPECT_EQ(m.entries()[0].second, Value("z"));
    EXPECT_EQ(Tracked::live, 2);
  });
}

// An error in the middle of a container (the input's, or a user's builder's) leaves what the
// stack held destroyed.
TEST(DecoderStack, AnErrorMidContainerDestroysTheItemsHeld) {
  ReadHandlers h = tracking_handlers();
  ReadOptions options;
  options.handlers = &h;
  for (const std::string_view json :
       {R"([["~#obj",1],["~#obj",2],"^9"])", R"(["^ ","a",["~#obj",1],"b",[["~#obj",2],"^9"]])",
        R"([["~#obj",1],["~#point",["~#obj",2]],["~#obj",3],"~#bad"])"}) {
    SCOPED_TRACE(json);
    EXPECT_THROW(transit::read(json, Encoding::json, options), Error);
    EXPECT_EQ(Tracked::live, 0);
    std::istringstream in{std::string(json)};
    transit::IstreamSource source(in);
    EXPECT_THROW(transit::Reader(source, Encoding::json, options).next(), Error);
    EXPECT_EQ(Tracked::live, 0);
    EXPECT_THROW(transit::read(transit::test::msgpack_items_of(json), Encoding::msgpack, options), Error);
    EXPECT_EQ(Tracked::live, 0);
    Tracked::live = 0;
  }
  h.set_array_builder([](std::span<Value> items) -> Value {
    if (items.size() == 2) throw std::runtime_error("two items");
    return Value::array(std::vector<Value>(items.begin(), items.end()));
  });
  read_each_way(R"([["~#obj",1],[["~#obj",2]],3])", options, [](const Value& v) {
    EXPECT_EQ(v.size(), 3u);
    EXPECT_EQ(Tracked::live, 2);
  });
  for (const std::string_view json : {R"([[["~#obj",1],["~#obj",2]]])", R"([["~#obj",1],["~#obj",2]])"}) {
    SCOPED_TRACE(json);
    try {
      transit::read(json, Encoding::json, options);
      ADD_FAILURE() << "the builder's error was lost";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_rep);
    }
    EXPECT_EQ(Tracked::live, 0);
    EXPECT_THROW(transit::read(transit::test::msgpack_items_of(json), Encoding::msgpack, options), Error);
    EXPECT_EQ(Tracked::live, 0);
    Tracked::live = 0;
  }
}

}  // namespace
}  // namespace transit::detail
