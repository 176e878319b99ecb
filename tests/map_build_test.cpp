// SPDX-License-Identifier: Apache-2.0
// How a reader builds maps: keys checked for duplicates as the node adopts them (a
// duplicate, or a map too large to scan, falls back to compacting the entries), in a node
// reserved for the announced count (MessagePack) or filled from the value stack (JSON), in a
// reader's arena or on the heap. Each is checked against Value::map, which keeps a repeated
// key in its first place with the last value given for it.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/msgpack_items.h"
#include "transit/transit.h"
#include "model/value_internal.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::Kind;
using transit::ReadOptions;
using transit::Value;
using transit::ValueAccess;

// One entry on the wire: a key (a string, or a keyword when it starts with "~:") and the
// integer `value` inside `depth` arrays.
struct WireEntry {
  std::string key;
  int value;
  int depth;
};

Value key_value(const std::string& key) {
  return key.starts_with("~:") ? transit::kw(key.substr(2)) : Value(key);
}

Value value_of(const WireEntry& e) {
  Value v = e.value;
  for (int i = 0; i < e.depth; ++i) v = Value::array({v});
  return v;
}

// What every reader must build: Value::map, on the heap, from the same entries.
Value expected_map(const std::vector<WireEntry>& entries) {
  std::vector<transit::Entry> built;
  for (const WireEntry& e : entries) built.emplace_back(key_value(e.key), value_of(e));
  return Value::map(built);
}

std::string json_value(const WireEntry& e) {
  return std::string(e.depth, '[') + std::to_string(e.value) + std::string(e.depth, ']');
}

// ["^ ", k, v, ...] (Transit JSON) or {"k": v, ...} (JSON-Verbose: an object, duplicate
// names and all).
std::string json_text(const std::vector<WireEntry>& entries, bool verbose) {
  std::string out = verbose ? "{" : "[\"^ \"";
  bool first = true;
  for (const WireEntry& e : entries) {
    if (!first || !verbose) out += ",";
    first = false;
    out += "\"" + e.key + "\"" + (verbose ? ":" : ",") + json_value(e);
  }
  return out + (verbose ? "}" : "]");
}

// Reads the entries in every form, in a reader's arena and (a read handler set) on the
// heap, and checks each against Value::map: equal, the same entries in the same order, the
// same depth, and every key found.
void expect_read_as_value_map(const std::vector<WireEntry>& entries) {
  const Value expected = expected_map(entries);
  transit::ReadHandlers handlers;
  handlers.add("unused", [](const Value& rep) { return rep; });
  ReadOptions on_heap;
  on_heap.handlers = &handlers;
  for (const ReadOptions& options : {ReadOptions{}, on_heap}) {
    const bool heap = options.handlers != nullptr;
    const std::pair<std::string, Encoding> forms[] = {
        {json_text(entries, false), Encoding::json},
        {json_text(entries, true), Encoding::json_verbose},
        {transit::test::msgpack_items_of(json_text(entries, true)), Encoding::msgpack},  // a map
        {transit::test::msgpack_items_of(json_text(entries, false)), Encoding::msgpack},  // "^ " array
    };
    int form = 0;
    for (const auto& [text, encoding] : forms) {
      SCOPED_TRACE(testing::Message() << "form " << form++ << (heap ? " on the heap" : " in an arena")
                                      << ": " << json_text(entries, false));
      const Value read = transit::read(text, encoding, options);
      ASSERT_EQ(read.kind(), Kind::map);
      EXPECT_EQ(read, expected);
      ASSERT_EQ(read.size(), expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(read.entries()[i].first, expected.entries()[i].first) << i;
        EXPECT_EQ(read.entries()[i].second, expected.entries()[i].second) << i;
        const Value* found = read.find(expected.entries()[i].first);
        ASSERT_NE(found, nullptr) << i;
        EXPECT_EQ(*found, expected.entries()[i].second) << i;
      }
      EXPECT_EQ(read.depth(), expected.depth());
    }
  }
}

// Keys of every form the duplicate check tells apart: short strings and keywords (inline),
// long ones (a node each), and strings that share their first and last 8 bytes and their
// length (the same filter bit, so compared).
std::string key_number(std::size_t i) {
  switch (i % 5) {
    case 0: return "k" + std::to_string(i);
    case 1: return "~:kw" + std::to_string(i);
    case 2: return "a-key-long-enough-node-" + std::to_string(100 + i);
    case 3: return "~:a-long-keyword-" + std::to_string(100 + i);
    default: return "same-head-" + std::to_string(100 + i) + "-same-tail";
  }
}

