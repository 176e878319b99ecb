// SPDX-License-Identifier: Apache-2.0
// The write cache's identity table and generation stamps, and the JSON writer's own string
// output (escapes, base64, numbers, separators), which must give exactly the bytes RapidJSON's
// Writer gives, and the encoder's unchecked reads of a Value.
#include <gtest/gtest.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "cache.h"
#include "transit/transit.h"
#include "model/value_internal.h"

namespace {

using transit::Encoding;
using transit::Value;
using transit::detail::WriteCache;

TEST(WriteCacheIdentity, FindsAnInlineKeywordByItsBitsOnlyWhenRemembered) {
  WriteCache cache;
  const Value a = transit::kw("name");
  EXPECT_TRUE(cache.find_value(a, ':').empty());
  EXPECT_TRUE(cache.find_or_add("~:name").empty());  // slot 0
  cache.remember(a, ':');
  EXPECT_EQ(cache.find_value(transit::kw("name"), ':'), "^0");  // another Value, same bits
  EXPECT_TRUE(cache.find_value(transit::sym("name"), '$').empty());
  EXPECT_TRUE(cache.find_value(Value("name"), '"').empty());
  EXPECT_TRUE(cache.find_value(transit::kw("namf"), ':').empty());
  cache.reset();
  EXPECT_TRUE(cache.find_value(a, ':').empty());
}

TEST(WriteCacheIdentity, HoldsEveryRememberedValueUpToTheEntryLimit) {
  // 1936 remembered keywords, then the text cache wraps: both tables start again at ^0.
  WriteCache cache;
  std::vector<Value> keys;
  for (int i = 0; i < 1936; ++i) {
    const std::string name = "k" + std::to_string(i) + "xx";
    keys.push_back(transit::kw(name));
    ASSERT_TRUE(cache.find_or_add("~:" + name).empty());
    cache.remember(keys.back(), ':');
  }
  EXPECT_EQ(cache.find_value(keys[0], ':'), "^0");
  EXPECT_EQ(cache.find_value(keys[1935], ':'), "^[[");  // slot 1935: two base-44 digits 43
  EXPECT_TRUE(cache.find_or_add("~:another").empty());  // wraps: slot 0 of a new generation
  EXPECT_TRUE(cache.find_value(keys[0], ':').empty());
  EXPECT_TRUE(cache.find_value(keys[1935], ':').empty());
}

// The stamp is 32 bits. A slot stamped g must not pass for live when the stamp comes round to g
// again 2^32 resets later: the wrap frees every slot.
TEST(WriteCacheGeneration, WrapFreesEverySlot) {
  WriteCache cache;
  const Value stale = transit::kw("stale");
  EXPECT_TRUE(cache.find_or_add("~:stale").empty());  // stamped 1
  cache.remember(stale, ':');
  cache.set_generation_for_testing(UINT32_MAX);
  cache.reset();  // the stamp wraps
  EXPECT_TRUE(cache.find_value(stale, ':').empty());
  cache.reset();  // stamp 1 again
  EXPECT_TRUE(cache.find_value(stale, ':').empty());
  EXPECT_TRUE(cache.find_or_add("~:stale").empty());
  EXPECT_TRUE(cache.find_or_add("~:fresh").empty());
  EXPECT_EQ(cache.find_or_add("~:stale"), "^0");
  EXPECT_EQ(cache.find_or_add("~:fresh"), "^1");
}

TEST(WriteCacheGeneration, WrapInsideAValueKeepsItsCodes) {
  WriteCache cache;
  cache.set_generation_for_testing(UINT32_MAX - 1);
  cache.reset();  // UINT32_MAX
  const Value k = transit::kw("first");
  EXPECT_TRUE(cache.find_or_add("~:first").empty());
  cache.remember(k, ':');
  EXPECT_EQ(cache.find_value(k, ':'), "^0");
  cache.reset();  // wraps
  EXPECT_TRUE(cache.find_value(k, ':').empty());
  EXPECT_TRUE(cache.find_or_add("~:first").empty());
  EXPECT_EQ(cache.find_or_add("~:first"), "^0");
}

// Whatever path writes "~:name" first, the keyword and the other path agree on its code.
TEST(WriteCacheIdentity, KeywordAndATaggedValueOfTheSameTextShareACode) {
  const Value tagged = Value::tagged(":", Value("name"));
  const Value k = transit::kw("name");
  EXPECT_EQ(transit::write(Value::array({tagged, k, k, tagged})), R"(["~:name","^0","^0","^0"])");
  EXPECT_EQ(transit::write(Value::array({k, tagged, k})), R"(["~:name","^0","^0"])");
}

TEST(WriteCacheIdentity, StringsAreCachedAsMapKeysOnly) {
  const Value key("~abc");  // written "~~abc"
  const Value m = Value::map({{key, key}});
  EXPECT_EQ(transit::write(Value::array({m, m, key})),
            R"([["^ ","~~abc","~~abc"],["^ ","^0","~~abc"],"~~abc"])");
  const Value short_key("abc");
  const Value s = Value::map({{short_key, 1}});
  EXPECT_EQ(transit::write(Value::array({s, s})), R"([["^ ","abc",1],["^ ","abc",1]])");
}

// find_or_add compares texts of 8 to 32 bytes as overlapping words: a text that differs from a
// cached one in any one byte, at any length, is another text, and the same bytes are found.
TEST(WriteCacheText, TellsTextsApartByEveryByteAtEveryLength) {
  for (std::size_t len = 4; len <= 40; ++len) {
    WriteCache cache;
    const std::string base(len, 'k');
    ASSERT_TRUE(cache.find_or_add(base).empty());
    for (std::size_t at = 0; at < len; ++at) {
      std::string other = base;
      other[at] = 'j';
      ASSERT_TRUE(cache.find_or_add(other).empty()) << "length " << len << ", byte " << at;
    }
    EXPECT_EQ(cache.find_or_add(std::string(len, 'k')), "^0") << "length " << len;
    std::string last = base;
    last[len - 1] = 'j';
    EXPECT_EQ(cache.find_or_add(last), transit::detail::cache_code(len)) << "length " << len;
  }
}

// A text is kept as its first two bytes and the rest, however it was given: whole, or as a
// head and a body (a keyword's "~:" and name). Each is found the other way, at every body
// length from 0 to 40 bytes, and texts that differ in the head alone are other texts.
TEST(WriteCacheText, ATextGivenWholeIsFoundInPartsAndTheOtherWay) {
  for (std::size_t len = 0; len <= 40; ++len) {
    WriteCache cache;
    const std::string body(len, 'k');
    ASSERT_TRUE(cache.find_or_add("~:" + body).empty());
    EXPECT_EQ(cache.find_or_add('~', ':', body), "^0") << len;
    ASSERT_TRUE(cache.find_or_add('~', '$', body).empty()) << len;
    EXPECT_EQ(cache.find_or_add("~$" + body), "^1") << len;
    ASSERT_TRUE(cache.find_or_add(':', '~', body).empty()) << len;  // the head's bytes swapped
    ASSERT_TRUE(cache.find_or_add('k', 'k', body).empty()) << len;
    EXPECT_EQ(cache.find_or_add(std::string(len + 2, 'k')), "^3") << len;
    for (std::size_t at = 0; at < len; ++at) {
      std::string other = body;
      other[at] = 'j';
      ASSERT_TRUE(cache.find_or_add('~', ':', other).empty()) << "length " << len << ", byte " << at;
      EXPECT_EQ(cache.find_or_add("~:" + other), transit::detail::cache_code(4 + at)) << len << " " << at;
    }
  }
}

// Equal keys in separate nodes (as a JSON-Verbose read or a user's code makes them) are found by
// their text, not only by identity: the second is a cache code in every encoding that caches.
TEST(WriteCacheText, EqualKeysInSeparateNodesShareACode) {
  const auto key = [] { return Value(std::string("a key too long to be inline")); };
  const Value a = Value::map({{key(), 1}, {transit::kw("a keyword as long as that"), Value("~tilde value")}});
  const Value b = Value::map({{key(), 2}, {transit::kw("a keyword as long as that"), Value("~tilde value")}});
  EXPECT_EQ(transit::write(Value::array({a, b})),
            R"([["^ ","a key too long to be inline",1,"~:a keyword as long as that","~~tilde value"],)"
            R"(["^ ","^0",2,"^1","~~tilde value"]])");
  const std::string msgpack = transit::write(Value::array({a, b}), Encoding::msgpack);
  EXPECT_NE(msgpack.find("\xa2^0"), std::string::npos);
  EXPECT_EQ(transit::read(msgpack, Encoding::msgpack), Value::array({a, b}));
}

// ---- the spare tables: a cache leaves its tables to the next one made on its thread ------------

// Each test runs in a thread of its own, whose spare starts empty.
template <class F>
void on_new_thread(F f) {
  std::thread(f).join();
}

// Grows a cache's text table past 64 slots: 600 strings take 2048 (at most half full).
void fill(WriteCache& cache, std::vector<Value>& keep) {
  for (int i = 0; i < 600; ++i) {
    const std::string name = "key" + std::to_string(i);
    keep.push_back(transit::kw(name));
    ASSERT_TRUE(cache.find_or_add("~:" + name).empty());
    cache.remember(keep.back(), ':');
  }
}

TEST(WriteCacheSpare, TheFirstCacheOfAThreadStartsSmall) {
  on_new_thread([] {
    WriteCache cache;
    EXPECT_EQ(cache.slots_for_testing(), 64u);
  });
}

// A cache grown to 2048 slots (its stamps `generation`, when given), then destroyed: its tables
// become the thread's spare.
void leave_large_tables(std::vector<Value>& keys, std::uint32_t generation = 0) {
  WriteCache large;
  if (generation != 0) large.set_generation_for_testing(generation);
  fill(large, keys);
  ASSERT_EQ(large.slots_for_testing(), 2048u);
}

TEST(WriteCacheSpare, ANewCacheTakesTheTablesTheLastOneLeftWithNothingInThem) {
  on_new_thread([] {
    std::vector<Value> keys;
    leave_large_tables(keys);
    WriteCache next;
    EXPECT_EQ(next.slots_for_testing(), 2048u);  // taken, not grown again from 64
    // Nothing of the first cache's value is found: by identity or by text, the codes start
    // again at ^0, as a new cache's do.
    EXPECT_TRUE(next.find_value(keys[0], ':').empty());
    EXPECT_TRUE(next.find_value(keys[599], ':').empty());
    EXPECT_TRUE(next.find_or_add("~:key599").empty());
    EXPECT_TRUE(next.find_or_add("~:key0").empty());
    EXPECT_EQ(next.find_or_add("~:key599"), "^0");
    EXPECT_EQ(next.find_or_add("~:key0"), "^1");
    // A cache made while `next` holds the tables starts small.
    WriteCache other;
    EXPECT_EQ(other.slots_for_testing(), 64u);
  });
}

TEST(WriteCacheSpare, TheLargerTablesAreKept) {
  on_new_thread([] {
    std::vector<Value> keys;
    {
      WriteCache large;
      fill(large, keys);
      WriteCache small;  // the spare is empty while `large` lives
      EXPECT_EQ(small.slots_for_testing(), 64u);
    }  // small leaves 64 slots, then large leaves 2048 in their place
    WriteCache next;
    EXPECT_EQ(next.slots_for_testing(), 2048u);
    {
      WriteCache small;
    }  // the spare is empty again: small's 64 slots go to it
    {
      WriteCache again;
      EXPECT_EQ(again.slots_for_testing(), 64u);
    }
  });
}

// Stamps left in the tables by their earlier owner are never live for the next, whatever the
// generation the test sets.
TEST(WriteCacheSpare, TakenTablesWrapLikeNewOnes) {
  on_new_thread([] {
    std::vector<Value> keys;
    leave_large_tables(keys, UINT32_MAX);
    WriteCache next;  // takes them and resets: the stamp wraps, every slot freed
    EXPECT_TRUE(next.find_value(keys[7], ':').empty());
    EXPECT_TRUE(next.find_or_add("~:key7").empty());
    EXPECT_EQ(next.find_or_add("~:key7"), "^0");
    next.set_generation_for_testing(2);
    EXPECT_TRUE(next.find_or_add("~:key8").empty());
    EXPECT_EQ(next.find_or_add("~:key8"), "^1");
  });
}

// A cache destroyed after its thread's spare (here a thread_local made before the spare, as a
// Writer in static storage is destroyed after the main thread's thread_locals) frees its own
// tables and does not touch the spare's. Without that guard the tables would be moved into a
// destroyed object and leak: LeakSanitizer reports it in the sanitizer build.
TEST(WriteCacheSpare, ACacheOutlivingItsThreadsSpareFreesItsTables) {
  struct Late {
    std::unique_ptr<WriteCache> cache;
    std::vector<Value> keys;
    ~Late() { cache.reset(); }
  };
  on_new_thread([] {
    thread_local Late late;  // before the spare: destroyed after it
    late.cache = std::make_unique<WriteCache>();
    fill(*late.cache, late.keys);
  });
}

// Fresh Writers, each taking the tables the last one left, write what one Writer reused writes:
// the same bytes and cache codes, in every encoding, past the 1936 codes' wrap; and a small
// value after a large one is written as by a first Writer.
TEST(WriteCacheSpare, FreshWritersWriteWhatOneWriterWrites) {
  std::vector<Value> entries;
  for (int i = 0; i < 2500; ++i) {
    entries.push_back(Value::map({{transit::kw("name" + std::to_string(i % 2100)), i},
                                  {Value("a string key " + std::to_string(i % 300)), transit::kw("k" + std::to_string(i % 50) + "value")}}));
  }
  const Value large = Value::array(entries);
  const Value small = Value::map({{transit::kw("first"), 1}, {Value("second"), transit::kw("first")}});
  for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    on_new_thread([&] {
      const std::string small_first = transit::write(small, e);
      std::string reused;
      transit::StringSink sink(reused);
      transit::Writer writer(sink, e);
      for (const Value* v : {&large, &small, &large}) {
        reused.clear();
        writer.write(*v);
        writer.flush();
        EXPECT_EQ(transit::write(*v, e), reused) << transit::encoding_name(e);
      }
      // The thread keeps the large value's tables; the small value's string stays small.
      const std::string small_after = transit::write(small, e);
      EXPECT_EQ(small_after, small_first) << transit::encoding_name(e);
      EXPECT_LT(small_after.capacity(), 256u) << transit::encoding_name(e);
      EXPECT_EQ(transit::read(transit::write(large, e), e), large);
    });
  }
}

