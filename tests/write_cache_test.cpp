// SPDX-License-Identifier: Apache-2.0
// The write cache's identity table and generation stamps, and the JSON writer's own string
// output (escapes, base64, numbers, separators), which must give exactly the bytes RapidJSON's
// Writer gives, and the encoder's unchecked reads of a Value.
#include <gtest/gtest.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cache.h"
#include "transit/transit.h"
#include "value_internal.h"

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

// ---- the JSON writer's strings -----------------------------------------------------------------

std::string rapidjson_array_of(const std::string& s) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  writer.StartArray();
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  writer.EndArray();
  return {out.GetString(), out.GetSize()};
}

TEST(JsonWriterStrings, EscapesExactlyAsRapidJsonAtEveryPosition) {
  // Each byte that RapidJSON escapes or that the 8-byte scan must not mistake (0x1F/0x20,
  // 0x21/0x23 around '"', 0x5B/0x5D around '\\', 0x7F, 0x80, 0xFF), at every offset of strings
  // up to 24 bytes long, so every path through the word-at-a-time loop and the tail is taken.
  const std::string specials = std::string("\0\x01\b\t\n\f\r\x1f \"!#\\[]\x7f", 16) + "\x80\xff";
  for (std::size_t len = 1; len <= 24; ++len)
    for (std::size_t at = 0; at < len; ++at)
      for (const char c : specials) {
        std::string s(len, 'a');
        s[at] = c;
        const std::string json = transit::write(Value::array({Value(s)}), Encoding::json_verbose);
        ASSERT_EQ(json, rapidjson_array_of(s)) << "length " << len << ", byte " << int(c) << " at " << at;
      }
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
