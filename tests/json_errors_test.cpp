// SPDX-License-Identifier: Apache-2.0
// Malformed JSON input: every error is a transit::Error with a stable code, the byte offset,
// line and column, the path and an exact message, and nothing crashes.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "transit/transit.h"
#include "support/step_source.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::ReadOptions;
using transit::Value;

// Reading `text` with transit::read throws exactly `message`, with `code` at `offset`.
void expect_read_error(std::string_view text, Errc code, std::size_t offset, const std::string& message,
                       ReadOptions options = {}) {
  SCOPED_TRACE(std::string(text.substr(0, 80)));
  try {
    (void)transit::read(text, Encoding::json, options);
    ADD_FAILURE() << "no transit::Error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// ---- structure -----------------------------------------------------------------------------------

TEST(JsonErrors, TruncatedText) {
  expect_read_error(R"(["~:abc")", Errc::truncated, 8,
                    "transit: truncated at byte 8 (line 1, column 9) in $[1]: input ends inside a value");
  expect_read_error("[1,\n [2", Errc::truncated, 7,
                    "transit: truncated at byte 7 (line 2, column 4) in $[1][1]: input ends inside a value");
  expect_read_error(R"(["abc)", Errc::truncated, 5,
                    "transit: truncated at byte 5 (line 1, column 6) in $[0]: input ends inside a value");
  expect_read_error(R"(["^ ","a")", Errc::truncated, 9,
                    R"(transit: truncated at byte 9 (line 1, column 10) in $["a"]: input ends inside a value)");
  expect_read_error("", Errc::truncated, 0, "transit: truncated at byte 0 (line 1, column 1): no value in the input");
  expect_read_error(" \n ", Errc::truncated, 3,
                    "transit: truncated at byte 3 (line 2, column 2): no value in the input");
}

TEST(JsonErrors, Syntax) {
  expect_read_error("[1,]", Errc::syntax, 3,
                    "transit: syntax at byte 3 (line 1, column 4) in $[1]: Invalid value.");
  expect_read_error("[1 2]", Errc::syntax, 3,
                    "transit: syntax at byte 3 (line 1, column 4) in $[1]: "
                    "Missing a comma or ']' after an array element.");
  expect_read_error("{\"a\" 1}", Errc::syntax, 5,
                    R"(transit: syntax at byte 5 (line 1, column 6) in $["a"]: Missing a colon after a name of object member.)");
}

TEST(JsonErrors, TrailingDataAfterTheOneValue) {
  expect_read_error("[1] x", Errc::trailing_data, 4,
                    "transit: trailing_data at byte 4 (line 1, column 5): more input after the value");
  expect_read_error("[1]\n\n  [2]", Errc::trailing_data, 7,
                    "transit: trailing_data at byte 7 (line 3, column 3): more input after the value");
  EXPECT_EQ(transit::read("  [1] \n\t "), Value::array({1}));
}

// ---- cache codes ---------------------------------------------------------------------------------

TEST(JsonErrors, CacheCodeOutOfRange) {
  expect_read_error(R"(["^~~"])", Errc::bad_cache_code, 1,
                    R"(transit: bad_cache_code at byte 1 (line 1, column 2) in $[0]: "^~~" is not a cache code)");
  expect_read_error(R"(["^"])", Errc::bad_cache_code, 1,
                    R"(transit: bad_cache_code at byte 1 (line 1, column 2) in $[0]: "^" is not a cache code)");
  expect_read_error(R"(["^1234"])", Errc::bad_cache_code, 1,
                    R"(transit: bad_cache_code at byte 1 (line 1, column 2) in $[0]: "^1234" is not a cache code)");
  expect_read_error(R"(["^/"])", Errc::bad_cache_code, 1,
                    R"(transit: bad_cache_code at byte 1 (line 1, column 2) in $[0]: "^/" is not a cache code)");
}

TEST(JsonErrors, CacheCodeNotAssigned) {
  expect_read_error(R"(["^0"])", Errc::bad_cache_code, 1,
                    R"(transit: bad_cache_code at byte 1 (line 1, column 2) in $[0]: cache code "^0" (slot 0) is not assigned: the cache holds 0 entries)");
  expect_read_error(R"(["~:abcd","^1"])", Errc::bad_cache_code, 10,
                    R"(transit: bad_cache_code at byte 10 (line 1, column 11) in $[1]: cache code "^1" (slot 1) is not assigned: the cache holds 1 entry)");
  expect_read_error(R"(["~:abcd","~:efgh","^3"])", Errc::bad_cache_code, 19,
                    R"(transit: bad_cache_code at byte 19 (line 1, column 20) in $[2]: cache code "^3" (slot 3) is not assigned: the cache holds 2 entries)");
  // "abc" is too short to take a slot, on either side.
  expect_read_error(R"(["^ ","abc",1,"^0",2])", Errc::bad_cache_code, 14,
                    R"(transit: bad_cache_code at byte 14 (line 1, column 15) in $<key>: cache code "^0" (slot 0) is not assigned: the cache holds 0 entries)");
  // The cache starts over with every top-level value.
  transit::Reader reader(R"(["~:abcd"] ["^0"])");
  EXPECT_EQ(reader.next(), Value::array({transit::kw("abcd")}));
  try {
    (void)reader.next();
    ADD_FAILURE() << "the second value used the first value's cache";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              R"(transit: bad_cache_code at byte 12 (line 1, column 13) in $[0]: cache code "^0" (slot 0) is not assigned: the cache holds 0 entries)");
  }
}

