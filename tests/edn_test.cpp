// SPDX-License-Identifier: Apache-2.0
// to_edn for every kind, the test EDN reader, and both against the exemplars' .edn files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>

#include "support/edn.h"
#include "support/exemplars.h"
#include "transit/value.h"

namespace edn_test_types {
struct Point {
  int x = 0;
  int y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};
}  // namespace edn_test_types

namespace transit::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Value edn(std::string_view text) {
  auto v = parse_edn(text);
  if (!v) throw std::runtime_error("not representable: " + std::string(text));
  return *v;
}

// ---- to_edn ------------------------------------------------------------------------------------

TEST(ToEdn, Scalars) {
  EXPECT_EQ(to_edn(Value()), "nil");
  EXPECT_EQ(to_edn(Value(true)), "true");
  EXPECT_EQ(to_edn(Value(false)), "false");
  EXPECT_EQ(to_edn(Value(42)), "42");
  EXPECT_EQ(to_edn(Value(-7)), "-7");
  EXPECT_EQ(to_edn(Value(std::numeric_limits<std::int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(to_edn(Value::big_integer("123")), "123N");
  EXPECT_EQ(to_edn(Value::big_integer("-18446744073709551616")), "-18446744073709551616N");
  EXPECT_EQ(to_edn(Value::big_decimal("1.5")), "1.5M");
  EXPECT_EQ(to_edn(Value::big_decimal("-1E+3")), "-1E+3M");
}

// Clojure reads a number only where a digit comes first, after the sign: `.5M` is a symbol.
// Value::big_decimal and a reader's `~f` take ".5", as Java's BigDecimal does.
TEST(ToEdn, BigDecimalsStartWithADigitAsClojureReadsThem) {
  EXPECT_EQ(to_edn(Value::big_decimal(".5")), "0.5M");
  EXPECT_EQ(to_edn(Value::big_decimal("-.5")), "-0.5M");
  EXPECT_EQ(to_edn(Value::big_decimal("+.25e3")), "+0.25e3M");
  EXPECT_EQ(to_edn(Value::big_decimal("5.")), "5.M");
  EXPECT_EQ(to_edn(Value::array({Value::big_decimal(".5"), Value::big_decimal("-0.5")})), "[0.5M -0.5M]");
  EXPECT_EQ(edn(to_edn(Value::big_decimal("-.5"))), Value::big_decimal("-0.5"));
}

TEST(ToEdn, DoublesAsClojurePrintsThem) {
  EXPECT_EQ(to_edn(Value(2.0)), "2.0");
  EXPECT_EQ(to_edn(Value(-3.14159)), "-3.14159");
  EXPECT_EQ(to_edn(Value(4.0E11)), "4.0E11");
  EXPECT_EQ(to_edn(Value(6.626E-34)), "6.626E-34");
  EXPECT_EQ(to_edn(Value(-0.0)), "-0.0");
  EXPECT_EQ(to_edn(Value(kNaN)), "##NaN");
  EXPECT_EQ(to_edn(Value(kInf)), "##Inf");
  EXPECT_EQ(to_edn(Value(-kInf)), "##-Inf");
}

TEST(ToEdn, StringsWithEscapes) {
  EXPECT_EQ(to_edn(Value("")), R"("")");
  EXPECT_EQ(to_edn(Value("hello")), R"("hello")");
  EXPECT_EQ(to_edn(Value("a\"b\\c")), R"("a\"b\\c")");
  EXPECT_EQ(to_edn(Value("l1\nl2\tx\ry")), R"("l1\nl2\tx\ry")");
  EXPECT_EQ(to_edn(Value(std::string_view("\0\x01\x1f\x7f\b\f", 6))),
            R"("\u0000\u0001\u001F\u007F\u0008\u000C")");
  EXPECT_EQ(to_edn(Value("caf\xc3\xa9 \xf0\x9f\x98\x80")), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
}

TEST(ToEdn, KeywordsAndSymbols) {
  EXPECT_EQ(to_edn(kw("a")), ":a");
  EXPECT_EQ(to_edn(kw("ns/name")), ":ns/name");
  EXPECT_EQ(to_edn(sym("seven")), "seven");
  EXPECT_EQ(to_edn(sym("a.b/c")), "a.b/c");
}

TEST(ToEdn, Characters) {
  EXPECT_EQ(to_edn(Value::character('a')), R"(\a)");
  EXPECT_EQ(to_edn(Value::character('\\')), R"(\\)");
  EXPECT_EQ(to_edn(Value::character('(')), R"(\()");
  EXPECT_EQ(to_edn(Value::character('\n')), R"(\newline)");
  EXPECT_EQ(to_edn(Value::character(' ')), R"(\space)");
  EXPECT_EQ(to_edn(Value::character('\t')), R"(\tab)");
  EXPECT_EQ(to_edn(Value::character('\r')), R"(\return)");
  EXPECT_EQ(to_edn(Value::character('\f')), R"(\formfeed)");
  EXPECT_EQ(to_edn(Value::character('\b')), R"(\backspace)");
  EXPECT_EQ(to_edn(Value::character(0)), R"(\u0000)");
  EXPECT_EQ(to_edn(Value::character(0x1B)), R"(\u001B)");
  EXPECT_EQ(to_edn(Value::character(0x85)), R"(\u0085)");
  EXPECT_EQ(to_edn(Value::character(0xE9)), "\\\xc3\xa9");
  EXPECT_EQ(to_edn(Value::character(0x1F600)), "\\\xf0\x9f\x98\x80");
}

TEST(ToEdn, TaggedLiterals) {
  EXPECT_EQ(to_edn(Value::instant(0)), R"(#inst "1970-01-01T00:00:00.000-00:00")");
  EXPECT_EQ(to_edn(Value::instant(-6106017600000)), R"(#inst "1776-07-04T12:00:00.000-00:00")");
  EXPECT_EQ(to_edn(Value::uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL})),
            R"(#uuid "5a2cbea3-e8c6-428b-b525-21239370dd55")");
  EXPECT_EQ(to_edn(Value::uri("http://example.com/?q=\"x\"")),
            R"(#uri "http://example.com/?q=\"x\"")");
  EXPECT_EQ(to_edn(Value::bytes(std::string_view("\x01\x02\x03\xff", 4))), R"(#bytes "AQID/w==")");
  EXPECT_EQ(to_edn(Value::bytes(std::string_view())), R"(#bytes "")");
}

TEST(ToEdn, Collections) {
  EXPECT_EQ(to_edn(Value::array({})), "[]");
  EXPECT_EQ(to_edn(Value::list({})), "()");
  EXPECT_EQ(to_edn(Value::set({})), "#{}");
  EXPECT_EQ(to_edn(Value::map({})), "{}");
  EXPECT_EQ(to_edn(Value::array({1, 2})), "[1 2]");
  EXPECT_EQ(to_edn(Value::list({1, "two", kw("three")})), R"((1 "two" :three))");
  EXPECT_EQ(to_edn(Value::set({1, 2})), "#{1 2}");
  EXPECT_EQ(to_edn(Value::map({{kw("a"), 1}, {kw("b"), 2}})), "{:a 1, :b 2}");
  EXPECT_EQ(to_edn(Value::map({{Value(), Value::array({1, 2})}, {Value::set({}), Value::list({})}})),
            "{nil [1 2], #{} ()}");
  EXPECT_EQ(to_edn(Value::array({Value::array({1}), Value::map({{"k", Value::set({sym("s")})}})})),
            R"([[1] {"k" #{s}}])");
}

TEST(ToEdn, LinksTaggedValuesAndObjects) {
  EXPECT_EQ(to_edn(Value::link("http://x/y", "self")),
            R"(#link {"href" #uri "http://x/y", "rel" "self", "render" "link"})");
  EXPECT_EQ(to_edn(Value::tagged("point", Value::array({1, 2}))), "#point [1 2]");
  EXPECT_EQ(to_edn(Value::tagged("my.ns/tag", "text")), R"(#my.ns/tag "text")");
  EXPECT_EQ(to_edn(Value::object(edn_test_types::Point{1, 2})), "#object[edn_test_types::Point]");
}

// ---- parse_edn ---------------------------------------------------------------------------------

TEST(ParseEdn, Scalars) {
  EXPECT_EQ(edn("nil"), Value());
  EXPECT_EQ(edn("true"), Value(true));
  EXPECT_EQ(edn("false"), Value(false));
  EXPECT_EQ(edn("0"), Value(0));
  EXPECT_EQ(edn("-42"), Value(-42));
  EXPECT_EQ(edn("+42"), Value(42));
  EXPECT_TRUE(edn("42").is(Kind::integer));
  EXPECT_EQ(edn("9223372036854775807"), Value(std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(edn("-9223372036854775808"), Value(std::numeric_limits<std::int64_t>::min()));
  EXPECT_EQ(edn("\"hello\""), Value("hello"));
  EXPECT_EQ(edn(":kw"), kw("kw"));
  EXPECT_EQ(edn(":ns/kw"), kw("ns/kw"));
  EXPECT_EQ(edn("sym"), sym("sym"));
  EXPECT_EQ(edn("/"), sym("/"));
  EXPECT_EQ(edn("-"), sym("-"));
  EXPECT_EQ(edn("+a"), sym("+a"));
}

TEST(ParseEdn, BigNumbers) {
  const Value n = edn("1N");
  EXPECT_TRUE(n.is(Kind::big_integer));
  EXPECT_EQ(n, Value::big_integer("1"));
  EXPECT_NE(n, Value(1));
  const Value beyond = edn("9223372036854775808");
  EXPECT_TRUE(beyond.is(Kind::big_integer));
  EXPECT_EQ(beyond.as_string(), "9223372036854775808");
  EXPECT_EQ(edn("-36893488147419103234N"), Value::big_integer("-36893488147419103234"));
  EXPECT_EQ(edn("1.5M"), Value::big_decimal("1.5"));
  EXPECT_EQ(edn("7M"), Value::big_decimal("7"));
}

TEST(ParseEdn, Doubles) {
  EXPECT_EQ(edn("2.0"), Value(2.0));
  EXPECT_EQ(edn("-3.14159"), Value(-3.14159));
  EXPECT_EQ(edn("4.0E11"), Value(4.0E11));
  EXPECT_EQ(edn("6.626E-34"), Value(6.626E-34));
  EXPECT_EQ(edn("1e3"), Value(1000.0));
  EXPECT_TRUE(edn("1e3").is(Kind::floating));
  EXPECT_TRUE(std::isnan(edn("##NaN").as_double()));
  EXPECT_EQ(edn("##Inf"), Value(kInf));
  EXPECT_EQ(edn("##-Inf"), Value(-kInf));
}

TEST(ParseEdn, StringEscapes) {
  EXPECT_EQ(edn(R"("a\"b\\c\nd\te\rf\bg\fh\/")"), Value("a\"b\\c\nd\te\rf\bg\fh/"));
  EXPECT_EQ(edn(R"("\u00e9\u20AC")"), Value("\xc3\xa9\xe2\x82\xac"));
  EXPECT_EQ(edn(R"("\ud83d\ude00")"), Value("\xf0\x9f\x98\x80"));
  EXPECT_EQ(edn("\"raw \xe8\xa9\xb9\""), Value("raw \xe8\xa9\xb9"));
  EXPECT_EQ(edn("\"multi\nline\""), Value("multi\nline"));
}

TEST(ParseEdn, Characters) {
  EXPECT_EQ(edn(R"(\a)"), Value::character('a'));
  EXPECT_EQ(edn(R"(\newline)"), Value::character('\n'));
  EXPECT_EQ(edn(R"(\space)"), Value::character(' '));
  EXPECT_EQ(edn(R"(\tab)"), Value::character('\t'));
  EXPECT_EQ(edn(R"(\return)"), Value::character('\r'));
  EXPECT_EQ(edn(R"(\formfeed)"), Value::character('\f'));
  EXPECT_EQ(edn(R"(\backspace)"), Value::character('\b'));
  EXPECT_EQ(edn(R"(\u00e9)"), Value::character(0xE9));
  EXPECT_EQ(edn(R"(\u)"), Value::character('u'));
  EXPECT_EQ(edn("\\\xc3\xa9"), Value::character(0xE9));
  EXPECT_EQ(edn(R"([\( \) \\ \,])"),
            Value::array({Value::character('('), Value::character(')'), Value::character('\\'),
                          Value::character(',')}));
  EXPECT_EQ(edn(R"([\a\b])"), Value::array({Value::character('a'), Value::character('b')}));
}

TEST(ParseEdn, Collections) {
  EXPECT_EQ(edn("[1 2 3]"), Value::array({1, 2, 3}));
  EXPECT_EQ(edn("(1 2 3)"), Value::list({1, 2, 3}));
  EXPECT_TRUE(edn("(1 2 3)").is(Kind::list));
  EXPECT_EQ(edn("#{1 3 2}"), Value::set({1, 2, 3}));
  EXPECT_EQ(edn("{:a 1, :b 2}"), Value::map({{kw("a"), 1}, {kw("b"), 2}}));
  EXPECT_EQ(edn("{nil \"x\", [1 2] \"y\"}"),
            Value::map({{Value(), "x"}, {Value::array({1, 2}), "y"}}));
  EXPECT_EQ(edn("[]"), Value::array({}));
  EXPECT_EQ(edn("#{}"), Value::set({}));
  EXPECT_EQ(edn("{}"), Value::map({}));
  EXPECT_EQ(edn("[[1] (2) #{3} {4 5}]"),
            Value::array({Value::array({1}), Value::list({2}), Value::set({3}),
                          Value::map({{4, 5}})}));
}

TEST(ParseEdn, WhitespaceCommasCommentsAndDiscards) {
  EXPECT_EQ(edn(" ,\n[1,2 ,3] ; trailing comment\n"), Value::array({1, 2, 3}));
  EXPECT_EQ(edn("[1 #_2 3 #_ #_ 4 5]"), Value::array({1, 3}));
  EXPECT_EQ(edn("#_ #object[com.cognitect.transit.impl.TaggedValueImpl 0x1 \"x\"] 7"), Value(7));
}

TEST(ParseEdn, TaggedLiterals) {
  EXPECT_EQ(edn(R"(#inst "1776-07-04T12:00:00.000-00:00")"), Value::instant(-6106017600000));
  EXPECT_EQ(edn(R"(#inst "1970-01-01T00:00:00Z")"), Value::instant(0));
  EXPECT_EQ(edn(R"(#uuid "5a2cbea3-e8c6-428b-b525-21239370dd55")"),
            Value::uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL}));
  EXPECT_EQ(edn(R"(#object[java.net.URI 0x15e0fe05 "http://example.com"])"),
            Value::uri("http://example.com"));
  EXPECT_EQ(edn(R"(#uri "http://example.com")"), Value::uri("http://example.com"));
  EXPECT_EQ(edn(R"(#bytes "AQID")"), Value::bytes(std::string_view("\x01\x02\x03")));
  EXPECT_EQ(edn(R"(#link {"href" #uri "http://x", "rel" "self", "render" "link"})"),
            Value::link("http://x", "self"));
  EXPECT_EQ(edn("#point [1 2]"), Value::tagged("point", Value::array({1, 2})));
}

TEST(ParseEdn, UnrepresentableObjectsGiveNullopt) {
  EXPECT_EQ(parse_edn("#object[com.cognitect.transit.impl.TaggedValueImpl 0x7159a5cd "
                      "\"com.cognitect.transit.impl.TaggedValueImpl@f023ef7c\"]"),
            std::nullopt);
  EXPECT_EQ(parse_edn("[1 {:k #object[some.Class 0x1 \"with ] bracket\"]} 2]"), std::nullopt);
  EXPECT_EQ(parse_edn("#object[edn_test_types::Point]"), std::nullopt);
}

TEST(ParseEdn, ThrowsOnMalformedText) {
  for (const char* text :
       {"", "   ", "[1 2", "(1", "#{1", "{:a}", "{:a 1", "\"abc", ")", "]", "}", "1 2",
        "#inst 5", "#inst \"not a date\"", "#uuid \"x\"", "#bytes \"!!\"", "#uri 5",
        "#link [1]", "01", "0x10", "1/2", "1.5.5", "12abc", "::a", ":", "\\nope", "\\",
        "\"\\q\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"", "##Nope", "#", "# x",
        "#object[java.net.URI 0x1 5]", "#object[a.B \"x\"", "[1 #_]", "\"\xff\""})
    EXPECT_THROW(parse_edn(text), std::runtime_error) << text;
}

TEST(ParseEdn, ReadsWhatToEdnPrints) {
  const Value v = Value::array({
      Value(),
      true,
      -12,
      Value::big_integer("123456789012345678901234567890"),
      2.5,
      -0.0,
      6.02214076E23,
      kInf,
      Value::big_decimal("-1.25E-7"),
      Value(std::string_view("quote \" backslash \\ control \x01\x7f tab \t \xc3\xa9")),
      kw("a/b"),
      sym("c.d"),
      Value::character('x'),
      Value::character('\n'),
      Value::character(0x01),
      Value::character(0x1F600),
      Value::instant(-6106017600000),
      Value::uuid({1, 2}),
      Value::uri("http://www.\xe8\xa9\xb9\xe5\xa7\x86\xe6\x96\xaf.com/"),
      Value::bytes(std::string_view("\x00\xff\x10", 3)),
      Value::list({1, Value::list({})}),
      Value::set({kw("x"), "y", Value::array({1})}),
      Value::map({{Value(), 1}, {Value::array({1, 2}), Value::map({{"k", kw("v")}})}}),
      Value::link("http://example.com", "self", "name", "prompt", "image"),
      Value::tagged("unknown", Value::map({{kw("a"), 1}})),
  });
  EXPECT_EQ(edn(to_edn(v)), v) << to_edn(v);
}

// ---- exemplars ---------------------------------------------------------------------------------

using transit::test::exemplar_dir;
using transit::test::slurp;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

TEST(Exemplars, EveryEdnFileParsesAndRoundTrips) {
  const std::filesystem::path dir = exemplar_dir();
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << "exemplar folder " << dir << " not found; set TRANSIT_EXEMPLARS";
  int parsed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".edn") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const std::string text = slurp(entry.path());
    std::optional<Value> v;
    ASSERT_NO_THROW(v = parse_edn(text));
    if (!v) {
      // Only Java's TaggedValueImpl (a tag transit-clj did not know) has no Value form.
      EXPECT_NE(text.find("com.cognitect.transit.impl.TaggedValueImpl"), std::string::npos);
      continue;
    }
    ++parsed;
    const std::string printed = to_edn(*v);
    EXPECT_EQ(parse_edn(printed), v);
    // Clojure printed these files, so to_edn gives the same text but for URIs, which Java
    // printed as #object[java.net.URI ...].
    if (text.find("#object[") == std::string::npos) {
      EXPECT_EQ(printed, trim(text));
    }
  }
  EXPECT_GT(parsed, 0) << "no .edn files in " << dir;
}

TEST(Exemplars, SpotChecks) {
  const std::filesystem::path dir = exemplar_dir();
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << "exemplar folder " << dir << " not found; set TRANSIT_EXEMPLARS";
  const auto load = [&](const char* name) { return edn(slurp(dir / name)); };

  const Value dates = load("dates_interesting.edn");
  ASSERT_EQ(dates.size(), 4u);
  EXPECT_EQ(dates[0], Value::instant(-6106017600000));
  EXPECT_EQ(dates[3], Value::instant(1396909037000));

  const Value ints = load("ints_interesting.edn");
  const auto items = ints.items();
  EXPECT_EQ(items.back(), Value::big_integer("36893488147419103234"));
  const auto max = std::find(items.begin(), items.end(),
                             Value(std::numeric_limits<std::int64_t>::max()));
  ASSERT_NE(max, items.end());
  EXPECT_TRUE(max->is(Kind::integer));
  EXPECT_TRUE(std::next(max)->is(Kind::big_integer));

  EXPECT_EQ(load("doubles_interesting.edn"),
            Value::array({-3.14159, 3.14159, 4.0E11, 2.998E8, 6.626E-34}));
  const Value special = load("vector_special_numbers.edn");
  EXPECT_TRUE(std::isnan(special[0].as_double()));
  EXPECT_EQ(special[1], Value(kInf));
  EXPECT_EQ(special[2], Value(-kInf));

  const Value uris = load("uris.edn");
  ASSERT_EQ(uris.size(), 4u);
  EXPECT_EQ(uris[0], Value::uri("http://example.com"));
  EXPECT_EQ(uris[3], Value::uri("http://www.\xe8\xa9\xb9\xe5\xa7\x86\xe6\x96\xaf.com/"));

  EXPECT_EQ(load("set_nested.edn").size(), 2u);
  const Value nested = load("map_1936_nested.edn");
  ASSERT_NE(nested.find(kw("f")), nullptr);
  EXPECT_EQ(nested.find(kw("f"))->size(), 1936u);
  EXPECT_EQ(parse_edn(slurp(dir / "maps_unrecognized_keys.edn")), std::nullopt);
}

}  // namespace
}  // namespace transit::test