// ---- the cache's codes against a plain model of the rules ------------------------------------

// UTF-16 units of UTF-8 text: one a character, two for one of 4 bytes.
std::size_t utf16_units(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    n += (b & 0xC0) != 0x80 ? (b >= 0xF0 ? 2 : 1) : 0;
  }
  return n;
}

// DESIGN.md's rules written plainly: a cacheable text of 4 or more UTF-16 units seen since the
// last reset is its code, any other is written and takes the next code; after 1936 codes, and
// at every top-level value, the cache starts again at ^0.
class CacheModel {
 public:
  std::string token(const std::string& wire, bool cacheable) {
    if (!cacheable || utf16_units(wire) < 4) return wire;
    if (const auto it = codes_.find(wire); it != codes_.end())
      return std::string(transit::detail::cache_code(it->second));
    if (codes_.size() == transit::detail::kCacheSize) codes_.clear();
    codes_.emplace(wire, codes_.size());
    return wire;
  }
  void reset() { codes_.clear(); }

 private:
  std::map<std::string, std::size_t> codes_;
};

// A text of the model's values: a keyword, a symbol, a string (written "~~..." when it starts
// with "~", "^" or "`"), or, as a value only, a tag (a tagged value whose rep is an empty
// array: ["~#tag", []], {"~#tag": []} in JSON-Verbose).
struct ModelText {
  char kind;  // ':', '$', '"' or '#'
  std::string text;
  Value value() const {
    if (kind == '#') return Value::tagged(text, Value::array({}));
    return kind == ':' ? transit::kw(text) : kind == '$' ? transit::sym(text) : Value(text);
  }
  std::string wire() const {
    if (kind != '"') return std::string("~") + kind + text;
    return text[0] == '~' || text[0] == '^' || text[0] == '`' ? "~" + text : text;
  }
};

