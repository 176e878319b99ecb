// SPDX-License-Identifier: Apache-2.0
// The write cache's compares behind its hashes. A writer's cache hashes with this process's key
// (KeyedCacheHash), under which two texts that differ in one byte, in their head or in size
// hash apart: a probe compares the 32-bit hash first, and the size, head and body compares
// behind it are reached only by a collision no test can choose. Here the cache is made with
// hashes that collide on purpose (BasicWriteCache's parameter): every text or value one hash,
// texts hashed without their head, and hashes equal in every bit a table of 4096 slots uses
// (one probe chain, the 32-bit hashes apart). Codes are checked against the cache's rule: the
// i-th distinct text since the last reset or wrap has code i, and the 1937th starts again at 0.
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "cache.h"
#include "model/hash.h"
#include "transit/transit.h"
#include "model/value_internal.h"

namespace {

using transit::Value;
using transit::detail::BasicWriteCache;
using transit::detail::cache_code;
using transit::detail::HashKey;
using transit::detail::kCacheSize;
using transit::ValueAccess;

// A fixed key for the hashes below that hash at all.
constexpr HashKey kKey{0x9E3779B97F4A7C15ULL, 0xC2B2AE3D27D4EB4FULL, 0x165667B19E3779F9ULL,
                       0x27D4EB2F165667C5ULL};

// Every text one hash, every value one hash: each probe walks one chain, and each find compares
// every live entry before its own.
struct OneHash {
  std::uint32_t text(std::uint16_t, std::string_view) const noexcept { return 0x5A5A5A5Au; }
  std::uint64_t value(std::uint64_t, std::uint64_t, char) const noexcept { return 0; }
};

// The head left out: texts of one body ("~:name", "~$name", "~#name") collide, and so do values
// of one identity written as different kinds.
struct HeadBlindHash {
  std::uint32_t text(std::uint16_t, std::string_view body) const noexcept {
    return static_cast<std::uint32_t>(transit::detail::keyed_bytes(kKey, body.data(), body.size()));
  }
  std::uint64_t value(std::uint64_t a, std::uint64_t b, char) const noexcept {
    return transit::detail::keyed_pair(kKey, a, b);
  }
};

// The low 16 bits 0 (a table has at most 4096 slots): every text and value lands in one chain,
// where the 32-bit hashes of texts still differ, so that a probe passes over them by the hash.
struct LowBitsHash {
  std::uint32_t text(std::uint16_t head, std::string_view body) const noexcept {
    return static_cast<std::uint32_t>(transit::detail::keyed_bytes(kKey, body.data(), body.size()) ^ head) << 16;
  }
  std::uint64_t value(std::uint64_t a, std::uint64_t b, char kind) const noexcept {
    return transit::detail::keyed_pair(kKey, a, b ^ static_cast<unsigned char>(kind)) << 16;
  }
};

// The cache's rule for codes, on whole texts.
class Model {
 public:
  // The code of `text` if it was added since the last wrap, else "" (and it is added).
  std::string find_or_add(const std::string& text) {
    if (const auto it = codes_.find(text); it != codes_.end()) return std::string(cache_code(it->second));
    if (codes_.size() == kCacheSize) codes_.clear();
    codes_.emplace(text, codes_.size());
    return "";
  }
  void reset() { codes_.clear(); }
  std::size_t size() const { return codes_.size(); }
  const std::map<std::string, std::size_t>& codes() const { return codes_; }

