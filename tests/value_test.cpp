// SPDX-License-Identifier: Apache-2.0
// The value model: layout, construction and read-back of every kind, accessor errors, equality
// and hashing, container building rules, validation, copy/move and user objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "transit/value.h"
#include "model/value_internal.h"

namespace {

using transit::Entry;
using transit::Errc;
using transit::Error;
using transit::Kind;
using transit::kw;
using transit::sym;
using transit::Uuid;
using transit::Value;

// Runs `f`, which must throw transit::Error with `code` and exactly `message` as what().
template <class F>
void expect_error(F&& f, Errc code, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no transit::Error thrown; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(e.offset(), transit::Location::npos) << "value errors are not about input";
  }
}

struct Point {
  int x = 0;
  int y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

// No operator== and no std::hash: equality falls back to identity.
struct Opaque {
  int n = 0;
};

// Counts live instances, to show an object is destroyed exactly once.
struct Counted {
  static inline int live = 0;
  Counted() { ++live; }
  Counted(const Counted&) { ++live; }
  Counted(Counted&&) noexcept { ++live; }
  ~Counted() { --live; }
};

}  // namespace

template <>
struct std::hash<Point> {
  std::size_t operator()(const Point& p) const noexcept {
    return std::hash<int>{}(p.x) * 31 + std::hash<int>{}(p.y);
  }
};

namespace {

// ---- layout --------------------------------------------------------------------------------------

TEST(ValueLayout, IsSixteenBytes) {
  EXPECT_EQ(sizeof(Value), 16u);
  EXPECT_TRUE(std::is_nothrow_move_constructible_v<Value>);
  EXPECT_TRUE(std::is_nothrow_copy_constructible_v<Value>);
  EXPECT_TRUE(std::is_nothrow_move_assignable_v<Value>);
}

TEST(ValueLayout, CharIsNotImplicitlyAValue) {
  // A char could mean a code point or a small integer; the API makes the caller say which.
  EXPECT_FALSE((std::is_constructible_v<Value, char>));
  // Nor a char8_t: a UTF-8 code unit, no character past ASCII (tests/compile_fail/value_char8.cpp).
  EXPECT_FALSE((std::is_constructible_v<Value, char8_t>));
  EXPECT_FALSE((std::is_convertible_v<char8_t, Value>));
  EXPECT_TRUE((std::is_constructible_v<Value, int>));
  EXPECT_TRUE((std::is_constructible_v<Value, const char*>));
}

// ---- every kind constructs and reads back ------------------------------------------------------

TEST(ValueKinds, NullAndBoolean) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_TRUE(Value(nullptr).is_null());
  EXPECT_EQ(Value().kind(), Kind::null);
  EXPECT_EQ(Value(true).kind(), Kind::boolean);
  EXPECT_TRUE(Value(true).as_bool());
  EXPECT_FALSE(Value::boolean(false).as_bool());
}