// `s` as RapidJSON's Writer writes a string: quoted, with its escapes.
std::string json_quoted(const std::string& s) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return {out.GetString(), out.GetSize()};
}

// Names of every length from 1 to 40 bytes (the stack-built and the table's short copies of 2
// to 4 overlapping moves, and the longer ones copied by memcpy), some of hundreds and thousands
// of bytes (the text buffer grows), as keywords, symbols and string keys; the same text as a
// keyword and as a symbol, and the same keyword as a key and as a value. 2,600 of them: a
// value of 3,000 maps wraps the 1936 codes several times, and a table of 1936 texts has long
// probe chains.
std::vector<ModelText> model_pool() {
  std::vector<ModelText> pool;
  for (int i = 0; i < 2600; ++i) {
    std::string name = "n" + std::to_string(i);
    const std::size_t len = i % 97 == 0 ? 300 + 37 * (i % 113) : 1 + i % 40;
    while (name.size() < len) name += static_cast<char>('a' + (name.size() * 7 + i) % 26);
    name.resize(len);
    const char kind = i % 5 == 3 ? '$' : i % 5 == 4 ? '"' : ':';
    if (kind == '"' && i % 3 == 0) name = "~" + name;  // escaped: "~~n..."
    pool.push_back({kind, name});
  }
  return pool;
}