 private:
  std::map<std::string, std::size_t> codes_;
};

// A cache and the model, each text given whole or as head and body (as keywords and tags are).
template <class Hash>
class Checked {
 public:
  // find_or_add of `text` (2 bytes or more) both ways must be the model's.
  ::testing::AssertionResult add(const std::string& text, bool in_parts) {
    const std::string want = model_.find_or_add(text);
    const std::string got(in_parts ? cache_.find_or_add(text[0], text[1], std::string_view(text).substr(2))
                                   : cache_.find_or_add(text));
    if (got == want) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << printable(text) << "\" (" << text.size() << " bytes, "
                                         << (in_parts ? "in parts" : "whole") << "): \"" << got
                                         << "\", the model's \"" << want << "\"";
  }
  // Every text the model holds is found with its code, whole and in parts.
  ::testing::AssertionResult all_found() {
    for (const auto& [text, index] : model_.codes()) {
      const std::string want(cache_code(index));
      const std::string whole(cache_.find_or_add(text));
      const std::string parts(cache_.find_or_add(text[0], text[1], std::string_view(text).substr(2)));
      if (whole != want || parts != want)
        return ::testing::AssertionFailure() << "\"" << printable(text) << "\": \"" << whole << "\" whole, \""
                                             << parts << "\" in parts, the model's \"" << want << "\"";
    }
    return ::testing::AssertionSuccess();
  }
  void reset() {
    cache_.reset();
    model_.reset();
  }
  std::size_t size() const { return model_.size(); }

 private:
  static std::string printable(const std::string& text) {
    std::string out;
    for (const char c : text.substr(0, 48))
      out += (c >= 0x20 && c < 0x7F) ? std::string(1, c) : "\\" + std::to_string(static_cast<unsigned char>(c));
    return text.size() > 48 ? out + "..." : out;
  }
  BasicWriteCache<Hash> cache_;
  Model model_;
};

template <class Hash>
class WriteCacheCollision : public ::testing::Test {};
using CollidingHashes = ::testing::Types<OneHash, HeadBlindHash, LowBitsHash>;
class HashNames {
 public:
  template <class T>
  static std::string GetName(int) {
    if (std::is_same_v<T, OneHash>) return "OneHash";
    if (std::is_same_v<T, HeadBlindHash>) return "HeadBlindHash";
    return "LowBitsHash";
  }
};
TYPED_TEST_SUITE(WriteCacheCollision, CollidingHashes, HashNames);

// Body lengths: every one from 0 to 40 (the compares of 0-3, 4-7, 8-16 and 17-32 bytes and
// memcmp past them), and long ones.
std::vector<std::size_t> body_lengths() {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 40; ++n) lengths.push_back(n);
  for (const std::size_t n : {63, 64, 65, 255, 256, 1000, 4444}) lengths.push_back(n);
  return lengths;
}

// A body of `n` bytes whose bytes differ from their neighbours.
std::string varied(std::size_t n, std::size_t seed = 0) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + seed) % 26);
  return s;
}

// Texts of one body that differ only in their first two bytes: a keyword's, a symbol's and a
// tag's, those bytes swapped, and others; each a text of its own, found again with its code.
TYPED_TEST(WriteCacheCollision, TextsThatDifferOnlyInTheHeadAreOtherTexts) {
  const char* const heads[] = {"~:", "~$", "~#", ":~", "$~", "~~", "~c", "kk", "k~", "^ ", "\x80~", "~\x80"};
  for (const std::size_t n : body_lengths()) {
    Checked<TypeParam> cache;
    const std::string body = varied(n);
    bool in_parts = false;
    for (const char* head : heads) {
      ASSERT_TRUE(cache.add(head + body, in_parts)) << n;
      in_parts = !in_parts;
    }
    ASSERT_EQ(cache.size(), std::size(heads));
    ASSERT_TRUE(cache.all_found()) << n;
  }
}

// Texts that differ only in one byte of the body, at each position of bodies of every length
// from 1 to 40 and at the ends and middle of long ones, to a neighbouring byte, a byte with the
// high bit and a zero byte.
TYPED_TEST(WriteCacheCollision, TextsThatDifferOnlyInOneByteOfTheBodyAreOtherTexts) {
  for (const std::size_t n : body_lengths()) {
    Checked<TypeParam> cache;
    const std::string base = "~:" + varied(n);
    ASSERT_TRUE(cache.add(base, true));
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < n; ++i)
      if (n <= 64 || i < 20 || i + 20 >= n || i % 97 == 0 || i == n / 2) at.push_back(2 + i);
    bool in_parts = false;
    for (const std::size_t i : at)
      for (const char to : {static_cast<char>(base[i] ^ 1), '\xC3', '\0'}) {
        std::string other = base;
        other[i] = to;
        ASSERT_TRUE(cache.add(other, in_parts)) << "body " << n << ", byte " << i - 2;
        in_parts = !in_parts;
      }
    ASSERT_EQ(cache.size(), 1 + 3 * at.size());
    ASSERT_TRUE(cache.all_found()) << n;
  }
}

