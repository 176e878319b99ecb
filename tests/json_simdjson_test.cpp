// SPDX-License-Identifier: Apache-2.0
// In-memory JSON is parsed by simdjson when the library is built with it, and by RapidJSON
// otherwise (and for streams, and for whatever simdjson refuses). Both must give the same
// values, the same errors (code, byte, path, message) and the same offsets, on every text:
// the exemplars, hand-picked edge cases, and mutations of the exemplars.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "json/readable_padding.h"
#include "support/exemplars.h"
#include "support/one_limit_each.h"
#include "support/step_source.h"
#include "testing.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Error;
using transit::ReadOptions;
using transit::Value;

// The exemplars' case names for `suffix`, the ".json" ones without the verbose files.
std::vector<std::string> exemplar_cases(std::string_view suffix) {
  return transit::test::exemplar_cases(suffix, suffix == ".json" ? ".verbose.json" : "");
}

// Everything a reader shows for one text: each value (exactly as written back, so map order,
// kinds and doubles' bits all count) with the offset after it, then the error that ended it.
struct Outcome {
  std::vector<Value> values;
  std::vector<std::string> written;
  std::vector<std::size_t> offsets;
  std::string error;  // what() of the error, empty when the text was read to its end

  friend bool operator==(const Outcome& a, const Outcome& b) {
    return a.values == b.values && a.written == b.written && a.offsets == b.offsets &&
           a.error == b.error;
  }
  friend std::ostream& operator<<(std::ostream& out, const Outcome& o) {
    for (std::size_t i = 0; i < o.written.size(); ++i)
      out << o.written[i] << " (to byte " << o.offsets[i] << ") ";
    return out << (o.error.empty() ? "end" : o.error);
  }
};

Outcome read_with(std::string_view text, bool use_simdjson, const ReadOptions& options) {
  Outcome o;
  const auto reader = transit::detail::make_json_reader(text, options, use_simdjson);
  try {
    while (auto v = reader->next()) {
      o.written.push_back(transit::write(*v, Encoding::json_verbose));
      o.values.push_back(std::move(*v));
      o.offsets.push_back(reader->offset());
    }
    // A second call after the end stays at the end.
    if (reader->next()) o.error = "a value after the end";
  } catch (const Error& e) {
    o.error = e.what();
    // A failed reader fails again, the same way.
    try {
      (void)reader->next();
      o.error += " / then no error";
    } catch (const Error& again) {
      if (std::string(again.what()) != e.what()) o.error += std::string(" / then ") + again.what();
    }
  }
  return o;
}

// The simdjson path (when built) and the RapidJSON path agree on `text`.
void expect_same(std::string_view text, const ReadOptions& options = {}) {
  const Outcome rapid = read_with(text, false, options);
  const Outcome simd = read_with(text, true, options);
  EXPECT_EQ(simd, rapid) << "text: " << std::string(text.substr(0, 200));
}

TEST(JsonSimdjson, ExemplarsReadTheSameBothWays) {
  if (!transit::test::exemplars_present()) GTEST_SKIP() << "exemplar folder not found";
  int n = 0;
  for (const char* suffix : {".verbose.json", ".json"})
    for (const std::string& name : exemplar_cases(suffix)) {
      const std::string text =
          transit::test::slurp(transit::test::exemplar_dir() / (name + suffix));
      SCOPED_TRACE(name + suffix);
      expect_same(text);
      const Outcome o = read_with(text, true, {});
      EXPECT_TRUE(o.error.empty()) << o.error;
      ++n;
    }
  EXPECT_GT(n, 100);
}

TEST(JsonSimdjson, NumbersReadTheSameBothWays) {
  for (const char* text :
       {"0", "-0", "-0.0", "0.0", "1", "-1", "1.5", "1e3", "1E3", "1e+3", "-1e-3", "1e-400",
        "-1e-400", "1e400", "-1e400", "1E308", "1.7976931348623157e308", "1.7976931348623159e308",
        "4.9e-324", "2.4e-324", "2.2250738585072011e-308", "0.1", "0.30000000000000004",
        "9007199254740993", "9007199254740993.0", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
        "18446744073709551616", "99999999999999999999", "123456789012345678901234567890",
        "123456789012345678901234567890.5", "1.00000000000000011102230246251565404236316680908203125",
        "7.3177701707893310e+15", "00", "01", "1.", ".1", "-", "+1", "1e", "1e+", "0x10", "NaN",
        "Infinity", "-Infinity", "[1,-0,2.5e-7,-9223372036854775809,18446744073709551615]",
        "[\"~#list\",[1,1e22,-0.0]]", "{\"~i5\":1,\"k\":12345678901234567890123}"})
    expect_same(text);
  // A number of 400 digits, and one with 400 digits after the point.
  expect_same(std::string(400, '7'));
  expect_same("0." + std::string(400, '3'));
  expect_same("[1," + std::string(310, '9') + "]");
}

// RapidJSON's numbers (every read without simdjson, and a Source's) of 1 to 24 digits, each
// sign, with and without a fraction or an exponent, read as what they are: an integer to
// 18 digits by SaxHandler::number's own loop, past it by from_chars, an int64's range ending
// at 19 digits and big integers after; doubles as strtod rounds them.
TEST(JsonSimdjson, NumbersOfEveryDigitCountReadByRapidJsonAsWhatTheyAre) {
  for (const std::string_view digits : {"123456789012345678901234", "999999999999999999999999",
                                        "922337203685477580899999", "100000000000000000000000"})
    for (std::size_t n = 1; n <= digits.size(); ++n)
      for (const std::string sign : {"", "-"}) {
        const std::string integer = sign + std::string(digits.substr(0, n));
        std::int64_t i = 0;
        const auto [end, ec] = std::from_chars(integer.data(), integer.data() + integer.size(), i);
        const Value expected = ec == std::errc() ? Value(i) : Value::big_integer(integer);
        for (const std::string& text : {integer, integer + ".5", integer + "e2", integer + "E-1"}) {
          SCOPED_TRACE(text);
          const Value want = text == integer ? expected : Value(std::strtod(text.c_str(), nullptr));
          const Outcome rapid = read_with(text, false, {});
          ASSERT_EQ(rapid.values.size(), 1u) << rapid.error;
          EXPECT_EQ(rapid.values[0], want);
          EXPECT_EQ(rapid.values[0].kind(), want.kind());
          // And from a Source, in steps of 3 bytes, inside an array.
          const std::string in_array = "[" + text + "]";
          const Value stepped = transit::test::read_first_in_steps(in_array, 3);
          ASSERT_EQ(stepped.size(), 1u);
          EXPECT_EQ(stepped[0], want);
          expect_same(text);
        }
      }
}