TEST(ValueKinds, Integers) {
  EXPECT_EQ(Value(42).kind(), Kind::integer);
  EXPECT_EQ(Value(42).as_int(), 42);
  EXPECT_EQ(Value::integer(INT64_MIN).as_int(), INT64_MIN);
  EXPECT_EQ(Value::integer(INT64_MAX).as_int(), INT64_MAX);
  EXPECT_EQ(Value(static_cast<unsigned char>(200)).as_int(), 200);
  EXPECT_EQ(Value(std::uint64_t{INT64_MAX}).kind(), Kind::integer);
  // Unsigned values above INT64_MAX become big integers.
  const Value big(std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(big.kind(), Kind::big_integer);
  EXPECT_EQ(big.as_string(), "18446744073709551615");
  const Value just_over(std::uint64_t{INT64_MAX} + 1);
  EXPECT_EQ(just_over.kind(), Kind::big_integer);
  EXPECT_EQ(just_over.as_string(), "9223372036854775808");
}

TEST(ValueKinds, Floating) {
  EXPECT_EQ(Value(1.5).kind(), Kind::floating);
  EXPECT_EQ(Value::floating(-2.25).as_double(), -2.25);
  EXPECT_TRUE(std::isnan(Value(std::nan("")).as_double()));
  EXPECT_EQ(Value(-std::numeric_limits<double>::infinity()).as_double(),
            -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::signbit(Value(-0.0).as_double()));
}

TEST(ValueKinds, BigNumbers) {
  const Value n = Value::big_integer("123456789012345678901234567890");
  EXPECT_EQ(n.kind(), Kind::big_integer);
  EXPECT_EQ(n.as_string(), "123456789012345678901234567890");
  // Digits are kept canonical: no leading zero, no "-0".
  for (const auto& [digits, canonical] :
       std::vector<std::pair<const char*, const char*>>{
           {"0", "0"}, {"-0", "0"}, {"00", "0"}, {"-000", "0"}, {"7", "7"}, {"-7", "-7"},
           {"07", "7"}, {"-007", "-7"}, {"10", "10"}, {"-10", "-10"},
           {"0123456789012345678901234567890", "123456789012345678901234567890"},
           {"-123456789012345678901234567890", "-123456789012345678901234567890"}})
    EXPECT_EQ(Value::big_integer(digits).as_string(), canonical) << digits;
  const Value f = Value::big_decimal("-12.50");
  EXPECT_EQ(f.kind(), Kind::big_decimal);
  EXPECT_EQ(f.as_string(), "-12.50");  // the text is kept exactly
  EXPECT_EQ(Value::big_decimal("1E+3").as_string(), "1E+3");
  EXPECT_EQ(Value::big_decimal(".5").as_string(), ".5");
}

TEST(ValueKinds, TextKindsShortAndLong) {
  // 13 bytes fit in the handle, 14 do not: both sides of the boundary read back.
  for (const std::string& s : std::vector<std::string>{"", "a", "thirteen char", "fourteen chars",
                                                        std::string(1000, 'x')}) {
    EXPECT_EQ(Value(s).kind(), Kind::string);
    EXPECT_EQ(Value(s).as_string(), s);
    EXPECT_EQ(Value::string(s).as_string(), s);
    EXPECT_EQ(kw(s).kind(), Kind::keyword);
    EXPECT_EQ(kw(s).as_string(), s);
    EXPECT_EQ(sym(s).kind(), Kind::symbol);
    EXPECT_EQ(sym(s).as_string(), s);
    EXPECT_EQ(Value::uri(s).kind(), Kind::uri);
    EXPECT_EQ(Value::uri(s).as_string(), s);
  }
  EXPECT_EQ(Value(std::string("std")).as_string(), "std");
  EXPECT_EQ(Value(std::string_view("view")).as_string(), "view");
  // Embedded NULs survive.
  EXPECT_EQ(Value(std::string_view("a\0b", 3)).as_string(), std::string_view("a\0b", 3));
}

TEST(ValueKinds, InlineTextOfEveryLengthIsItsBytesAndZeros) {
  // Inline text is built as two whole words from loads that may overlap: every length up to
  // the capacity must read back byte for byte, and the unused bytes must be zero, so that
  // two equal values have equal bits (same identity, hash and filter bit) whatever bytes
  // stood around the text they were made from.
  const std::string distinct = "ABCDEFGHIJKLMNOP";
  for (std::size_t n = 0; n <= 14; ++n) {
    std::string before = "\xff\xfe" + distinct.substr(0, n) + "\xfd\xfc";
    std::string after = "\x01\x02" + distinct.substr(0, n) + "\x03\x04";
    const std::string_view text_a(before.data() + 2, n), text_b(after.data() + 2, n);
    for (Kind kind : {Kind::string, Kind::keyword, Kind::symbol}) {
      const Value a = kind == Kind::string ? Value(text_a) : kind == Kind::keyword ? kw(text_a) : sym(text_a);
      const Value b = kind == Kind::string ? Value(text_b) : kind == Kind::keyword ? kw(text_b) : sym(text_b);
      ASSERT_EQ(a.kind(), kind);
      EXPECT_EQ(a.as_string(), distinct.substr(0, n)) << n;
      EXPECT_EQ(transit::ValueAccess::text(a), distinct.substr(0, n)) << n;
      EXPECT_EQ(a, b) << n;
      EXPECT_EQ(a.hash(), b.hash()) << n;
      if (n <= 13) {
        EXPECT_EQ(transit::ValueAccess::identity(a), transit::ValueAccess::identity(b)) << n;
      }
    }
  }
  // Bytes of every value, 0x00 and 0xff among them, in every position.
  for (std::size_t n = 1; n <= 13; ++n)
    for (std::size_t at = 0; at < n; ++at)
      for (char c : {'\0', '\xff', '\x80'}) {
        std::string s(n, 'q');
        s[at] = c;
        EXPECT_EQ(Value(s).as_string(), s) << n << " " << at;
      }
}

TEST(ValueKinds, Bytes) {
  const std::string raw("\x00\x01\xff binary", 10);
  for (const std::string& s : {std::string(), raw, raw + raw + raw}) {
    const Value v = Value::bytes(s);
    EXPECT_EQ(v.kind(), Kind::bytes);
    const auto b = v.as_bytes();
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data()), b.size()), s);
  }
  const std::byte data[] = {std::byte{1}, std::byte{2}, std::byte{0xfe}};
  const Value v = Value::bytes(std::span<const std::byte>(data));
  ASSERT_EQ(v.as_bytes().size(), 3u);
  EXPECT_EQ(v.as_bytes()[2], std::byte{0xfe});
}

TEST(ValueKinds, CharacterInstantUuid) {
  EXPECT_EQ(Value::character(U'a').kind(), Kind::character);
  EXPECT_EQ(Value::character(U'a').as_char(), U'a');
  EXPECT_EQ(Value::character(U'\0').as_char(), U'\0');
  EXPECT_EQ(Value::character(0x1F600).as_char(), char32_t{0x1F600});
  EXPECT_EQ(Value::character(0x10FFFF).as_char(), char32_t{0x10FFFF});
  EXPECT_EQ(Value::character(0xD7FF).as_char(), char32_t{0xD7FF});
  EXPECT_EQ(Value::character(0xE000).as_char(), char32_t{0xE000});

  EXPECT_EQ(Value::instant(946728000000).kind(), Kind::instant);
  EXPECT_EQ(Value::instant(-6106017600000).as_instant(), -6106017600000);

  const Uuid u{0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL};
  EXPECT_EQ(Value::uuid(u).kind(), Kind::uuid);
  EXPECT_EQ(Value::uuid(u).as_uuid(), u);
}