// `maps` maps of 1 to 8 entries, keys and values drawn from the pool by a fixed sequence; values
// are keywords and symbols (cached as values too), strings (never cached as values) or small
// integers. Each map's keys are distinct.
struct ModelValue {
  std::vector<std::vector<std::pair<ModelText, std::variant<ModelText, int>>>> maps;
  Value value() const {
    std::vector<Value> items;
    for (const auto& m : maps) {
      std::vector<transit::Entry> entries;
      for (const auto& [k, v] : m)
        entries.emplace_back(k.value(), std::holds_alternative<int>(v) ? Value(std::get<int>(v))
                                                                       : std::get<ModelText>(v).value());
      items.push_back(Value::map(std::move(entries)));
    }
    return Value::array(std::move(items));
  }
};

ModelValue model_value(std::size_t maps, std::uint64_t seed) {
  const std::vector<ModelText> pool = model_pool();
  std::uint64_t x = seed;
  const auto next = [&](std::uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  ModelValue mv;
  for (std::size_t m = 0; m < maps; ++m) {
    std::vector<std::pair<ModelText, std::variant<ModelText, int>>> entries;
    std::set<std::string> keys;
    const std::size_t n = 1 + next(8);
    while (entries.size() < n) {
      // Most draws from a few hundred names, so that texts repeat within a generation.
      const ModelText& k = pool[next(4) == 0 ? next(pool.size()) : next(300)];
      if (!keys.insert(k.wire()).second) continue;
      std::variant<ModelText, int> v = static_cast<int>(next(128));
      if (next(2) == 0) v = pool[next(4) == 0 ? next(pool.size()) : next(300)];
      entries.emplace_back(k, v);
    }
    mv.maps.push_back(std::move(entries));
  }
  return mv;
}

// What the Transit JSON writer must write for `mv`, by the model.
std::string model_json(const ModelValue& mv) {
  CacheModel cache;
  const auto quoted = json_quoted;
  std::string out = "[";
  for (std::size_t m = 0; m < mv.maps.size(); ++m) {
    out += m ? ",[\"^ \"" : "[\"^ \"";
    for (const auto& [k, v] : mv.maps[m]) {
      out += "," + quoted(cache.token(k.wire(), true)) + ",";
      if (std::holds_alternative<int>(v)) {
        out += std::to_string(std::get<int>(v));
      } else {
        const ModelText& t = std::get<ModelText>(v);
        const std::string token = quoted(cache.token(t.wire(), t.kind != '"'));
        out += t.kind == '#' ? "[" + token + ",[]]" : token;
      }
    }
    out += "]";
  }
  return out + "]";
}

// The same for JSON-Verbose, which caches nothing: every key, keyword and tag in full.
std::string model_verbose(const ModelValue& mv) {
  const auto quoted = json_quoted;
  std::string out = "[";
  for (std::size_t m = 0; m < mv.maps.size(); ++m) {
    out += m ? ",{" : "{";
    bool first = true;
    for (const auto& [k, v] : mv.maps[m]) {
      out += (first ? "" : ",") + quoted(k.wire()) + ":";
      first = false;
      if (std::holds_alternative<int>(v)) {
        out += std::to_string(std::get<int>(v));
      } else {
        const ModelText& t = std::get<ModelText>(v);
        out += t.kind == '#' ? "{" + quoted(t.wire()) + ":[]}" : quoted(t.wire());
      }
    }
    out += "}";
  }
  return out + "]";
}

// The same for MessagePack: native maps, strings in their smallest str form, fixints.
std::string model_msgpack(const ModelValue& mv) {
  CacheModel cache;
  std::string out;
  const auto header = [&](std::size_t n, unsigned fix, std::size_t fix_limit, unsigned sized16) {
    if (n < fix_limit) {
      out += static_cast<char>(fix | n);
    } else {
      out += static_cast<char>(sized16);
      out += static_cast<char>(n >> 8);
      out += static_cast<char>(n & 0xff);
    }
  };
  const auto str = [&](const std::string& s) {
    if (s.size() < 32) {
      out += static_cast<char>(0xa0 | s.size());
    } else if (s.size() <= 0xff) {
      out += static_cast<char>(0xd9);
      out += static_cast<char>(s.size());
    } else if (s.size() <= 0xffff) {
      header(s.size(), 0, 0, 0xda);
    } else {
      out += static_cast<char>(0xdb);
      for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>(s.size() >> shift);
    }
    out += s;
  };
  header(mv.maps.size(), 0x90, 16, 0xdc);
  for (const auto& m : mv.maps) {
    header(m.size(), 0x80, 16, 0xde);
    for (const auto& [k, v] : m) {
      str(cache.token(k.wire(), true));
      if (std::holds_alternative<int>(v)) {
        out += static_cast<char>(std::get<int>(v));
      } else {
        const ModelText& t = std::get<ModelText>(v);
        if (t.kind == '#') out += static_cast<char>(0x92);
        str(cache.token(t.wire(), t.kind != '"'));
        if (t.kind == '#') out += static_cast<char>(0x90);
      }
    }
  }
  return out;
}

// Each write on a thread of its own, whose tables grow from 64 slots as the value is written.
TEST(WriteCacheModel, CodesAreTheModelsThroughSeveralWraps) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const ModelValue mv = model_value(3000, seed);
    const Value v = mv.value();
    on_new_thread([&] { EXPECT_EQ(transit::write(v), model_json(mv)) << seed; });
    on_new_thread([&] { EXPECT_EQ(transit::write(v, Encoding::msgpack), model_msgpack(mv)) << seed; });
    on_new_thread([&] { EXPECT_EQ(transit::write(v, Encoding::json_verbose), model_verbose(mv)) << seed; });
  }
}

