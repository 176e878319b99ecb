// SPDX-License-Identifier: Apache-2.0
// The write cache's identity table and generation stamps, and the JSON writer's own string
// output (escapes, base64, numbers), which must give exactly the bytes RapidJSON's Writer gives.
#include <gtest/gtest.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cache.h"
#include "transit/transit.h"

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

}  // namespace