// char16_t, char32_t and wchar_t are characters, as the typed writer writes them (`~c`): a
// Value of u'a' was the integer 97, and `Value v = U'a'` did not compile (ambiguous). One that is
// no character fails as the typed write of it does, naming the type and the value.
TEST(ValueKinds, WideCharactersAreCharacters) {
  const Value from16 = u'\u00e9';
  const Value from32 = U'\U0001F600';
  const Value wide = L'a';
  EXPECT_EQ(from16.kind(), Kind::character);
  EXPECT_EQ(from16.as_char(), U'\u00e9');
  EXPECT_EQ(from32.as_char(), char32_t{0x1F600});
  EXPECT_EQ(wide, Value::character(U'a'));
  EXPECT_NE(Value(u'a'), Value(97));
  EXPECT_EQ(Value::array({u'a', U'b', L'c'}),
            Value::array({Value::character(U'a'), Value::character(U'b'), Value::character(U'c')}));
  // Integers stay integers, the one-byte ones included.
  EXPECT_EQ(Value(static_cast<signed char>(97)).kind(), Kind::integer);
  EXPECT_EQ(Value(static_cast<unsigned char>(97)).kind(), Kind::integer);
  expect_error([] { (void)Value(char16_t(0xD83D)); }, Errc::invalid_argument,
               "transit: invalid_argument: char16_t 0xD83D is not a Unicode character: a lone "
               "surrogate");
  expect_error([] { (void)Value(char32_t(0xDFFF)); }, Errc::invalid_argument,
               "transit: invalid_argument: char32_t 0xDFFF is not a Unicode character: a "
               "surrogate code point");
  expect_error([] { (void)Value(char32_t(0x110000)); }, Errc::invalid_argument,
               "transit: invalid_argument: char32_t 0x110000 is not a Unicode character: a code "
               "point past U+10FFFF");
  if constexpr (sizeof(wchar_t) == 4) {
    expect_error([] { (void)Value(wchar_t(-1)); }, Errc::invalid_argument,
                 "transit: invalid_argument: wchar_t 0xFFFFFFFF is not a Unicode character: a "
                 "code point past U+10FFFF");
  }
}

TEST(ValueKinds, Sequences) {
  const Value a = Value::array({1, "two", kw("three")});
  EXPECT_EQ(a.kind(), Kind::array);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], Value(1));
  EXPECT_EQ(a[1], Value("two"));
  EXPECT_EQ(a.items()[2], kw("three"));
  EXPECT_EQ(Value::list({1, 2}).kind(), Kind::list);
  EXPECT_EQ(Value::list(std::vector<Value>{1, 2}).size(), 2u);
  EXPECT_EQ(Value::set({1, 2}).kind(), Kind::set);
  EXPECT_EQ(Value::array({}).size(), 0u);
  EXPECT_EQ(Value(5).size(), 0u);  // scalars have no items
}

TEST(ValueKinds, MapsKeepInsertionOrder) {
  const Value m = Value::map({{kw("z"), 1}, {kw("a"), 2}, {"m", 3}});
  EXPECT_EQ(m.kind(), Kind::map);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.entries()[0].first, kw("z"));
  EXPECT_EQ(m.entries()[1].first, kw("a"));
  EXPECT_EQ(m.entries()[2].first, Value("m"));
  ASSERT_NE(m.find(kw("a")), nullptr);
  EXPECT_EQ(*m.find(kw("a")), Value(2));
  EXPECT_EQ(m.find(Value("a")), nullptr);  // a string is not a keyword
}

TEST(ValueKinds, Link) {
  const Value l = Value::link("http://example.com/", "self", "Example", "", "image");
  EXPECT_EQ(l.kind(), Kind::link);
  ASSERT_EQ(l.size(), 4u);  // the empty prompt is left out
  EXPECT_EQ(*l.find("href"), Value::uri("http://example.com/"));
  EXPECT_EQ(*l.find("rel"), Value("self"));
  EXPECT_EQ(*l.find("name"), Value("Example"));
  EXPECT_EQ(l.find("prompt"), nullptr);
  EXPECT_EQ(*l.find("render"), Value("image"));
  EXPECT_EQ(Value::link(Value::map({{"href", Value::uri("http://example.com/")},
                                    {"rel", "self"},
                                    {"name", "Example"},
                                    {"render", "image"}})),
            l);
}

TEST(ValueKinds, Tagged) {
  const Value t = Value::tagged("point", Value::array({1, 2}));
  EXPECT_EQ(t.kind(), Kind::tagged);
  EXPECT_EQ(t.tag(), "point");
  EXPECT_EQ(t.rep(), Value::array({1, 2}));
  EXPECT_EQ(t.as_string(), "point");  // documented: as_string of a tagged value is its tag
}

TEST(ValueKinds, KindNames) {
  EXPECT_EQ(transit::kind_name(Kind::null), "null");
  EXPECT_EQ(transit::kind_name(Kind::big_integer), "big_integer");
  EXPECT_EQ(transit::kind_name(Kind::floating), "floating");
  EXPECT_EQ(transit::kind_name(Kind::object), "object");
}

// ---- wrong-kind access ---------------------------------------------------------------------------