// ---- maps and tagged values ----------------------------------------------------------------------

TEST(JsonErrors, MapArrayWithOddItems) {
  expect_read_error(R"(["^ ","a",1,"b"])", Errc::odd_map, 15,
                    R"(transit: odd_map at byte 15 (line 1, column 16) in $["b"]: "^ " map array has an odd number of keys and values (3))");
  expect_read_error(R"(["~#cmap",[1,2,3]])", Errc::odd_map, 17,
                    "transit: odd_map at byte 17 (line 1, column 18) in $: ~#cmap array has an odd number of items (3)");
}

TEST(JsonErrors, TaggedValueWithoutRep) {
  expect_read_error(R"(["~#tag"])", Errc::bad_tagged_value, 8,
                    "transit: bad_tagged_value at byte 8 (line 1, column 9) in $<#tag>: tagged value ~#tag has no rep");
  expect_read_error(R"({"~#tag":)", Errc::truncated, 9,
                    "transit: truncated at byte 9 (line 1, column 10) in $<#tag>: input ends inside a value");
}

TEST(JsonErrors, TaggedValueWithTwoReps) {
  expect_read_error(R"(["~#tag",1,2])", Errc::bad_tagged_value, 11,
                    "transit: bad_tagged_value at byte 11 (line 1, column 12) in $<#tag>: tagged value ~#tag has more than one rep");
  expect_read_error(R"({"~#a":1,"b":2})", Errc::bad_tagged_value, 9,
                    "transit: bad_tagged_value at byte 9 (line 1, column 10) in $<#a>: tagged value ~#a has more than one rep");
}

TEST(JsonErrors, TagOutsideTheFirstPosition) {
  expect_read_error(R"([1,"~#tag",2])", Errc::bad_tagged_value, 3,
                    "transit: bad_tagged_value at byte 3 (line 1, column 4) in $[1]: tag ~#tag is not the first item of an array or object");
}

// ---- text ----------------------------------------------------------------------------------------

TEST(JsonErrors, InvalidUtf8InAString) {
  expect_read_error("[\"ab\xff\"]", Errc::invalid_utf8, 1,
                    "transit: invalid_utf8 at byte 1 (line 1, column 2) in $[0]: string is not valid UTF-8");
  // A surrogate encoded in UTF-8 (named: see InvalidEscapedSurrogate), and an overlong '/'.
  expect_read_error("[1,\"\xed\xa0\x80\"]", Errc::invalid_utf8, 3,
                    "transit: invalid_utf8 at byte 3 (line 1, column 4) in $[1]: string is not "
                    "valid UTF-8: it holds U+D800, a UTF-16 surrogate, which UTF-8 does not "
                    "encode (the bytes ED A0 80)");
  expect_read_error("[\"\xc0\xaf\"]", Errc::invalid_utf8, 1,
                    "transit: invalid_utf8 at byte 1 (line 1, column 2) in $[0]: string is not valid UTF-8");
}

// Text of up to 64 bytes from RapidJSON's events is found to be ASCII by overlapping word
// loads (is_short_ascii, is_ascii_17_to_64), as MessagePack's is: a byte of 0x80 or above
// anywhere in it, at every length either side of the loads' edges, still sends it to the
// UTF-8 check, whether the text is read in memory (simdjson refuses it, RapidJSON places the
// error) or from a Source that hands it out 7 bytes at a time (RapidJSON alone); and a valid
// two-byte character there is read as it is.
TEST(JsonErrors, InvalidUtf8AtEveryPlaceOfShortText) {
  for (std::size_t n = 1; n <= 70; ++n) {
    for (std::size_t at = 0; at < n; ++at) {
      std::string text(n, 'a');
      text[at] = '\xff';
      SCOPED_TRACE("length " + std::to_string(n) + ", byte " + std::to_string(at));
      const std::string json = "[1,\"" + text + "\"]";
      expect_read_error(json, Errc::invalid_utf8, 3,
                        "transit: invalid_utf8 at byte 3 (line 1, column 4) in $[1]: string is not valid UTF-8");
      try {
        (void)transit::test::read_first_in_steps(json);
        ADD_FAILURE() << "no transit::Error from the Source";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::invalid_utf8) << e.what();
        EXPECT_EQ(e.offset(), 3U) << e.what();
      }
      std::string valid(n + 1, 'a');
      valid[at] = '\xc3';
      valid[at + 1] = '\xa9';
      EXPECT_EQ(transit::test::read_first_in_steps("[1,\"" + valid + "\"]"),
                Value::array({Value(1), Value(valid)}));
    }
  }
}