// Texts that differ only in size: each body a prefix of the next, one byte longer (the longer
// cached first, then the shorter, and the other way), and bodies of one byte repeated.
TYPED_TEST(WriteCacheCollision, TextsThatDifferOnlyInSizeAreOtherTexts) {
  std::vector<std::size_t> lengths = body_lengths();
  const std::string long_body = varied(lengths.back() + 1);
  for (const bool longest_first : {false, true}) {
    Checked<TypeParam> cache;
    for (std::size_t k = 0; k < lengths.size(); ++k) {
      const std::size_t n = longest_first ? lengths[lengths.size() - 1 - k] : lengths[k];
      ASSERT_TRUE(cache.add("~:" + long_body.substr(0, n), k % 2 == 0)) << n;
      ASSERT_TRUE(cache.add("~$" + std::string(n, 'k'), k % 2 == 1)) << n;
      ASSERT_TRUE(cache.add("~$" + std::string(n + 1, 'k'), k % 2 == 0)) << n;  // one byte longer
    }
    ASSERT_TRUE(cache.all_found());
  }
}

// Texts whose hashes collide, of several heads and sizes, some differing only in a byte, added
// through the table's growth from 64 slots (at 32, 64, ... 1024 entries) and two wraps at 1936:
// each add is the model's, every text since the last wrap is found around each growth and
// wrap, and one text added earlier is found after every add.
TYPED_TEST(WriteCacheCollision, ChainsOfCollidingTextsThroughGrowthAndTheWrap) {
  std::thread([] {  // a thread of its own: its spare starts empty, so the table starts at 64
    Checked<TypeParam> cache;
    const char* const heads[] = {"~:", "~$", "~#", "kk"};
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < 2 * kCacheSize + 40; ++i) {
      // One body per 4 texts (heads alone differ), bodies of 0 to 40 bytes differing by the
      // number in them.
      std::string body = varied((i / 4) % 41, i / 4);
      const std::string number = std::to_string(i / 4);
      if (body.size() >= number.size()) body.replace(body.size() / 2 - number.size() / 2, number.size(), number);
      texts.push_back(heads[i % 4] + body);
    }
    // The same texts may come twice (a short body cannot hold its number): the model says
    // which are new.
    std::size_t checks = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      ASSERT_TRUE(cache.add(texts[i], i % 3 == 0)) << i;
      ASSERT_TRUE(cache.add(texts[i / 2], i % 3 == 1)) << i;
      const std::size_t size = cache.size();
      if (size < 4 || (size >= 30 && size <= 34) || (size >= 62 && size <= 66) || size == 128 || size == 129 ||
          size == 512 || size == 513 || size == 1024 || size == 1025 || size >= kCacheSize - 2) {
        ASSERT_TRUE(cache.all_found()) << i;
        ++checks;
      }
    }
    EXPECT_GT(checks, 40u);
    cache.reset();
    ASSERT_TRUE(cache.add(texts[0], true));
    ASSERT_TRUE(cache.all_found());
  }).join();
}

// ---- the identity table ------------------------------------------------------------------------

