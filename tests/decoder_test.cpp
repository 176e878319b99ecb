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
#include <vector>

#include "read/decoder.h"
#include "support/msgpack_items.h"
#include "transit/transit.h"
#include "model/value_internal.h"

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

// A JSON text of arrays, objects, strings with no escapes and integers, as the events the
// walk of simdjson's document gives the decoder: every container's count announced.
struct Event {
  char type;  // '[', ']', '{', '}', '"' or '0'
  std::string text;
  std::int64_t number = 0;
  std::size_t count = 0;  // a container's items (an object's entries)
};

void events_of(std::string_view& s, std::vector<Event>& out) {
  while (s.front() == ' ' || s.front() == ',' || s.front() == ':') s.remove_prefix(1);
  const char c = s.front();
  if (c == '[' || c == '{') {
    const std::size_t begin = out.size();
    out.push_back({c, {}, 0, 0});
    s.remove_prefix(1);
    std::size_t items = 0;
    for (;;) {
      while (s.front() == ' ' || s.front() == ',' || s.front() == ':') s.remove_prefix(1);
      if (s.front() == ']' || s.front() == '}') break;
      events_of(s, out);
      ++items;
    }
    out[begin].count = c == '{' ? items / 2 : items;
    out.push_back({s.front(), {}, 0, 0});
    s.remove_prefix(1);
  } else if (c == '"') {
    const std::size_t end = s.find('"', 1);
    out.push_back({'"', std::string(s.substr(1, end - 1)), 0, 0});
    s.remove_prefix(end + 1);
  } else {
    std::size_t n = 0;
    std::int64_t v = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') v = v * 10 + (s[n++] - '0');
    out.push_back({'0', {}, v, 0});
    s.remove_prefix(n);
  }
}

// The value (written as JSON-Verbose) or the error the decoder gives for `json`, read as the
// simdjson walk reads it: lazily cached first, again with the cache on when it must be, in
// an arena; each string by Decoder::json_string, or by Decoder::string as RapidJSON sends it.
std::string decode_events(std::string_view json, bool json_string) {
  std::vector<Event> events;
  events_of(json, events);
  Decoder d{ReadOptions{}};
  for (bool lazily = true;;) {
    d.reset(lazily);
    ArenaScope arena;
    try {
      for (const Event& e : events) switch (e.type) {
          case '[': d.array_begin(e.count); break;
          case ']': d.array_end(); break;
          case '{': d.map_begin(e.count); break;
          case '}': d.map_end(); break;
          case '0': d.integer(e.number); break;
          default: json_string ? d.json_string(e.text) : d.string(e.text);
        }
      return transit::write(d.take(), Encoding::json_verbose);
    } catch (const Decoder::CacheNeeded&) {
      d.drop_frames();
      lazily = false;
    } catch (const Error& e) {
      d.drop_frames();
      return e.what();
    }
  }
}