// A map of n distinct keys and one duplicate of key i inserted at position j, for every i < j
// and every n up to 12 (across the one-comparison, filter-scan and compaction paths) and for
// 20 and 40 (past the scan, found through a hash table). The first value given for the key
// nests 3 arrays deep, the duplicate's is a scalar: what the map keeps, and its depth, must
// be the duplicate's; then the other way round.
TEST(MapBuild, ADuplicateKeyAtEveryPositionKeepsItsLastValue) {
  for (const std::size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 40}) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j <= n; ++j) {
        for (const bool deep_first : {true, false}) {
          std::vector<WireEntry> entries;
          for (std::size_t k = 0; k < n; ++k)
            entries.push_back({key_number(k), static_cast<int>(k), k == i && deep_first ? 3 : 0});
          entries.insert(entries.begin() + static_cast<std::ptrdiff_t>(j),
                         WireEntry{key_number(i), 100, deep_first ? 0 : 3});
          expect_read_as_value_map(entries);
          if (HasFailure()) return;
        }
      }
    }
  }
}

// A map of `n` keys made by `key`, with a duplicate of key i inserted at position j, read in
// every form against Value::map: the first value given for the key nests 3 arrays deep and
// the duplicate's is a scalar, then the other way round.
template <class KeyOf>
void expect_duplicate_kept_last(std::size_t n, std::size_t i, std::size_t j, KeyOf key) {
  for (const bool deep_first : {true, false}) {
    std::vector<WireEntry> entries;
    for (std::size_t k = 0; k < n; ++k)
      entries.push_back({key(k), static_cast<int>(k), k == i && deep_first ? 3 : 0});
    entries.insert(entries.begin() + static_cast<std::ptrdiff_t>(j), WireEntry{key(i), 100, deep_first ? 0 : 3});
    expect_read_as_value_map(entries);
  }
}

// Maps of 9 to 70 entries: up to 64 their keys are checked by a table placed by the keys'
// filter mix, past 64 through the hash table. Every size has a duplicate at every position
// (of the key just before it, and of the first key), and maps of 9, 16, 33, 63, 64, 65 and
// 70 entries a duplicate of every key at every later position; with no duplicate, every
// size is read as it is.
TEST(MapBuild, MidSizedMapsKeepTheLastValueOfADuplicateAtEveryPosition) {
  for (std::size_t n = 9; n <= 70; ++n) {
    SCOPED_TRACE(testing::Message() << n << " keys");
    std::vector<WireEntry> distinct;
    for (std::size_t k = 0; k < n; ++k) distinct.push_back({key_number(k), static_cast<int>(k), k % 3 == 0 ? 2 : 0});
    expect_read_as_value_map(distinct);
    for (std::size_t j = 1; j <= n; ++j) {
      expect_duplicate_kept_last(n, j - 1, j, key_number);
      expect_duplicate_kept_last(n, 0, j, key_number);
      if (HasFailure()) return;
    }
  }
  for (const std::size_t n : {9, 16, 33, 63, 64, 65, 70}) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j <= n; ++j) {
        expect_duplicate_kept_last(n, i, j, key_number);
        if (HasFailure()) return;
      }
    }
  }
}

// Keys chosen to collide: texts of one length whose first and last 8 bytes are the same have
// the same filter mix, so every key of the map meets all those before it on its probe and is
// compared with each. Distinct, they are all kept; a duplicate of any key at any later place
// is found, in maps of up to 70 such keys.
TEST(MapBuild, KeysWithTheSameFilterMixAreComparedExactly) {
  auto colliding = [](std::size_t k) {
    return "same-head-" + std::to_string(1000 + k) + "-same-tail";  // one length up to 8999
  };
  for (const std::size_t n : {9, 12, 31, 40, 64, 65, 70}) {
    SCOPED_TRACE(testing::Message() << n << " keys");
    std::vector<WireEntry> distinct;
    for (std::size_t k = 0; k < n; ++k) distinct.push_back({colliding(k), static_cast<int>(k), 0});
    expect_read_as_value_map(distinct);
    for (std::size_t i = 0; i < n; i += (n > 40 ? 7 : 1)) {
      for (std::size_t j = i + 1; j <= n; ++j) {
        expect_duplicate_kept_last(n, i, j, colliding);
        if (HasFailure()) return;
      }
    }
  }
  // The same keys' filter mix, against each other: what the test above relies on.
  EXPECT_EQ(ValueAccess::filter_mix(Value(colliding(0))), ValueAccess::filter_mix(Value(colliding(69))));
}

// Maps of 0 to 30 entries with keys drawn from a few, so that most repeat, some three times
// or more, several keys at once.
TEST(MapBuild, ManyDuplicatesOfManyKeys) {
  std::mt19937 random(20261202);
  for (int round = 0; round < 600; ++round) {
    const std::size_t pool = 1 + random() % 12;
    const std::size_t size = random() % 31;
    std::vector<WireEntry> entries;
    for (std::size_t k = 0; k < size; ++k)
      entries.push_back({key_number(random() % pool), static_cast<int>(k), static_cast<int>(random() % 3)});
    expect_read_as_value_map(entries);
    if (HasFailure()) return;
  }
}