// The same texts as separate nodes of equal text (as a read or a user's code makes them) and as
// copies of one another: found by text where identity cannot, with the same codes.
TEST(WriteCacheModel, EqualTextsInSeparateValuesShareTheModelsCodes) {
  const ModelValue mv = model_value(1500, 7);
  const Value v = mv.value();
  const Value copy = transit::read(transit::write(v, Encoding::json_verbose), Encoding::json_verbose);
  ASSERT_EQ(copy, v);
  EXPECT_EQ(transit::write(copy), model_json(mv));
  EXPECT_EQ(transit::write(copy, Encoding::msgpack), model_msgpack(mv));
}

// One writer, many top-level values: each starts again at ^0, however full the last one left
// the cache (the stream `transit convert` writes).
TEST(WriteCacheModel, EveryTopLevelValueStartsAgain) {
  for (const Encoding e : {Encoding::json, Encoding::msgpack, Encoding::json_verbose}) {
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, e);
    std::string expected;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const ModelValue mv = model_value(seed % 4 == 0 ? 400 : 3, seed);
      writer.write(mv.value());
      expected += e == Encoding::json ? model_json(mv) : e == Encoding::msgpack ? model_msgpack(mv) : model_verbose(mv);
    }
    writer.flush();
    EXPECT_EQ(out, expected) << transit::encoding_name(e);
  }
}

// The texts at the edges of the cache's and the writers' rules, each as a key (but tags) and as
// a value: keywords and symbols of every length from 1 to 70 bytes, around MessagePack's str8,
// str16 and str32 forms (a text of 31/32, 255/256 and 65,535/65,536 bytes with its "~:") and of
// 4,444 bytes; names of 1 to 4 characters of 2, 3 and 4 bytes around the 4 UTF-16 units a
// cached text needs; names with every byte JSON escapes at the start, middle and end; strings
// escaped with "~" (a leading "~", "^" or "`"); tags of 1, 2 and many characters.
std::vector<ModelText> edge_pool() {
  std::vector<ModelText> pool;
  std::vector<std::string> names;
  for (std::size_t len = 1; len <= 70; ++len) {
    std::string name = "e" + std::to_string(len);
    while (name.size() < len) name += static_cast<char>('a' + name.size() % 26);
    names.push_back(name.substr(0, len));
  }
  for (const std::size_t len : {253, 254, 255, 256, 4444, 65533, 65534})
    names.push_back(std::string(len - 1, 'L') + std::to_string(len % 10));
  for (const char* name : {"\u00e9", "\u00e9a", "\u00e9\u00e9", "\u20ac", "\u20aca", "\u20ac\u20ac",
                           "\u20ac\u20ac\u20ac", "\U0001F600", "\U0001F600\U0001F600", "a\u00e9", "\u00e9\u00e9\u00e9\u00e9"})
    names.push_back(name);  // UTF-8: 2, 3 and 4 bytes a character
  for (const char c : std::string("\"\\\n\x01\x1f\t", 6))
    for (const std::size_t len : {1, 3, 9, 17, 40})
      for (const std::size_t at : {std::size_t{0}, len / 2, len - 1}) {
        std::string name(len, 'q');
        name[at] = c;
        names.push_back(name);
      }
  for (const std::string& name : names) {
    pool.push_back({':', name});
    pool.push_back({'$', name});
    pool.push_back({'"', name});
    pool.push_back({'"', "~" + name});
  }
  for (const char* text : {"^x", "`ab", "^\u00e9", "~\u20ac"}) pool.push_back({'"', text});
  for (const std::string& tag : std::vector<std::string>{"x", "ab", "abc", "\u00e9", "\u00e9\u00e9",
                                                         "a.long/tag-of-30-characters-xx",
                                                         "a.long/tag-of-31-characters-xxx", std::string(300, 'T')})
    pool.push_back({'#', tag});
  return pool;
}

// Each text of the edge pool as a key and as a value (tags as values only), every one twice in
// one top-level value, so that the second is its cache code wherever it is cacheable.
ModelValue edge_value() {
  const std::vector<ModelText> pool = edge_pool();
  ModelValue mv;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (pool[i].kind != '#') mv.maps.push_back({{pool[i], pool[(i * 7 + 3) % pool.size()]}});
      mv.maps.push_back({{ModelText{':', "v"}, pool[i]}});
    }
  return mv;
}

TEST(WriteCacheModel, EdgeTextsAreTheModelsInEveryEncoding) {
  const ModelValue mv = edge_value();
  const Value v = mv.value();
  on_new_thread([&] { EXPECT_EQ(transit::write(v), model_json(mv)); });
  on_new_thread([&] { EXPECT_EQ(transit::write(v, Encoding::msgpack), model_msgpack(mv)); });
  on_new_thread([&] {
    const std::string verbose = transit::write(v, Encoding::json_verbose);
    EXPECT_EQ(verbose, model_verbose(mv));
    EXPECT_EQ(verbose.find("\"^"), std::string::npos);  // JSON-Verbose caches nothing
  });
  // And read back, from every encoding.
  for (const Encoding e : {Encoding::json, Encoding::msgpack, Encoding::json_verbose})
    EXPECT_EQ(transit::read(transit::write(v, e), e), v) << transit::encoding_name(e);
}