// Values whose identities (ValueAccess::identity) differ only in their first word, only in their
// second, or not at all (written as another kind), remembered and found in one chain: each is
// found by its own identity and kind and no other.
TYPED_TEST(WriteCacheCollision, ValuesThatDifferOnlyInOneWordOrTheKindAreOtherValues) {
  const std::string base = "k" + varied(11);  // 12 bytes, inline: both words hold characters
  std::vector<Value> values{transit::kw(base)};
  bool only_a = false, only_b = false;
  const auto [base_a, base_b] = ValueAccess::identity(values[0]);
  for (std::size_t i = 0; i < base.size(); ++i) {
    std::string name = base;
    name[i] ^= 1;
    values.push_back(transit::kw(name));
    const auto [a, b] = ValueAccess::identity(values.back());
    only_a |= a != base_a && b == base_b;
    only_b |= a == base_a && b != base_b;
  }
  ASSERT_TRUE(only_a && only_b) << "the names do not reach both words of an inline value";
  // Long values: one text in two nodes (the identity is the node), and a copy of one of them.
  const std::string long_name = varied(100);
  values.push_back(transit::kw(long_name));
  values.push_back(transit::kw(long_name));
  ASSERT_NE(ValueAccess::identity(values[values.size() - 1]), ValueAccess::identity(values[values.size() - 2]));

  BasicWriteCache<TypeParam> cache;
  const char kinds[] = {':', '$', '"'};
  std::map<std::pair<std::size_t, char>, std::string> remembered;  // (value, kind) -> code
  std::size_t added = 0;
  for (std::size_t v = 0; v < values.size(); ++v)
    for (const char kind : kinds) {
      if ((v + static_cast<unsigned char>(kind)) % 3 == 0) continue;  // some pairs never remembered
      ASSERT_TRUE(cache.find_value(values[v], kind).empty()) << v << " " << kind;
      const auto probe = cache.missed(values[v]);
      // Every (value, kind) its own text, as a keyword's "~:" and a string key's text are.
      ASSERT_TRUE(cache.find_or_add('~', kind, std::to_string(v) + "." + std::string(4, kind)).empty());
      cache.remember(values[v], kind, probe);
      remembered[{v, kind}] = std::string(cache_code(added++));
      for (std::size_t w = 0; w < values.size(); ++w)
        for (const char k : kinds) {
          const auto it = remembered.find({w, k});
          const std::string want = it == remembered.end() ? "" : it->second;
          ASSERT_EQ(cache.find_value(values[w], k), want) << "after " << v << " " << kind << ": " << w << " " << k;
          ASSERT_EQ(cache.probe_value(values[w], k).code, want) << w << " " << k;
        }
    }
  // A copy of a long value has its identity.
  const Value copy = values.back();
  for (const char kind : kinds) {
    const auto it = remembered.find({values.size() - 1, kind});
    EXPECT_EQ(cache.find_value(copy, kind), it == remembered.end() ? "" : it->second) << kind;
  }
}

// Values whose identities collide, remembered where find_value's miss stopped and where a probe
// made before a wrap points, through the table's growth and two wraps: each found with its code.
TYPED_TEST(WriteCacheCollision, ChainsOfCollidingValuesThroughGrowthAndTheWrap) {
  std::thread([] {
    BasicWriteCache<TypeParam> cache;
    std::vector<Value> values;
    std::size_t first = 0;  // values[first...] were remembered since the last wrap
    for (std::size_t i = 0; i < 2 * kCacheSize + 40; ++i) {
      const std::string name = "m" + std::to_string(i) + std::string(i % 23, 'x');
      values.push_back(transit::kw(name));
      const char kind = i % 2 == 0 ? ':' : '$';
      ASSERT_TRUE(cache.find_value(values.back(), kind).empty()) << i;
      const auto probe = i % 5 == 0 ? cache.probe_value(values.back(), kind) : cache.missed(values.back());
      ASSERT_TRUE(cache.find_or_add('~', kind, name).empty()) << i;
      cache.remember(values.back(), kind, probe);
      if (i % kCacheSize == 0) first = i;  // that add wrapped (or was the first)
      ASSERT_EQ(cache.find_value(values[(first + i) / 2], (first + i) / 2 % 2 == 0 ? ':' : '$'),
                cache_code((first + i) / 2 - first))
          << i;
      ASSERT_TRUE(cache.find_value(values.back(), kind == ':' ? '$' : ':').empty()) << i;
      const std::size_t live = i - first + 1;
      if (live < 4 || (live >= 30 && live <= 34) || (live >= 62 && live <= 66) || live == 512 || live == 513 ||
          live >= kCacheSize - 2) {
        for (std::size_t j = first; j <= i; ++j)
          ASSERT_EQ(cache.find_value(values[j], j % 2 == 0 ? ':' : '$'), cache_code(j - first)) << i << " " << j;
      }
    }
  }).join();
}

}  // namespace