// A value kMaxDepth deep, built in the arena open on this thread.
Value deepest_array() {
  Value deep = Value::array({});
  for (std::size_t i = 1; i < Value::kMaxDepth; ++i) deep = Value::array({deep});
  return deep;
}

// Map slots as a reader fills them: the values placed in order.
ValueAccess::Slots map_slots(std::vector<Value> flat) {
  ValueAccess::Slots slots = ValueAccess::reserve_map(flat.size() / 2);
  for (std::size_t i = 0; i < flat.size(); ++i) new (slots.items + i) Value(std::move(flat[i]));
  return slots;
}

// The depth limit on the path that adopts a map's children as it checks its keys: a child
// kMaxDepth deep is refused, whatever the map's size and the child's place, and what was
// built stays in the arena (no leak, no double release: the sanitizer build checks); a deep
// value replaced by a later one for its key is not counted.
TEST(MapBuild, TooDeepInAnArenaMapIsRefusedUnlessReplaced) {
  Value kept;
  {
    transit::ArenaScope scope;
    const Value deep = deepest_array();
    ASSERT_EQ(deep.depth(), Value::kMaxDepth);
    const Value outside_key("a key on the heap, from outside the arena");
    for (const std::size_t entries : {1, 2, 5, 8, 12}) {
      for (std::size_t at = 0; at < 2 * entries; ++at) {
        SCOPED_TRACE(testing::Message() << entries << " entries, deep child at " << at);
        std::vector<Value> flat;
        for (std::size_t k = 0; k < entries; ++k) {
          flat.push_back(k == 1 ? outside_key : Value(key_number(k)));
          flat.push_back(Value(static_cast<int>(k)));
        }
        if (at % 2 == 0) {
          // As a key: and a key can be replaced by nothing, so it is always refused.
          flat[at] = deep;
        } else {
          flat[at] = deep;
          ValueAccess::Slots refused = map_slots(flat);
          try {
            (void)ValueAccess::finish_map(Kind::map, refused, static_cast<std::uint32_t>(flat.size()));
            ADD_FAILURE() << "built";
          } catch (const Error& e) {
            EXPECT_EQ(e.code(), Errc::too_deep);
          }
          EXPECT_EQ(refused.items, nullptr);  // taken, left in the arena
          // The same key again, later, with a scalar: the deep value is gone, and fits.
          flat.push_back(flat[at - 1]);
          flat.push_back(Value(7));
          ValueAccess::Slots slots = map_slots(flat);
          const Value m = ValueAccess::finish_map(Kind::map, slots, static_cast<std::uint32_t>(flat.size()));
          EXPECT_EQ(m.size(), entries);
          EXPECT_EQ(m.depth(), 1u);
          EXPECT_EQ(*m.find(flat[at - 1]), Value(7));
          kept = m;
          continue;
        }
        ValueAccess::Slots refused = map_slots(flat);
        EXPECT_THROW((void)ValueAccess::finish_map(Kind::map, refused, static_cast<std::uint32_t>(flat.size())),
                     Error);
      }
    }
    // The same from the value stack (a JSON map): make_map.
    std::vector<Value> flat{Value("a"), deep, Value("b"), Value(1)};
    EXPECT_THROW((void)ValueAccess::make_map(Kind::map, flat), Error);
    flat = {Value("a"), deep, Value("b"), Value(1), Value("a"), Value(2)};
    EXPECT_EQ(ValueAccess::make_map(Kind::map, flat).depth(), 1u);
  }
  // What was kept outlives the arena's scope, its heap key and all.
  EXPECT_EQ(kept.find(Value("a key on the heap, from outside the arena"))->as_int(), 1);
}

// Array slots (MessagePack arrays) take the same pass: refused past the limit, measured.
TEST(MapBuild, TooDeepInArenaArraySlotsIsRefused) {
  transit::ArenaScope scope;
  const Value deep = deepest_array();
  for (const std::size_t size : {1, 2, 9}) {
    ValueAccess::Slots slots = ValueAccess::reserve_sequence(size);
    for (std::size_t i = 0; i < size; ++i) new (slots.items + i) Value(i + 1 == size ? deep : Value(1));
    EXPECT_THROW((void)ValueAccess::finish_sequence(Kind::array, slots, static_cast<std::uint32_t>(size)),
                 Error);
  }
  ValueAccess::Slots slots = ValueAccess::reserve_sequence(3);
  new (slots.items) Value(deep.items()[0]);
  new (slots.items + 1) Value(ValueAccess::empty(Kind::map));
  new (slots.items + 2) Value("x");
  const Value fits = ValueAccess::finish_sequence(Kind::array, slots, 3);
  EXPECT_EQ(fits.depth(), Value::kMaxDepth);
  // An empty container inline is one level: a map of it is two.
  std::vector<Value> flat{Value("k"), ValueAccess::empty(Kind::set)};
  EXPECT_EQ(ValueAccess::make_map(Kind::map, flat).depth(), 2u);
}

}  // namespace