// A value of `distinct` texts as keys, one a map, then its first and last few again: around
// 1936 (44^2) the cache starts again at ^0, and the texts before the wrap are new again after
// it. Keywords, symbols and string keys in turn, their names 2 to 40 bytes.
TEST(WriteCacheModel, KeysAroundTheWrapAreTheModels) {
  for (const std::size_t distinct : {1934, 1935, 1936, 1937, 1938, 3871, 3872, 3873}) {
    std::vector<ModelText> texts;
    for (std::size_t i = 0; i < distinct; ++i) {
      std::string name = "w" + std::to_string(i);
      name.resize(std::max<std::size_t>(name.size(), 2 + i % 39), 'z');
      texts.push_back({i % 3 == 0 ? ':' : i % 3 == 1 ? '$' : '"', name});
    }
    ModelValue mv;
    const auto add = [&](std::size_t i) { mv.maps.push_back({{texts[i], texts[(i + 1) % distinct]}}); };
    for (std::size_t i = 0; i < distinct; ++i) add(i);
    for (std::size_t i = 0; i < 5; ++i) add(i);
    for (std::size_t i = distinct - 5; i < distinct; ++i) add(i);
    const Value v = mv.value();
    on_new_thread([&] { EXPECT_EQ(transit::write(v), model_json(mv)) << distinct; });
    on_new_thread([&] { EXPECT_EQ(transit::write(v, Encoding::msgpack), model_msgpack(mv)) << distinct; });
    on_new_thread([&] { EXPECT_EQ(transit::write(v, Encoding::json_verbose), model_verbose(mv)) << distinct; });
  }
}

// One text reached by two paths shares one code: a character key is written as the text
// "~c" + its UTF-8, built whole, and a tagged value of tag "c" as "~" + "c" + its rep.
TEST(WriteCacheText, ATextBuiltWholeAndOneWrittenInPartsShareACode) {
  const std::string smile = "\U0001F600";
  const Value whole = Value::character(U'\U0001F600');
  const Value parts = Value::tagged("c", Value(smile));
  const Value v = Value::array({Value::map({{whole, 1}}), Value::map({{parts, 2}}), Value::map({{whole, 3}})});
  EXPECT_EQ(transit::write(v), "[[\"^ \",\"~c" + smile + "\",1],[\"^ \",\"^0\",2],[\"^ \",\"^0\",3]]");
  const Value w = Value::array({Value::map({{parts, 1}}), Value::map({{whole, 2}})});
  EXPECT_EQ(transit::write(w), "[[\"^ \",\"~c" + smile + "\",1],[\"^ \",\"^0\",2]]");
  const std::string packed = transit::write(w, Encoding::msgpack);
  EXPECT_NE(packed.find("\xa2^0"), std::string::npos);
}

// The text table through its growth from 64 slots and the wrap: after each text added, every
// text added since the last wrap is found with its code.
TEST(WriteCacheText, EveryTextIsFoundAfterEachAddThroughGrowthAndTheWrap) {
  on_new_thread([] {
    WriteCache cache;
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < 2 * transit::detail::kCacheSize + 10; ++i) {
      std::string text = "~:t" + std::to_string(i);
      text.resize(4 + (i * 7) % 61, static_cast<char>('a' + i % 26));
      text += std::to_string(i);
      ASSERT_TRUE(cache.find_or_add(text).empty()) << i;
      if (texts.size() == transit::detail::kCacheSize) texts.clear();  // that add wrapped
      texts.push_back(text);
      for (std::size_t j = 0; j < texts.size(); ++j)
        ASSERT_EQ(cache.find_or_add(texts[j]), transit::detail::cache_code(j)) << i << " " << j;
    }
  });
}

// The encoder's miss: find_value misses, the text is added, and the value is remembered where
// that find_value's probe stopped (WriteCache::missed); after each, every value remembered
// since the last wrap is found by identity, through the table's growth from 64 slots and a wrap.
TEST(WriteCacheIdentity, AValueIsRememberedWhereFindValueMissedIt) {
  on_new_thread([] {
    WriteCache cache;
    std::vector<Value> values;
    std::size_t first = 0;  // values[first...] were remembered since the last wrap
    for (std::size_t i = 0; i < transit::detail::kCacheSize + 200; ++i) {
      const std::string name = "m" + std::to_string(i) + std::string(i % 23, 'x');
      values.push_back(transit::kw(name));
      ASSERT_TRUE(cache.find_value(values.back(), ':').empty()) << i;
      const auto probe = cache.missed(values.back());
      ASSERT_TRUE(cache.find_or_add("~:" + name).empty()) << i;
      cache.remember(values.back(), ':', probe);
      if (i == transit::detail::kCacheSize) first = i;  // that add wrapped
      for (std::size_t j = first; j <= i; ++j)
        ASSERT_EQ(cache.find_value(values[j], ':'), transit::detail::cache_code(j - first)) << i << " " << j;
    }
  });
}

// The 1937th text wraps the cache while its value's identity probe was made before the wrap:
// the value is remembered where a probe after the wrap looks, and found by identity there.
TEST(WriteCacheIdentity, AValueRememberedAcrossTheWrapIsFoundByIdentity) {
  WriteCache cache;
  std::vector<Value> keep;
  for (int round = 0; round < 24; ++round) {
    for (std::size_t i = 0; i < transit::detail::kCacheSize; ++i) {
      const std::string name = "r" + std::to_string(round) + "k" + std::to_string(i);
      keep.push_back(transit::kw(name));
      const auto probe = cache.probe_value(keep.back(), ':');
      ASSERT_TRUE(probe.code.empty());
      ASSERT_TRUE(cache.find_or_add("~:" + name).empty());
      cache.remember(keep.back(), ':', probe);
      ASSERT_EQ(cache.find_value(keep.back(), ':'), transit::detail::cache_code(i)) << round << " " << i;
    }
  }
}

// ---- the JSON writer's strings -----------------------------------------------------------------

