// SPDX-License-Identifier: Apache-2.0
// One test per wire rule of DESIGN.md ("Wire rules where the peers disagree" and the Transit
// spec they refine), for JSON and JSON-Verbose: the exact bytes written and the value read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cache.h"
#include "support/step_source.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Entry;
using transit::Kind;
using transit::kw;
using transit::sym;
using transit::Uuid;
using transit::Value;

std::string json(const Value& v) { return transit::write(v, Encoding::json); }
std::string verbose(const Value& v) { return transit::write(v, Encoding::json_verbose); }

// `v` is written as exactly `json_text` and `verbose_text`, and both read back as `v`.
void expect_wire(const Value& v, std::string_view json_text, std::string_view verbose_text) {
  EXPECT_EQ(json(v), json_text);
  EXPECT_EQ(verbose(v), verbose_text);
  EXPECT_EQ(transit::read(json_text), v) << json_text;
  EXPECT_EQ(transit::read(verbose_text), v) << verbose_text;
}

// The same bytes in both encodings (no maps, no instants, nothing cached).
void expect_wire(const Value& v, std::string_view text) { expect_wire(v, text, text); }

// The text reads as `expected` and is written back byte for byte.
void expect_identical_round_trip(std::string_view text, const Value& expected, Encoding enc) {
  const Value v = transit::read(text);
  EXPECT_EQ(v, expected) << text;
  EXPECT_EQ(transit::write(v, enc), text);
}

// ---- escapes -------------------------------------------------------------------------------------

