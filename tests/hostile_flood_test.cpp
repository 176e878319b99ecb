// SPDX-License-Identifier: Apache-2.0
// Hostile input aimed at the hashes (issue 12, items 1 and 2): values chosen so that the old
// unkeyed hashes sent them all to one bucket, and cache references to one huge string. The
// flooding inputs are made in the test by inverting the old hash functions
// (support/hash_flood.h); the assertion is the work a linear-probing table does with today's
// hashes, counted, not a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "cache.h"
#include "model/hash.h"
#include "support/hash_flood.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Kind;
using transit::Value;
namespace flood = transit::test;

// The slots probed to insert every hash into a linear-probing table at most half full, as
// Value::set and Value::map do to find duplicates (and set and map equality to find partners).
// Stops counting past `cap`, so a flood that succeeds fails the test quickly.
std::size_t probes(const std::vector<std::size_t>& hashes, std::size_t cap) {
  std::size_t slots = 16;
  while (slots < 2 * hashes.size()) slots *= 2;
  std::vector<bool> used(slots);
  std::size_t total = 0;
  for (const std::size_t h : hashes) {
    std::size_t i = h & (slots - 1);
    for (; used[i]; i = (i + 1) & (slots - 1))
      if (++total > cap) return total;
    used[i] = true;
    ++total;
  }
  return total;
}

std::vector<std::size_t> hashes_of(std::span<const Value> values) {
  std::vector<std::size_t> out;
  for (const Value& v : values) out.push_back(v.hash());
  return out;
}

std::vector<std::size_t> key_hashes_of(std::span<const transit::Entry> entries) {
  std::vector<std::size_t> out;
  for (const auto& e : entries) out.push_back(e.first.hash());
  return out;
}

// With random hashes a half-full table probes about 1.5 slots per insert; allow 4.
constexpr std::size_t kProbesPerItem = 4;

// ---- the inputs are real ------------------------------------------------------------------------

TEST(HashFlood, TheInputsCollideUnderTheOldHashes) {
  for (const std::int64_t i : flood::colliding_ints(1000))
    EXPECT_EQ(flood::old_mix(static_cast<std::uint64_t>(i)) & 0xffffffffu, 0u);
  for (const double d : flood::colliding_doubles(1000)) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    EXPECT_EQ(flood::old_combine(4, flood::old_mix(bits)) & 0xffffffffu, 0u);
  }
  const auto strings = flood::colliding_strings(1000);
  for (const std::string& s : strings)
    EXPECT_EQ(std::hash<std::string_view>{}(s), std::hash<std::string_view>{}(strings[0]));
  for (const auto& set : flood::colliding_int_sets(100)) {
    std::uint64_t sum = 0;
    for (const std::int64_t i : set) sum += flood::old_mix(static_cast<std::uint64_t>(i));
    EXPECT_EQ(sum, 0x5eedu);
  }
}

// ---- the hash is keyed ----------------------------------------------------------------------------

TEST(HashFlood, HashesUseTheProcessKey) {
  using transit::detail::HashKey;
  const HashKey& key = transit::detail::process_hash_key();
  const HashKey other{key.k0 ^ 1, key.k1, key.k2, key.k3};
  EXPECT_EQ(Value(12345).hash(), transit::detail::keyed_word(key, 12345));
  EXPECT_NE(transit::detail::keyed_word(key, 12345), transit::detail::keyed_word(other, 12345));
  const std::string text(100, 'x');
  EXPECT_NE(transit::detail::keyed_bytes(key, text.data(), text.size()),
            transit::detail::keyed_bytes(other, text.data(), text.size()));
  // Two keys give unrelated hashes: the low bits a table uses differ for most inputs.
  int same = 0;
  for (std::uint64_t i = 0; i < 1000; ++i)
    same += (transit::detail::keyed_word(key, i) & 0xff) == (transit::detail::keyed_word(other, i) & 0xff);
  EXPECT_LT(same, 30);  // 1000/256 expected
}

// ---- integers, doubles, strings and sets aimed at one bucket -------------------------------------

TEST(HashFlood, JsonSetOfCollidingIntegers) {
  const std::size_t n = 50000;
  const Value v = transit::read(flood::json_int_set(flood::colliding_ints(n)));
  ASSERT_EQ(v.kind(), Kind::set);
  ASSERT_EQ(v.size(), n);
  EXPECT_LE(probes(hashes_of(v.items()), kProbesPerItem * n), kProbesPerItem * n);
}

TEST(HashFlood, MsgpackSetOfCollidingIntegers) {
  const std::size_t n = 50000;
  std::vector<Value> ints;
  for (const std::int64_t i : flood::colliding_ints(n)) ints.emplace_back(i);
  // ["~#set", [...]]: a fixarray of 2, the tag, then the array as the writer makes it.
  const std::string msgpack = "\x92\xa5~#set" + transit::write(Value::array(ints), Encoding::msgpack);
  const Value v = transit::read(msgpack, Encoding::msgpack);
  ASSERT_EQ(v.size(), n);
  EXPECT_LE(probes(hashes_of(v.items()), kProbesPerItem * n), kProbesPerItem * n);
}

TEST(HashFlood, JsonVerboseMapWithCollidingIntegerKeys) {
  const std::size_t n = 50000;
  std::string json = "{";
  for (const std::int64_t i : flood::colliding_ints(n)) {
    if (json.size() > 1) json += ',';
    json += "\"~i" + std::to_string(i) + "\":1";
  }
  json += "}";
  const Value v = transit::read(json, Encoding::json_verbose);
  ASSERT_EQ(v.size(), n);
  EXPECT_LE(probes(key_hashes_of(v.entries()), kProbesPerItem * n), kProbesPerItem * n);
}