TEST(JsonErrors, InvalidUtf8InAKey) {
  expect_read_error("{\"k\xe2\x82\":1}", Errc::invalid_utf8, 1,
                    "transit: invalid_utf8 at byte 1 (line 1, column 2) in $<key>: string is not valid UTF-8");
  expect_read_error("[\"^ \",\"k\x80\",1]", Errc::invalid_utf8, 6,
                    "transit: invalid_utf8 at byte 6 (line 1, column 7) in $<key>: string is not valid UTF-8");
}

// A high half with no low half after it is RapidJSON's error; a low half alone decodes (to the
// bytes ED B0 80 and the like) and the UTF-8 check names it, in memory and from a Source, as
// a value or a key, wherever it stands in the string.
TEST(JsonErrors, InvalidEscapedSurrogate) {
  expect_read_error(R"(["\ud800"])", Errc::invalid_utf8, 2,
                    "transit: invalid_utf8 at byte 2 (line 1, column 3) in $[0]: "
                    "The surrogate pair in string is invalid.");
  const std::string low =
      "string is not valid UTF-8: it holds U+DC00, a UTF-16 surrogate, which UTF-8 does not "
      "encode (an escape \\udc00 without its pair, or the bytes ED B0 80)";
  expect_read_error(R"(["\udc00"])", Errc::invalid_utf8, 1,
                    "transit: invalid_utf8 at byte 1 (line 1, column 2) in $[0]: " + low);
  expect_read_error(R"([1,"abc\udc00"])", Errc::invalid_utf8, 3,
                    "transit: invalid_utf8 at byte 3 (line 1, column 4) in $[1]: " + low);
  expect_read_error(R"({"\uDFFFx":1})", Errc::invalid_utf8, 1,
                    "transit: invalid_utf8 at byte 1 (line 1, column 2) in $<key>: string is not "
                    "valid UTF-8: it holds U+DFFF, a UTF-16 surrogate, which UTF-8 does not encode "
                    "(an escape \\udfff without its pair, or the bytes ED BF BF)");
  // A valid pair around it changes nothing: the first fault is named.
  expect_read_error(R"(["\ud83d\ude00\udc00"])", Errc::invalid_utf8, 1,
                    "transit: invalid_utf8 at byte 1 (line 1, column 2) in $[0]: " + low);
  try {
    (void)transit::test::read_first_in_steps(R"([1,"abc\udc00"])", 3);
    ADD_FAILURE() << "no transit::Error from the Source";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_utf8) << e.what();
    EXPECT_NE(std::string(e.what()).find(low), std::string::npos) << e.what();
  }
}

// ---- limits --------------------------------------------------------------------------------------

TEST(JsonErrors, NestingDeeperThanTheConfiguredLimit) {
  ReadOptions shallow;
  shallow.max_depth = 3;
  EXPECT_EQ(transit::read("[[[1]]]", Encoding::json, shallow), Value::array({Value::array({Value::array({1})})}));
  expect_read_error("[[[[1]]]]", Errc::too_deep, 3,
                    "transit: too_deep at byte 3 (line 1, column 4) in $[0][0][0]: nesting deeper than 3 levels",
                    shallow);
  expect_read_error(R"([{"a":["^ ","b",1]}])", Errc::too_deep, 6,
                    R"(transit: too_deep at byte 6 (line 1, column 7) in $[0]["a"]: nesting deeper than 2 levels)",
                    ReadOptions{2});
}

TEST(JsonErrors, HundredThousandLevelsIsACleanError) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    (void)transit::read(deep);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_deep);
    EXPECT_EQ(e.offset(), 512u);  // the 513th '['
    EXPECT_EQ(e.detail(), "nesting deeper than 512 levels");
  }
  const std::string deep_maps = [] {
    std::string s;
    for (int i = 0; i < 100000; ++i) s += "{\"a\":";
    return s + "1" + std::string(100000, '}');
  }();
  try {
    (void)transit::read(deep_maps);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_deep);
    EXPECT_EQ(e.offset(), 512u * 5);  // the 513th '{'
  }
  // 512 levels are allowed.
  const std::string ok = std::string(512, '[') + std::string(512, ']');
  EXPECT_EQ(transit::read(ok).kind(), transit::Kind::array);
}