TEST(JsonRules, StringsStartingWithTildeCaretOrBackquoteAreEscaped) {
  expect_wire(Value::array({"~", "~a", "^", "^a", "`", "`a", "^ ", "a~", "a^", "plain", ""}),
              R"(["~~","~~a","~^","~^a","~`","~`a","~^ ","a~","a^","plain",""])");
  // "^ " as the first item of an array would make it a map; escaped, it stays a string.
  expect_wire(Value::array({"^ ", 1}), R"(["~^ ",1])");
  expect_wire(Value::map({{"^ ", "~x"}, {"~k", "^v"}}), R"(["^ ","~^ ","~~x","~~k","~^v"])",
              R"({"~^ ":"~~x","~~k":"~^v"})");
  expect_wire(Value("~tilde"), R"(["~#'","~~tilde"])", R"({"~#'":"~~tilde"})");
}

TEST(JsonRules, JsonStringEscapesAndRawUtf8) {
  expect_wire(Value::array({"q\"b\\s/\n\t\x01", "é詹😀"}),
              "[\"q\\\"b\\\\s/\\n\\t\\u0001\",\"é詹😀\"]");
}

// ---- what is cached ------------------------------------------------------------------------------

TEST(JsonRules, KeywordsSymbolsAndTagsAreCachedAnywhereFromFourUnits) {
  expect_wire(Value::array({kw("ab"), kw("ab"), sym("cd"), sym("cd"), kw("a"), kw("a"), sym("b"),
                            sym("b")}),
              R"(["~:ab","^0","~$cd","^1","~:a","~:a","~$b","~$b"])",
              R"(["~:ab","~:ab","~$cd","~$cd","~:a","~:a","~$b","~$b"])");
  expect_wire(Value::array({Value::set({1}), Value::set({2}), Value::list({}), Value::list({})}),
              R"([["~#set",[1]],["^0",[2]],["~#list",[]],["^1",[]]])",
              R"([{"~#set":[1]},{"~#set":[2]},{"~#list":[]},{"~#list":[]}])");
  // Keywords are cached as values inside maps too, and share the code space with keys.
  expect_wire(Value::array({Value::map({{"key1", kw("val1")}}), Value::map({{"key1", kw("val1")}})}),
              R"([["^ ","key1","~:val1"],["^ ","^0","^1"]])",
              R"([{"key1":"~:val1"},{"key1":"~:val1"}])");
}

TEST(JsonRules, PlainStringValuesAndOtherScalarsAreNotCached) {
  expect_wire(Value::array({"abcdef", "abcdef", Value::uri("http://x"), Value::uri("http://x"),
                            Value::big_integer("12345"), Value::big_integer("12345"),
                            Value::uuid({1, 2}), Value::uuid({1, 2})}),
              R"(["abcdef","abcdef","~rhttp://x","~rhttp://x","~n12345","~n12345",)"
              R"("~u00000000-0000-0001-0000-000000000002","~u00000000-0000-0001-0000-000000000002"])");
}

TEST(JsonRules, KeysOfStringableMapsAreCached) {
  expect_wire(Value::array({Value::map({{"abcd", "abcd"}, {"abc", 1}, {Value::uri("http://x"), 2}}),
                            Value::map({{"abcd", "abcd"}, {"abc", 1}, {Value::uri("http://x"), 2}})}),
              R"([["^ ","abcd","abcd","abc",1,"~rhttp://x",2],["^ ","^0","abcd","abc",1,"^1",2]])",
              R"([{"abcd":"abcd","abc":1,"~rhttp://x":2},{"abcd":"abcd","abc":1,"~rhttp://x":2}])");
}

TEST(JsonRules, CmapKeysAreNotCachedAsKeys) {
  // "abcd" as a cmap key is written as a value, so it takes no slot: the stringable map after
  // it writes "abcd" in full and caches it as ^1 (^0 is the tag ~#cmap).
  const Value cmap = Value::map({{Value::array({1}), 1}, {"abcd", 2}});
  expect_wire(Value::array({cmap, Value::map({{"abcd", 3}}), Value::map({{"abcd", 4}})}),
              R"([["~#cmap",[[1],1,"abcd",2]],["^ ","abcd",3],["^ ","^1",4]])",
              R"([{"~#cmap":[[1],1,"abcd",2]},{"abcd":3},{"abcd":4}])");
}

TEST(JsonRules, CacheCountsUtf16CodeUnits) {
  // Each map is written twice; a cached key comes back as ^0 the second time.
  auto twice = [](std::string_view key) {
    return Value::array({Value::map({{key, 1}}), Value::map({{key, 2}})});
  };
  auto uncached = [](std::string_view key) {
    return "[[\"^ \",\"" + std::string(key) + "\",1],[\"^ \",\"" + std::string(key) + "\",2]]";
  };
  auto cached = [](std::string_view key) {
    return "[[\"^ \",\"" + std::string(key) + "\",1],[\"^ \",\"^0\",2]]";
  };
  auto verbose_text = [](std::string_view key) {
    return "[{\"" + std::string(key) + "\":1},{\"" + std::string(key) + "\":2}]";
  };
  struct Case {
    const char* key;
    bool cached;
  };
  const Case cases[] = {
      {"abc", false},
      {"abcd", true},
      {"éé", false},         // 4 bytes, 2 units
      {"ééé", false},        // 6 bytes, 3 units
      {"€€€", false},        // 9 bytes, 3 units
      {"éééé", true},        // 8 bytes, 4 units
      {"a😀", false},        // 5 bytes, 3 units
      {"ab😀", true},        // 6 bytes, 4 units
      {"😀😀", true},        // 2 code points, 8 bytes, 4 units
      {"詹姆斯", false},     // 9 bytes, 3 units
      {"詹姆斯詹", true},    // 12 bytes, 4 units
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    const std::string text = c.cached ? cached(c.key) : uncached(c.key);
    expect_wire(twice(c.key), text, verbose_text(c.key));
    // RapidJSON's events (a Source's reader) count the same units as the walk of simdjson's.
    EXPECT_EQ(transit::test::read_first_in_steps(text), twice(c.key));
  }
  // ASCII keys of 4 to 70 bytes, counted one unit a byte: that reader finds text of up to 64
  // bytes ASCII by word loads (Decoder::event_string), longer text by its UTF-8 check.
  for (std::size_t n = 4; n <= 70; ++n) {
    const std::string key(n, 'k');
    SCOPED_TRACE("key of " + std::to_string(n) + " bytes");
    EXPECT_EQ(transit::test::read_first_in_steps(cached(key)), twice(key));
  }
  // The same rule for keywords, counted on the wire text "~:...".
  expect_wire(Value::array({kw("é"), kw("é"), kw("😀"), kw("😀")}),
              R"(["~:é","~:é","~:😀","^0"])", R"(["~:é","~:é","~:😀","~:😀"])");
  // A reader that counted bytes would take a slot for "ééé" and read ^0 as "ééé".
  EXPECT_EQ(transit::read(R"([["^ ","ééé",1,"abcd",2],["^ ","^0",3]])"),
            Value::array({Value::map({{"ééé", 1}, {"abcd", 2}}), Value::map({{"abcd", 3}})}));
  // And one that counted the bytes of an escaped key: "éé" is 4 bytes, 2 units.
  EXPECT_EQ(transit::test::read_first_in_steps(
                R"([["^ ","\u00e9\u00e9",1,"later",2],["^ ","^0",3]])"),
            Value::array({Value::map({{"éé", 1}, {"later", 2}}), Value::map({{"later", 3}})}));
}

TEST(JsonRules, NothingIsCachedInVerbose) {
  const Value v = Value::array({Value::map({{kw("abcd"), kw("efgh")}}), Value::map({{kw("abcd"), kw("efgh")}}),
                                Value::tagged("point", 1), Value::tagged("point", 2)});
  EXPECT_EQ(verbose(v),
            R"([{"~:abcd":"~:efgh"},{"~:abcd":"~:efgh"},{"~#point":1},{"~#point":2}])");
  EXPECT_EQ(json(v),
            R"([["^ ","~:abcd","~:efgh"],["^ ","^0","^1"],["~#point",1],["^2",2]])");
  EXPECT_EQ(transit::read(verbose(v)), v);
  EXPECT_EQ(transit::read(json(v)), v);
}

TEST(JsonRules, CacheCodesAreBase44AndWrapAfter1936Entries) {
  EXPECT_EQ(transit::detail::cache_code(0), "^0");
  EXPECT_EQ(transit::detail::cache_code(43), "^[");
  EXPECT_EQ(transit::detail::cache_code(44), "^10");
  EXPECT_EQ(transit::detail::cache_code(1935), "^[[");

  auto key = [](int i) {
    std::string s = std::to_string(i);
    return "k" + std::string(4 - s.size(), '0') + s;
  };
  std::vector<Value> items;
  std::string expected = "[";
  for (int i = 0; i < 1936; ++i) {
    items.push_back(kw(key(i)));
    expected += "\"~:" + key(i) + "\",";
  }
  // The last slot is ^[[; then the 1937th distinct keyword starts the cache over at ^0.
  items.push_back(kw(key(1935)));
  items.push_back(kw(key(1936)));
  items.push_back(kw(key(1936)));
  items.push_back(kw(key(0)));
  items.push_back(kw(key(0)));
  expected += R"("^[[","~:k1936","^0","~:k0000","^1"])";
  const Value v = Value::array(items);
  EXPECT_EQ(json(v), expected);
  EXPECT_EQ(transit::read(expected), v);
}

TEST(JsonRules, CacheResetsForEveryTopLevelValue) {
  const Value first = Value::array({kw("abcd"), kw("abcd")});
  const Value second = Value::map({{kw("abcd"), kw("abcd")}});
  for (const Encoding enc : {Encoding::json, Encoding::json_verbose}) {
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, enc);
    writer.write(first);
    writer.write(second);
    writer.write(first);
    writer.flush();
    if (enc == Encoding::json)
      EXPECT_EQ(out, R"(["~:abcd","^0"]["^ ","~:abcd","^0"]["~:abcd","^0"])");
    else
      EXPECT_EQ(out, R"(["~:abcd","~:abcd"]{"~:abcd":"~:abcd"}["~:abcd","~:abcd"])");
    EXPECT_EQ(transit::read_all(out), (std::vector<Value>{first, second, first}));
  }
}

// ---- JSON objects inside cached JSON --------------------------------------------------------------

// A JSON object inside a JSON-mode value is a map like any other: what is cacheable in it is
// cached, and the slots after it count it. transit-python writes cmaps as {"~#cmap": [...]}
// inside cached JSON; these are the inputs that showed it (each read so by Java, Ruby and JS).
TEST(JsonRules, JsonObjectsInsideCachedJsonAreCachedLikeAnyMap) {
  EXPECT_EQ(transit::read(R"([{"~#cmap":[["x"],"~:victim"]},"^1"])"),
            Value::array({Value::map({{Value::array({"x"}), kw("victim")}}), kw("victim")}));
  EXPECT_EQ(transit::read(R"([{"abcd":1},"^0"])"),
            Value::array({Value::map({{"abcd", 1}}), "abcd"}));
  EXPECT_EQ(transit::read(R"(["~:aaaa",{"x":1},"~:cccc","^1"])"),
            Value::array({kw("aaaa"), Value::map({{"x", 1}}), kw("cccc"), kw("cccc")}));
  // transit-python's top-level cmap: the tag, a map key, takes slot 0.
  EXPECT_EQ(transit::read(R"({"~#cmap":[["~:abcd"],"^1"]})"),
            Value::map({{Value::array({kw("abcd")}), kw("abcd")}}));
  // A tag cached from an object key is a tag wherever its code appears.
  EXPECT_EQ(transit::read(R"([{"~#point":[1,2]},["^0",[3,4]]])"),
            Value::array({Value::tagged("point", Value::array({1, 2})),
                          Value::tagged("point", Value::array({3, 4}))}));
}

// The 44x44 cache wraps at the same entry whether or not a JSON object came before: here slot 1
// is the tag cmap, taken inside an object, and :new1 is the 1937th entry, so it is ^0 again.
TEST(JsonRules, CacheWrapsAtTheSameEntryAfterAJsonObject) {
  auto name = [](const char* prefix, int i) {
    const std::string digits = std::to_string(i);
    return prefix + std::string(4 - digits.size(), '0') + digits;
  };
  std::string text = R"(["~:k0000",{"~#cmap":[["x"],1]})";
  std::vector<Value> expected{kw("k0000"), Value::map({{Value::array({"x"}), 1}})};
  for (int i = 2; i < 1936; ++i) {
    text += ",\"~:" + name("kw", i) + "\"";
    expected.push_back(kw(name("kw", i)));
  }
  text += R"(,"~:new1","^0"])";
  expected.push_back(kw("new1"));
  expected.push_back(kw("new1"));
  ASSERT_GT(text.size(), 20000u);
  EXPECT_EQ(transit::read(text), Value::array(expected));
}

// A reader in memory caches nothing in a value until it shows a JSON-only form ("^ " or an
// ["~#tag", rep] array), and reads the value again when a cache code needs what went by; a
// stream caches from the start. Both read every kind of value the same, one after another.
TEST(JsonRules, MixedContentReadsTheSameFromMemoryAndFromAStream) {
  const std::string text =
      R"({"~:verbose":{"~#set":["~:aaaa"]}})"                    // JSON-Verbose
      R"(["a\nbcd\u00e9fgh\"ijk\"","~:aaaa","^0"])"            // escapes unescaped in place, then read again
      R"(["~:aaaa",{"x":1},"~:cccc","^1"])"                        // a code after a missed string
      R"({"~#cmap":[["~:abcd"],"^1"]})"                            // transit-python's top-level cmap
      R"(["^ ","~:abcd",["~:abcd","^0"]])"                         // "^ " first: cached from the start
      R"({"~:bbbb":"~:bbbb"})";                                    // JSON-Verbose again
  const std::vector<Value> expected{
      Value::map({{kw("verbose"), Value::set({kw("aaaa")})}}),
      Value::array({"a\nbcd\u00e9fgh\"ijk\"", kw("aaaa"), kw("aaaa")}),
      Value::array({kw("aaaa"), Value::map({{"x", 1}}), kw("cccc"), kw("cccc")}),
      Value::map({{Value::array({kw("abcd")}), kw("abcd")}}),
      Value::map({{kw("abcd"), Value::array({kw("abcd"), kw("abcd")})}}),
      Value::map({{kw("bbbb"), kw("bbbb")}}),
  };
  EXPECT_EQ(transit::read_all(text), expected);
  for (const std::size_t step : {1, 7, 4096}) {
    transit::test::StepSource source(text, step);
    transit::Reader reader(source, Encoding::json);
    std::vector<Value> values;
    while (auto v = reader.next()) values.push_back(std::move(*v));
    EXPECT_EQ(values, expected) << "step " << step;
  }
  // A bad cache code is reported where it stands, after the value is read again.
  try {
    transit::read(R"(["~:aaaa","\t~:bb","^5"])");
    FAIL() << "expected an error";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::bad_cache_code);
    EXPECT_EQ(e.offset(), 19u);
  }
}

// What a cache code inside a JSON object means: the same as anywhere in JSON, the string it
// refers to (transit-java and transit-js read it so). A JSON-Verbose writer never writes one: a
// string that starts with ^ is escaped as ~^, so no JSON-Verbose text changes meaning by it.
TEST(JsonRules, ACacheCodeInsideAJsonObjectRefersToTheCache) {
  EXPECT_EQ(transit::read(R"({"~:abcd":"^0"})"), Value::map({{kw("abcd"), kw("abcd")}}));
  EXPECT_EQ(transit::read(R"([{"~:abcd":1},{"^0":2}])"),
            Value::array({Value::map({{kw("abcd"), 1}}), Value::map({{kw("abcd"), 2}})}));
  expect_wire(Value::map({{"^0", "^1"}}), R"(["^ ","~^0","~^1"])", R"({"~^0":"~^1"})");
}

// ---- maps ----------------------------------------------------------------------------------------

TEST(JsonRules, StringableMapsAreMapArraysOrObjects) {
  expect_wire(Value::map({}), R"(["^ "])", R"({})");
  expect_wire(Value::map({{kw("a"), 1}, {"b", Value::map({{kw("c"), Value::array({})}})}}),
              R"(["^ ","~:a",1,"b",["^ ","~:c",[]]])", R"({"~:a":1,"b":{"~:c":[]}})");
}

TEST(JsonRules, NullBooleanAndNumberKeysAreStringable) {
  expect_wire(Value::map({{nullptr, 1},
                          {true, 2},
                          {false, 3},
                          {1, 4},
                          {1.5, 5},
                          {2.0, 6},
                          {Value::big_integer("99999999999999999999"), 7},
                          {Value::character(U'c'), 8},
                          {Value::instant(0), 9}}),
              R"(["^ ","~_",1,"~?t",2,"~?f",3,"~i1",4,"~d1.5",5,"~d2.0",6,)"
              R"("~n99999999999999999999",7,"~cc",8,"~m0",9])",
              R"({"~_":1,"~?t":2,"~?f":3,"~i1":4,"~d1.5":5,"~d2.0":6,)"
              R"("~n99999999999999999999":7,"~cc":8,"~t1970-01-01T00:00:00.000Z":9})");
  const Value read_back = transit::read(R"(["^ ","~d2.0",6])");
  EXPECT_EQ(read_back.entries()[0].first.kind(), Kind::floating);
}

TEST(JsonRules, NonStringableKeysMakeACmap) {
  expect_wire(Value::map({{Value::array({1, 2}), "x"}, {kw("k"), "y"}}),
              R"(["~#cmap",[[1,2],"x","~:k","y"]])", R"({"~#cmap":[[1,2],"x","~:k","y"]})");
  expect_wire(Value::map({{Value::map({{"a", 1}}), 1}}), R"(["~#cmap",[["^ ","a",1],1]])",
              R"({"~#cmap":[{"a":1},1]})");
  expect_wire(Value::map({{Value::set({}), 1}}), R"(["~#cmap",[["~#set",[]],1]])",
              R"({"~#cmap":[{"~#set":[]},1]})");
  expect_wire(Value::map({{Value::list({}), nullptr}, {nullptr, 2}}),
              R"(["~#cmap",[["~#list",[]],null,null,2]])", R"({"~#cmap":[{"~#list":[]},null,null,2]})");
  expect_wire(Value::map({{Value::tagged("point", Value::array({1})), 1}}),
              R"(["~#cmap",[["~#point",[1]],1]])", R"({"~#cmap":[{"~#point":[1]},1]})");
}

// ---- numbers -------------------------------------------------------------------------------------

TEST(JsonRules, IntegersBeyond53BitsAreStrings) {
  constexpr std::int64_t max = (std::int64_t{1} << 53) - 1;
  expect_wire(Value::array({max, max + 1, -max, -max - 1, INT64_MAX, INT64_MIN, 0, -1}),
              R"([9007199254740991,"~i9007199254740992",-9007199254740991,"~i-9007199254740992",)"
              R"("~i9223372036854775807","~i-9223372036854775808",0,-1])");
  // Map keys are always ~i strings, however small.
  expect_wire(Value::map({{0, "a"}, {-1, "b"}, {max + 1, "c"}}),
              R"(["^ ","~i0","a","~i-1","b","~i9007199254740992","c"])",
              R"({"~i0":"a","~i-1":"b","~i9007199254740992":"c"})");
  // A peer that writes a large integer as a JSON number is read too.
  const Value big = transit::read("[9007199254740993,-9223372036854775808]");
  EXPECT_EQ(big[0].kind(), Kind::integer);
  EXPECT_EQ(big[0].as_int(), max + 2);
  EXPECT_EQ(big[1].as_int(), INT64_MIN);
}

TEST(JsonRules, BigIntegersAreTildeN) {
  expect_wire(Value::array({Value::big_integer("5"), Value::big_integer("123456789012345678901234567890"),
                            Value::big_integer("-123456789012345678901234567890")}),
              R"(["~n5","~n123456789012345678901234567890","~n-123456789012345678901234567890"])");
  EXPECT_EQ(transit::read(R"(["~n5"])")[0].kind(), Kind::big_integer);
  EXPECT_EQ(transit::write(Value(std::numeric_limits<std::uint64_t>::max())),
            R"(["~#'","~n18446744073709551615"])");
  // Numbers beyond int64, as JSON numbers or ~i strings, are big integers.
  const Value v = transit::read(R"([18446744073709551616,"~i-9223372036854775809"])");
  EXPECT_EQ(v[0], Value::big_integer("18446744073709551616"));
  EXPECT_EQ(v[1], Value::big_integer("-9223372036854775809"));
}

TEST(JsonRules, NonFiniteDoublesAreTildeZ) {
  const double inf = std::numeric_limits<double>::infinity();
  expect_wire(Value::array({std::numeric_limits<double>::quiet_NaN(), inf, -inf}),
              R"(["~zNaN","~zINF","~z-INF"])");
  expect_wire(Value::map({{std::numeric_limits<double>::quiet_NaN(), 1}}), R"(["^ ","~zNaN",1])",
              R"({"~zNaN":1})");
}

TEST(JsonRules, DoublesRoundTripBitExactlyAndStayDoubles) {
  struct Case {
    double d;
    const char* text;
  };
  const Case cases[] = {
      {0.1, "0.1"},
      {1e300, "1e+300"},
      {5e-324, "5e-324"},
      {-0.0, "-0.0"},
      {0.0, "0.0"},
      {DBL_MAX, "1.7976931348623157e+308"},
      {-DBL_MAX, "-1.7976931348623157e+308"},
      {DBL_MIN, "2.2250738585072014e-308"},
      {2.0, "2.0"},
      {-5.0, "-5.0"},
      {100.0, "100.0"},
      {4e11, "4e+11"},
      {1e21, "1e+21"},
      {3.14159, "3.14159"},
      {6.626e-34, "6.626e-34"},
      {1.0 / 3.0, "0.3333333333333333"},
      {9007199254740993.0, "9007199254740992.0"},
      // Beyond the shortest round trip's digits, fixed notation would print more: exponent form.
      {-1152921504606846976.0, "-1.152921504606847e+18"},
      {123456789012345683968.0, "1.2345678901234568e+20"},
      {1e16, "1e+16"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string text = std::string("[") + c.text + "]";
    EXPECT_EQ(json(Value::array({c.d})), text);
    EXPECT_EQ(verbose(Value::array({c.d})), text);
    const Value back = transit::read(text);
    ASSERT_EQ(back[0].kind(), Kind::floating);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back[0].as_double()), std::bit_cast<std::uint64_t>(c.d));
  }
  // What peers print is read as doubles too.
  const Value peers = transit::read("[2.0,4.0E11,6.626E-34,1E2,2e0,-0]");
  EXPECT_EQ(peers, Value::array({2.0, 4e11, 6.626e-34, 100.0, 2.0, 0}));
  EXPECT_EQ(peers[5].kind(), Kind::integer);
}

// A number at the edges of a double's range reads the same from memory (simdjson, RapidJSON
// where simdjson refuses) and from a Source (RapidJSON alone): the same value, bit for bit, or
// the same error at the same byte. RapidJSON, the reference, refuses a positive exponent above
// 308 plus the fraction digits it counted even on a zero mantissa (0e400); so does memory.
// A number beyond a double's range is too_large on both, whether RapidJSON refuses its text
// (1e400) or its value rounds to infinity (10e308), which no Transit writer produces.
TEST(JsonRules, NumbersAtTheEdgesReadTheSameFromMemoryAndFromAStream) {
  const std::string digits400 = "1" + std::string(399, '0');
  const std::string digits309 = "1" + std::string(308, '0');
  const std::string big309 = "2" + std::string(308, '0');
  // Halfway between the largest double and 2^1024: rounds (to even) to infinity.
  const std::string halfway_up =
      "1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179"
      "7758720709633028641669288791094655554785194040263065748867150582068190890200070838367627385"
      "4845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342"
      "711559699508093042880177904174497792";
  const std::string too_large[] = {
      "10e308", "-10e308", "1.8e308", "-1.8e308", "1.7976931348623159e308", "1e400", "-1e400",
      halfway_up + ".0", halfway_up + "e0", "0.1e310", digits400};
  const std::string cases[] = {
      "0e400", "-0e400", "0E+400", "0.0e400", "0.000e311", "0.000e312", "0.0e309", "0e308",
      "0e99999999999", "1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1e-400",
      "4.9e-324", "2.4e-324", "0.1e309", halfway_up, digits309, "-0.0",
      "123456789012345678901234567890", "0e309", "-0.0e309", "0e-400", "0.000e-99999999999",
      digits309 + ".0", big309 + ".0"};
  struct Outcome {
    std::vector<std::string> edn;  // each value, doubles' sign and bits included
    std::string error;             // code, offset and message, or empty
  };
  const auto outcome = [](transit::Reader& reader) {
    Outcome out;
    try {
      while (auto v = reader.next()) {
        std::string edn = transit::to_edn(*v);
        const Value& first = v->kind() == Kind::array ? (*v)[0] : v->entries()[0].second;
        if (first.kind() == Kind::floating)
          edn += " " + std::to_string(std::bit_cast<std::uint64_t>(first.as_double()));
        out.edn.push_back(std::move(edn));
      }
    } catch (const transit::Error& e) {
      out.error = std::string(transit::code_name(e.code())) + " at " +
                  std::to_string(e.offset()) + ": " + e.what();
    }
    return out;
  };
  std::vector<std::string> numbers(std::begin(cases), std::end(cases));
  numbers.insert(numbers.end(), std::begin(too_large), std::end(too_large));
  for (const std::string& number : numbers) {
    const bool beyond = std::find(std::begin(too_large), std::end(too_large), number) !=
                        std::end(too_large);
    for (const std::string& text : {"[" + number + ",1]", "[[" + number + "]]",
                                    "{\"a\":" + number + "}"}) {
      SCOPED_TRACE(text.size() > 60 ? text.substr(0, 20) + "... (" + std::to_string(text.size()) +
                                          " bytes) ..." + text.substr(text.size() - 20)
                                    : text);
      transit::Reader memory_reader(text, Encoding::json);
      const Outcome memory = outcome(memory_reader);
      if (beyond) {
        EXPECT_EQ(memory.error.substr(0, memory.error.find(':')),
                  "too_large at " + std::to_string(text.find(number)));
      }
      for (const std::size_t step : {1, 7, 4096}) {
        transit::test::StepSource source(text, step);
        transit::Reader stream_reader(source, Encoding::json);
        const Outcome stream = outcome(stream_reader);
        EXPECT_EQ(memory.edn, stream.edn) << "step " << step;
        EXPECT_EQ(memory.error, stream.error) << "step " << step;
      }
    }
  }
}

// A document with a zero double is searched for a zero RapidJSON refuses (SimdjsonParser::
// has_big_zero, 16 bytes at a time): such a zero at every offset across two blocks is found,
// and the same text in a string, or a mantissa not all zeros, is not taken for one.
TEST(JsonRules, AZeroRapidJsonRefusesIsFoundAtEveryOffset) {
  for (std::size_t pad = 0; pad <= 40; ++pad) {
    const std::string before = "[0.0,\"" + std::string(pad, 'x') + "\",";
    for (const char* number : {"0e400", "-0.00E+400", "0e999"}) {
      const std::string text = before + number + "]";
      SCOPED_TRACE(text);
      try {
        (void)transit::read(text, Encoding::json);
        ADD_FAILURE() << "read";
      } catch (const transit::Error& e) {
        EXPECT_EQ(e.code(), transit::Errc::too_large);
        EXPECT_EQ(e.offset(), before.size());
      }
    }
    for (const char* tail : {"\"0e400\"]", "\"x0.0e400\"]", "10e-400]", "0e99]",
                                    "1.0e300]", "0e+099]"}) {
      const std::string text = before + tail;
      SCOPED_TRACE(text);
      EXPECT_NO_THROW((void)transit::read(text, Encoding::json));
    }
  }
}

// ---- top level -----------------------------------------------------------------------------------

TEST(JsonRules, TopLevelScalarsOfEveryKindAreQuoted) {
  struct Case {
    Value v;
    const char* json;
    const char* verbose;
  };
  const Case cases[] = {
      {Value(), R"(["~#'",null])", R"({"~#'":null})"},
      {Value(true), R"(["~#'",true])", R"({"~#'":true})"},
      {Value(false), R"(["~#'",false])", R"({"~#'":false})"},
      {Value(1), R"(["~#'",1])", R"({"~#'":1})"},
      {Value(INT64_MAX), R"(["~#'","~i9223372036854775807"])", R"({"~#'":"~i9223372036854775807"})"},
      {Value(1.5), R"(["~#'",1.5])", R"({"~#'":1.5})"},
      {Value(std::numeric_limits<double>::infinity()), R"(["~#'","~zINF"])", R"({"~#'":"~zINF"})"},
      {Value::big_integer("12345678901234567890"), R"(["~#'","~n12345678901234567890"])",
       R"({"~#'":"~n12345678901234567890"})"},
      {Value::big_decimal("1.50"), R"(["~#'","~f1.50"])", R"({"~#'":"~f1.50"})"},
      {Value("hello"), R"(["~#'","hello"])", R"({"~#'":"hello"})"},
      {Value::bytes("abc"), R"(["~#'","~bYWJj"])", R"({"~#'":"~bYWJj"})"},
      {kw("keyword"), R"(["~#'","~:keyword"])", R"({"~#'":"~:keyword"})"},
      {sym("symbol"), R"(["~#'","~$symbol"])", R"({"~#'":"~$symbol"})"},
      {Value::character(U'a'), R"(["~#'","~ca"])", R"({"~#'":"~ca"})"},
      {Value::instant(946728000000), R"(["~#'","~m946728000000"])",
       R"({"~#'":"~t2000-01-01T12:00:00.000Z"})"},
      {Value::uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL}),
       R"(["~#'","~u5a2cbea3-e8c6-428b-b525-21239370dd55"])",
       R"({"~#'":"~u5a2cbea3-e8c6-428b-b525-21239370dd55"})"},
      {Value::uri("http://example.com"), R"(["~#'","~rhttp://example.com"])",
       R"({"~#'":"~rhttp://example.com"})"},
      {Value::tagged("X", "foo"), R"(["~#'","~Xfoo"])", R"({"~#'":"~Xfoo"})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    expect_wire(c.v, c.json, c.verbose);
  }
  // Containers are not quoted.
  expect_wire(Value::array({}), "[]");
}

// ---- extension types -----------------------------------------------------------------------------

TEST(JsonRules, InstantsAreMillisInJsonAndIsoInVerbose) {
  expect_wire(Value::array({Value::instant(-6106017600000), Value::instant(0), Value::instant(1396909037123)}),
              R"(["~m-6106017600000","~m0","~m1396909037123"])",
              R"(["~t1776-07-04T12:00:00.000Z","~t1970-01-01T00:00:00.000Z","~t2014-04-07T22:17:17.123Z"])");
  // Other ISO 8601 forms peers write are read too.
  EXPECT_EQ(transit::read(R"(["~t2014-04-07T22:17:17Z","~t2014-04-07T23:17:17.000+01:00"])"),
            Value::array({Value::instant(1396909037000), Value::instant(1396909037000)}));
}

TEST(JsonRules, TaggedValuesAreArraysInJsonAndObjectsInVerbose) {
  const Value point = Value::tagged("point", Value::array({1, 2}));
  expect_wire(point, R"(["~#point",[1,2]])", R"({"~#point":[1,2]})");
  expect_wire(Value::array({Value::set({1, 2}), Value::list({3})}),
              R"([["~#set",[1,2]],["~#list",[3]]])", R"([{"~#set":[1,2]},{"~#list":[3]}])");
  // Either form is read in either encoding.
  EXPECT_EQ(transit::read(R"({"~#point":[1,2]})"), point);
  EXPECT_EQ(transit::read(R"(["~#point",[1,2]])"), point);
  EXPECT_EQ(transit::read(R"({"~#set":[1,2]})"), Value::set({1, 2}));
}

TEST(JsonRules, LinksAreTaggedMaps) {
  const Value link = Value::link("http://example.com/", "self");
  expect_wire(Value::array({link, link}),
              R"([["~#link",["^ ","href","~rhttp://example.com/","rel","self","render","link"]],)"
              R"(["^0",["^ ","^1","~rhttp://example.com/","rel","self","^2","link"]]])",
              R"([{"~#link":{"href":"~rhttp://example.com/","rel":"self","render":"link"}},)"
              R"({"~#link":{"href":"~rhttp://example.com/","rel":"self","render":"link"}}])");
  const Value full = Value::link("http://example.com/i.png", "icon", "Logo", "Click", "image");
  expect_wire(full,
              R"(["~#link",["^ ","href","~rhttp://example.com/i.png","rel","icon","name","Logo",)"
              R"("prompt","Click","render","image"]])",
              R"({"~#link":{"href":"~rhttp://example.com/i.png","rel":"icon","name":"Logo",)"
              R"("prompt":"Click","render":"image"}})");
  EXPECT_EQ(transit::read(json(full)).kind(), Kind::link);
}

TEST(JsonRules, UnknownTagsReadAsTaggedAndWriteBackIdentically) {
  expect_identical_round_trip(R"(["~Xfoo"])", Value::array({Value::tagged("X", "foo")}), Encoding::json);
  expect_identical_round_trip(R"(["~#'","~Xfoo"])", Value::tagged("X", "foo"), Encoding::json);
  expect_identical_round_trip(R"({"~#'":"~Xfoo"})", Value::tagged("X", "foo"), Encoding::json_verbose);
  expect_identical_round_trip(R"(["^ ","~Xfoo",1])", Value::map({{Value::tagged("X", "foo"), 1}}),
                              Encoding::json);
  const Value p12 = Value::tagged("point", Value::array({1, 2}));
  const Value p34 = Value::tagged("point", Value::array({3, 4}));
  expect_identical_round_trip(R"(["~#point",[1,2]])", p12, Encoding::json);
  expect_identical_round_trip(R"({"~#point":[1,2]})", p12, Encoding::json_verbose);
  expect_identical_round_trip(R"([["~#point",[1,2]],["^0",[3,4]]])", Value::array({p12, p34}),
                              Encoding::json);
  expect_identical_round_trip(R"(["~#point",["^ ","~:x",1,"~:y",["^0",null]]])",
                              Value::tagged("point", Value::map({{kw("x"), 1},
                                                                 {kw("y"), Value::tagged("point", nullptr)}})),
                              Encoding::json);
}

TEST(JsonRules, OneCharacterTagsThatWouldReadAsATagOrEscapeKeepTheArrayForm) {
  // "~#x" would start a tag and "~~x", "~^x", "~`x" are escaped strings, so these tagged values
  // cannot be written as "~Tx" strings.
  for (const char* tag : {"#", "~", "^", "`"}) {
    SCOPED_TRACE(tag);
    const Value v = Value::array({Value::tagged(tag, "x")});
    const std::string text = std::string(R"([["~#)") + tag + R"(","x"]])";
    expect_wire(v, text, std::string(R"([{"~#)") + tag + R"(":"x"}])");
    expect_wire(Value::map({{Value::tagged(tag, "x"), 1}}),
                std::string(R"(["~#cmap",[["~#)") + tag + R"(","x"],1]])",
                std::string(R"({"~#cmap":[{"~#)") + tag + R"(":"x"},1]})");
  }
}

// ---- streams of values ---------------------------------------------------------------------------

TEST(JsonRules, ManyTopLevelValuesAreReadOneAfterAnother) {
  // Values separated by whitespace or by nothing, JSON and JSON-Verbose mixed; the reader's
  // cache starts over with each value.
  const std::pair<std::string, Value> parts[] = {
      {"[1]", Value::array({1})},
      {" [\"^ \",\"~:abcd\",2]", Value::map({{kw("abcd"), 2}})},
      {"[\"~:abcd\",\"^0\"]", Value::array({kw("abcd"), kw("abcd")})},
      {"{\"~#'\":3}", Value(3)},
      {"\n\t[\"~#set\",[]]", Value::set({})},
      {"\r\n{\"~:abcd\":4}", Value::map({{kw("abcd"), 4}})},
      {"[\"~#'\",\"~:abcd\"][\"~#'\",\"~:abcd\"]", kw("abcd")},  // two values, checked below
  };
  std::string text;
  std::vector<std::size_t> ends;
  for (const auto& [piece, value] : parts) {
    text += piece;
    ends.push_back(text.size());
  }
  text += "  \n";
  transit::Reader reader(text);
  for (std::size_t i = 0; i + 1 < std::size(parts); ++i) {
    SCOPED_TRACE(parts[i].first);
    auto v = reader.next();
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, parts[i].second);
    EXPECT_EQ(reader.offset(), ends[i]);
  }
  for (int i = 0; i < 2; ++i) {
    auto v = reader.next();
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, kw("abcd"));
  }
  EXPECT_EQ(reader.offset(), ends.back());
  EXPECT_FALSE(reader.next().has_value());
  EXPECT_FALSE(reader.next().has_value());
  EXPECT_EQ(transit::read_all(text).size(), std::size(parts) + 1);
  EXPECT_TRUE(transit::read_all("").empty());
  EXPECT_TRUE(transit::read_all(" \n\t\r ").empty());
}

// ---- lenient reads -------------------------------------------------------------------------------

TEST(JsonRules, LenientVariantsAreRead) {
  // cmap written as a map.
  EXPECT_EQ(transit::read(R"(["~#cmap",["^ ","a",1]])"), Value::map({{"a", 1}}));
  EXPECT_EQ(transit::read(R"({"~#cmap":{"a":1}})"), Value::map({{"a", 1}}));
  // UUID as two signed 64-bit halves (the MessagePack form), the low half negative here.
  const Uuid u{0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL};
  const std::string halves = "[\"~#u\",[" + std::to_string(static_cast<std::int64_t>(u.hi)) + "," +
                             std::to_string(static_cast<std::int64_t>(u.lo)) + "]]";
  ASSERT_EQ(halves, R"(["~#u",[6497777973583037067,-5393868542025081515]])");
  EXPECT_EQ(transit::read(halves), Value::uuid(u));
  EXPECT_EQ(transit::read(R"(["~#u","5A2CBEA3-E8C6-428B-B525-21239370DD55"])"), Value::uuid(u));
  // base64 with line breaks and spaces.
  EXPECT_EQ(transit::read(R"(["~bAQID\nBA==","~bAQ ID\r\nBA"])"),
            Value::array({Value::bytes(std::string("\x01\x02\x03\x04")),
                          Value::bytes(std::string("\x01\x02\x03\x04"))}));
  // Instants as a tagged number.
  EXPECT_EQ(transit::read(R"(["~#m",0])"), Value::instant(0));
  EXPECT_EQ(transit::read(R"(["~#m","946728000000"])"), Value::instant(946728000000));
  // Integers as numbers, ~i or ~n.
  const Value ints = transit::read(R"(["~i5",5,"~n5",["~#i",5]])");
  EXPECT_EQ(ints[0].kind(), Kind::integer);
  EXPECT_EQ(ints[0], Value(5));
  EXPECT_EQ(ints[2].kind(), Kind::big_integer);
  EXPECT_EQ(ints[2], Value::big_integer("5"));
  EXPECT_EQ(ints, Value::array({5, 5, Value::big_integer("5"), 5}));
}

// ---- bytes and characters ------------------------------------------------------------------------

TEST(JsonRules, BytesAreBase64WithoutLineBreaks) {
  expect_wire(Value::array({Value::bytes(""), Value::bytes("a"), Value::bytes("ab"), Value::bytes("abc"),
                            Value::bytes("hello world")}),
              R"(["~b","~bYQ==","~bYWI=","~bYWJj","~baGVsbG8gd29ybGQ="])");
  std::string blob;
  for (int i = 0; i < 300; ++i) blob.push_back(static_cast<char>(i));
  const Value v = Value::array({Value::bytes(blob)});
  const std::string text = json(v);
  EXPECT_EQ(text.size(), 2 + 2 + 2 + 400u);  // [" ~b <400 chars> "]
  EXPECT_EQ(text.find("\\n"), std::string::npos);
  EXPECT_EQ(text.find("\\r"), std::string::npos);
  EXPECT_EQ(text.substr(0, 12), R"(["~bAAECAwQF)");
  EXPECT_EQ(transit::read(text), v);
}

TEST(JsonRules, CharactersAreTildeC) {
  expect_wire(Value::array({Value::character(U'a'), Value::character(U'é'), Value::character(0x1F600),
                            Value::character(U'~'), Value::character(U'\n'), Value::character(U' ')}),
              "[\"~ca\",\"~cé\",\"~c😀\",\"~c~\",\"~c\\n\",\"~c \"]");
}

}  // namespace