std::string rapidjson_array_of(const std::string& s) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  writer.StartArray();
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  writer.EndArray();
  return {out.GetString(), out.GetSize()};
}

// Calls f(s, where) for each byte that RapidJSON escapes or that the 8-byte scan must not
// mistake (0x1F/0x20, 0x21/0x23 around '"', 0x5B/0x5D around '\\', 0x7F, 0x80, 0xFF) at every
// offset of strings of 'a' up to 24 bytes long, so that every path through the word-at-a-time
// loop, the tail and the inline copies is taken.
template <class F>
void for_each_special_string(F f) {
  const std::string specials = std::string("\0\x01\b\t\n\f\r\x1f \"!#\\[]\x7f", 16) + "\x80\xff";
  for (std::size_t len = 1; len <= 24; ++len)
    for (std::size_t at = 0; at < len; ++at)
      for (const char c : specials) {
        std::string s(len, 'a');
        s[at] = c;
        f(s, "length " + std::to_string(len) + ", byte " + std::to_string(int(c)) + " at " + std::to_string(at));
      }
}

TEST(JsonWriterStrings, EscapesExactlyAsRapidJsonAtEveryPosition) {
  for_each_special_string([](const std::string& s, const std::string& where) {
    ASSERT_EQ(transit::write(Value::array({Value(s)}), Encoding::json_verbose), rapidjson_array_of(s)) << where;
  });
}

// The same for text written after a "~" and a tag (keywords and symbols, strings escaped with
// "~", which take the prefixed path's inline copy of 4 to 16 bytes), in both JSON modes.
TEST(JsonWriterStrings, PrefixedTextEscapesExactlyAsRapidJsonAtEveryPosition) {
  const auto item = [](const std::string& text) {  // RapidJSON's string, without the [ ]
    const std::string array = rapidjson_array_of(text);
    return array.substr(1, array.size() - 2);
  };
  for_each_special_string([&](const std::string& s, const std::string& where) {
    const Value values = Value::array({transit::kw(s), transit::sym(s), Value("~" + s)});
    const std::string want = "[" + item("~:" + s) + "," + item("~$" + s) + "," + item("~~" + s) + "]";
    for (const Encoding e : {Encoding::json, Encoding::json_verbose})
      ASSERT_EQ(transit::write(values, e), want) << where << ", " << transit::encoding_name(e);
  });
}

TEST(JsonWriterStrings, EveryByteValueInOneString) {
  std::string s;
  for (int c = 1; c < 256; ++c) s += static_cast<char>(c);
  s += std::string(1, '\0');
  EXPECT_EQ(transit::write(Value::array({Value(s)}), Encoding::json_verbose), rapidjson_array_of(s));
}

TEST(JsonWriterStrings, PrefixedTextIsEscapedWithItsPrefix) {
  EXPECT_EQ(transit::write(Value::array({transit::kw("a\"b\\c\n")}), Encoding::json_verbose),
            R"(["~:a\"b\\c\n"])");
  EXPECT_EQ(transit::write(Value::array({Value("~x\t")}), Encoding::json), R"(["~~x\t"])");
  EXPECT_EQ(transit::write(Value::array({Value("^")}), Encoding::json_verbose), R"(["~^"])");
  // A tag is any character, so the prefix itself may need escaping. The fuzzer's input: a
  // MessagePack map whose key "~\"~" reads as the tag `"` around "~", which JSON wrote as a
  // bare `"~"~"`.
  const Value odd_tags = Value::map({{Value::tagged("\"", Value("~")), 1},
                                     {Value::tagged("\\", Value("x")), 2},
                                     {Value::tagged("\n", Value("y")), 3}});
  for (Encoding encoding : {Encoding::json, Encoding::json_verbose}) {
    const std::string text = transit::write(odd_tags, encoding);
    EXPECT_EQ(transit::read(text, encoding), odd_tags) << text;
  }
  EXPECT_EQ(transit::write(Value::array({Value::tagged("\"", Value("~"))}), Encoding::json_verbose),
            R"(["~\"~"])");
  const std::string fuzzed = "\x83\xa3~:a\x01\xa3~:b\x02\xa3~\"~~";
  const Value read = transit::read(fuzzed, Encoding::msgpack);
  EXPECT_EQ(transit::read(transit::write(read, Encoding::json), Encoding::json), read);
}

TEST(JsonWriterStrings, BytesAreBase64InPlace) {
  std::vector<std::byte> data;
  for (int i = 0; i < 7; ++i) data.push_back(static_cast<std::byte>(0xF0 + i));
  const Value v = Value::bytes(data);
  // 0xF0..0xF6 in base64.
  EXPECT_EQ(transit::write(Value::array({v}), Encoding::json), R"(["~b8PHy8/T19g=="])");
  EXPECT_EQ(transit::write(Value::array({Value::bytes(std::string_view{})}), Encoding::json_verbose), R"(["~b"])");
  // As a map key it is cacheable, and so still goes through the cache.
  const Value m = Value::map({{v, 1}});
  EXPECT_EQ(transit::write(Value::array({m, m})),
            R"([["^ ","~b8PHy8/T19g==",1],["^ ","^0",1]])");
}

// ---- the JSON writer's structure -----------------------------------------------------------------

// Writes `v` (null, booleans, integers within 2^53, strings with no Transit prefix, arrays and
// maps with string keys: what JSON-Verbose writes as plain JSON) with RapidJSON's Writer.
void rapidjson_emit(const Value& v, rapidjson::Writer<rapidjson::StringBuffer>& w) {
  switch (v.kind()) {
    case transit::Kind::null: w.Null(); break;
    case transit::Kind::boolean: w.Bool(v.as_bool()); break;
    case transit::Kind::integer: w.Int64(v.as_int()); break;
    case transit::Kind::string: {
      const std::string_view s = v.as_string();
      w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
      break;
    }
    case transit::Kind::array:
      w.StartArray();
      for (const Value& item : v.items()) rapidjson_emit(item, w);
      w.EndArray();
      break;
    case transit::Kind::map:
      w.StartObject();
      for (const auto& [key, value] : v.entries()) {
        const std::string_view k = key.as_string();
        w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
        rapidjson_emit(value, w);
      }
      w.EndObject();
      break;
    default: FAIL() << "not plain JSON";
  }
}

