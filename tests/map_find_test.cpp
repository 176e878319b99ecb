// SPDX-License-Identifier: Apache-2.0
// Value::find on maps: a scan for maps of up to 8 entries, a hash index built on the first lookup of a
// larger one; the same answers either way, from any thread, in and out of a read document.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "transit/reader.h"
#include "transit/value.h"

namespace {

using transit::Entry;
using transit::kw;
using transit::Value;

// A map of `n` entries whose keys mix kinds that must stay apart: i -> i*10 under an integer
// key, a keyword, a long string and a big integer of the same number.
Value mixed_map(int n) {
  std::vector<Entry> entries;
  for (int i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: entries.emplace_back(Value(i), Value(i * 10)); break;
      case 1: entries.emplace_back(kw("k" + std::to_string(i)), Value(i * 10)); break;
      case 2: entries.emplace_back(Value("a key longer than 13 bytes " + std::to_string(i)), Value(i * 10)); break;
      default: entries.emplace_back(Value::big_integer(std::to_string(i)), Value(i * 10)); break;
    }
  }
  return Value::map(std::move(entries));
}

void expect_finds_every_key_and_nothing_else(const Value& map) {
  for (const Entry& e : map.entries()) {
    const Value* found = map.find(e.first);
    ASSERT_NE(found, nullptr) << transit::to_edn(e.first);
    EXPECT_EQ(found, &e.second);  // the entry itself, not an equal copy
  }
  // Equal numbers of other kinds are other keys.
  EXPECT_EQ(map.find(Value(1)), nullptr);                  // 1 is a keyword's number
  EXPECT_EQ(map.find(Value::big_integer("0")), nullptr);   // 0 is an integer key
  EXPECT_EQ(map.find(Value(0.0)), nullptr);
  EXPECT_EQ(map.find(kw("absent")), nullptr);
  EXPECT_EQ(map.find(Value()), nullptr);
}

TEST(MapFind, SmallAndLargeMapsAnswerAlike) {
  for (int n : {0, 1, 8, 9, 16, 17, 100, 5000}) {
    SCOPED_TRACE(n);
    const Value map = mixed_map(n);
    ASSERT_EQ(map.size(), static_cast<std::size_t>(n));
    expect_finds_every_key_and_nothing_else(map);
    expect_finds_every_key_and_nothing_else(map);  // again, through the index built the first time
  }
}

TEST(MapFind, MapsOfADocumentAndCopiesOfThem) {
  std::string json = "[\"^ \"";
  for (int i = 0; i < 300; ++i) json += ",\"~:key" + std::to_string(i) + "\"," + std::to_string(i);
  json += "]";
  Value copy;
  {
    const Value doc = transit::read(json);
    ASSERT_EQ(doc.size(), 300u);
    EXPECT_EQ(doc.find(kw("key299"))->as_int(), 299);
    copy = doc;  // shares the node, and so the index the document's arena now owns
  }
  EXPECT_EQ(copy.find(kw("key7"))->as_int(), 7);
  EXPECT_EQ(copy.find(kw("key300")), nullptr);
  const Value link = Value::link(Value::map({{"href", Value::uri("http://example.com")}, {"rel", "self"}}));
  EXPECT_EQ(link.find(Value("rel"))->as_string(), "self");
}

TEST(MapFind, ThreadsLookingUpOneSharedMapFirstTimeTogether) {
  // Every thread may be the one that builds the index; they must agree on one and see it whole.
  for (int round = 0; round < 20; ++round) {
    const Value map = mixed_map(400);
    std::atomic<int> ready{0};
    std::atomic<int> misses{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        ready.fetch_add(1);
        while (ready.load() < 4) std::this_thread::yield();
        for (const Entry& e : map.entries())
          if (map.find(e.first) != &e.second) misses.fetch_add(1);
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(misses.load(), 0);
  }
}

}  // namespace