TEST(HashFlood, CollidingDoublesAndStrings) {
  const std::size_t n = 50000;
  std::vector<Value> doubles;
  for (const double d : flood::colliding_doubles(n)) doubles.emplace_back(d);
  const Value ds = Value::set(doubles);
  ASSERT_EQ(ds.size(), n);
  EXPECT_LE(probes(hashes_of(ds.items()), kProbesPerItem * n), kProbesPerItem * n);

  std::vector<Value> strings;
  for (const std::string& s : flood::colliding_strings(n)) strings.emplace_back(s);
  const Value ss = Value::set(strings);
  ASSERT_EQ(ss.size(), n);
  EXPECT_LE(probes(hashes_of(ss.items()), kProbesPerItem * n), kProbesPerItem * n);
}

TEST(HashFlood, SetsWhoseOldHashesWereEqual) {
  const std::size_t n = 10000;
  std::string json = "[\"~#set\",[";
  const auto sets = flood::colliding_int_sets(n);
  for (std::size_t i = 0; i < n; ++i) json += (i ? "," : "") + flood::json_int_set(sets[i]);
  json += "]]";
  const Value v = transit::read(json);
  ASSERT_EQ(v.size(), n);
  EXPECT_LE(probes(hashes_of(v.items()), kProbesPerItem * n), kProbesPerItem * n);

  // Equality of two such sets in opposite orders: every element finds its partner by hash.
  std::vector<Value> reversed(v.items().rbegin(), v.items().rend());
  const Value w = Value::set(reversed);
  EXPECT_EQ(v, w);
  EXPECT_EQ(v.hash(), w.hash());
  reversed.front() = Value::set({1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_NE(v, Value::set(reversed));
}

TEST(HashFlood, NestedSetEqualityKeepsEachLevelsTable) {
  // Sets of sets compared by hash at two levels at once: the inner comparison must not clobber
  // the outer one's index.
  std::vector<Value> outer_a, outer_b;
  for (int i = 0; i < 40; ++i) {
    std::vector<Value> inner;
    for (int j = 0; j < 20; ++j) inner.emplace_back(i * 100 + j);
    outer_a.push_back(Value::set(inner));
    std::reverse(inner.begin(), inner.end());
    outer_b.insert(outer_b.begin(), Value::set(inner));
  }
  EXPECT_EQ(Value::set(outer_a), Value::set(outer_b));
  outer_b[3] = Value::set({1, 2});
  EXPECT_NE(Value::set(outer_a), Value::set(outer_b));
}

// ---- cache references to one long string ---------------------------------------------------------

// 4 MiB and 200,000 references: hashing or copying the text once per reference would process
// 800 GB; each reference must cost O(1).
constexpr std::size_t kLongText = std::size_t{4} << 20;
constexpr std::size_t kReferences = 200000;

TEST(HashFlood, CacheReferencesToALongKeywordInASet) {
  // "~#set" takes ^0, the keyword ^1.
  std::string json = "[\"~#set\",[\"~:" + std::string(kLongText, 'k') + "\"";
  for (std::size_t i = 0; i < kReferences; ++i) json += ",\"^1\"";
  json += "]]";
  const Value v = transit::read(json);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].as_string().size(), kLongText);
}

TEST(HashFlood, CacheReferencesToALongKeywordWriteBackAsReferences) {
  std::string json = "[\"~:" + std::string(kLongText, 'k') + "\"";
  for (std::size_t i = 0; i < kReferences; ++i) json += ",\"^0\"";
  json += "]";
  const Value v = transit::read(json);
  ASSERT_EQ(v.size(), kReferences + 1);
  EXPECT_EQ(transit::write(v), json);
  EXPECT_EQ(transit::write(v, Encoding::msgpack).size(),
            transit::write(transit::read(transit::write(v, Encoding::msgpack), Encoding::msgpack),
                           Encoding::msgpack).size());
}

TEST(HashFlood, LongMapKeysByReferenceInAMap) {
  // The same long key as a map key in many maps: found by its node on the write side.
  const Value key(std::string(1000, 'q'));
  std::vector<Value> maps;
  for (int i = 0; i < 50; ++i) maps.push_back(Value::map({{key, i}}));
  const std::string json = transit::write(Value::array(maps));
  EXPECT_EQ(json.find(std::string(1000, 'q')), json.rfind(std::string(1000, 'q')));  // once
  EXPECT_EQ(transit::read(json), Value::array(maps));
}

TEST(HashFlood, WriteCacheFindsLongTextByNodeOnlyWhenRemembered) {
  transit::detail::WriteCache cache;
  const Value a = transit::kw(std::string(100, 'a'));
  const Value same_text = transit::kw(std::string(100, 'a'));  // another node
  const std::string wire = "~:" + std::string(100, 'a');
  EXPECT_TRUE(cache.find_value(a, ':').empty());
  EXPECT_TRUE(cache.find_or_add(wire).empty());  // added: slot 0
  cache.remember(a, ':');
  const Value copy = a;
  EXPECT_EQ(cache.find_value(copy, ':'), "^0");
  EXPECT_TRUE(cache.find_value(a, '$').empty());          // a symbol of the same text is not it
  EXPECT_TRUE(cache.find_value(same_text, ':').empty());  // found by its text instead
  EXPECT_EQ(cache.find_or_add(wire), "^0");
  cache.reset();
  EXPECT_TRUE(cache.find_value(a, ':').empty());
}

}  // namespace