TEST(JsonSimdjson, StringsReadTheSameBothWays) {
  for (const char* text :
       {R"("")", R"("abc")", R"("a\u0000b")", R"("\ud83d\ude00")", R"("\ud800")", R"("\udc00")",
        R"("\ud800\u0041")", R"("\ud800\ud800")", R"("\u00e9\n\t\"\\\/\b\f\r")", R"("\x")",
        R"("\u12")", "\"\xed\xa0\x80\"", "\"\xc0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xff\"",
        "\"\x7f\"", "\"\x01\"", "\"\x1a\"", "\"\x1f\"", "\"a\nb\"", "\xef\xbb\xbf[1]", "\"\xe9\"",
        R"(["~:kw","~$sym","~~tilde","~^caret","~`back","~#bad"])", R"("~m1700000000000")",
        R"("~ubad")", R"("~u531a379e-31bb-4ce1-8690-158dceb64be6")", R"("~bAAEC")", R"("~b!!")",
        R"("~zNaN")", R"("~d1.5")", R"("~f1.50")", R"("~n12")", R"("~i12")", R"("~ix")",
        R"("~?t")", R"("~c")", R"("~rhttp://x")"})
    expect_same(text);
}

TEST(JsonSimdjson, StructureAndSequencesReadTheSameBothWays) {
  for (const char* text :
       {"", " ", " \n\t\r ", "[1] [2]", "[1][2]", "1 2", "12", "\"a\"\"b\"", "truefalse", "true false",
        "null", "nul", "[1]\n", "  [1]  ", "[1] x", "[1]\0", "{}", "[]", "[1,]", "[1 2]", "{\"a\" 1}",
        "{\"a\":1,\"a\":2}", "{\"a\":1,}", "{1:2}", "[", "]", "{", "}", "[1,[2,[3", "[\"^ \"]",
        "[\"^ \",\"a\"]", "[\"^ \",\"a\",1,\"b\"]", "[\"^ \",\"~:a\",1,\"^0\",2]", "[\"^0\"]",
        "[\"^ \",\"^1\",1]", "[\"~#set\",[1,2,2]]", "[\"~#set\",[1],2]", "[\"~#set\"]",
        "{\"~#set\":[1,2]}", "{\"~#set\":[1],\"x\":2}", "[\"~#cmap\",[[1],2,[3],4]]",
        "[\"~#cmap\",[1]]", "{\"~#cmap\":[[1],2]}", "[\"~#'\",1]", "{\"~#'\":1}",
        "[\"~#link\",[\"^ \",\"href\",\"a\"]]", "[\"~#unknown\",[1,2]]", "[\"x\",\"~#set\",[1]]",
        "{\"long key one\":1,\"long key one\":2}",
        // Verbose first, then a JSON form: read again with the cache on from the start.
        "[{\"~:keyword-key\":1},[\"^ \",\"^0\",2]]",
        "[{\"~:keyword-key\":1},\"^0\"]", "[\"~:keyword\",[\"^ \",\"a\",1],\"^0\"]",
        "[\"~:keyword\",\"^0\"] [\"~:keyword\",\"^0\"]", "{\"~:keyword\":1} {\"~:keyword\":1}",
        "[\"^ \",\"~:a\",1] [\"^0\"]", "[\"^ \",\"~:a\",1] [\"^ \",\"~:a\",1,\"^0\",2]"})
    expect_same(text);
  expect_same(std::string_view("[1]\0", 4));
  expect_same(std::string_view("\0", 1));
  expect_same(std::string_view("[\"a\0b\"]", 7));
}

// Limits every text of a few bytes can reach.
ReadOptions small_limits() {
  ReadOptions small;
  small.max_string_length = 8;
  small.max_value_bytes = 40;
  small.max_collection_length = 3;
  small.max_depth = 3;
  return small;
}

TEST(JsonSimdjson, LimitsReadTheSameBothWays) {
  const std::string deep600 = std::string(600, '[') + std::string(600, ']');
  const std::string deep1100 = std::string(1100, '[') + std::string(1100, ']');
  expect_same(deep600);
  expect_same(deep1100);
  ReadOptions deep;
  deep.max_depth = 2000;
  expect_same(deep1100, deep);

  const ReadOptions small = small_limits();
  for (const char* text :
       {"[\"12345678\"]", "[\"123456789\"]", "[\"\\u0041\\u0041\\u0041\\u0041\\u0041\"]",
        "12345678", "123456789", "1.2345678", "1.23456789", "[1,2,3]", "[1,2,3,4]",
        "{\"a\":1,\"b\":2,\"c\":3}", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4}",
        "[\"^ \",\"a\",1,\"b\",2,\"c\",3,\"d\",4]", "[[[1]]]", "[[[[1]]]]",
        "[\"a\",\"b\",\"c\"] [\"a\",\"b\",\"c\",\"d\"]", "[1,2,3]           [1]",
        "[\"1234567\",\"1234567\",\"123456\"]", "[\"1234567\",\"1234567\",\"1234567\"]",
        "[\"1234567\",\"1234567\",\"1234567\"]   ", "[1] [\"1234567\",\"1234567\",\"1234567\",1]"})
    expect_same(text, small);
}

// Arrays, map arrays, tagged arrays and objects of every small size and a few large ones (past
// the decoder's 65,536 items on its stack, where a large array moves to its own slots), nested,
// and with a collection limit below, at and above their counts, read as RapidJSON reads them:
// a guard for any use of the item counts simdjson's tape holds (a count hint to the decoder).
TEST(JsonSimdjson, ContainerSizesReadTheSameBothWays) {
  const auto items = [](std::size_t n, std::string_view first = "") {
    std::string text = "[" + std::string(first);
    for (std::size_t i = 0; i < n; ++i)
      text += (i == 0 && first.empty() ? "" : ",") + std::to_string(i % 7 == 3 ? -1 : i);
    return text + "]";
  };
  const auto entries = [](std::size_t n, bool object) {
    std::string text = object ? "{" : "[\"^ \"";
    for (std::size_t i = 0; i < n; ++i) {
      if (i != 0 || !object) text += ",";
      text += "\"~:k" + std::to_string(i) + "\"" + (object ? ":" : ",") + "[" + std::to_string(i) + "]";
    }
    return text + (object ? "}" : "]");
  };
  std::vector<std::string> texts;
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 100, 1000}) {
    texts.push_back(items(n));
    texts.push_back("[" + items(n) + "," + items(n + 1) + ",[" + items(n) + "]]");
    texts.push_back(items(n, "\"~#list\"," + items(n)));
    texts.push_back(items(n, "\"~#set\""));
    texts.push_back(entries(n, false));
    texts.push_back(entries(n, true));
    texts.push_back("[" + entries(n, false) + "," + entries(n, false) + "]");
  }
  texts.push_back(items(70000));
  texts.push_back("[" + items(70000) + "," + items(3) + "]");
  texts.push_back(entries(40000, false));
  for (const std::string& text : texts) expect_same(text);

  for (std::size_t limit : {2, 3, 4, 16}) {
    ReadOptions options;
    options.max_collection_length = limit;
    for (std::size_t n : {0, 1, 2, 3, 4, 5, 15, 16, 17}) {
      expect_same(items(n), options);
      expect_same("[[" + items(n) + "]]", options);
      expect_same(entries(n, false), options);
      expect_same(entries(n, true), options);
    }
  }
}

// Empty arrays and objects on simdjson's tape are delivered whole (Decoder::empty_container),
// with no frame pushed and popped, wherever nothing could make them other than empty; anywhere
// else they take the general path. Either way the read is RapidJSON's, whose events never take
// that shortcut: as values, top-level, keys of a cmap and of a map, reps of tags (first and
// second), in "^ " map arrays, with user builders and read handlers installed (which must see
// every empty container they would see), and at the depth limit. An error after empty
// containers, mid-container, leaves nothing behind (the ASan build checks).
TEST(JsonSimdjson, EmptyContainersReadTheSameBothWays) {
  transit::ReadHandlers builders;
  builders.set_array_builder([](std::span<Value> items) {
    return Value::array({Value("built"), Value(static_cast<std::int64_t>(items.size()))});
  });
  builders.set_map_builder([](std::span<Value> kv) {
    return Value::array({Value("map"), Value(static_cast<std::int64_t>(kv.size()))});
  });
  transit::ReadHandlers handlers;
  handlers.add("point", [](const Value& rep) { return Value::array({Value("point"), rep}); });
  ReadOptions built;
  built.handlers = &builders;
  ReadOptions handled;
  handled.handlers = &handlers;
  std::vector<ReadOptions> options(6);
  options[1] = built;
  options[2] = handled;
  options[3].max_depth = 1;
  options[4].max_depth = 2;
  options[5].max_depth = 3;
  const std::vector<std::string_view> texts = {
      "[]", "{}", " [] ", "[] []", "{} []", "[[]]", "[{}]", "{\"a\":[]}", "{\"a\":{}}",
      "[[], {}, [[], {}], 1]", "{\"a\": [], \"b\": {}}", "[\"^ \", \"a\", [], \"b\", {}]",
      "[\"^ \", [], 1]", "[\"^ \"]", "[\"^ \", \"~:kw-key\", [], \"^0\", {}]",
      "[\"~#cmap\", [[], 1, {}, 2]]", "[\"~#cmap\", []]", "{\"~#cmap\": []}",
      "[\"~#cmap\", [[], 1, [], 2]]", "[\"~#set\", []]", "[\"~#set\", [[], [], {}]]",
      "[\"~#list\", [[], {}]]", "[\"~#'\", []]", "[\"~#'\", {}]", "[\"~#point\", []]",
      "{\"~#point\": {}}", "{\"~#point\": []}", "[\"~#point\", 1, []]", "[\"~#point\", 1, {}]",
      "[\"~#point\", [], []]", "{\"~#point\": [], \"x\": {}}", "[\"~#point\"]",
      "[[[]], [{}]]", "[[[[]]]]", "[[[{}]]]", "{\"a\":{\"b\":{\"c\":{}}}}",
      "[[], {}, \"^9\"]", "[[], {}, [[], {}, [1, 2, {\"x\": []}, \"~#bad\"]]]",
      "[\"a long string that is not inline\", [], {\"a key that is not inline\": {}}, \"^0\"]",
      "[\"~#point\", [\"a long string that is not inline\", []], {}]"};
  for (std::size_t o = 0; o < options.size(); ++o) {
    SCOPED_TRACE(testing::Message() << "options " << o);
    for (const std::string_view text : texts) expect_same(text, options[o]);
  }
  // What the shortcut gives, read through simdjson, and what the builders see.
  EXPECT_EQ(transit::read("[[], {}, [\"~#set\", []], {\"~#point\": {}}]", Encoding::json),
            Value::array({Value::array({}), Value::map({}), Value::set({}),
                          Value::tagged("point", Value::map({}))}));
  EXPECT_EQ(transit::read("[[], {}]", Encoding::json, built), Value::array({"built", 2}));
  EXPECT_EQ(transit::read("[{}]", Encoding::json, built), Value::array({"built", 1}));
  EXPECT_EQ(transit::read("{}", Encoding::json, built), Value::array({"map", 0}));
  EXPECT_EQ(transit::read("[]", Encoding::json, built), Value::array({"built", 0}));
  EXPECT_EQ(transit::read("[\"~#point\", []]", Encoding::json, handled),
            Value::array({"point", Value::array({})}));
  // Too deep: an empty container one level below the limit is refused, at its own byte.
  for (const std::string_view text : {"[[]]", "[{}]"}) {
    try {
      transit::read(text, Encoding::json, options[3]);
      ADD_FAILURE() << text << " was read past max_depth 1";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "transit: too_deep at byte 1 (line 1, column 2) in $[0]: nesting deeper than 1 levels");
    }
  }
}

// The plain walk ends a "^ " map array, an object and an array built in their own slots
// straight into their parent's next slot (Decoder::plain_array_end, plain_map_end), and
// anything else (a tagged value, a rep, the top level, a map with a key left over) by the
// general path: read as RapidJSON reads them, from memory and from a Source cut into 7-byte
// pieces, with keys cached and not, short and long, composite, duplicated first, in the
// middle and last, at sizes around the duplicate check's steps (2, 8, 64 entries), with the
// collection and depth limits at their edges, and deep enough for Value::kMaxDepth.
TEST(JsonSimdjson, MapEndsInThePlainWalkReadTheSameBothWays) {
  // `n` entries, the key of entry i from `key(i)`, its value [i]; the entry at `dup` (if
  // below n) repeats entry 0's key.
  const auto map_text = [](std::size_t n, bool object, std::size_t dup, auto key) {
    std::string text = object ? "{" : "[\"^ \"";
    for (std::size_t i = 0; i < n; ++i) {
      if (i != 0 || !object) text += ",";
      text += (i == dup && i != 0 ? key(0) : key(i)) + (object ? ":" : ",") + "[" +
              std::to_string(i) + "]";
    }
    return text + (object ? "}" : "]");
  };
  const auto keyword = [](std::size_t i) { return "\"~:k" + std::to_string(i) + "\""; };
  const auto short_string = [](std::size_t i) { return "\"" + std::to_string(i % 1000) + "\""; };
  const auto long_string = [](std::size_t i) {
    return "\"a key long enough to live in a node " + std::to_string(i) + "\"";
  };
  const auto composite = [](std::size_t i) { return "[" + std::to_string(i) + ",\"x\"]"; };
  std::vector<std::string> texts;
  for (std::size_t n : {0, 1, 2, 3, 4, 8, 9, 10, 63, 64, 65, 300}) {
    for (std::size_t dup : {std::size_t{0}, std::size_t{1}, n / 2, n - 1}) {
      for (bool object : {false, true}) {
        const std::string kw = map_text(n, object, dup, keyword);
        texts.push_back(kw);
        // The same keys again, now cache codes, inside an array, a map array and a tag.
        texts.push_back("[" + kw + "," + kw + "]");
        texts.push_back("[\"^ \",\"~:outer\"," + kw + ",\"^0\"," + kw + "]");
        texts.push_back("[\"~#set\",[" + kw + "," + kw + "]]");
        texts.push_back("{\"~#list\":[" + kw + "]}");
        texts.push_back("[\"~#point\"," + kw + "]");
        texts.push_back("[" + map_text(n, object, dup, short_string) + "]");
        texts.push_back("[" + map_text(n, object, dup, long_string) + "," +
                        map_text(n, object, dup, long_string) + "]");
      }
      texts.push_back("[" + map_text(n, false, dup, composite) + "]");
    }
  }
  // Objects whose first key may make them other than a plain map (a tag, a cache code, "^ ",
  // an escape), and those that cannot, whose node the plain walk reserves at their begin
  // (Decoder::plain_object_begin): as a value, a rep (first and second), a key, in a cmap.
  for (const char* first : {"\"\"", "\"~\"", "\"^\"", "\"^ \"", "\"^0\"", "\"^1\"",
                            "\"~#set\"", "\"~#point\"", "\"~#\"", "\"~~#set\"", "\"~:kw\"",
                            "\"~:keyword-key\"", "\"~$sym\"", "\"~i12\"", "\"plain\"",
                            "\"a plain key long enough for a node\""}) {
    const std::string object = std::string("{") + first + ":[1,2]}";
    const std::string two = std::string("{") + first + ":[1,2],\"~:other\":3}";
    for (const std::string& text :
         {object, two, "[" + object + "]", "[" + two + "," + two + "]",
          "[{\"~:keyword-key\":1}," + object + "," + two + "]",
          "[\"~:keyword-key\",\"^0\"," + object + "]", "[\"~#point\"," + object + "]",
          "[\"~#point\"," + object + "," + two + "]", "{\"~#point\":" + two + "}",
          "[\"~#cmap\",[" + object + "," + two + "]]", "[\"^ \",\"~:k\"," + two + "]",
          "{\"~#set\":[" + object + "]}", "[[\"^ \",\"~:x\",1]," + object + "]"}) {
      expect_same(text);
      for (std::size_t limit : {1, 2, 3}) {
        ReadOptions options;
        options.max_collection_length = limit;
        expect_same(text, options);
      }
      for (std::size_t depth : {1, 2, 3}) {
        ReadOptions options;
        options.max_depth = depth;
        expect_same(text, options);
      }
    }
  }
  // A key left without a value, inside an array and inside a map array.
  texts.push_back("[[\"^ \",\"~:a\",1,\"~:b\"]]");
  texts.push_back("[\"^ \",\"~:a\",[\"^ \",\"^0\",1,\"~:b\"]]");
  texts.push_back("[{\"~:a\":1},[\"^ \",\"^0\",1,\"^0\"]]");
  for (const std::string& text : texts) expect_same(text);

  // Limits at their edges: a map array's count is its items ("^ " too), an object's its
  // entries; the depth of a map in an array is 2.
  for (std::size_t limit : {2, 3, 4, 5, 8, 9, 17, 18}) {
    ReadOptions options;
    options.max_collection_length = limit;
    for (std::size_t n : {1, 2, 4, 8, 9}) {
      expect_same("[" + map_text(n, false, 0, keyword) + "]", options);
      expect_same("[" + map_text(n, true, 0, keyword) + "]", options);
    }
  }
  for (std::size_t depth : {1, 2, 3}) {
    ReadOptions options;
    options.max_depth = depth;
    for (const char* text : {"[[\"^ \",\"~:a\",1]]", "[{\"~:a\":1}]", "[[\"^ \",\"~:a\",[1]]]",
                             "[[\"^ \",\"~:a\",[\"^ \",\"^0\",1]]]", "[[[\"^ \",\"~:a\",1]]]"})
      expect_same(text, options);
  }
  // Past Value::kMaxDepth (1,000) in map arrays and objects, within the reader's depth limit:
  // refused where the 1,000th level is finished, with the same path.
  ReadOptions deep;
  deep.max_depth = 2000;
  for (std::size_t levels : {999, 1000, 1001}) {
    std::string arrays, objects;
    for (std::size_t i = 0; i < levels; ++i) arrays += "[\"^ \",\"~:a\",";
    arrays += "1" + std::string(levels, ']');
    for (std::size_t i = 0; i < levels; ++i) objects += "{\"~:a\":";
    objects += "1" + std::string(levels, '}');
    expect_same(arrays, deep);
    expect_same(objects, deep);
  }

  // From a Source, cut into pieces (RapidJSON's stream reader), the same values and errors as
  // from memory (simdjson).
  for (std::size_t t = 0; t < texts.size(); t += 7) {
    std::string memory_error, stream_error;
    Value from_memory, from_stream;
    try {
      from_memory = transit::read(texts[t], Encoding::json);
    } catch (const Error& e) {
      memory_error = e.what();
    }
    try {
      transit::test::StepSource source(texts[t], 7);
      transit::Reader reader(source, Encoding::json);
      if (auto v = reader.next()) from_stream = std::move(*v);
    } catch (const Error& e) {
      stream_error = e.what();
    }
    EXPECT_EQ(memory_error, stream_error) << texts[t].substr(0, 200);
    EXPECT_EQ(from_memory, from_stream) << texts[t].substr(0, 200);
  }

  // What the walk builds: the last value of a duplicate key, the first key's place kept.
  EXPECT_EQ(transit::read("[[\"^ \",\"~:key\",1,\"~:b\",2,\"^0\",3]]", Encoding::json),
            Value::array({Value::map({{Value::keyword("key"), 3}, {Value::keyword("b"), 2}})}));
  EXPECT_EQ(transit::read("[{\"~:a\":1,\"~:b\":2,\"~:a\":3}]", Encoding::json_verbose),
            Value::array({Value::map({{Value::keyword("a"), 3}, {Value::keyword("b"), 2}})}));
}

// Keywords and symbols of every length around the inline text's bounds (ValueAccess::
// inline_text, inline in every reader), as keys and values, from JSON, JSON-Verbose and
// MessagePack: the Values Value::keyword and Value::symbol build, and the same both ways.
TEST(JsonSimdjson, KeywordsOfEveryShortLengthReadAsBuilt) {
  for (std::size_t n = 0; n <= 17; ++n) {
    const std::string name = std::string("abcdefghijklmnopq").substr(0, n);
    for (const char* prefix : {"~:", "~$"}) {
      const Value built = prefix[1] == ':' ? Value::keyword(name) : Value::symbol(name);
      const std::string text = std::string(prefix) + name;
      const std::string verbose = "{\"" + text + "\":\"" + text + "\"}";
      const std::string json = "[\"^ \",\"" + text + "\",\"" + text + "\"]";
      SCOPED_TRACE(verbose);
      expect_same(verbose);
      expect_same(json);
      expect_same("[" + json + "," + json + "]");
      const Value map = Value::map({{built, built}});
      EXPECT_EQ(transit::read(verbose, Encoding::json_verbose), map);
      EXPECT_EQ(transit::read(json, Encoding::json), map);
      EXPECT_EQ(transit::read(transit::write(map, Encoding::msgpack), Encoding::msgpack), map);
      EXPECT_EQ(transit::read(json, Encoding::json).entries()[0].first.as_string(), name);
    }
  }
}

// A tagged array of 2 items or object of 1 entry, in simdjson's plain walk, takes its one rep
// in the decoder's pair slot (Decoder::json_start_tagged), where RapidJSON's events (no
// counts) put it on the value stack: every form of rep (scalars, cache codes of values held
// inline and in nodes, which come as uncounted aliases, cached tags, containers of every
// kind, empty ones, tagged values nested in reps three deep, quotes that hand the rep on as
// the value), every rule (set, list, cmap, link, quote, instant, UUID, a tag of no rule),
// tagged values that are no pair (a second rep, none, more keys), errors inside a rep, and
// the limits at their edges, read as RapidJSON reads them. Values of quotes of cached long
// strings outlive their documents (the ASan build checks).
TEST(JsonSimdjson, TaggedValuesWithOneRepReadTheSameBothWays) {
  const std::string long_key = "\"a key long enough to live in a node\"";
  const std::vector<std::string> reps = {
      "1", "-2.5", "null", "true", "\"s\"", long_key, "\"~:kw\"", "\"~:a-keyword-long-enough-for-a-node\"",
      "\"^0\"", "\"^1\"", "\"^2\"", "[]", "{}", "[1,2,2]", "[\"^0\",\"^1\",\"^0\"]", "[\"^ \",\"a\",1]",
      "[\"^ \"]", "{\"a\":[1]}", "[[1],[2]]", "[\"~#point\",[1,2]]", "[\"^3\",[3,4]]",
      "[\"~#point\",[\"~#point\",[\"~#point\",[]]]]", "[\"~#'\",\"^0\"]", "[\"~#set\",[1,1]]",
      "{\"~#set\":[1]}", "\"~m1700000000000\"", "[\"~#m\",5]", "\"^ \"", "[1,", "\"~#bad tag\""};
  const std::vector<std::string> tags = {"set", "list", "cmap", "link", "'", "m", "u", "point",
                                         "a-tag-long-enough-for-a-text-node"};
  // "^0" names the long key, "^1" the keyword, "^2" the tag "point", "^3" the tag of the
  // value read (when it is long enough to be cached).
  const std::string prefix =
      "[[\"^ \"," + long_key + ",1,\"~:a-keyword-long-enough-for-a-node\",2],[\"~#point\",[0,0]],";
  std::vector<std::string> texts;
  for (const std::string& tag : tags) {
    for (const std::string& rep : reps) {
      texts.push_back(prefix + "[\"~#" + tag + "\"," + rep + "]]");
      texts.push_back(prefix + "{\"~#" + tag + "\":" + rep + "}]");
      texts.push_back(prefix + "[\"^2\"," + rep + "],[\"^2\"," + rep + "]]");
      texts.push_back("[\"~#" + tag + "\"," + rep + "]");
      texts.push_back("{\"~#" + tag + "\":" + rep + "}");
      texts.push_back("[\"~#" + tag + "\"," + rep + "," + rep + "]");
      texts.push_back("{\"~#" + tag + "\":" + rep + ",\"x\":" + rep + "}");
    }
    texts.push_back("[\"~#" + tag + "\"]");
    texts.push_back("{\"~#" + tag + "\":[]}{\"~#" + tag + "\":[1]}");
  }
  // A cached tag (its entry's Value copied into the frame) where a tag may start a value and
  // where it may not: a map's first key, an array's later item, a map's value, with no rep
  // and with two; the long tag (a text node) too.
  for (const char* code : {"\"^2\"", "\"^3\""}) {
    const std::string with_long_tag = prefix + "[\"~#a-tag-long-enough-for-a-text-node\",1],";
    for (const std::string& start : {prefix, with_long_tag}) {
      for (const std::string& rest :
           {"{" + std::string(code) + ":[1,2]}]", "[1," + std::string(code) + "]]",
            "{\"a\":" + std::string(code) + "}]", "[" + std::string(code) + "]]",
            "[" + std::string(code) + ",1,2]]", "[" + std::string(code) + ",[" + code + ",[]]]]"})
        texts.push_back(start + rest);
    }
  }
  for (const std::string& text : texts) expect_same(text);
  for (std::size_t limit : {0, 1, 2}) {
    ReadOptions options;
    options.max_collection_length = limit;
    for (const char* text : {"[\"~#set\",[]]", "[\"~#set\",[1]]", "[\"~#point\",1]", "{\"~#point\":1}",
                             "[[\"~#set\",[1]]]", "[\"~#point\",[\"~#point\",1]]"})
      expect_same(text, options);
  }
  for (std::size_t depth : {1, 2, 3}) {
    ReadOptions options;
    options.max_depth = depth;
    for (const char* text : {"[\"~#set\",[]]", "[\"~#set\",[1]]", "[\"~#point\",1]", "{\"~#point\":[[1]]}",
                             "[\"~#point\",[\"~#point\",1]]"})
      expect_same(text, options);
  }
  // A quote hands its rep, a cache code's value (a node of the document), on as the value.
  Value kept;
  {
    const Value doc = transit::read(prefix + "[\"~#'\",\"^0\"],{\"~#'\":\"^0\"}]", Encoding::json);
    kept = doc.items()[2];
    EXPECT_EQ(doc.items()[3], kept);
  }
  EXPECT_EQ(kept, Value("a key long enough to live in a node"));
  EXPECT_EQ(kept.detach(), kept);
}

// A read handler that reads JSON inside a read (so the per-thread parser is in use).
TEST(JsonSimdjson, NestedReadInAHandler) {
  transit::ReadHandlers handlers;
  handlers.add("json", [](const Value& rep) {
    return transit::read(rep.as_string(), Encoding::json);
  });
  ReadOptions options;
  options.handlers = &handlers;
  const std::string text = R"(["~#json","[\"^ \",\"~:abc\",[1,2.5,\"^0\"]]"])";
  expect_same(text, options);
  const Value v = transit::read(text, Encoding::json, options);
  EXPECT_EQ(v, transit::read(R"(["^ ","~:abc",[1,2.5,"~:abc"]])", Encoding::json));
}

// Every JSON and JSON-Verbose exemplar's text.
std::vector<std::string> exemplar_texts() {
  std::vector<std::string> texts;
  for (const char* suffix : {".verbose.json", ".json"})
    for (const std::string& name : exemplar_cases(suffix))
      texts.push_back(transit::test::slurp(transit::test::exemplar_dir() / (name + suffix)));
  return texts;
}

// Mutations of every exemplar: bytes replaced, dropped, inserted and duplicated, texts cut and
// joined, with a fixed seed so a failure reproduces.
TEST(JsonSimdjson, MutatedExemplarsReadTheSameBothWays) {
  if (!transit::test::exemplars_present()) GTEST_SKIP() << "exemplar folder not found";
  const std::vector<std::string> texts = exemplar_texts();
  std::mt19937 rng(20261201);
  static constexpr char kAlphabet[] = "[]{}\",:^~# \n0123456789.eE-+\\u\x01\x1f\x7f\xc3\xa9\xff\0";
  const std::string_view alphabet(kAlphabet, sizeof kAlphabet - 1);
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  int cases = 0;
  for (const std::string& original : texts) {
    for (int round = 0; round < 24; ++round) {
      std::string t = original;
      const int edits = 1 + static_cast<int>(pick(3));
      for (int e = 0; e < edits && !t.empty(); ++e) {
        const std::size_t at = pick(t.size());
        switch (pick(6)) {
          case 0: t[at] = alphabet[pick(alphabet.size())]; break;
          case 1: t.erase(at, 1 + pick(4)); break;
          case 2: t.insert(at, 1, alphabet[pick(alphabet.size())]); break;
          case 3: t.insert(at, t.substr(at, pick(16))); break;
          case 4: t.resize(at); break;
          case 5: t += (pick(2) ? " " : "") + texts[pick(texts.size())]; break;
        }
      }
      SCOPED_TRACE(testing::Message() << "round " << round);
      expect_same(t);
      ++cases;
    }
  }
  EXPECT_GT(cases, 2000);
}

// A text of many values (a batch of messages, one a line): in memory, once the text shows more
// than one value, each array or object is read by simdjson alone (JsonReader::read_with_simdjson)
// and every other value by RapidJSON. Long texts (past 64 KiB) are looked at first, so that
// simdjson never reads them whole; shorter ones are tried whole first. Either way a read gives
// RapidJSON's values, errors and offsets.
std::string many_small_values(std::size_t n, std::size_t bad_at = SIZE_MAX) {
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    text += i == bad_at ? "[" + k + ",]" : "[\"^ \",\"~:key\"," + k + ",\"~:list\",[\"~#list\",[\"~:key\",\"a]\\\"{\"]]]";
    text += i % 3 == 0 ? "\n" : (i % 3 == 1 ? " \t\r\n " : "");
  }
  return text;
}

std::vector<std::string> many_value_texts() {
  std::vector<std::string> texts = {
      "[1][2]", "{\"a\":1}{\"b\":2}", "[1]{\"b\":2}[3]", "1 2", "\"a\" \"b\"", "1\"a\"", "true false",
      "[1] \t\r\n [2] \n\t ", " \n[1]\r\n[2]\t", "[1,2] [3] {\"x\":[4]} [5,6,7] [8]",
      "[1] [2] [3,] [4] [5]", "[1] [2] {\"a\" 1} [4] [5]", "[1] [2] x", "[1] [2] [", "[1] [2] [3",
      "[1] [2] ]", "[1]]", "[1]}", "[1] [2]]", "{\"a\":1}{", "1 [2] \"a\" {\"b\":3} null [4]",
      "[1] 2 [3", "[\"~#set\",[1,2]] [\"~#list\",[3]] {\"~#set\":[4]}",
      "[\"]\"] [\"\\\\\"] [\"\\\"[\"] {\"}\":\"{\"} [\"\\\\\\\"]\"]", "[\"é\"] [\"\xff\"] [3]",
      "[1] [\"a\x1b\"] [2]", "[1] [\"a\x01\"] [2]", "[1] [0e400] [2]", "[1] [0.0e+0400] [2]",
      "[1] [1e400] [2]", "[1] [10e308] [2]", "[1] [18446744073709551616] [2] [-9223372036854775809]",
      // The cache resets for every top-level value; JSON-Verbose first, then JSON forms.
      "[\"^ \",\"~:abcd\",1] [\"^ \",\"^0\",2]", "[\"~:abcd\",\"^0\"] [\"~:abcd\",\"^0\"]",
      "{\"~:keyword-key\":1} [\"^ \",\"~:keyword-key\",1,\"^0\",2] {\"~:keyword-key\":3}",
      "[{\"~:keyword-key\":1},\"^0\"] [{\"~:keyword-key\":1}]", "[\"~:abcd\"] [\"^0\"]",
      "[\"~#unknown\",1] [\"~#'\",2] [\"~#link\",[\"^ \",\"href\",\"a\"]]"};
  texts.push_back(std::string("[1] [2]\0 [3]", 12));
  texts.push_back(many_small_values(40));
  texts.push_back(many_small_values(40, 17));
  // Past 64 KiB: looked at before being read whole.
  texts.push_back(many_small_values(3000));
  texts.push_back(many_small_values(3000, 2000));
  texts.push_back(many_small_values(3000) + "x");
  texts.push_back(many_small_values(3000) + "[1,");
  texts.push_back("1 " + many_small_values(3000));
  // A first value longer than what is looked at (1/1024 of the text), then short ones; one
  // long value among short ones; one long value alone, and with a short one after it.
  const std::string long_value = "[" + std::string(2000, '1') + "," + many_small_values(200).substr(1);
  std::string long_one = "[";
  for (int i = 0; i < 5000; ++i) long_one += (i ? "," : "") + std::to_string(i);
  long_one += "]";
  texts.push_back(long_one + "\n" + many_small_values(2000));
  texts.push_back(many_small_values(1000) + long_one + many_small_values(1000));
  texts.push_back(long_one + " ");
  texts.push_back(long_one + " [1]");
  texts.push_back("[" + long_one + "," + long_one + "] [2]");
  return texts;
}

TEST(JsonSimdjson, ManyValuesReadTheSameBothWays) {
  for (const std::string& text : many_value_texts()) expect_same(text);
}

TEST(JsonSimdjson, ManyValuesReadTheSameBothWaysWithinLimits) {
  const ReadOptions small = small_limits();
  for (const char* text :
       {"[1] [\"123456789\"] [2]", "[1] [\"12345678\"] [2]", "[1,2,3] [1,2,3,4] [5]", "[[[1]]] [[[[1]]]] [2]",
        "[\"1234567\",\"1234567\",\"123456\"] [\"1234567\",\"1234567\",\"1234567\"] [1]", "[1] 123456789 [2]",
        "[1]                                              [2]", "[1,2] [3,4] [5,6] [7,8] [9,10] [11,12] [13]",
        "[\"12345678\"][\"12345678\"][\"12345678\"][\"12345678\"][\"12345678\"]"})
    expect_same(text, small);
  // Limits between the values' sizes and the text's (the text is longer than either).
  for (const std::size_t limit : {std::size_t{8}, std::size_t{80}, std::size_t{1000}}) {
    ReadOptions bytes;
    bytes.max_value_bytes = limit;
    ReadOptions strings;
    strings.max_string_length = limit;
    for (const std::string& text : {many_small_values(40), many_small_values(3000)}) {
      expect_same(text, bytes);
      expect_same(text, strings);
    }
  }
  ReadOptions deep;
  deep.max_depth = 2;
  expect_same(many_small_values(3000), deep);
}

// What each call of a reader gave, its calls in turn next(), next<Value>() and
// next<std::vector<std::int64_t>>(), with the offset after each: typed reads (a bounded walk
// in batches of `batch` tokens) and untyped ones on one reader.
std::vector<std::string> mixed_calls(std::string_view text, bool use_simdjson, std::size_t batch) {
  transit::detail::testing::set_json_simdjson(use_simdjson);
  ReadOptions options;
  options.typed_batch_tokens = batch;
  transit::Reader reader(text, Encoding::json, options);
  transit::detail::testing::set_json_simdjson(true);
  std::vector<std::string> out;
  for (int i = 0; i < 60; ++i) {
    std::optional<std::string> got;
    try {
      if (i % 3 == 0) {
        if (auto v = reader.next()) got = transit::write(*v, Encoding::json_verbose);
      } else if (i % 3 == 1) {
        if (auto v = reader.next<Value>()) got = transit::write(*v, Encoding::json_verbose);
      } else if (auto v = reader.next<std::vector<std::int64_t>>()) {
        got = "ints";
        for (const std::int64_t x : *v) *got += " " + std::to_string(x);
      }
      if (!got) {
        out.emplace_back("end");
        break;
      }
    } catch (const Error& e) {
      got = e.what();
    }
    out.push_back(*got + " to byte " + std::to_string(reader.offset()));
  }
  return out;
}

TEST(JsonSimdjson, ManyValuesReadTheSameBothWaysByTypedAndUntypedCalls) {
  std::vector<std::string> texts = many_value_texts();
  texts.emplace_back("[1,2] [\"^ \",\"a\",1] [3,4] [5,\"x\"] [6] [7,8,9] 10 [11] [\"~#list\",[12]] [13]");
  std::string ints;
  for (int i = 0; i < 3000; ++i) ints += "[" + std::to_string(i) + "," + std::to_string(-i) + ",7]\n";
  texts.push_back(ints);
  // One value with a zero RapidJSON refuses, met in a bounded walk's first batch or after it.
  texts.emplace_back("[0e400]");
  texts.emplace_back("[1,2,0e400] ");
  for (const std::string& text : texts)
    for (const std::size_t batch : {ReadOptions::kLibraryDefault, std::size_t{0}, std::size_t{1}, std::size_t{3}})
      EXPECT_EQ(mixed_calls(text, true, batch), mixed_calls(text, false, batch))
          << "batch " << batch << " text: " << text.substr(0, 200);
}

// Texts of a few exemplars one after another, with every kind of whitespace or none between
// them, then mutated as MutatedExemplarsReadTheSameBothWays mutates one: read both ways, by
// next() and by the interleaved typed calls.
TEST(JsonSimdjson, MutatedManyValueTextsReadTheSameBothWays) {
  if (!transit::test::exemplars_present()) GTEST_SKIP() << "exemplar folder not found";
  const std::vector<std::string> texts = exemplar_texts();
  std::mt19937 rng(20261206);
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  static constexpr const char* kBetween[] = {"", " ", "\n", "\t\r\n ", "\r", "  \n\n"};
  static constexpr char kAlphabet[] = "[]{}\",:^~# \n0123456789.eE-\\\x01\xff";
  const std::string_view alphabet(kAlphabet, sizeof kAlphabet - 1);
  for (int round = 0; round < 3000; ++round) {
    std::string t;
    for (std::size_t n = 2 + pick(5); n != 0; --n) t += texts[pick(texts.size())] + kBetween[pick(std::size(kBetween))];
    for (int e = static_cast<int>(pick(3)); e > 0 && !t.empty(); --e) {
      const std::size_t at = pick(t.size());
      switch (pick(3)) {
        case 0: t[at] = alphabet[pick(alphabet.size())]; break;
        case 1: t.erase(at, 1 + pick(4)); break;
        case 2: t.insert(at, 1, alphabet[pick(alphabet.size())]); break;
      }
    }
    SCOPED_TRACE(testing::Message() << "round " << round);
    expect_same(t);
    if (round % 4 == 0) {
      EXPECT_EQ(mixed_calls(t, true, ReadOptions::kLibraryDefault), mixed_calls(t, false, ReadOptions::kLibraryDefault))
          << "text: " << t.substr(0, 200);
    }
  }
}

// How much `count`, one of this thread's counters (testing.h), grows while `text` is read to
// its end or its first error.
std::size_t grows_by(std::size_t (*count)() noexcept, std::string_view text) {
  const std::size_t before = count();
  try {
    (void)transit::read_all(text);
  } catch (const Error&) {
  }
  return count() - before;
}

// Counted: each array or object of a text of many is read by simdjson, not RapidJSON.
TEST(JsonSimdjson, ManyValuesInMemoryAreEachReadBySimdjson) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << "counts simdjson's reads";
  using transit::detail::testing::json_values_alone;
  const auto alone = [](std::string_view text) { return grows_by(json_values_alone, text); };
  EXPECT_EQ(alone("[1] [2] {\"a\":[3]}"), 3u);
  EXPECT_EQ(alone("[1][2]"), 2u);
  EXPECT_EQ(alone("[1]"), 0u);  // one value: read whole, as ever
  EXPECT_EQ(alone("1 [2] \"a\" [3] true"), 2u);  // scalars: RapidJSON's
  EXPECT_EQ(alone("[1] [2] [3,] [4] [5]"), 2u);
  EXPECT_EQ(alone(many_small_values(3000)), 3000u);
  EXPECT_EQ(alone(many_small_values(3000, 2000)), 2000u);

  const std::string ints = "[1,2] [3] [4,5,6]";
  const std::size_t before = json_values_alone();
  transit::Reader reader(ints);
  EXPECT_EQ(reader.next<std::vector<std::int64_t>>(), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(transit::write(*reader.next()), "[3]");
  EXPECT_EQ(reader.next<std::vector<std::int64_t>>(), (std::vector<std::int64_t>{4, 5, 6}));
  EXPECT_EQ(json_values_alone() - before, 3u);
}

// A text of many values goes to simdjson's stream (ValueStream: one stage 1 over a batch of
// values, stage 2 a value at a time) in batches of `bytes` while this lives; 0 turns it off.
struct StreamBatch {
  explicit StreamBatch(std::size_t bytes) : was(transit::detail::testing::json_stream_batch()) {
    transit::detail::testing::set_json_stream_batch(bytes);
  }
  ~StreamBatch() { transit::detail::testing::set_json_stream_batch(was); }
  StreamBatch(const StreamBatch&) = delete;
  StreamBatch& operator=(const StreamBatch&) = delete;
  std::size_t was;
};

// Batches from simdjson's least (32 bytes, shorter than many values) up, and none: values cut
// at a batch's end, values longer than a batch, errors in a later batch, scalars between
// values, limits, and typed calls (a bounded walk holds the stream's document) read as
// RapidJSON reads them.
TEST(JsonSimdjson, ManyValuesReadTheSameBothWaysInStreamsOfEveryBatch) {
  std::vector<std::string> texts = many_value_texts();
  std::string scalars;
  for (int i = 0; i < 400; ++i)
    scalars += i % 5 == 0 ? std::to_string(i) + " " : (i % 5 == 1 ? "\"s\" " : "[" + std::to_string(i) + "]");
  texts.push_back(scalars);
  texts.push_back(many_small_values(300) + "[18446744073709551616]" + many_small_values(300));
  texts.push_back(many_small_values(300) + "[0e400] [0.0]" + many_small_values(300));
  texts.push_back(many_small_values(300) + "[\"\xff\"]" + many_small_values(300));
  const ReadOptions small = small_limits();
  for (const std::size_t batch : {std::size_t{0}, std::size_t{32}, std::size_t{100}, std::size_t{1000}, std::size_t{16} << 10}) {
    const StreamBatch in_batches(batch);
    for (const std::string& text : texts) {
      SCOPED_TRACE(testing::Message() << "batch " << batch);
      expect_same(text);
      if (text.size() < 20000) expect_same(text, small);
    }
    for (const std::string& text : {many_small_values(200), scalars, texts[texts.size() - 3]})
      for (const std::size_t tokens : {ReadOptions::kLibraryDefault, std::size_t{0}, std::size_t{3}})
        EXPECT_EQ(mixed_calls(text, true, tokens), mixed_calls(text, false, tokens))
            << "stream batch " << batch << ", typed batch " << tokens << " text: " << text.substr(0, 200);
  }
}

// `text` placed so that the 64 bytes after it are readable (the 4 KiB block of its last byte
// holds them): a stream reads to its end. The bytes after it are `after`; `readable_after`
// false places it at the buffer's start instead, where they may not be readable.
std::string_view padded_copy(std::vector<char>& buffer, std::string_view text, char after = ' ',
                             bool readable_after = true) {
  buffer.assign(text.size() + 8192, after);
  const auto last = reinterpret_cast<std::uintptr_t>(buffer.data()) + text.size() - 1;
  const std::size_t shift = readable_after ? (4096 - last % 4096) % 4096 : 0;  // the last byte starts a block
  std::memcpy(buffer.data() + shift, text.data(), text.size());
  return {buffer.data() + shift, text.size()};
}

// Counted: the arrays and objects of a text of many are read by the stream, whatever is
// between them; the rest as before (scalars by RapidJSON, values after an error, values longer
// than a batch by simdjson alone).
TEST(JsonSimdjson, ManyValuesInMemoryAreReadByAStream) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << "counts simdjson's reads";
  using transit::detail::testing::json_values_alone;
  using transit::detail::testing::json_values_streamed;
  std::vector<char> buffer;
  // The text ends in SIMDJSON_PADDING spaces: where the bytes past a text may not be read
  // (under ASan or memcheck, padding_readable), the stream stops that far before its end, and
  // its values must all come before that to be streamed there too.
  const auto streamed = [&](std::string_view text) {
    const std::size_t before = json_values_streamed(), alone_before = json_values_alone();
    const std::string spaced = std::string(text) + std::string(64, ' ');
    try {
      (void)transit::read_all(padded_copy(buffer, spaced));
    } catch (const Error&) {
    }
    return std::pair{json_values_streamed() - before, json_values_alone() - alone_before};
  };
  using Counts = std::pair<std::size_t, std::size_t>;  // streamed, read by simdjson alone
  EXPECT_EQ(streamed("[1] [2] {\"a\":[3]}"), (Counts{3, 3}));
  EXPECT_EQ(streamed("[1][2]"), (Counts{2, 2}));
  EXPECT_EQ(streamed("[1]"), (Counts{0, 0}));
  EXPECT_EQ(streamed("1 [2] \"a\" [3] true"), (Counts{2, 2}));
  EXPECT_EQ(streamed("[1] [2] [3,] [4] [5]"), (Counts{2, 2}));
  // Past 64 KiB, the first value, which the look at the text found, is read alone.
  EXPECT_EQ(streamed(many_small_values(3000)), (Counts{2999, 3000}));
  EXPECT_EQ(streamed(many_small_values(3000, 2000)), (Counts{1999, 2000}));
  EXPECT_EQ(streamed(many_small_values(1000)), (Counts{1000, 1000}));
  // A big integer (simdjson's error) ends the stream; the values after it are read alone
  // until a batch past it, then by a new stream.
  const std::string big = many_small_values(1000) + "[18446744073709551616]" + many_small_values(1000);
  const Counts counts = streamed(big);
  EXPECT_EQ(counts.second, 2000u);
  EXPECT_GT(counts.first, 1500u);
  EXPECT_LT(counts.first, 1900u);
  {
    const StreamBatch off(0);
    EXPECT_EQ(streamed(many_small_values(1000)), (Counts{0, 1000}));
  }
  // A value longer than a batch is read alone, and the stream goes on after it.
  const StreamBatch in_batches(100);
  const std::string long_one = "[\"" + std::string(150, 'x') + "\"]";
  EXPECT_EQ(streamed("[1] " + long_one + " [2] [3]"), (Counts{3, 4}));
}

// simdjson ends a stream's last batch at its last whole document as it sees them (a NUL after
// a value looks like another's start) and takes the batch's end for the next structural: the
// byte after the stream's bytes then closed a value that its text leaves open. Those bytes are
// `]` here, past the text (the stream reads to the text's end) and in it (where the 64 bytes
// past a text may not be read, the stream ends 64 bytes before it: tests/fuzz/regressions/
// json/stream-closed-by-the-byte-after.json). Every such value is an error, as RapidJSON reads it.
TEST(JsonSimdjson, AStreamNeverClosesAValueWithTheByteAfterItsText) {
  using namespace std::string_literals;
  std::vector<char> buffer;
  const std::string closers(80, ']');
  for (const std::string& text :
       {"[0] [\"a\",\"b\" \0 ]"s, "[0] {\"a\":[1,\"b\" \0\0 ]]"s, "[0] [\"a\" \0"s,
        "[\"#\",\"#a\" \0\0 "s + closers}) {
    for (const std::string& spaced : {text, text + closers}) {
      const std::string_view placed = padded_copy(buffer, spaced, ']');  // `]` readable after it
      expect_same(placed);
      EXPECT_FALSE(read_with(placed, true, {}).error.empty()) << "text: " << spaced;
    }
  }
}

// Generated texts of many values with junk among them (NULs, stray brackets and quotes, bad
// bytes, scalars), placed so that the bytes after them are a closer, a space or a quote and
// readable (or at the start of an allocation, where they may not be), read in streams of
// several batches and none: simdjson's stream gives RapidJSON's values, errors and offsets.
// Without the check above (a document past the stream's end), the 14,170th text of these
// differed (the fuzzer's find); 20,000 run here.
TEST(JsonSimdjson, ManyValuesWithJunkReadTheSameBothWaysWhateverFollowsTheText) {
  std::mt19937_64 rng(37);
  const std::vector<std::string> pieces = {
      "[", "]", "{", "}", ",", ":", "\"a\"", "\"^ \"", "\"~:k\"", "1", "23", "-4.5e1", "true", "null", " ",
      "\n", "\t", std::string(1, '\0'), "x", "\"", "\\", "[1]", "{\"a\":1}", "[\"a\",[2]]", "\"~#set\"", "\xff",
      "[\"x\",[1,2],{\"b\":\"~:c\"}] "};
  const std::size_t batches[] = {0, 32, 48, 64, 100, 16384};
  std::vector<char> buffer;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    for (std::size_t j = 1 + rng() % 40; j > 0; --j) text += pieces[rng() % pieces.size()];
    const char after = "]} \",:"[rng() % 6];
    const bool readable_after = rng() % 4 != 0;
    const std::string_view placed = padded_copy(buffer, text, after, readable_after);
    const StreamBatch in_batches(batches[rng() % std::size(batches)]);
    expect_same(placed);
    if (HasFailure()) break;  // one text shows it; the rest would repeat it
  }
}

// simdjson 3.0.1's stream takes a value that its text leaves invalid for a document when the
// next byte after it that is not whitespace is `,`, `:`, `]` or `}` (the last two also when
// they do not close it, unlike the test above): a missing comma (`["~#list"3]`, read as
// ["~#list",3]), a trailing one (`["k"3,]`), a key with no value. That byte may be the text's
// own or, where the stream reads to the text's end, the byte past it. Such a value is an
// error, as RapidJSON reads it, untyped and typed, wherever the text lies
// (tests/fuzz/regressions/typed/stream-missing-comma.json, the typed fuzzer's find).
TEST(JsonSimdjson, AStreamNeverTakesAnInvalidValueForADocument) {
  using namespace std::string_literals;
  std::vector<char> buffer;
  for (const std::string& value :
       {"[\"~#list\"3]"s, "[\"k\"3,]"s, "[\"a\"[1] ]"s, "{ \"k\"[1] }"s, "{\"a\"\"a\":}"s, "[[]3:]"s,
        "{\"a\"\"k\":}"s, "[3[1] ]"s, "{\"k\"[1] }"s, "[[1] {\"a\"}]"s, "[[1] [1] ]"s}) {
    // What follows counts past whitespace: the next byte that is not.
    for (const std::string& after :
         {","s, ":"s, ",,"s, ":3"s, "]"s, "}"s, "]]"s, " ,"s, "\n :"s, "  }"s, "\t]"s}) {
      // The invalid value first, then the bytes after it, then (for a text of many) values, the
      // text's last 64 bytes spaces or commas; placed where the bytes after the text are
      // readable and are the first of `after` that is not whitespace, and where they may not be
      // read.
      for (const std::string& text :
           {value + after, value + after + " [1] [2]" + std::string(64, ' '), value + after + std::string(70, ','),
            "[0] "s + value + after + " [1]" + std::string(64, ' ')}) {
        for (const bool readable_after : {true, false}) {
          const char next = after[after.find_first_not_of(" \t\n")];
          const std::string_view placed = padded_copy(buffer, text, next, readable_after);
          SCOPED_TRACE(testing::Message() << "text: " << text << (readable_after ? ", then " : ", ") << next);
          expect_same(placed);
          EXPECT_FALSE(read_with(placed, true, {}).error.empty());
          // A typed read reports an error placed in the text: RapidJSON's syntax error for an
          // array (an object is no vector: a mismatch, at its start, may come first).
          transit::Reader reader(placed, Encoding::json);
          try {
            while (reader.next<std::vector<std::int64_t>>()) {
            }
            ADD_FAILURE() << "no error";
          } catch (const Error& e) {
            if (value[0] == '[') {
              EXPECT_EQ(e.code(), transit::Errc::syntax) << e.what();
            }
            EXPECT_LE(e.offset(), placed.size()) << e.what();
          }
        }
      }
    }
  }
}

// A short text of values one a line shows it by its first line, and is read a value at a time
// without first being given to simdjson whole (which refuses it, after a stage 1 over all of
// it); a text of one value, on one line or several, and values on one line are given whole.
TEST(JsonSimdjson, ValuesOneALineAreNotFirstParsedWhole) {
  if (!transit::detail::testing::built_with_simdjson()) GTEST_SKIP() << "counts simdjson's reads";
  using transit::detail::testing::json_whole_refusals;
  const auto refusals = [](std::string_view text) { return grows_by(json_whole_refusals, text); };
  EXPECT_EQ(refusals("[1]\n[2]\n[3]\n"), 0u);
  EXPECT_EQ(refusals("{\"a\":1} \r\n{\"b\":2}"), 0u);
  EXPECT_EQ(refusals("[1] [2]\n[3]"), 0u);
  EXPECT_EQ(refusals(many_small_values(40)), 0u);
  EXPECT_EQ(refusals("[1] [2] [3]"), 1u);            // one line: tried whole
  EXPECT_EQ(refusals("[\n1,\n2]\n[3]"), 1u);       // a value over several lines
  EXPECT_EQ(refusals("[1,2]\n"), 0u);               // one value: read whole
  EXPECT_EQ(refusals("{\n  \"a\": [1]\n}\n"), 0u);
  EXPECT_EQ(refusals("[1,]\n"), 1u);                // one value simdjson refuses
  for (const char* text : {"[1]\n[2]\n[3]\n", "{\"a\":1} \r\n{\"b\":2}", "[1] [2]\n[3]", "[1]\n[2] x",
                           "[1]\n[2,", "[\"a\\\"]\"]\n[1]", "[1]]\n[2]", "1\n[2]", "[1]\n", "[1]  \t\n  "})
    expect_same(text);
}

// Two readers of texts of many on one thread, their calls interleaved: each has its stream and
// its parser, so neither disturbs the other's.
TEST(JsonSimdjson, InterleavedReadersOfManyValues) {
  const std::string a = many_small_values(500), b = many_small_values(700, 650);
  const auto alone = [](std::string_view text) {
    std::vector<std::string> out;
    transit::Reader reader(text);
    try {
      while (auto v = reader.next()) out.push_back(transit::write(*v));
    } catch (const Error& e) {
      out.emplace_back(e.what());
    }
    return out;
  };
  std::vector<std::string> got_a, got_b;
  transit::Reader ra(a), rb(b);
  bool a_done = false, b_done = false;
  while (!a_done || !b_done) {
    if (!a_done) {
      if (auto v = ra.next()) got_a.push_back(transit::write(*v)); else a_done = true;
    }
    if (!b_done) {
      try {
        if (auto v = rb.next()) got_b.push_back(transit::write(*v)); else b_done = true;
      } catch (const Error& e) {
        got_b.emplace_back(e.what());
        b_done = true;
      }
    }
  }
  EXPECT_EQ(got_a, alone(a));
  EXPECT_EQ(got_b, alone(b));
  ASSERT_EQ(got_a.size(), 500u);
  ASSERT_EQ(got_b.size(), 651u);
}

// A read handler that reads a text of many values inside a read of a text of many values.
TEST(JsonSimdjson, NestedReadOfManyValuesInAHandler) {
  transit::ReadHandlers handlers;
  handlers.add("json", [](const Value& rep) {
    return Value::array(transit::read_all(rep.as_string(), Encoding::json));
  });
  ReadOptions options;
  options.handlers = &handlers;
  std::string text;
  for (int i = 0; i < 300; ++i) text += R"(["~#json","[1] ["^ ","~:abc",[1,2.5,"^0"]] [3]"] )";
  expect_same(text, options);
}

// simdjson reads up to 64 bytes past a text's end (strings are scanned in whole blocks). A text
// read in place must therefore have those bytes inside the 4 KiB block of its last byte; a text
// that ends at a page whose next page cannot be read is copied first, and read as RapidJSON
// reads it. Each text ends 0 to 80 bytes before a PROT_NONE page, with quotes after it.
TEST(JsonSimdjson, TextsEndingBeforeAnUnreadablePageReadTheSameBothWays) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* const map = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  char* const guard = static_cast<char*>(map) + page;
  ASSERT_EQ(mprotect(guard, page, PROT_NONE), 0);
  const std::string long_string(150, 'x');
  const std::vector<std::string> texts = {
      R"(["abc"])", R"(["^ ","~:a","~:b"])", R"({"k":"v"})", "\"a string\"", "12345", "-1.5e3",
      "true", "null", R"([1,2.5,[],{}])", "[\"" + long_string + "\"]", "\"" + long_string + "\"",
      R"(["\u00e9\n","~#set",["a"]])", R"(["abc)", R"(["abc"],)", R"({"k":)", "\"abc", "[1,2",
      R"([1] ["abc"])", R"({"a":1}{"k":"v"})", "[1]\n[2,3]\n", R"([1] ["abc)", "[1] 2"};
  for (const std::string& text : texts) {
    for (std::size_t slack = 0; slack <= 80; ++slack) {
      char* const at = guard - slack - text.size();
      std::memset(guard - page, '"', page);
      std::memcpy(at, text.data(), text.size());
      SCOPED_TRACE(testing::Message() << "slack " << slack);
      expect_same(std::string_view(at, text.size()));
      if (text == R"(["abc"])") {  // the typed read's walk too
        EXPECT_EQ(transit::read<std::vector<std::string>>(std::string_view(at, text.size())),
                  std::vector<std::string>{"abc"});
      }
    }
  }
  munmap(map, 2 * page);
}

// In place exactly when the 64 bytes after the text share the 4 KiB block of its last byte;
// never under AddressSanitizer or memcheck (both would report the read past an allocation).
TEST(JsonSimdjson, PaddingIsReadInPlaceOnlyInsideTheLastBytesBlock) {
  using transit::detail::json::padding_readable;
  alignas(4096) static char block[2 * 4096];
  EXPECT_FALSE(padding_readable(block, 0, 64));
  if (transit::detail::json::kAddressSanitizer || transit::detail::json::under_memcheck()) {
    EXPECT_FALSE(padding_readable(block, 10, 64));
    return;
  }
  EXPECT_TRUE(padding_readable(block, 10, 64));
  EXPECT_TRUE(padding_readable(block + 100, 4096 - 100 - 64, 64));   // 64 bytes left: enough
  EXPECT_FALSE(padding_readable(block + 100, 4096 - 100 - 63, 64));  // 63 left
  EXPECT_FALSE(padding_readable(block + 100, 4096 - 100, 64));       // ends at the block's end
  EXPECT_TRUE(padding_readable(block + 100, 4096, 64));              // ends 100 bytes in the next
  EXPECT_TRUE(padding_readable(block + 4095, 1, 0));
}

// Outcome of reading `text` through a Reader (which may take the reader kept on this thread,
// and offers its own to be kept when done), by simdjson or RapidJSON.
Outcome read_by_reader(const std::string& text, bool use_simdjson, const ReadOptions& options,
                       bool typed) {
  transit::detail::testing::set_json_simdjson(use_simdjson);
  Outcome o;
  if (typed) {
    // Its reader, kept or new, reads a tape, and is then not kept.
    try {
      o.offsets.push_back(
          transit::read<std::vector<std::int64_t>>(text, Encoding::json, options).size());
    } catch (const Error& e) {
      o.error = e.what();
    }
    transit::detail::testing::set_json_simdjson(true);
    return o;
  }
  {
    transit::Reader reader(text, Encoding::json, options);
    try {
      while (auto v = reader.next()) {
        o.written.push_back(transit::write(*v, Encoding::json_verbose));
        o.values.push_back(std::move(*v));
        o.offsets.push_back(reader.offset());
      }
    } catch (const Error& e) {
      o.error = e.what();
    }
  }
  // read() of the text: one value, or its error.
  try {
    o.written.push_back(transit::write(transit::read(text, Encoding::json, options), Encoding::json));
  } catch (const Error& e) {
    o.error += std::string(" / ") + e.what();
  }
  transit::detail::testing::set_json_simdjson(true);
  return o;
}

// A JSON Reader of a text in memory done with may be kept, on its thread, for the next one
// made there (transit::read of one small message per request then makes no reader): the next
// reads as a reader made new would, whatever the kept one read before (JSON-Verbose, a text of
// many values, a cache full of codes, loose control bytes copied for RapidJSON, a failure,
// other limits, handlers, a typed read), by simdjson and by RapidJSON.
TEST(JsonSimdjson, AKeptReaderReadsAsANewOne) {
  namespace testing = transit::detail::testing;
  std::vector<std::string> texts = {
      R"(["^ ","~:id",12345,"~:user","~:alice","~:ts","~m1700000000000","~:tags",["~#set",["~:a","~:b"]]])",
      "[1,2,3]",
      R"({"~:a":"~:b","~:c":["~#set",["~:a"]]})",
      R"(["~:abc","^0","^0"] ["^0"] [1])",
      R"(["^ ","~:abc",1,"^0",2])",
      "[1,2,\x1b]",
      "[\"a\x1b\"]",
      "[1,\n2,\n[[[[3]]]]]",
      R"(["~#point",[1,2]])",
      R"(["~:a","~:b","~:c"] ["^1"])",
      "[1,2",
      "",
      "   ",
      R"(["~#set",[1,1]])",
      std::string(40, ' ') + R"(["abcdefghijklmnopqrstuvwxyz"])",
  };
  if (transit::test::exemplars_present())
    for (std::string& t : exemplar_texts()) texts.push_back(std::move(t));
  transit::ReadHandlers handlers;
  handlers.add("point", [](const Value& rep) { return Value::array({Value("p"), rep}); });
  const std::vector<ReadOptions> options = transit::test::one_limit_each(handlers, 8);
  // Every text, under every option, both ways, one after another on this thread.
  const auto outcomes = [&] {
    std::vector<Outcome> out;
    for (const std::string& text : texts)
      for (const bool simd : {true, false})
        for (const bool typed : {false, true})
          for (const ReadOptions& o : options) out.push_back(read_by_reader(text, simd, o, typed));
    return out;
  };
  transit::test::expect_kept_readers_read_as_new(outcomes, testing::set_json_reader_reuse,
                                                 testing::json_reader_kept);
  EXPECT_EQ(transit::read("[1,2,3]"), Value::array({Value(1), Value(2), Value(3)}));
  EXPECT_TRUE(testing::json_reader_kept());
  // A failed read's reader, and a reader from a Source, are not kept.
  testing::set_json_reader_reuse(false);
  testing::set_json_reader_reuse(true);
  EXPECT_THROW(transit::read("[1,"), Error);
  EXPECT_FALSE(testing::json_reader_kept());
  {
    transit::test::StepSource source("[1] [2]", 3);
    transit::Reader reader(source);
    EXPECT_EQ(reader.next(), Value::array({Value(1)}));
  }
  EXPECT_FALSE(testing::json_reader_kept());
  // Two readers alive at once read apart; a handler reads (with no handlers: a kept reader)
  // inside a read.
  EXPECT_EQ(transit::read("[0]"), Value::array({Value(0)}));
  {
    const std::string text_a = "[1] [2]";
    const std::string text_b = "[3] [4]";
    transit::Reader a(text_a);
    EXPECT_FALSE(testing::json_reader_kept());
    transit::Reader b(text_b);
    EXPECT_EQ(a.next(), Value::array({Value(1)}));
    EXPECT_EQ(b.next(), Value::array({Value(3)}));
    EXPECT_EQ(transit::read("[5]"), Value::array({Value(5)}));
    EXPECT_TRUE(testing::json_reader_kept());
    EXPECT_EQ(b.next(), Value::array({Value(4)}));
    EXPECT_EQ(a.next(), Value::array({Value(2)}));
    EXPECT_EQ(a.next(), std::nullopt);
    EXPECT_EQ(a.offset(), text_a.size());
  }
  transit::ReadHandlers nested;
  nested.add("json", [](const Value& rep) { return transit::read(rep.as_string()); });
  ReadOptions with_nested;
  with_nested.handlers = &nested;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(transit::read(R"([["~#json","[\"~:abcd\",\"^0\"]"],["~#json","[2]"]])", Encoding::json,
                            with_nested),
              Value::array({Value::array({Value::keyword("abcd"), Value::keyword("abcd")}),
                            Value::array({Value(2)})}));
}

}  // namespace