// Decoder::json_string resolves inline what Decoder::string resolves (JSON strings from
// simdjson's document, whose errors the reader hands to RapidJSON: only here are they seen):
// plain strings, keywords and symbols at each length around the cache's 4 UTF-16 units,
// inline and in a node, ASCII or not, as keys and values, cached or (read lazily, JSON-Verbose
// first) noted as missed, so that the value is read again; cache codes in plain containers, in
// a tag's rep, naming a tag, unassigned or malformed.
TEST(DecoderJsonString, ResolvesEveryStringAsStringDoes) {
  std::vector<std::string> texts;
  for (const char* s : {"a", "ab", "abc", "abcd", "abcdefghijkl", "abcdefghijklmn", "\xc3\xa9",
                        "\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9\xc3\xa9",
                        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80",
                        "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"})
    for (const char* prefix : {"", "~:", "~$"}) {
      const std::string str = std::string("\"") + prefix + s + "\"";
      texts.push_back("[{" + str + ":1},[\"^ \",\"^0\",2]]");
      texts.push_back("[" + str + ",[\"^ \",\"^0\",2]]");
      texts.push_back("[" + str + ",[\"~#x\",\"^0\"]]");
      texts.push_back("[[\"^ \"," + str + ",1],\"^0\",[\"^ \",\"^0\",\"^0\"]]");
      texts.push_back("[[\"^ \",\"k\"," + str + "],\"^0\",\"^1\"]");
      texts.push_back("[[\"^ \"],{" + str + ":" + str + "},\"^0\",[\"~#x\",\"^0\"]]");
      texts.push_back("[[\"^ \"]," + str + "," + str + ",\"^0\"]");
      texts.push_back("{" + str + ":[" + str + "]}");
    }
  for (const char* code : {"^0", "^1", "^00", "^0^", "^[[", "^", "^ ", "^  ", "^~"}) {
    const std::string str = std::string("\"") + code + "\"";
    texts.push_back("[[\"^ \",\"abcd\",1]," + str + "]");
    texts.push_back("[[\"~#tagname\",[1]],[" + str + ",2]]");
    texts.push_back("[[\"~#tagname\",[1]]," + str + "]");
    texts.push_back("[[\"^ \",\"abcd\",1],{" + str + ":2}]");
  }
  // Every other `~` form, good and bad, as keys and values, cached and missed.
  for (const char* s : {"~m1700000000000", "~m-1", "~mx", "~m17000000000x0", "~n123", "~n-007", "~n1x", "~ix", "~i12", "~d1.5",
                        "~u531a379e-31bb-4ce1-8690-158dceb64be6", "~ubad", "~f1.50", "~rhttp://x",
                        "~cA", "~c", "~zNaN", "~?t", "~_", "~bAAEC", "~b!!", "~t2020-01-01T00:00:00Z",
                        "~~x", "~^x", "~`x", "~#x", "~", "~q", "~qrst"}) {
    const std::string str = std::string("\"") + s + "\"";
    texts.push_back("[{" + str + ":" + str + "},[\"^ \",\"^0\",2]]");
    texts.push_back("[[\"^ \"],{" + str + ":" + str + "},\"^0\"]");
    texts.push_back("[[\"^ \"],[\"^ \"," + str + "," + str + "],\"^0\",\"^1\"]");
    texts.push_back("[" + str + ",{\"~#x\":" + str + "}]");
  }
  // "^ " where it starts a map array (its count even, odd, or too small for a map) and
  // anywhere else.
  for (const char* text : {R"(["^ ","a"])", R"(["^ ","a",1,"^ "])", R"(["^ ","a",1,"b"])",
                           R"({"^ ":1})", R"(["x","^ "])", R"("^ ")", R"([["^ "],["^ ","^ ",1]])",
                           R"([["^ ","abcd",1,"b"],2])", R"([{"abcd":1},["^ "],"^0"])",
                           R"([["~#tagname",["^ ","a",1]],"^0"])"})
    texts.emplace_back(text);
  for (const std::string& text : texts)
    EXPECT_EQ(decode_events(text, true), decode_events(text, false)) << text;
  EXPECT_EQ(decode_events(R"([{"abcd":1},"~:kwkw",["^ ","^0",2,"^1","^1"]])", true),
            R"([{"abcd":1},"~:kwkw",{"abcd":2,"~:kwkw":"~:kwkw"}])");
}

// What a read of `text` gives: the value as JSON-Verbose, its kind and depth, or the error.
std::string outcome(std::string_view text, Encoding encoding, const ReadOptions& options) {
  try {
    const Value v = transit::read(text, encoding, options);
    return transit::write(v, Encoding::json_verbose) + " " + std::string(kind_name(v.kind())) +
           " depth " + std::to_string(v.depth());
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

// Without user handlers, a set's or list's rep becomes the set or list in its own node, and a
// tag with no ground rule goes straight into a tagged value (Decoder::end_tagged). An empty
// set of handlers takes decode_tag's general path, on the heap: both give the same values,
// items in the same order (a set keeps the first of equal items), as deep, and the same errors.
TEST(DecoderTags, SetsListsAndPlainTagsReadAsTheGeneralRulesReadThem) {
  const ReadHandlers none;
  ReadOptions general;
  general.handlers = &none;
  for (const std::string_view json :
       {R"(["~#set",[1,2,1,3,2]])", R"(["~#set",[[1,[2]],[1,[2]],"a"]])", R"(["~#set",[]])",
        R"(["~#list",[]])", R"(["~#list",[1,1,2]])", R"({"~#set":[1,1]})", R"({"~#list":[[]]})",
        R"(["~#set",[1,2,3,4,5,6,7,8,9,10,1,2,11,"~:a","~:a"]])", R"(["~#set",[[[[1]]],[[[1]]],2]])",
        R"(["~#set",[["~#set",[1,2]],["~#set",[2,1]],["~#list",[1]],["~#list",[1]]]])",
        R"([["~#set",[1]],["^0",[2,2]],["~#list",[3]],["^1",[4]],["^0",[]]])",
        R"(["~#point",[1,2]])", R"(["~#pt","x"])", R"(["~#pt",{"a":[1]}])",
        R"(["~#averyveryverylongtagname",[1]])", R"([["~#point",1],["^0",["^0",2]]])",
        R"(["~#point",["~#point",["~#point",[]]]])", R"({"~#point":[]})", R"(["~#cmap",[[1],2]])",
        R"(["~#'",1])", R"(["~#link",{"href":"~rhttp://x","rel":"r"}])", R"(["~#set",5])",
        R"(["~#list","x"])", R"(["~#set",[1],[2]])", R"(["~#set"])", R"({"~#list":[1],"b":2})",
        R"(["~#set",[["~#list",[]],["~#list",[]]]])", R"([["~#set",[1]],["^0"]])",
        R"(["^ ","~#set",[1]])", R"([1,"~#set",[1]])"}) {
    SCOPED_TRACE(json);
    EXPECT_EQ(outcome(json, Encoding::json, ReadOptions{}), outcome(json, Encoding::json, general));
    const std::string msgpack = transit::test::msgpack_items_of(json);
    EXPECT_EQ(outcome(msgpack, Encoding::msgpack, ReadOptions{}), outcome(msgpack, Encoding::msgpack, general));
  }
  EXPECT_EQ(transit::write(transit::read(R"(["~#set",[3,1,3,2,1]])"), Encoding::json_verbose),
            R"({"~#set":[3,1,2]})");
  EXPECT_EQ(transit::read(R"(["~#list",[1,1]])"), Value::list({1, 1}));
  EXPECT_EQ(transit::read(R"(["~#point",[1,2]])"), Value::tagged("point", Value::array({1, 2})));
}

// A set of 2 to 4 items read in place is checked by comparing its items pairwise (few_distinct
// in value.cpp), a larger one (or one with a duplicate) by distinct_in_place: sets of 1 to 6
// items of every kind the comparison tells apart (inline keywords and cache codes of them,
// long strings in nodes, 0.0 and -0.0, integers beside big integers and doubles, composites),
// with a duplicate of any item at any later place, from JSON, JSON-Verbose and (with no
// doubles) MessagePack, read as the general rules (decode_tag, on the heap) read them: the
// same items in the same order (the first of equal items kept), the same depth.
TEST(DecoderTags, SmallSetsWithADuplicateAtEveryPlaceReadAsTheGeneralRulesReadThem) {
  const ReadHandlers none;
  ReadOptions general;
  general.handlers = &none;
  const std::vector<std::string> items = {
      "\"~:kw\"", "\"~:other\"", "\"a string long enough for a node\"", "0.0", "-0.0", "1",
      "\"~n1\"", "1.0", "[1,[2]]", "[\"~#set\",[1]]", "\"^0\""};
  for (std::size_t n = 1; n <= 6; ++n) {
    for (std::size_t first = 0; first + n <= items.size(); first += 2) {
      std::vector<std::string> distinct(items.begin() + static_cast<std::ptrdiff_t>(first),
                                        items.begin() + static_cast<std::ptrdiff_t>(first + n));
      for (std::size_t i = 0; i <= n; ++i) {
        for (std::size_t j = i + 1; j <= n + 1; ++j) {
          // Item i again at place j (none when i == n).
          std::vector<std::string> set = distinct;
          if (i < n) set.insert(set.begin() + static_cast<std::ptrdiff_t>(j - 1), distinct[i]);
          std::string rep;
          for (const std::string& item : set) rep += (rep.empty() ? "" : ",") + item;
          // "^0" names the keyword of the map before the set.
          const std::string json = "[[\"^ \",\"~:kw\",1],[\"~#set\",[" + rep + "]]]";
          SCOPED_TRACE(json);
          EXPECT_EQ(outcome(json, Encoding::json, ReadOptions{}), outcome(json, Encoding::json, general));
          const std::string verbose = "[{\"~:kw\":1},{\"~#set\":[" + rep + "]}]";
          EXPECT_EQ(outcome(verbose, Encoding::json_verbose, ReadOptions{}),
                    outcome(verbose, Encoding::json_verbose, general));
          // msgpack_items_of takes integers, no doubles.
          if (rep.find('.') == std::string::npos) {
            const std::string msgpack = transit::test::msgpack_items_of(json);
            EXPECT_EQ(outcome(msgpack, Encoding::msgpack, ReadOptions{}),
                      outcome(msgpack, Encoding::msgpack, general));
          }
          if (HasFailure()) return;
        }
      }
    }
  }
  EXPECT_EQ(transit::write(transit::read(R"(["~#set",["~:b","~:a","~:b"]])"), Encoding::json_verbose),
            R"({"~#set":["~:b","~:a"]})");
  EXPECT_EQ(transit::read(R"(["~#set",[0.0,-0.0]])").items().size(), 1u);
}

}  // namespace
}  // namespace transit::detail