TEST(ValueAccess, WrongKindThrowsWithExactMessage) {
  expect_error([] { (void)Value("s").as_int(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected integer, value is string");
  expect_error([] { (void)Value(1).as_double(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected floating, value is integer");
  expect_error([] { (void)Value(1.0).as_int(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected integer, value is floating");
  expect_error([] { (void)Value().as_bool(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected boolean, value is null");
  expect_error([] { (void)Value(1).as_string(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected text, value is integer");
  expect_error([] { (void)Value::bytes("ab").as_string(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected text, value is bytes");
  expect_error([] { (void)Value("ab").as_bytes(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected bytes, value is string");
  expect_error([] { (void)Value(97).as_char(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected character, value is integer");
  expect_error([] { (void)Value(0).as_instant(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected instant, value is integer");
  expect_error([] { (void)Value("u").as_uuid(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected uuid, value is string");
  expect_error([] { (void)Value::map({}).items(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected array, list or set, value is map");
  expect_error([] { (void)Value::array({}).entries(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected map or link, value is array");
  expect_error([] { (void)Value(1).find(1); }, Errc::wrong_kind,
               "transit: wrong_kind: expected map or link, value is integer");
  expect_error([] { (void)Value("t").tag(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected tagged, value is string");
  expect_error([] { (void)Value("t").rep(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected tagged, value is string");
  expect_error([] { (void)Value(1).object_type(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected object, value is integer");
  expect_error([] { (void)Value::instant(5).as_int(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected integer, value is instant");
  expect_error([] { (void)Value::big_integer("5").as_int(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected integer, value is big_integer");
}

TEST(ValueAccess, IndexOutOfRangeIsInvalidArgument) {
  expect_error([] { (void)Value::array({1, 2})[2]; }, Errc::invalid_argument,
               "transit: invalid_argument: index 2 out of range for 2 items");
  expect_error([] { (void)Value(1)[0]; }, Errc::wrong_kind,
               "transit: wrong_kind: expected array, list or set, value is integer");
}

TEST(ValueAccess, ErrorIsARuntimeErrorWithParts) {
  try {
    (void)Value("s").as_int();
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    const auto* te = dynamic_cast<const Error*>(&e);
    ASSERT_NE(te, nullptr);
    EXPECT_EQ(te->detail(), "expected integer, value is string");
    EXPECT_EQ(te->path(), "");
    EXPECT_EQ(te->line(), 0u);
    EXPECT_EQ(transit::code_name(te->code()), "wrong_kind");
  }
}

// ---- equality and hashing -----------------------------------------------------------------------

TEST(ValueEquality, MapsAndSetsIgnoreOrder) {
  EXPECT_EQ(Value::map({{"a", 1}, {"b", 2}}), Value::map({{"b", 2}, {"a", 1}}));
  EXPECT_NE(Value::map({{"a", 1}, {"b", 2}}), Value::map({{"b", 1}, {"a", 2}}));
  EXPECT_NE(Value::map({{"a", 1}}), Value::map({{"a", 1}, {"b", 2}}));
  EXPECT_EQ(Value::set({1, 2, 3}), Value::set({3, 1, 2}));
  EXPECT_NE(Value::set({1, 2, 3}), Value::set({1, 2, 4}));
  EXPECT_NE(Value::set({1, 2}), Value::set({1, 2, 3}));
  // Arrays and lists are ordered.
  EXPECT_NE(Value::array({1, 2}), Value::array({2, 1}));
  EXPECT_NE(Value::list({1, 2}), Value::list({2, 1}));

  // The larger containers take the hashed path of the comparison.
  std::vector<Entry> forward, backward;
  std::vector<Value> items, reversed;
  for (int i = 0; i < 40; ++i) {
    forward.emplace_back(kw("k" + std::to_string(i)), i);
    items.emplace_back(i);
  }
  for (int i = 39; i >= 0; --i) {
    backward.emplace_back(kw("k" + std::to_string(i)), i);
    reversed.emplace_back(i);
  }
  EXPECT_EQ(Value::map(forward), Value::map(backward));
  EXPECT_EQ(Value::map(forward).hash(), Value::map(backward).hash());
  EXPECT_EQ(Value::set(items), Value::set(reversed));
  EXPECT_EQ(Value::set(items).hash(), Value::set(reversed).hash());
  backward[5].second = 1000;
  EXPECT_NE(Value::map(forward), Value::map(backward));
  reversed[0] = 1000;
  EXPECT_NE(Value::set(items), Value::set(reversed));
}

TEST(ValueEquality, NumbersOfDifferentKindsNeverMeet) {
  EXPECT_NE(Value(1), Value(1.0));  // an int never equals a double
  EXPECT_NE(Value(0), Value(0.0));
  // Nor a big integer of the same value: Java's Long and BigInteger are different values, and a
  // set a peer wrote with both must keep both.
  EXPECT_NE(Value(1), Value::big_integer("1"));
  EXPECT_NE(Value::big_integer("1"), Value(1));
  EXPECT_NE(Value(-7), Value::big_integer("-7"));
  EXPECT_NE(Value(INT64_MIN), Value::big_integer("-9223372036854775808"));
  EXPECT_EQ(Value::big_integer("-007"), Value::big_integer("-7"));  // digits are normalised
  EXPECT_EQ(Value::big_integer("-007").hash(), Value::big_integer("-7").hash());
  EXPECT_NE(Value(INT64_MAX), Value::big_integer("9223372036854775808"));
  EXPECT_NE(Value::big_integer("1"), Value(1.0));
  EXPECT_NE(Value::big_decimal("1"), Value(1));
  EXPECT_NE(Value::big_decimal("1.5"), Value(1.5));
  EXPECT_NE(Value::instant(5), Value(5));
}

TEST(ValueEquality, NaNAndSignedZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Value(nan), Value(nan));
  EXPECT_EQ(Value(nan), Value(-nan));
  EXPECT_EQ(Value(nan).hash(), Value(-nan).hash());
  EXPECT_EQ(Value(-0.0), Value(0.0));
  EXPECT_EQ(Value(-0.0).hash(), Value(0.0).hash());
  EXPECT_EQ(Value::set({0.0, -0.0}).size(), 1u);
  EXPECT_EQ(Value::set({nan, nan}).size(), 1u);
}

// 0.0 and -0.0 are one key, as are NaNs of any sign and payload (== says so, docs/values.md):
// a map's find() agrees between the scan of a small map and the hash index of one of more than
// 8 entries, whichever of them the map holds and whichever is looked up; a set and a map built
// with both keep one, by the scan (few items) and the hash table (many) alike.
TEST(ValueEquality, SignedZeroAndNaNKeysAgreeBetweenScanAndIndex) {
  const std::vector<Value> zeros = {Value(0.0), Value(-0.0)};
  const std::vector<Value> nans = {
      Value(std::numeric_limits<double>::quiet_NaN()), Value(-std::numeric_limits<double>::quiet_NaN()),
      Value(std::bit_cast<double>(std::uint64_t{0x7FF8000000000001})),
      Value(std::bit_cast<double>(std::uint64_t{0xFFF0000000000001})),
      Value(std::bit_cast<double>(std::uint64_t{0x7FFFFFFFFFFFFFFF}))};
  for (const std::size_t fillers : {std::size_t{0}, std::size_t{3}, std::size_t{20}}) {
    for (const auto* group : {&zeros, &nans}) {
      for (const Value& held : *group) {
        std::vector<Entry> entries;
        for (std::size_t i = 0; i < fillers; ++i) entries.emplace_back(static_cast<double>(i + 1), 0);
        entries.emplace_back(held, "it");
        const Value m = Value::map(entries);
        for (const Value& looked : *group) {
          ASSERT_EQ(held, looked);
          ASSERT_EQ(held.hash(), looked.hash());
          const Value* found = m.find(looked);
          ASSERT_NE(found, nullptr) << fillers << " fillers, " << to_edn(held) << " by "
                                    << std::bit_cast<std::uint64_t>(looked.as_double());
          EXPECT_EQ(*found, Value("it"));
        }
        EXPECT_EQ(m.find(Value(1e300)), nullptr);
      }
      // Built with every member of the group: one key, the first's, holding the last value;
      // one member, the first.
      std::vector<Entry> entries;
      std::vector<Value> items;
      for (std::size_t i = 0; i < fillers; ++i) {
        entries.emplace_back(static_cast<double>(i + 1), 0);
        items.emplace_back(static_cast<double>(i + 1));
      }
      for (std::size_t i = 0; i < group->size(); ++i) {
        entries.emplace_back((*group)[i], static_cast<std::int64_t>(i));
        items.push_back((*group)[i]);
      }
      const Value m = Value::map(entries);
      ASSERT_EQ(m.size(), fillers + 1);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(m.entries()[fillers].first.as_double()),
                std::bit_cast<std::uint64_t>((*group)[0].as_double()));
      EXPECT_EQ(m.entries()[fillers].second, Value(static_cast<std::int64_t>(group->size() - 1)));
      const Value s = Value::set(items);
      ASSERT_EQ(s.size(), fillers + 1);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(s.items()[fillers].as_double()),
                std::bit_cast<std::uint64_t>((*group)[0].as_double()));
    }
  }
}

// A user type with an operator== and no std::hash: equal objects are equal Values, so they
// must hash alike (they hashed by address): found by a map's hash index as by its scan, and
// one member of a set built through the hash table as through the scan.
struct Coin {
  int cents = 0;
  friend bool operator==(const Coin&, const Coin&) = default;
};

TEST(ValueEquality, ObjectsEqualByOperatorEqualsHashAlike) {
  EXPECT_EQ(Value::object(Coin{5}), Value::object(Coin{5}));
  EXPECT_EQ(Value::object(Coin{5}).hash(), Value::object(Coin{5}).hash());
  for (const int fillers : {0, 3, 20}) {
    std::vector<Entry> entries;
    std::vector<Value> items;
    for (int i = 0; i < fillers; ++i) {
      entries.emplace_back(Value::object(Coin{100 + i}), i);
      items.push_back(Value::object(Coin{i % 4}));
    }
    entries.emplace_back(Value::object(Coin{7}), "seven");
    items.push_back(Value::object(Coin{7}));
    items.push_back(Value::object(Coin{7}));
    const Value m = Value::map(entries);
    const Value* found = m.find(Value::object(Coin{7}));
    ASSERT_NE(found, nullptr) << fillers;
    EXPECT_EQ(*found, Value("seven"));
    EXPECT_EQ(m.find(Value::object(Coin{8})), nullptr);
    EXPECT_EQ(Value::set(items).size(), static_cast<std::size_t>(std::min(fillers, 4) + 1)) << fillers;
  }
}

TEST(ValueEquality, KindsAreDistinct) {
  EXPECT_NE(Value::list({1, 2}), Value::array({1, 2}));
  EXPECT_NE(Value::set({1, 2}), Value::array({1, 2}));
  EXPECT_NE(kw("a"), sym("a"));
  EXPECT_NE(kw("a"), Value("a"));
  EXPECT_NE(Value::uri("a"), Value("a"));
  EXPECT_NE(Value::bytes("a"), Value("a"));
  EXPECT_NE(Value::character(U'a'), Value("a"));
  EXPECT_NE(Value::character(U'a'), Value(97));
  EXPECT_NE(Value(), Value(false));
  EXPECT_NE(Value(), Value(0));
  // A link and the map of its fields hold the same entries but are different values.
  EXPECT_NE(Value::link("h", "r"),
            Value::map({{"href", Value::uri("h")}, {"rel", "r"}, {"render", "link"}}));
  EXPECT_NE(Value::tagged("x", "1"), Value("1"));
  EXPECT_NE(Value::tagged("x", 1), Value::tagged("y", 1));
  EXPECT_NE(Value::tagged("x", 1), Value::tagged("x", 2));
  EXPECT_EQ(Value::tagged("x", Value::array({1})), Value::tagged("x", Value::array({1})));
}

TEST(ValueEquality, HashAgreesWithEqualityOnManyPairs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::string long_text(40, 'q');
  const std::vector<Value> values = {
      Value(), Value(true), Value(false), Value(0), Value(1), Value(-1), Value(INT64_MAX),
      Value::big_integer("1"), Value::big_integer("-1"), Value::big_integer("0"),
      Value::big_integer("-0"), Value::big_integer("9223372036854775807"),
      Value::big_integer("99999999999999999999999"), Value::big_integer("0099999999999999999999999"),
      Value(0.0), Value(-0.0), Value(1.0), Value(nan), Value(-nan),
      Value(std::numeric_limits<double>::infinity()), Value::big_decimal("1.0"),
      Value::big_decimal("1.0"), Value(""), Value("a"), Value(long_text), Value(long_text),
      kw("a"), kw(long_text), sym("a"), sym(long_text), Value::uri("a"), Value::bytes("a"),
      Value::bytes(long_text), Value::character(U'a'), Value::instant(0), Value::instant(1),
      Value::uuid({1, 2}), Value::uuid({1, 2}), Value::uuid({2, 1}), Value::array({}),
      Value::list({}), Value::set({}), Value::map({}), Value::array({1, 2}),
      Value::array({Value::big_integer("1"), 2}), Value::list({1, 2}), Value::set({1, 2}),
      Value::set({2, 1}), Value::set({Value::big_integer("2"), 1}), Value::map({{1, 2}, {3, 4}}),
      Value::map({{3, 4}, {1, 2}}), Value::map({{Value::big_integer("3"), 4}, {1, 2}}),
      Value::map({{1, 4}, {3, 2}}), Value::link("h", "r"), Value::link("h", "r"),
      // Tagged values of the spec's tags with reps no reader reads: made as a reader makes
      // tagged values (Value::tagged refuses them), still values that compare and hash.
      transit::ValueAccess::tagged(Value("t"), 1), transit::ValueAccess::tagged(Value("t"), Value::big_integer("1")),
      transit::ValueAccess::tagged(Value("u"), 1),
      Value::object(Point{1, 2}), Value::object(Point{1, 2}), Value::object(Point{2, 1}),
  };
  int equal_pairs = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i], values[i]) << i;  // reflexive, NaN included
    for (std::size_t j = 0; j < values.size(); ++j) {
      const bool eq = values[i] == values[j];
      EXPECT_EQ(eq, values[j] == values[i]) << "symmetry " << i << " " << j;
      if (eq) {
        ++equal_pairs;
        EXPECT_EQ(values[i].hash(), values[j].hash()) << "hash of equal values " << i << " " << j;
        EXPECT_EQ(std::hash<Value>{}(values[i]), values[j].hash());
      }
    }
  }
  // Guards against a comparison that says "equal" to everything or nothing.
  EXPECT_GT(equal_pairs, static_cast<int>(values.size()));
  EXPECT_LT(equal_pairs, static_cast<int>(values.size()) * 3);
}

// ---- container building --------------------------------------------------------------------------

TEST(ValueContainers, SetDropsDuplicatesKeepingTheFirst) {
  const Value s = Value::set({1, 2, Value::big_integer("1"), 2, 3, 1.0});
  ASSERT_EQ(s.size(), 5u);  // 1, 1N and 1.0 are three elements
  EXPECT_EQ(s.items()[0].kind(), Kind::integer);
  EXPECT_EQ(s.items()[1], Value(2));
  EXPECT_EQ(s.items()[2].kind(), Kind::big_integer);
  EXPECT_EQ(s.items()[3], Value(3));
  EXPECT_EQ(s.items()[4].kind(), Kind::floating);

  // Past 16 items duplicates are found through a hash index.
  std::vector<Value> many;
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < 30; ++i) many.emplace_back("item" + std::to_string(i));
  const Value big = Value::set(many);
  ASSERT_EQ(big.size(), 30u);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(big[static_cast<std::size_t>(i)], Value("item" + std::to_string(i)));
}

TEST(ValueContainers, MapLastValueWinsAtFirstPosition) {
  const Value m = Value::map({{"a", 1}, {"b", 2}, {"a", 3}, {"c", 4}, {"b", 5}});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.entries()[0], Entry("a", 3));
  EXPECT_EQ(m.entries()[1], Entry("b", 5));
  EXPECT_EQ(m.entries()[2], Entry("c", 4));
  // 1 and 1N are two keys.
  const Value n = Value::map({{1, "int"}, {Value::big_integer("1"), "big"}});
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(*n.find(1), Value("int"));
  EXPECT_EQ(*n.find(Value::big_integer("1")), Value("big"));

  std::vector<Entry> many;
  for (int i = 0; i < 40; ++i) many.emplace_back(kw("k" + std::to_string(i)), i);
  many.emplace_back(kw("k7"), "last");
  const Value big = Value::map(many);
  ASSERT_EQ(big.size(), 40u);
  EXPECT_EQ(big.entries()[7], Entry(kw("k7"), "last"));
  EXPECT_EQ(big.entries()[8], Entry(kw("k8"), 8));
}

// The duplicate-key check decides what the handles alone decide without comparing contents
// (same bytes or node, different kinds or lengths): every such shortcut must agree with ==.
// Each pair is a map's two keys, alone (a scan) and among 20 others (the hash index).
TEST(ValueContainers, DuplicateKeysAreFoundByEqualityWhateverTheirForm) {
  const std::string long_a = "a key longer than thirteen bytes, A";
  const Value shared(long_a);
  const std::vector<std::pair<Value, Value>> equal = {
      {kw("short"), kw("short")},
      {Value(long_a), Value(long_a)},       // two nodes, one text
      {shared, shared},                     // one node
      {Value(0.0), Value(-0.0)},            // equal doubles, different bytes
      {Value(std::nan("")), Value(std::nan(""))},
      {Value::bytes(std::string(20, 'b')), Value::bytes(std::string(20, 'b'))},
      {Value::big_integer("123456789012345678901234567890"), Value::big_integer("123456789012345678901234567890")},
      {Value::array({1, "x"}), Value::array({1, "x"})},
      {Value::uuid({1, 2}), Value::uuid({1, 2})},
      {Value::uri("https://example.com/a/long/path"), Value::uri("https://example.com/a/long/path")},
  };
  const std::vector<std::pair<Value, Value>> unequal = {
      // Same length, kind and first and last 8 bytes: the scan's filter cannot tell them apart.
      {Value(long_a), Value("a key longer than THIRTEEN bytes, A")},
      {kw("short"), sym("short")},          // same bytes, other kind
      {kw("short"), kw("shorter")},
      {Value(long_a), Value("a key longer than thirteen bytes, B")},  // same length
      {Value(long_a), Value(long_a + "!")},  // other length
      {Value(1), Value(1.0)},
      {Value::bytes(std::string(20, 'b')), Value::bytes(std::string(21, 'b'))},
      {Value::array({1, "x"}), Value::array({1, "y"})},
      {Value::array({}), Value::array({1})},  // inline and on the heap
      {Value::uuid({1, 2}), Value::uuid({1, 3})},
  };
  auto keys_of = [](const Value& a, const Value& b, bool many) {
    std::vector<Entry> entries{{a, 1}};
    if (many)
      for (int i = 0; i < 20; ++i) entries.emplace_back("filler " + std::to_string(i), i);
    entries.emplace_back(b, 2);
    return Value::map(entries).size() - (many ? 20 : 0);
  };
  for (bool many : {false, true}) {
    for (const auto& [a, b] : equal) {
      ASSERT_EQ(a, b);
      // The scan of a small map takes a key whose filter bit is new as a new key.
      EXPECT_EQ(transit::ValueAccess::filter_bit(a), transit::ValueAccess::filter_bit(b))
          << transit::kind_name(a.kind());
      EXPECT_EQ(keys_of(a, b, many), 1u) << transit::kind_name(a.kind()) << (many ? " among many" : "");
      EXPECT_EQ(Value::set({a, b}).size(), 1u) << transit::kind_name(a.kind());
    }
    for (const auto& [a, b] : unequal) {
      ASSERT_NE(a, b);
      EXPECT_EQ(keys_of(a, b, many), 2u) << transit::kind_name(a.kind()) << (many ? " among many" : "");
      EXPECT_EQ(Value::set({a, b}).size(), 2u) << transit::kind_name(a.kind());
    }
  }
}

// ---- validation ----------------------------------------------------------------------------------

TEST(ValueValidation, BigIntegerDigits) {
  EXPECT_EQ(Value::big_integer("007").as_string(), "7");
  EXPECT_EQ(Value::big_integer("-007").as_string(), "-7");
  EXPECT_EQ(Value::big_integer("-0").as_string(), "0");
  EXPECT_EQ(Value::big_integer("0000").as_string(), "0");
  EXPECT_EQ(Value::big_integer("-000123456789012345678901").as_string(), "-123456789012345678901");
  EXPECT_EQ(Value::big_integer("-0"), Value::big_integer("0"));
  for (const char* bad : {"", "-", "+1", "1.0", " 1", "1 ", "abc", "1e5", "--1", "0x10"}) {
    expect_error([&] { (void)Value::big_integer(bad); }, Errc::invalid_argument,
                 std::string("transit: invalid_argument: big integer needs decimal digits, got \"") +
                     bad + "\"");
  }
}

TEST(ValueValidation, BigDecimalText) {
  for (const char* good : {"0", "1.5", "-12.5", "+3", "1E+3", "1e-3", "1.", ".5"})
    EXPECT_EQ(Value::big_decimal(good).as_string(), good);
  for (const char* bad : {"", ".", "-", "abc", "1.5.5", "1e", "NaN", "Infinity", "1,5"}) {
    expect_error([&] { (void)Value::big_decimal(bad); }, Errc::invalid_argument,
                 std::string("transit: invalid_argument: big decimal needs a decimal number, got \"") +
                     bad + "\"");
  }
}

// Value::character says what Value(char32_t) and the typed writer say: the code point, and
// whether it is a surrogate or past U+10FFFF.
TEST(ValueValidation, CharacterIsAUnicodeScalarValue) {
  const std::pair<char32_t, const char*> cases[] = {
      {0xD800, "char32_t 0xD800 is not a Unicode character: a surrogate code point"},
      {0xDBFF, "char32_t 0xDBFF is not a Unicode character: a surrogate code point"},
      {0xDC00, "char32_t 0xDC00 is not a Unicode character: a surrogate code point"},
      {0xDFFF, "char32_t 0xDFFF is not a Unicode character: a surrogate code point"},
      {0x110000, "char32_t 0x110000 is not a Unicode character: a code point past U+10FFFF"},
      {0xFFFFFFFF, "char32_t 0xFFFFFFFF is not a Unicode character: a code point past U+10FFFF"},
  };
  for (const auto& [bad, why] : cases) {
    expect_error([bad = bad] { (void)Value::character(bad); }, Errc::invalid_argument,
                 std::string("transit: invalid_argument: ") + why);
    expect_error([bad = bad] { (void)Value(bad); }, Errc::invalid_argument,
                 std::string("transit: invalid_argument: ") + why);
  }
  EXPECT_EQ(Value::character(0x10FFFF).as_char(), char32_t{0x10FFFF});
  EXPECT_EQ(Value::character(0xE000).as_char(), char32_t{0xE000});
}

TEST(ValueValidation, TagsAndLinks) {
  expect_error([] { (void)Value::tagged("", 1); }, Errc::invalid_argument,
               "transit: invalid_argument: a tag is never empty");
  expect_error([] { (void)Value::link("h", "r", "", "", "video"); }, Errc::invalid_argument,
               "transit: invalid_argument: link render must be \"link\" or \"image\"");
  expect_error([] { (void)Value::link(Value::array({})); }, Errc::invalid_argument,
               "transit: invalid_argument: a link is built from a map of its fields");
  expect_error([] { (void)Value::link(Value::map({{"href", Value::uri("h")}, {kw("rel"), "r"}})); },
               Errc::invalid_argument, "transit: invalid_argument: a link's field names are strings");
}

// ---- copy and move -------------------------------------------------------------------------------

TEST(ValueLifetime, MovedFromIsNull) {
  Value a = Value::array({1, 2, 3});
  Value b = std::move(a);
  EXPECT_TRUE(a.is_null());  // NOLINT(bugprone-use-after-move): the documented state
  EXPECT_EQ(b.size(), 3u);
  Value c("a string long enough to live on the heap");
  c = std::move(b);
  EXPECT_TRUE(b.is_null());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c, Value::array({1, 2, 3}));
  Value small = 5;
  Value target = std::move(small);
  EXPECT_TRUE(small.is_null());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(target.as_int(), 5);
}

TEST(ValueLifetime, CopiesShareThePayload) {
  const Value s("a string long enough to live on the heap");
  const Value s2 = s;
  EXPECT_EQ(s.as_string().data(), s2.as_string().data());
  const Value a = Value::array({1, 2, 3});
  Value a2;
  a2 = a;
  EXPECT_EQ(a.items().data(), a2.items().data());
  const Value m = Value::map({{"k", 1}});
  const Value m2(m);
  EXPECT_EQ(m.entries().data(), m2.entries().data());
  const Value o = Value::object(Point{1, 2});
  const Value o2 = o;
  EXPECT_EQ(&o.as<Point>(), &o2.as<Point>());
}

TEST(ValueLifetime, SelfAssignmentAndLastOwner) {
  Value v = Value::array({Value("a string long enough to live on the heap")});
  const Value& alias = v;
  v = alias;  // self-assignment keeps the value
  EXPECT_EQ(v[0].as_string(), "a string long enough to live on the heap");
  Value w;
  {
    const Value inner = Value::array({Value("another string long enough for the heap")});
    w = inner[0];
  }
  // The copy outlives the container it came from.
  EXPECT_EQ(w.as_string(), "another string long enough for the heap");
}

// ---- user objects --------------------------------------------------------------------------------

TEST(ValueObjects, HoldAndReturnTheObject) {
  const Value v = Value::object(Point{3, 4});
  EXPECT_EQ(v.kind(), Kind::object);
  EXPECT_EQ(v.object_type(), std::type_index(typeid(Point)));
  ASSERT_NE(v.get_if<Point>(), nullptr);
  EXPECT_EQ(v.get_if<Point>()->x, 3);
  EXPECT_EQ(v.as<Point>().y, 4);
  EXPECT_EQ(v.get_if<Opaque>(), nullptr);
  EXPECT_EQ(Value(1).get_if<Point>(), nullptr);
  // Type names as they are written in source, not mangled.
  expect_error([&] { (void)v.as<Opaque>(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected (anonymous namespace)::Opaque, value is object of "
               "type (anonymous namespace)::Point");
  expect_error([&] { (void)Value(1).as<Point>(); }, Errc::wrong_kind,
               "transit: wrong_kind: expected (anonymous namespace)::Point, value is integer");
}

TEST(ValueObjects, EqualityUsesTheTypesOperatorOrIdentity) {
  EXPECT_EQ(Value::object(Point{1, 2}), Value::object(Point{1, 2}));
  EXPECT_EQ(Value::object(Point{1, 2}).hash(), Value::object(Point{1, 2}).hash());
  EXPECT_NE(Value::object(Point{1, 2}), Value::object(Point{2, 1}));
  const Value o = Value::object(Opaque{1});
  const Value copy = o;
  EXPECT_EQ(o, copy);
  EXPECT_EQ(o.hash(), copy.hash());
  EXPECT_NE(o, Value::object(Opaque{1}));  // no operator==: two objects are two values
  EXPECT_NE(Value::object(Point{1, 2}), Value::object(Opaque{1}));
}

TEST(ValueObjects, DestroyedOnceWithTheLastOwner) {
  ASSERT_EQ(Counted::live, 0);
  {
    Value a = Value::object(Counted{});
    EXPECT_EQ(Counted::live, 1);
    Value b = a;
    Value c = std::move(a);
    EXPECT_EQ(Counted::live, 1);
    b = Value();
    EXPECT_EQ(Counted::live, 1);
    const Value in_array = Value::array({c});
    c = Value();
    EXPECT_EQ(Counted::live, 1);
  }
  EXPECT_EQ(Counted::live, 0);
}

}  // namespace