// ---- representations -----------------------------------------------------------------------------

TEST(JsonErrors, BadRepresentations) {
  struct Case {
    const char* text;
    std::size_t offset;
    const char* message;
  };
  const Case cases[] = {
      {R"(["~uxyz"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~u value "xyz": not a UUID)"},
      {R"(["~u5a2cbea3-e8c6-428b-b525-21239370dd5g"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~u value "5a2cbea3-e8c6-428b-b525-21239370dd5g": not a UUID)"},
      {R"(["~#u",[1]])", 10,
       R"(transit: bad_rep at byte 10 (line 1, column 11) in $: ~#u with a array representation)"},
      {R"(["~t2000-13-01T00:00:00.000Z"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~t value "2000-13-01T00:00:00.000Z": not an ISO 8601 date-time)"},
      {R"(["~tyesterday"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~t value "yesterday": not an ISO 8601 date-time)"},
      {R"(["~m12x"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~m value "12x": not milliseconds since the epoch)"},
      {R"(["~m99999999999999999999"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~m value "99999999999999999999": not milliseconds since the epoch)"},
      {R"(["~#m",1.5])", 10,
       R"(transit: bad_rep at byte 10 (line 1, column 11) in $: ~#m with a floating representation)"},
      {R"(["~znan"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~z value "nan": expected NaN, INF or -INF)"},
      {R"(["~zInfinity"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~z value "Infinity": expected NaN, INF or -INF)"},
      {R"(["~bA"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~b value "A": not base64)"},
      {R"(["~bYQ=x"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~b value "YQ=x": not base64)"},
      {R"(["~b!!!!"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~b value "!!!!": not base64)"},
      {R"(["~cab"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~c value "ab": not exactly one character)"},
      {R"(["~c"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~c value "": not exactly one character)"},
      {R"(["~i1.5"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~i value "1.5": not an integer)"},
      {R"(["~n"])", 1, R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~n value "": not an integer)"},
      {R"(["~dx"])", 1, R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~d value "x": not a number)"},
      {R"(["~f1..2"])", 1,
       R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~f value "1..2": not a decimal number)"},
      {R"(["~?x"])", 1, R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~? value "x": expected t or f)"},
      {R"(["~_x"])", 1, R"(transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~_ value "x": null has no text)"},
      {R"(["~#set",{}])", 11,
       R"(transit: bad_rep at byte 11 (line 1, column 12) in $: ~#set needs an array, got map)"},
      {R"(["~#link",[]])", 12,
       R"(transit: bad_rep at byte 12 (line 1, column 13) in $: ~#link needs a map with string keys)"},
      // Written back, an array key would land where JSON-Verbose needs an object key.
      {R"(["~#link",["~#cmap",[[1],2]]])", 28,
       R"(transit: bad_rep at byte 28 (line 1, column 29) in $: ~#link needs a map with string keys)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    expect_read_error(c.text, Errc::bad_rep, c.offset, c.message);
  }
}

TEST(JsonErrors, LongBadRepsAreShortenedInTheMessage) {
  const std::string text = "[\"~u" + std::string(100, 'z') + "\"]";
  expect_read_error(text, Errc::bad_rep, 1,
                    "transit: bad_rep at byte 1 (line 1, column 2) in $[0]: ~u value \"" +
                        std::string(64, 'z') + "...\": not a UUID");
}

// ---- what survives an error ----------------------------------------------------------------------

TEST(JsonErrors, ReaderKeepsValuesReadBeforeAnError) {
  const std::string text = R"([1] ["^ ","a",2] ["~zbad"] [4])";
  // read_all gives all or nothing.
  try {
    (void)transit::read_all(text);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              R"(transit: bad_rep at byte 18 (line 1, column 19) in $[0]: ~z value "bad": expected NaN, INF or -INF)");
  }
  // A Reader::next loop keeps what it has read, and the error stays: the reader does not guess
  // where the next value starts.
  transit::Reader reader(text);
  std::vector<Value> got;
  try {
    while (auto v = reader.next()) got.push_back(std::move(*v));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_rep);
    EXPECT_EQ(e.offset(), 18u);
  }
  EXPECT_EQ(got, (std::vector<Value>{Value::array({1}), Value::map({{"a", 2}})}));
  try {
    (void)reader.next();
    ADD_FAILURE() << "a failed reader read on";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_rep);
    EXPECT_EQ(e.offset(), 18u);
  }
}

TEST(JsonErrors, PathNamesTheValueBeingRead) {
  try {
    (void)transit::read(R"(["^ ","users",[["^ ","name","ok"],["^ ","name","~zbad"]]])");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), R"($["users"][1]["name"])");
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(e.detail(), R"(~z value "bad": expected NaN, INF or -INF)");
  }
}

}  // namespace