// A nested value of every plain JSON kind, `depth` levels deep, its shape drawn from `seed`.
Value plain_value(std::uint32_t& seed, int depth) {
  seed = seed * 1664525u + 1013904223u;
  const std::uint32_t r = seed >> 8;
  const int choice = depth == 0 ? static_cast<int>(r % 4) : static_cast<int>(r % 6);
  const auto count = [&] { return static_cast<int>((seed >> 3) % 4); };
  switch (choice) {
    case 0: return Value(nullptr);
    case 1: return Value((r & 1) != 0);
    case 2: {
      static constexpr std::int64_t kInts[] = {0, 7, -1, 4294967295, 4294967296, -4294967296,
                                               9007199254740991, -9007199254740991, 123456789};
      return Value(kInts[r % std::size(kInts)]);
    }
    case 3: return Value(std::string(r % 20, static_cast<char>('a' + r % 26)) + "\"\n");
    case 4: {
      std::vector<Value> items;
      for (int i = count(); i > 0; --i) items.push_back(plain_value(seed, depth - 1));
      return Value::array(std::move(items));
    }
    default: {
      std::vector<transit::Entry> entries;
      for (int i = count(); i > 0; --i)
        entries.emplace_back(Value("k" + std::to_string(i)), plain_value(seed, depth - 1));
      return Value::map(std::move(entries));
    }
  }
}

TEST(JsonWriterStructure, SeparatorsAreRapidJsonsAtEveryNesting) {
  std::uint32_t seed = 11;
  for (int i = 0; i < 2000; ++i) {
    Value v = plain_value(seed, 5);
    if (!v.is(transit::Kind::array) && !v.is(transit::Kind::map)) v = Value::array({v});
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> writer(out);
    rapidjson_emit(v, writer);
    ASSERT_EQ(transit::write(v, Encoding::json_verbose), std::string(out.GetString(), out.GetSize()))
        << to_edn(v);
  }
}

TEST(JsonWriterStructure, TopLevelValuesFollowOneAnotherWithNoSeparator) {
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::json_verbose);
  writer.write(Value::array({}));
  writer.write(Value::map({{Value("a"), Value::array({1, Value::map({})})}}));
  writer.write(Value(-5));
  writer.write(Value::array({true, false, nullptr}));
  writer.flush();
  EXPECT_EQ(out, R"([]{"a":[1,{}]}{"~#'":-5}[true,false,null])");
  // And in JSON, where maps are arrays and quoted scalars are tagged arrays.
  EXPECT_EQ(transit::write(Value::array({Value::map({{Value("a"), Value::array({})}}), -9223372036854775807LL - 1})),
            R"([["^ ","a",[]],"~i-9223372036854775808"])");
}

// ---- the encoder's unchecked reads -----------------------------------------------------------

// ValueAccess::text, items and entries read the representation directly: they must agree with
// the checked accessors for inline and heap values of every kind they serve, built or read
// (a reader's values live in an arena).
TEST(ValueAccessUnchecked, AgreeWithTheCheckedAccessors) {
  using transit::ValueAccess;
  const std::string long_text(40, 'x');
  std::vector<Value> texts;
  for (const std::string& s : {std::string("ab"), long_text}) {
    texts.push_back(Value(s));
    texts.push_back(transit::kw(s));
    texts.push_back(transit::sym(s));
    texts.push_back(Value::uri(s));
    texts.push_back(Value::big_decimal("1." + std::string(s.size(), '5')));
    texts.push_back(Value::big_integer("1" + std::string(s.size(), '0')));
  }
  const Value seq = Value::array(texts);
  const Value map = Value::map({{Value("a"), seq}, {transit::kw(long_text), Value(long_text)}});
  const Value doc = Value::array({seq, Value::list(texts), Value::set(texts), map,
                                  Value::link("http://x", "rel"), Value::array({}), Value::map({})});
  const Value read = transit::read(transit::write(doc), Encoding::json);
  ASSERT_EQ(read, doc);
  for (const Value* top : {&doc, &read}) {
    for (const Value& container : top->items()) {
      if (container.is(transit::Kind::map) || container.is(transit::Kind::link)) {
        const auto entries = ValueAccess::entries(container);
        ASSERT_EQ(entries.data(), container.entries().data());
        ASSERT_EQ(entries.size(), container.entries().size());
        for (const auto& [k, v] : entries) ASSERT_EQ(ValueAccess::text(k), k.as_string());
        continue;
      }
      const auto items = ValueAccess::items(container);
      ASSERT_EQ(items.data(), container.items().data());
      ASSERT_EQ(items.size(), container.items().size());
      for (const Value& t : items) {
        ASSERT_EQ(ValueAccess::text(t).data(), t.as_string().data());
        ASSERT_EQ(ValueAccess::text(t).size(), t.as_string().size());
      }
    }
  }
  const Value bytes = Value::bytes(std::string(100, 'b'));
  const auto b = bytes.as_bytes();
  EXPECT_EQ(ValueAccess::text(bytes), std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  EXPECT_EQ(ValueAccess::int_bits(Value(-42)), -42);
  EXPECT_EQ(ValueAccess::int_bits(Value::instant(1234)), 1234);
  EXPECT_EQ(ValueAccess::double_bits(Value(2.5)), 2.5);
}

}  // namespace
