// SPDX-License-Identifier: Apache-2.0
// MessagePack: the exact bytes of every wire rule, the lenient forms read, the float32 option,
// streaming from a Source, and malformed input (codes, offsets, paths, exact messages, and no
// allocation of what a length prefix merely claims).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <span>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "cache.h"
#include "codec/codec.h"
#include "testing.h"
#include "support/msgpack_items.h"
#include "support/one_limit_each.h"
#include "support/step_source.h"
#include "transit/transit.h"

// The largest single allocation made while `g_track_allocations` is set, to prove that a length
// prefix never turns into an allocation of the size it claims, and how many were made, to prove
// that a path makes none per value. This operator new serves the whole test binary.
namespace {
std::atomic<bool> g_track_allocations{false};
std::atomic<std::size_t> g_largest_allocation{0};
std::atomic<std::size_t> g_allocations{0};
}  // namespace

// Out of line, so that compilers do not pair an inlined free() with `new` and warn.
[[gnu::noinline]] void* operator new(std::size_t size) {
  if (g_track_allocations.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    std::size_t seen = g_largest_allocation.load(std::memory_order_relaxed);
    while (size > seen && !g_largest_allocation.compare_exchange_weak(seen, size)) {
    }
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::ReadOptions;
using transit::Uuid;
using transit::Value;
using transit::WriteOptions;

// "92 a3 7e" -> the bytes.
std::string bytes(std::string_view hex) {
  std::string out;
  int pending = -1;
  for (const char c : hex) {
    if (c == ' ') continue;
    const int digit = c <= '9' ? c - '0' : c - 'a' + 10;
    if (pending < 0) {
      pending = digit;
    } else {
      out.push_back(static_cast<char>(pending * 16 + digit));
      pending = -1;
    }
  }
  return out;
}

// "hello" -> "68 65 6c 6c 6f", for readable failures and compact expectations.
std::string hex(std::string_view data) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : data) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out.push_back(' ');
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

// A msgpack str item holding `s` (fixstr or str 8), as hex.
std::string str(std::string_view s) {
  std::string header = s.size() < 32 ? hex(std::string(1, static_cast<char>(0xa0 | s.size())))
                                     : "d9 " + hex(std::string(1, static_cast<char>(s.size())));
  return s.empty() ? header : header + " " + hex(s);
}

std::string write_mp(const Value& v, WriteOptions options = {}) {
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::msgpack, options);
  writer.write(v);
  writer.flush();
  return hex(out);
}

Value read_mp(std::string_view hex_bytes, ReadOptions options = {}) {
  return transit::read(bytes(hex_bytes), Encoding::msgpack, options);
}

// `v` is written as `expected` and reads back equal.
void expect_wire(const Value& v, const std::string& expected) {
  SCOPED_TRACE(transit::to_edn(v));
  EXPECT_EQ(write_mp(v), expected);
  EXPECT_EQ(transit::read(bytes(expected), Encoding::msgpack), v);
}

// A top-level scalar in its quote: ["~#'", item].
std::string quoted(const std::string& item) { return "92 a3 7e 23 27 " + item; }

// ---- writing: scalars ---------------------------------------------------------------------------

TEST(MsgpackWrite, TopLevelScalarsAreQuoted) {
  expect_wire(Value(), quoted("c0"));
  expect_wire(Value(true), quoted("c3"));
  expect_wire(Value(false), quoted("c2"));
  expect_wire(Value("abc"), quoted(str("abc")));
}

TEST(MsgpackWrite, IntegersTakeTheSmallestEncodingWithNo53BitRule) {
  const std::vector<std::pair<std::int64_t, std::string>> cases = {
      {0, "00"},
      {127, "7f"},
      {128, "cc 80"},
      {255, "cc ff"},
      {256, "cd 01 00"},
      {65535, "cd ff ff"},
      {65536, "ce 00 01 00 00"},
      {4294967295, "ce ff ff ff ff"},
      {4294967296, "cf 00 00 00 01 00 00 00 00"},
      {(std::int64_t{1} << 53) + 1, "cf 00 20 00 00 00 00 00 01"},
      {INT64_MAX, "cf 7f ff ff ff ff ff ff ff"},
      {-1, "ff"},
      {-32, "e0"},
      {-33, "d0 df"},
      {-128, "d0 80"},
      {-129, "d1 ff 7f"},
      {-32768, "d1 80 00"},
      {-32769, "d2 ff ff 7f ff"},
      {-(std::int64_t{1} << 53) - 1, "d3 ff df ff ff ff ff ff ff"},
      {INT64_MIN, "d3 80 00 00 00 00 00 00 00"},
  };
  for (const auto& [i, item] : cases) expect_wire(Value::array({i}), "91 " + item);
}

// Big integers are "~n" strings even where a uint 64 could hold them: what transit-clj writes
// (see ints_interesting.mp), and transit-java cannot read a uint 64 above INT64_MAX.
TEST(MsgpackWrite, BigIntegersAreTildeNStrings) {
  expect_wire(Value(std::uint64_t{9223372036854775808ULL}), quoted(str("~n9223372036854775808")));
  expect_wire(Value(UINT64_MAX), quoted(str("~n18446744073709551615")));
  expect_wire(Value::big_integer("18446744073709551616"),
              quoted(str("~n18446744073709551616")));
  expect_wire(Value::big_integer("-9223372036854775809"),
              quoted(str("~n-9223372036854775809")));
  // A big integer int64 could hold keeps its tag, so it reads back as a big integer.
  expect_wire(Value::big_integer("5"), quoted(str("~n5")));
  // Peers that do write a native uint 64 above INT64_MAX are read as a big integer.
  EXPECT_EQ(read_mp("cf ff ff ff ff ff ff ff ff"), Value::big_integer("18446744073709551615"));
  EXPECT_EQ(read_mp(quoted(str("~n5"))).kind(), transit::Kind::big_integer);
}

TEST(MsgpackWrite, DoublesAreFloat64EvenWhenWhole) {
  expect_wire(Value::array({2.0}), "91 cb 40 00 00 00 00 00 00 00");
  expect_wire(Value::array({-0.0}), "91 cb 80 00 00 00 00 00 00 00");
  expect_wire(Value::array({0.1}), "91 cb 3f b9 99 99 99 99 99 9a");
  EXPECT_EQ(read_mp("91 cb 40 00 00 00 00 00 00 00")[0].kind(), transit::Kind::floating);
}

TEST(MsgpackWrite, NanAndInfinitiesAreTildeZStrings) {
  expect_wire(Value::array({std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()}),
              "93 " + str("~zNaN") + " " + str("~zINF") + " " + str("~z-INF"));
}

TEST(MsgpackWrite, StringsAreEscapedAndSizedByLength) {
  expect_wire(Value::array({"~a", "^b", "`c", "^ "}),
              "94 " + str("~~a") + " " + str("~^b") + " " + str("~`c") + " " + str("~^ "));
  const std::string s31(31, 'x'), s32(32, 'x'), s256(256, 'x');
  expect_wire(Value::array({s31}), "91 " + str(s31));
  expect_wire(Value::array({s32}), "91 d9 20 " + hex(s32));
  expect_wire(Value::array({s256}), "91 da 01 00 " + hex(s256));
}

// The writer encodes headers itself: each length takes its smallest form on both sides of
// every boundary (what msgpack-cxx's packer writes), and reads back.
TEST(MsgpackWrite, HeadersTakeTheSmallestFormAtEveryLengthBoundary) {
  const auto header_of = [](const Value& v, std::size_t bytes) {
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, Encoding::msgpack);
    writer.write(v);
    writer.flush();
    EXPECT_EQ(transit::read(out, Encoding::msgpack), v);
    return hex(std::string_view(out).substr(0, bytes));
  };
  const auto text = [](std::size_t n) { return Value::array({std::string(n, 'x')}); };
  EXPECT_EQ(header_of(text(31), 2), "91 bf");
  EXPECT_EQ(header_of(text(255), 3), "91 d9 ff");
  EXPECT_EQ(header_of(text(65535), 4), "91 da ff ff");
  EXPECT_EQ(header_of(text(65536), 6), "91 db 00 01 00 00");
  const auto ints = [](std::size_t n) { return Value::array(std::vector<Value>(n, Value(1))); };
  EXPECT_EQ(header_of(ints(15), 1), "9f");
  EXPECT_EQ(header_of(ints(16), 3), "dc 00 10");
  EXPECT_EQ(header_of(ints(65535), 3), "dc ff ff");
  EXPECT_EQ(header_of(ints(65536), 5), "dd 00 01 00 00");
  const auto map = [](std::size_t n) {
    std::vector<transit::Entry> entries;
    for (std::size_t i = 0; i < n; ++i) entries.emplace_back(static_cast<std::int64_t>(i), 0);
    return Value::map(entries);
  };
  EXPECT_EQ(header_of(map(15), 1), "8f");
  EXPECT_EQ(header_of(map(65535), 3), "de ff ff");
  EXPECT_EQ(header_of(map(65536), 5), "df 00 01 00 00");
}

// Short strings are copied in at most two overlapping moves: every length from 0 to 40, each
// byte distinct so a misplaced move shows, as a value, a map key and a cache reference.
TEST(MsgpackWrite, StringsOfEveryShortLengthAreCopiedWhole) {
  for (std::size_t n = 0; n <= 40; ++n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('A' + i));
    const std::string out = transit::write(Value::array({Value(s)}), Encoding::msgpack);
    const std::string header = n < 32 ? std::string(1, static_cast<char>(0xa0 | n))
                                      : std::string{static_cast<char>(0xd9), static_cast<char>(n)};
    EXPECT_EQ(out, "\x91" + header + s) << n;
    const Value m = Value::map({{Value(s), 1}});
    const Value twice = Value::array({m, m});
    EXPECT_EQ(transit::read(transit::write(twice, Encoding::msgpack), Encoding::msgpack), twice) << n;
  }
  // The second map's key is the cache code "^0": a fixstr of 2 bytes.
  const Value m = Value::map({{Value("name"), 1}});
  EXPECT_EQ(hex(transit::write(Value::array({m, m}), Encoding::msgpack)),
            "92 81 a4 6e 61 6d 65 01 81 a2 5e 30 01");
}

// Bytes are "~b" + base64 encoded straight into the output: the str header must count the
// prefix, across the fixstr, str 8 and str 16 boundaries; as a map key they are still cached.
TEST(MsgpackWrite, BytesAreBase64StringsEncodedInPlace) {
  for (const std::size_t n : {0, 1, 2, 3, 20, 21, 22, 23, 189, 190, 191, 192, 193, 40000}) {
    std::string data;
    for (std::size_t i = 0; i < n; ++i) data.push_back(static_cast<char>(i * 37));
    std::string text = "~b";
    transit::detail::base64_encode(std::as_bytes(std::span(data.data(), data.size())), text);
    std::string header;
    if (text.size() < 32) {
      header = std::string(1, static_cast<char>(0xa0 | text.size()));
    } else if (text.size() <= 255) {
      header = {static_cast<char>(0xd9), static_cast<char>(text.size())};
    } else {
      header = {static_cast<char>(0xda), static_cast<char>(text.size() >> 8), static_cast<char>(text.size() & 0xff)};
    }
    const Value v = Value::bytes(data);
    const std::string out = transit::write(Value::array({v}), Encoding::msgpack);
    EXPECT_EQ(out, "\x91" + header + text) << n;
    EXPECT_EQ(transit::read(out, Encoding::msgpack), Value::array({v})) << n;
  }
  const Value key = Value::bytes(std::string_view("abcd"));
  const Value m = Value::map({{key, 1}});
  EXPECT_EQ(hex(transit::write(Value::array({m, m}), Encoding::msgpack)),
            "92 81 aa 7e 62 59 57 4a 6a 5a 41 3d 3d 01 81 a2 5e 30 01");
}

TEST(MsgpackWrite, TextTypesAreTildeStrings) {
  expect_wire(Value::keyword("a"), quoted(str("~:a")));
  expect_wire(Value::symbol("s"), quoted(str("~$s")));
  expect_wire(Value::character(U'x'), quoted(str("~cx")));
  expect_wire(Value::uri("http://a"), quoted(str("~rhttp://a")));
  expect_wire(Value::big_decimal("1.5"), quoted(str("~f1.5")));
}

TEST(MsgpackWrite, BytesAreBase64StringsAsTransitJavaWritesThem) {
  expect_wire(Value::bytes(std::string_view("\x01\x02\x03", 3)), quoted(str("~bAQID")));
}

TEST(MsgpackWrite, DatesAreTaggedMilliseconds) {
  expect_wire(Value::instant(946728000000),
              quoted("92 " + str("~#m") + " cf 00 00 00 dc 6d 62 da 00"));
  expect_wire(Value::instant(-1), quoted("92 " + str("~#m") + " ff"));
}

TEST(MsgpackWrite, UuidsAreTaggedSignedHalves) {
  const Uuid u{0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL};
  expect_wire(Value::uuid(u), quoted("92 " + str("~#u") + " 92 cf 5a 2c be a3 e8 c6 42 8b"
                                     " d3 b5 25 21 23 93 70 dd 55"));
}

// ---- writing: collections -----------------------------------------------------------------------

TEST(MsgpackWrite, MapsAreNativeMapsWithTheirCount) {
  expect_wire(Value::map({}), "80");
  expect_wire(Value::map({{"a", 1}, {"b", 2}}), "82 " + str("a") + " 01 " + str("b") + " 02");
  std::vector<transit::Entry> sixteen;
  for (int i = 0; i < 16; ++i) sixteen.emplace_back(i, i);
  std::string expected = "de 00 10";
  // append, not operator+: g++ 12 warns (-Wrestrict, a false positive) on `" " + hex(...)`.
  for (int i = 0; i < 16; ++i) expected.append(" ").append(hex(std::string(2, static_cast<char>(i))));
  expect_wire(Value::map(sixteen), expected);
}

TEST(MsgpackWrite, ScalarKeysOtherThanTextStayNative) {
  expect_wire(Value::map({{1, "i"}, {true, "t"}, {Value(), "n"}, {1.5, "d"}}),
              "84 01 " + str("i") + " c3 " + str("t") + " c0 " + str("n") +
                  " cb 3f f8 00 00 00 00 00 00 " + str("d"));
}

TEST(MsgpackWrite, OtherScalarKeysAreTheirStringForms) {
  expect_wire(Value::map({{Value::instant(0), 1}}), "81 " + str("~m0") + " 01");
  expect_wire(Value::map({{Value::uuid({1, 2}), 1}}),
              "81 " + str("~u00000000-0000-0001-0000-000000000002") + " 01");
  expect_wire(Value::map({{std::numeric_limits<double>::infinity(), 1}}), "81 " + str("~zINF") + " 01");
  expect_wire(Value::map({{Value(UINT64_MAX), 1}}), "81 " + str("~n18446744073709551615") + " 01");
}

TEST(MsgpackWrite, MapKeysAndTagsAreCachedAsInJson) {
  expect_wire(Value::array({Value::map({{"abcd", 1}}), Value::map({{"abcd", 2}})}),
              "92 81 " + str("abcd") + " 01 81 " + str("^0") + " 02");
  // Keywords anywhere; strings only as keys; under four characters with the prefix is too short.
  expect_wire(Value::array({Value::keyword("abc"), Value::keyword("abc"), "abcd", "abcd",
                            Value::keyword("a"), Value::keyword("a")}),
              "96 " + str("~:abc") + " " + str("^0") + " " + str("abcd") + " " + str("abcd") + " " +
                  str("~:a") + " " + str("~:a"));
  expect_wire(Value::array({Value::set({1}), Value::set({2})}),
              "92 92 " + str("~#set") + " 91 01 92 " + str("^0") + " 91 02");
}

TEST(MsgpackWrite, CacheIsFreshForEveryTopLevelValue) {
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::msgpack);
  writer.write(Value::array({Value::keyword("abc")}));
  writer.write(Value::array({Value::keyword("abc")}));
  writer.flush();
  const std::string one = "91 " + str("~:abc");
  EXPECT_EQ(hex(out), one + " " + one);
}

TEST(MsgpackWrite, CompositeKeysMakeACmap) {
  expect_wire(Value::map({{Value::array({1}), 2}}), "92 " + str("~#cmap") + " 92 91 01 02");
}

TEST(MsgpackWrite, TaggedSetsListsLinksAndUnknownTags) {
  expect_wire(Value::list({1}), "92 " + str("~#list") + " 91 01");
  expect_wire(Value::tagged("point", Value::array({1, 2})), "92 " + str("~#point") + " 92 01 02");
  expect_wire(Value::tagged("x", Value("y")), quoted(str("~xy")));
  // A link's fields are a native map whose keys are cached like any map's.
  const Value link = Value::link("h", "r");
  expect_wire(Value::array({link, link}),
              "92 92 " + str("~#link") + " 83 " + str("href") + " " + str("~rh") + " " + str("rel") +
                  " " + str("r") + " " + str("render") + " " + str("link") + " 92 " + str("^0") +
                  " 83 " + str("^1") + " " + str("~rh") + " " + str("rel") + " " + str("r") + " " +
                  str("^2") + " " + str("link"));
}

// ---- the float32 option -------------------------------------------------------------------------

TEST(MsgpackFloat32, WritesFloat32ExactlyWhenNothingIsLost) {
  WriteOptions f32;
  f32.float32 = true;
  // 2^-149 is the smallest float (a subnormal); 1e-45 is not a float.
  EXPECT_EQ(write_mp(Value::array({2.0, 0.5, -1.25, std::ldexp(1.0, -149), 1e-45}), f32),
            "95 ca 40 00 00 00 ca 3f 00 00 00 ca bf a0 00 00 ca 00 00 00 01 "
            "cb 36 96 d6 01 ad 37 6a b9");
  // Not exactly a float, out of float's range, just above FLT_MAX.
  EXPECT_EQ(write_mp(Value::array({0.1, 1e300, 3.4028235677973366e38}), f32),
            "93 cb 3f b9 99 99 99 99 99 9a cb 7e 37 e4 3c 88 00 75 9c cb 47 ef ff ff f0 00 00 00");
  // FLT_MAX itself fits; NaN and the infinities stay "~z" strings as in every encoding.
  EXPECT_EQ(write_mp(Value::array({static_cast<double>(std::numeric_limits<float>::max()),
                                   std::numeric_limits<double>::quiet_NaN()}),
                     f32),
            "92 ca 7f 7f ff ff " + str("~zNaN"));
  // Off by default, and JSON ignores it.
  EXPECT_EQ(write_mp(Value::array({2.0})), "91 cb 40 00 00 00 00 00 00 00");
  std::string json;
  transit::StringSink sink(json);
  transit::Writer writer(sink, Encoding::json, f32);
  writer.write(Value::array({2.0}));
  writer.flush();
  EXPECT_EQ(json, "[2.0]");
}

TEST(MsgpackFloat32, IsLossless) {
  WriteOptions f32;
  f32.float32 = true;
  std::mt19937_64 rng(42);
  std::vector<Value> doubles;
  for (int i = 0; i < 20000; ++i) {
    double d = std::bit_cast<double>(rng());
    if (i % 2 == 0) d = static_cast<float>(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
    if (std::isnan(d)) continue;
    doubles.emplace_back(d);
  }
  for (const double d : {0.0, -0.0, 1.0, 0.1, 1e-320, 1e-45, 1.5e-45, 3.4028234663852886e38,
                         3.4028235677973366e38, 1e39, -1e39, 16777217.0})
    doubles.emplace_back(d);
  const Value v = Value::array(doubles);
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::msgpack, f32);
  writer.write(v);
  writer.flush();
  const Value back = transit::read(out, Encoding::msgpack);
  ASSERT_EQ(back.size(), v.size());
  std::size_t float32s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    // Bit for bit, so -0.0 and 0.0 are told apart.
    ASSERT_EQ(std::bit_cast<std::uint64_t>(back[i].as_double()), std::bit_cast<std::uint64_t>(v[i].as_double()))
        << v[i].as_double();
    if (static_cast<double>(static_cast<float>(v[i].as_double())) == v[i].as_double()) ++float32s;
  }
  // Every double a float holds took 5 bytes, every other 9.
  EXPECT_GT(float32s, v.size() / 3);
  EXPECT_EQ(out.size(), 3 + 5 * float32s + 9 * (v.size() - float32s));
}

// ---- reading: lenient forms ---------------------------------------------------------------------

TEST(MsgpackRead, NonCanonicalEncodingsAreAccepted) {
  EXPECT_EQ(read_mp("dd 00 00 00 02 cd 00 01 d3 ff ff ff ff ff ff ff ff"), Value::array({1, -1}));
  EXPECT_EQ(read_mp("df 00 00 00 01 db 00 00 00 01 61 d0 05"), Value::map({{"a", 5}}));
  EXPECT_EQ(read_mp("91 ca 3f 80 00 00"), Value::array({1.0}));
  EXPECT_EQ(read_mp("91 ca 3f 80 00 00")[0].kind(), transit::Kind::floating);
}

// A long keyword is written once and then as a cache code, in every place a code can stand;
// each part kept from the document read back stays whole after the document itself is gone
// (cache hits into containers are placed without a count: see Decoder::string).
TEST(MsgpackRead, CachedValuesKeptFromADocumentOutliveIt) {
  const Value kw = Value::keyword("a-keyword-too-long-to-be-inline");
  const std::vector<Value> parts = {kw, Value::set({kw}), Value::map({{kw, kw}}),
                                    Value::list({kw}), Value::tagged("point", kw)};
  std::string wire;
  transit::StringSink sink(wire);
  transit::Writer writer(sink, Encoding::msgpack);
  writer.write(Value::array(parts));
  writer.flush();
  std::size_t codes = 0;
  for (std::size_t at = 0; (at = wire.find("\xa2^0", at)) != std::string::npos; ++at) ++codes;
  EXPECT_EQ(codes, 5u);  // all but the first of the six
  std::vector<Value> kept;
  {
    const Value doc = transit::read(wire, Encoding::msgpack);
    ASSERT_EQ(doc, Value::array(parts));
    for (const Value& part : doc.items()) kept.push_back(part);
    kept.push_back(doc.items()[2].entries()[0].second);
  }
  for (std::size_t i = 0; i < parts.size(); ++i) EXPECT_EQ(kept[i], parts[i]) << i;
  EXPECT_EQ(kept.back(), kw);
}

// The MessagePack reader resolves most strings on a fast path of its own (cache codes, short
// strings that are never cached, keywords and symbols, ASCII keys whose size decides their
// cacheability: Decoder::checked_string); the JSON reader takes every string through the
// general rules. The same strings, as map keys and values, followed by 0 to 40 cache codes,
// read the same from both, or fail the same way: a string cached on one path and not on the
// other would shift every code after it, or leave one unassigned. Cacheability hinges on
// UTF-16 units, so the set has 2-, 3- and 4-byte characters beside ASCII at the lengths where
// bytes and units part, and strings of 13 and 14 bytes around the inline limit.
TEST(MsgpackRead, FastPathStringsAreCachedExactlyAsTheGeneralRulesSay) {
  const std::vector<std::string> strings = {
      "", "a", "ab", "abc", "abcd", "\xc3\xa9", "\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9\xc3\xa9",
      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "a\xc3\xa9" "b", "a\xc3\xa9" "bc",
      "\xe2\x82\xac\xe2\x82\xac", "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac",
      "\xf0\x9d\x84\x9e", "\xf0\x9d\x84\x9e\xf0\x9d\x84\x9e", "~:a", "~:ab", "~:abc",
      "~:a-keyword-longer-than-inline", "~$s", "~$sym", "~:\xc3\xa9", "~:\xc3\xa9\xc3\xa9",
      "~$\xe2\x82\xac", "abcdefghijklm", "abcdefghijklmn", "abcdefghijklmnop",
      "abcdefghijklmnopq", "~~x", "~^x", "`x", "~~tilde-escaped", "~i12345"};
  ASSERT_LT(strings.size(), 256u);
  // Keys in order, each value the string after its key, as map {key: value, ...}.
  std::string json = "[{";
  std::string mp = "92 de 00 " + hex(std::string(1, static_cast<char>(strings.size())));
  for (std::size_t i = 0; i < strings.size(); ++i) {
    const std::string& key = strings[i];
    const std::string& value = strings[(i + 1) % strings.size()];
    json += (i ? ",\"" : "\"") + key + "\":\"" + value + "\"";
    mp += " " + str(key) + " " + str(value);
  }
  json += "}";
  for (std::size_t codes = 0; codes <= 40; ++codes) {
    SCOPED_TRACE(codes);
    std::string json_codes = json + ",[";
    std::string mp_codes = mp + " dc 00 " + hex(std::string(1, static_cast<char>(codes)));
    for (std::size_t c = 0; c < codes; ++c) {
      const std::string code = std::string(transit::detail::cache_code(c));
      json_codes += (c ? ",\"" : "\"") + code + "\"";
      mp_codes += " " + str(code);
    }
    json_codes += "]]";
    std::optional<Value> from_json, from_mp;
    std::string json_error = "none", mp_error = "none";
    try {
      from_json = transit::read(json_codes, Encoding::json);
    } catch (const Error& e) {
      json_error = transit::code_name(e.code());
    }
    try {
      from_mp = read_mp(mp_codes);
    } catch (const Error& e) {
      mp_error = transit::code_name(e.code());
    }
    EXPECT_EQ(mp_error, json_error);
    EXPECT_EQ(from_mp, from_json);
  }
}

// A map whose count is announced is built in its node: keys and values are decoded into its
// entries and duplicates removed there, a later value replacing the earlier one in the first
// key's place, as Value::map does. Checked with few entries (compared one by one) and many
// (through a hash table), long keys and values (nodes that must be released once replaced),
// in an arena (a plain read) and on the heap (a read handler is set), and with the index a
// map of more than 8 entries keeps after them (placed after the entries kept, not announced).
TEST(MsgpackRead, AnnouncedMapsKeepTheLastValueOfADuplicateKeyInItsFirstPlace) {
  const std::string long_value(40, 'v');
  // {"a": 1, "b": "vvv...", "a": "vvv...", "b": 2}
  const std::string small = "84 " + str("a") + " 01 " + str("b") + " " + str(long_value) + " " +
                            str("a") + " " + str(long_value) + " " + str("b") + " 02";
  // 24 entries: keys k00..k11 (long enough for a node each: 20 bytes) twice, the second time
  // with the value i + 100.
  std::string many = "de 00 18";
  std::vector<transit::Entry> expected;
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 12; ++i) {
      const std::string key = "key-long-enough-" + std::to_string(1000 + i);
      many += " " + str(key) + " " + hex(std::string(1, static_cast<char>(round * 100 + i)));
      if (round == 1) expected.emplace_back(Value(key), Value(100 + i));
    }
  transit::ReadHandlers handlers;
  handlers.add("point", [](const Value& rep) { return rep; });
  ReadOptions on_heap;
  on_heap.handlers = &handlers;
  for (const ReadOptions& options : {ReadOptions{}, on_heap}) {
    const Value v = read_mp(small, options);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v.entries()[0].first, Value("a"));
    EXPECT_EQ(v.entries()[0].second, Value(long_value));
    EXPECT_EQ(v.entries()[1].first, Value("b"));
    EXPECT_EQ(v.entries()[1].second, Value(2));
    const Value m = read_mp(many, options);
    ASSERT_EQ(m.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(m.entries()[i].first, expected[i].first) << i;
      EXPECT_EQ(m.entries()[i].second, expected[i].second) << i;
      const Value* found = m.find(expected[i].first);
      ASSERT_NE(found, nullptr) << i;
      EXPECT_EQ(*found, expected[i].second) << i;
    }
    EXPECT_EQ(m.find(Value("key-long-enough-999")), nullptr);
    EXPECT_EQ(m, Value::map(expected));
  }
}

TEST(MsgpackRead, BinIsBytes) {
  EXPECT_EQ(read_mp("91 c4 03 01 02 03"), Value::array({Value::bytes(std::string_view("\x01\x02\x03", 3))}));
}

TEST(MsgpackRead, JsonStyleFormsToo) {
  // A map as a "^ " array, a tagged value as a one-entry map, scalars as ~ strings.
  EXPECT_EQ(read_mp("93 " + str("^ ") + " " + str("a") + " 01"), Value::map({{"a", 1}}));
  EXPECT_EQ(read_mp("81 " + str("~#set") + " 91 01"), Value::set({1}));
  EXPECT_EQ(read_mp("92 " + str("~i12") + " " + str("~m5")), Value::array({12, Value::instant(5)}));
  EXPECT_EQ(read_mp(quoted(str("~u00000000-0000-0001-0000-000000000002"))), Value::uuid({1, 2}));
  EXPECT_EQ(read_mp(quoted("92 " + str("~#u") + " " + str("00000000-0000-0001-0000-000000000002"))),
            Value::uuid({1, 2}));
  EXPECT_EQ(read_mp(quoted("92 " + str("~#t") + " " + str("1970-01-01T00:00:00.005Z"))),
            Value::instant(5));
  EXPECT_EQ(read_mp("92 " + str("~#cmap") + " 81 01 02"), Value::map({{1, 2}}));
  // A map key cached by the writer comes back from its code.
  EXPECT_EQ(read_mp("92 81 " + str("abcd") + " 01 81 " + str("^0") + " 02"),
            Value::array({Value::map({{"abcd", 1}}), Value::map({{"abcd", 2}})}));
}

TEST(MsgpackRead, ManyValuesFromMemoryAndTheirOffsets) {
  const std::string input = bytes("91 01 81 " + str("a") + " 02 " + quoted("c3"));
  transit::Reader reader(input, Encoding::msgpack);
  EXPECT_EQ(reader.next(), Value::array({1}));
  EXPECT_EQ(reader.offset(), 2u);
  EXPECT_EQ(reader.next(), Value::map({{"a", 2}}));
  EXPECT_EQ(reader.offset(), 6u);
  EXPECT_EQ(reader.next(), Value(true));
  EXPECT_EQ(reader.next(), std::nullopt);
  EXPECT_EQ(transit::read_all(input, Encoding::msgpack).size(), 3u);
}


TEST(MsgpackRead, FromASourceInPiecesOfAnySize) {
  std::vector<Value> values;
  std::string stream;
  for (int i = 0; i < 20; ++i) {
    std::vector<Value> items;
    for (int j = 0; j < i * 7; ++j) items.push_back(Value::map({{Value::keyword("key" + std::to_string(j % 5)), j}}));
    values.push_back(Value::array(items));
    stream += transit::write(values.back(), Encoding::msgpack);
  }
  for (const std::size_t step : {1, 2, 3, 7, 64, 100000}) {
    for (const std::size_t chunk : {16, 4096}) {
      SCOPED_TRACE("step " + std::to_string(step) + ", chunk " + std::to_string(chunk));
      transit::test::StepSource source(stream, step);
      ReadOptions options;
      options.chunk_size = chunk;
      transit::Reader reader(source, Encoding::msgpack, options);
      for (const Value& expected : values) EXPECT_EQ(reader.next(), expected);
      EXPECT_EQ(reader.next(), std::nullopt);
      EXPECT_EQ(reader.offset(), stream.size());
    }
  }
}

// ---- errors -------------------------------------------------------------------------------------

// Reading the MessagePack `hex` from memory fails with `code`; returns the error's message
// (empty when the read succeeded, a failure already reported) for further checks.
std::string read_refused(const char* hex, Errc code) {
  SCOPED_TRACE(hex);
  try {
    (void)transit::read(bytes(hex), Encoding::msgpack);
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  return {};
}

// Reading `hex_bytes` throws exactly `message`, with `code` at `offset`, from memory and from a
// Source alike.
void expect_read_error(const std::string& hex_bytes, Errc code, std::size_t offset,
                       const std::string& message, ReadOptions options = {}) {
  SCOPED_TRACE(hex_bytes.substr(0, 80));
  const std::string input = bytes(hex_bytes);
  try {
    (void)transit::read(input, Encoding::msgpack, options);
    ADD_FAILURE() << "no transit::Error from memory; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
  // A stream has no "exactly one value", and an empty one is no values rather than an error.
  if (code == Errc::trailing_data || input.empty()) return;
  transit::test::StepSource source(input, 3);
  transit::Reader reader(source, Encoding::msgpack, options);
  try {
    while (reader.next()) {
    }
    ADD_FAILURE() << "no transit::Error from a Source; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_EQ(e.offset(), offset) << e.what();
    // In memory a claim beyond the input is caught before its items are read.
    if (code != Errc::truncated) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
  // The error sticks.
  EXPECT_THROW(reader.next(), Error);
}

TEST(MsgpackErrors, Truncated) {
  expect_read_error("92 01", Errc::truncated, 2,
                    "transit: truncated at byte 2 in $[1]: input ends inside a value");
  expect_read_error("91 a3 61", Errc::truncated, 3,
                    "transit: truncated at byte 3 in $[0]: input ends inside a value");
  expect_read_error("91 cb 40", Errc::truncated, 3,
                    "transit: truncated at byte 3 in $[0]: input ends inside a value");
  expect_read_error("81 " + str("a"), Errc::truncated, 3,
                    "transit: truncated at byte 3 in $[\"a\"]: input ends inside a value");
  expect_read_error("", Errc::truncated, 0, "transit: truncated at byte 0: no value in the input");
}

TEST(MsgpackErrors, HugeLengthPrefixesAreCleanTruncationsWithoutAllocating) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"dd ff ff ff ff", "array of 4294967295 items cannot fit in the 5 bytes of input"},
      {"df ff ff ff ff", "map of 4294967295 entries cannot fit in the 5 bytes of input"},
      {"dc ff ff 01", "array of 65535 items cannot fit in the 4 bytes of input"},
      {"91 dd ff ff ff ff", "array of 4294967295 items cannot fit in the 6 bytes of input"},
      {"db ff ff ff ff", "input ends inside a value"},
      {"c6 ff ff ff ff", "input ends inside a value"},
      {"c9 ff ff ff ff 01", "input ends inside a value"},
  };
  for (const auto& [input, detail] : cases) {
    g_largest_allocation = 0;
    g_track_allocations = true;
    const auto start = std::chrono::steady_clock::now();
    std::string message;
    std::size_t offset = 0;
    try {
      (void)read_mp(input);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::truncated) << e.what();
      message = e.detail();
      offset = e.offset();
    }
    // And from a Source that delivers the same bytes and then ends.
    transit::test::StepSource source(bytes(input), 2);
    EXPECT_THROW(transit::Reader(source, Encoding::msgpack).next(), Error);
    g_track_allocations = false;
    const auto elapsed = std::chrono::steady_clock::now() - start;
    SCOPED_TRACE(input);
    EXPECT_EQ(message, detail);
    EXPECT_EQ(offset, bytes(input).size());
    EXPECT_LT(g_largest_allocation.load(), std::size_t{1} << 20);
    EXPECT_LT(elapsed, std::chrono::seconds(1));
  }
}

// Empty arrays and maps (count 0) are delivered whole, with no frame (Decoder::empty_container),
// wherever nothing could make them other than empty; everywhere else they take the general path.
// Either way a MessagePack read equals the JSON read of the same items: as values, top-level,
// keys of a cmap and of a map, reps of tags, in "^ " map arrays, with user builders installed
// (which must still see every empty container), and failing the same at the depth limit and as
// a tag's second rep.
TEST(MsgpackRead, EmptyContainersReadAsTheJsonReadOfTheSameItems) {
  transit::ReadHandlers builders;
  builders.set_array_builder([](std::span<Value> items) {
    return Value::array({Value("built"), Value(static_cast<std::int64_t>(items.size()))});
  });
  builders.set_map_builder([](std::span<Value> kv) {
    return Value::array({Value("map"), Value(static_cast<std::int64_t>(kv.size()))});
  });
  ReadOptions plain;
  ReadOptions built;
  built.handlers = &builders;
  ReadOptions shallow;
  shallow.max_depth = 2;
  struct Case {
    std::string_view json;
    Value expected;  // read with no options
  };
  const Value empty_array = Value::array({});
  const Value empty_map = Value::map({});
  const std::vector<Case> cases = {
      {"[]", empty_array},
      {"{}", empty_map},
      {"[[]]", Value::array({empty_array})},
      {"[[], {}, [[], {}], 1]", Value::array({empty_array, empty_map, Value::array({empty_array, empty_map}), 1})},
      {"{\"a\": [], \"b\": {}}", Value::map({{"a", empty_array}, {"b", empty_map}})},
      {"[\"^ \", \"a\", [], \"b\", {}]", Value::map({{"a", empty_array}, {"b", empty_map}})},
      {"[\"^ \"]", empty_map},
      {"[\"~#cmap\", [[], 1, {}, 2]]", Value::map({{empty_array, 1}, {empty_map, 2}})},
      {"[\"~#cmap\", []]", empty_map},
      {"[\"~#set\", []]", Value::set({})},
      {"[\"~#list\", [[], {}]]", Value::list({empty_array, empty_map})},
      {"[\"~#'\", []]", empty_array},
      {"[\"~#point\", []]", Value::tagged("point", empty_array)},
      {"{\"~#point\": {}}", Value::tagged("point", empty_map)},
      {"[[[]], [{}]]", Value::array({Value::array({empty_array}), Value::array({empty_map})})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    const std::string wire = transit::test::msgpack_items_of(c.json);
    for (const ReadOptions* options : {&plain, &built, &shallow}) {
      SCOPED_TRACE(options == &plain ? "plain" : options == &built ? "builders" : "max_depth 2");
      std::optional<Value> from_json;
      std::optional<Errc> json_error;
      try {
        from_json = transit::read(std::string(c.json), Encoding::json, *options);
      } catch (const Error& e) {
        json_error = e.code();
      }
      if (from_json) {
        EXPECT_EQ(transit::read(wire, Encoding::msgpack, *options), *from_json);
      } else {
        try {
          transit::read(wire, Encoding::msgpack, *options);
          ADD_FAILURE() << "the JSON read failed, the MessagePack read did not";
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), *json_error);
        }
      }
    }
    EXPECT_EQ(transit::read(wire, Encoding::msgpack), c.expected);
  }
  // The builders see every empty container but a tag's rep.
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of("[[], {}]"), Encoding::msgpack, built),
            Value::array({"built", 2}));
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of("[{}]"), Encoding::msgpack, built),
            Value::array({"built", 1}));
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of("{}"), Encoding::msgpack, built),
            Value::array({"map", 0}));
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of("[\"~#set\", []]"), Encoding::msgpack, built), Value::set({}));
  // Too deep: an empty container one level below the limit is refused, at its own byte.
  expect_read_error("91 91 90", Errc::too_deep, 2,
                    "transit: too_deep at byte 2 in $[0][0]: nesting deeper than 2 levels", shallow);
  expect_read_error("91 91 80", Errc::too_deep, 2,
                    "transit: too_deep at byte 2 in $[0][0]: nesting deeper than 2 levels", shallow);
  // A second rep, empty, is refused where it starts, as a non-empty one is.
  for (const std::string_view second : {"[]", "{}", "[1]"}) {
    SCOPED_TRACE(second);
    try {
      transit::read(transit::test::msgpack_items_of("[\"~#point\", 1, " + std::string(second) + "]"), Encoding::msgpack);
      ADD_FAILURE() << "a second rep was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_tagged_value);
      EXPECT_NE(std::string(e.what()).find("has more than one rep"), std::string::npos) << e.what();
    }
  }
}

// The MessagePack read of `json`'s items (msgpack_items_of) against the JSON read of `json`
// under `options`: the same value, or the same error bar its byte offset (JSON counts bytes of
// its own text). `same_path`: the error's path too; where it is false, the same message after
// the path (a count past max_collection_length is refused at its MessagePack header, where
// JSON reads up to the item past the limit: the same error, at another path).
void expect_msgpack_reads_as_json(std::string_view json, const ReadOptions& options,
                                  bool same_path = true) {
  std::optional<Value> from_json, from_mp;
  std::string json_error = "none", mp_error = "none";
  try {
    from_json = transit::read(std::string(json), Encoding::json, options);
  } catch (const Error& e) {
    json_error = e.what();
  }
  try {
    from_mp = transit::read(transit::test::msgpack_items_of(json), Encoding::msgpack, options);
  } catch (const Error& e) {
    mp_error = e.what();
  }
  EXPECT_EQ(mp_error.substr(0, mp_error.find(" at byte")),
            json_error.substr(0, json_error.find(" at byte")));
  if (same_path)
    EXPECT_EQ(mp_error.substr(std::min(mp_error.size(), mp_error.find(" in $"))),
              json_error.substr(std::min(json_error.size(), json_error.find(" in $"))));
  else
    EXPECT_EQ(mp_error.substr(mp_error.find(": ", mp_error.find(" in $")) + 2),
              json_error.substr(json_error.find(": ", json_error.find(" in $")) + 2));
  EXPECT_EQ(from_mp, from_json);
}

// The reads the decoder's MessagePack paths are compared under: no handlers (an arena), a
// read handler for "point" (values on the heap), a map builder, and max_depth 2.
struct ComparedReads {
  ComparedReads() {
    handlers.add("point", [](const Value& rep) { return Value::array({Value("point"), rep}); });
    builders.set_map_builder([](std::span<Value> kv) {
      return Value::array({Value("map"), Value(static_cast<std::int64_t>(kv.size()))});
    });
    with_handler.handlers = &handlers;
    built.handlers = &builders;
    shallow.max_depth = 2;
  }
  ComparedReads(const ComparedReads&) = delete;  // the options point at the handlers
  ComparedReads& operator=(const ComparedReads&) = delete;
  const char* name(const ReadOptions* options) const {
    return options == &plain           ? "plain"
           : options == &with_handler ? "read handler"
           : options == &built        ? "builders"
           : options == &shallow      ? "max_depth 2"
                                      : "other";
  }
  /// `json`'s MessagePack items read under each set of options above and under `narrow` (a
  /// max_collection_length, named `narrow_name`) give the JSON read's value or error; under
  /// `narrow` only when the JSON text reads with no error at all: past max_collection_length
  /// MessagePack refuses a count at its header, before the items JSON reads first.
  void expect_each_reads_as_json(std::string_view json, const ReadOptions& narrow,
                                 const char* narrow_name) const {
    bool reads = true;
    try {
      transit::read(std::string(json), Encoding::json);
    } catch (const Error&) {
      reads = false;
    }
    for (const ReadOptions* options : {&plain, &with_handler, &built, &shallow, &narrow}) {
      if (options == &narrow && !reads) continue;
      SCOPED_TRACE(options == &narrow ? narrow_name : name(options));
      expect_msgpack_reads_as_json(json, *options, options != &narrow);
    }
  }
  transit::ReadHandlers handlers;
  transit::ReadHandlers builders;
  ReadOptions plain;
  ReadOptions with_handler;
  ReadOptions built;
  ReadOptions shallow;
};

// A MessagePack map's node is reserved as the map begins (Decoder::sized_map_begin), and a
// cache code naming a plain value is placed by Decoder::cached_code: a tag as a map's first key
// (map-form tagged values, as a string or as a cache code) must still make the map a tagged
// value, a tag anywhere else must still be refused, and cache codes as first and later items,
// as a tag's rep, in "^ " map arrays and naming long (node) values must read as the JSON read
// of the same items does, with an arena (no handlers), with a read handler (on the heap), with
// builders and at the depth limit.
TEST(MsgpackRead, MapsBuiltFromTheirFirstKeyReadAsTheJsonReadOfTheSameItems) {
  const ComparedReads reads_under;
  const ReadOptions &plain = reads_under.plain, &with_handler = reads_under.with_handler,
                    &built = reads_under.built, &shallow = reads_under.shallow;
  const std::vector<std::string_view> cases = {
      R"({"~#point": [1, 2]})",
      R"({"~#point": {"abcd": 1, "efgh": 2}})",
      R"([{"~#point": 1}, {"^0": 2}, ["^0", 3]])",
      R"([{"abcd": 1}, {"~#point": "^0"}, {"^1": {"^0": "^0"}}])",
      R"({"abcd": 1, "~#point": 2})",
      R"([{"abcd": 1}, {"efgh": 2, "^0": 3}])",
      R"({"~#point": 1, "abcd": 2})",
      R"({"~#point": 1, "~#point": 2})",
      R"([{"~#point": 1}, {"abcd": 2, "^0": 3}])",
      R"([{"~#point": 1}, {"^0": 1, "abcd": 2}])",
      R"([{"abcd": 1, "efgh": 2}, {"^0": 3, "^1": 4}, {"^1": 5, "^0": 6}, ["^0", "^1"]])",
      R"([{"abcd": 1}, {"^0": {"^0": {"^0": "^0"}}}])",
      R"([{"abcd": 1}, ["~#'", "^0"], ["~#point", "^0"], ["~#set", ["^0"]], {"~#list": ["^0"]}])",
      R"([{"a-key-longer-than-inline-text": 1}, {"^0": "^0"}, ["^0"], ["~#'", "^0"]])",
      R"([{"abcd": 1}, ["^ ", "^0", "^0"], {"^0": ["^ ", "^0", 2]}])",
      R"([{"abcd": 1, "abcd": 2}, {"^0": 3, "^0": 4}])",
      R"([{"abcd": 1}, {"^0": 1, "^1": 2}])",
      R"([{"abcd": 1}, {"^1": 1}])",
      R"([{"~:kw": 1}, {"^0": "^0"}, ["~#cmap", ["^0", 2]]])",
      R"({"abcd": {"efgh": {"ijkl": 1}}})",
  };
  for (const std::string_view json : cases) {
    SCOPED_TRACE(json);
    for (const ReadOptions* options : {&plain, &with_handler, &built, &shallow}) {
      SCOPED_TRACE(reads_under.name(options));
      expect_msgpack_reads_as_json(json, *options);
    }
  }
  // The tagged values above are tagged values, not maps.
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(R"([{"~#point": 1}, {"^0": 2}])"),
                          Encoding::msgpack),
            Value::array({Value::tagged("point", 1), Value::tagged("point", 2)}));
}

// A container finished while its parent is being filled in its node goes straight into the
// parent's next slot (Decoder::next_slot_of_parent): at every place in a parent, beside the
// containers that still go by the stack or place() (map arrays, tagged values, builders,
// duplicate keys, errors), the MessagePack read gives the JSON read's value or error.
TEST(MsgpackRead, ContainersFinishedIntoTheirParentsSlotsReadAsTheJsonRead) {
  transit::ReadHandlers builders;
  builders.set_array_builder([](std::span<Value> items) {
    return Value::array({Value("array"), Value(static_cast<std::int64_t>(items.size()))});
  });
  ReadOptions plain;
  ReadOptions built;
  built.handlers = &builders;
  ReadOptions shallow;
  shallow.max_depth = 3;
  ReadOptions narrow;
  narrow.max_collection_length = 2;
  const std::vector<std::string_view> cases = {
      R"([[1, 2], [3, [4, 5]], [], [[6]]])",
      R"([{"abcd": [1, 2]}, {"^0": {"efgh": 3}}, [{"^1": 4}], {}])",
      R"({"abcd": [1, {"efgh": [2, 3]}], "ijkl": {"mnop": []}})",
      R"({"abcd": {"x": 1, "x": 2}, "efgh": [{"y": 1, "y": [3]}]})",
      R"([["^ ", "abcd", [1]], [["^ ", "^0", 2]], ["~#point", [3, 4]], [["~#'", [5]]]])",
      R"([{"~#point": [1, 2]}, [{"~#point": {"abcd": [3]}}], ["~#set", [[1], [2]]]])",
      R"([["~#list", [[1, 2]]], ["~#cmap", [[1], {"abcd": 2}]], [[], {}]])",
      R"([[1, 2, 3], {"abcd": [1, 2, 3]}])",
      R"([[[[1]]], {"abcd": {"efgh": {"ijkl": 1}}}])",
      R"({"abcd": 1, "abcd": [2], "efgh": {"abcd": 3}})",
      R"([{"~#point": 1, "abcd": {"efgh": 2}}, {"~#point": [1], "^0": [{"ijkl": 3}]}])",
  };
  // Maps nested past the frames' first growth and past the depth limit (max_depth 3).
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += i % 2 == 0 ? R"({"abcd": )" : R"([{"efgh": 1}, )";
  deep += "1";
  for (int i = 39; i >= 0; --i) deep += i % 2 == 0 ? "}" : "]";
  std::vector<std::string_view> all = cases;
  all.push_back(deep);
  for (const std::string_view json : all) {
    SCOPED_TRACE(json);
    for (const ReadOptions* options : {&plain, &built, &shallow, &narrow}) {
      SCOPED_TRACE(options == &plain     ? "plain"
                   : options == &built   ? "builders"
                   : options == &shallow ? "max_depth 3"
                                         : "max_collection_length 2");
      expect_msgpack_reads_as_json(json, *options, options != &narrow);
    }
  }
  // Built by hand: the nested containers hold what was read, and outlive the read's arena.
  const Value inner = Value::map({{Value("efgh"), Value::array({Value(2), Value(3)})}});
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(
                              R"({"abcd": [1, {"efgh": [2, 3]}], "ijkl": {"mnop": []}})"),
                          Encoding::msgpack),
            Value::map({{Value("abcd"), Value::array({Value(1), inner})},
                        {Value("ijkl"), Value::map({{Value("mnop"), Value::array({})}})}}));
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(R"([{"x": 1, "x": [2]}, [[3]]])"),
                          Encoding::msgpack),
            Value::array({Value::map({{Value("x"), Value::array({Value(2)})}}),
                          Value::array({Value::array({Value(3)})})}));
  // Map arrays finished into an array's slots, from JSON (whose arrays are counted too).
  EXPECT_EQ(transit::read(R"([["^ ", "x", 1], ["^ ", "y", 1, "y", [2]], ["^ "]])", Encoding::json),
            Value::array({Value::map({{Value("x"), Value(1)}}),
                          Value::map({{Value("y"), Value::array({Value(2)})}}), Value::map({})}));
  EXPECT_THROW(transit::read(R"([["^ ", "x"]])", Encoding::json), Error);
}

// Round six's paths: a cache code is placed inline in msgpack-cxx's flattened loop
// (Visitor::visit_str), every other string out of line (visit_text), and a map ends by
// Decoder::sized_map_end, which finishes a plain map into its parent's next slot before
// map_end_frame's other paths. Codes of one and two digits, bad and unassigned codes, "^ "
// anywhere, codes as keys, values, tags and reps, strings at and past max_string_length,
// invalid UTF-8 after codes, and maps ending into every kind of parent (array, map, map
// array, tagged value, the result, a builder's stack) must read as the JSON read of the same
// items does, plain, with a read handler, with builders and at the limits.
TEST(MsgpackRead, CacheCodesInTheLoopAndMapEndsReadAsTheJsonRead) {
  const ComparedReads reads_under;
  ReadOptions narrow;
  narrow.max_collection_length = 1;
  // 50 keys cached: codes ^0 to ^15 (two digits from the 45th on, base 44 from '0').
  std::string many = "[";
  for (int i = 0; i < 50; ++i) many += "{\"key" + std::to_string(1000 + i) + "\": " + std::to_string(i) + "}, ";
  const std::string many_codes = many + R"({"^0": "^10", "^11": {"^15": ["^0", "^11"]}}, ["^15", "^ "]])";
  const std::string unassigned = many + R"({"^16": 1}])";
  const std::string too_high = many + R"(["^z0"]])";
  const std::vector<std::string> cases = {
      many_codes,
      unassigned,
      too_high,
      R"([{"abcd": 1}, "^0", ["^0"], {"^0": "^0"}])",
      R"([{"abcd": 1}, "^", "^~", "^00", "^0a"])",
      // ReadCache::find trusts its callers' test of the length (2 or 3): longer texts that
      // start like a code, and codes whose later digit is bad, as keys and values.
      R"([{"abcd": 1}, "^000", {"^000": "^0^0"}, {"^0": "^0000"}, ["^ ", "^00^", "^0"]])",
      R"([{"abcd": 1}, "^0 "])",
      R"([{"abcd": 1}, {"^0": "^/0"}])",
      R"([{"abcd": 1}, "^1"])",
      R"(["^0"])",
      R"([{"abcd": 1}, ["^ ", "^0", {"^0": 2}], {"^0": ["^ ", "^0", {"^0": 3}]}])",
      R"([{"~#point": 1}, {"^0": {"abcd": 2}}, ["^0", {"efgh": 3}], ["~#set", [{"^1": 4}]]])",
      R"([{"~:kw": "~:kw"}, "^0", {"^0": "^0"}, ["~#list", ["^0", {"^0": 1}]]])",
      R"([{"abcd": 1}, "ab", "^0", "abc", "é", "~bAAEC", "~b"])",
      R"([{"abcd": 1}, "^0", "ééééééééé", {"ééééééééé": "^0"}, "^1"])",
      R"({"abcd": {"efgh": 1}, "ijkl": {"mnop": {"qrst": 2}}})",
      R"([{"abcd": 1, "abcd": 2}, {"^0": {"x": 1, "x": 2}}])",
      R"({"abcd": 1})",
      R"([{}, {"a": {}}, [{}], {"~#point": {}}])",
  };
  for (const std::string& json : cases) {
    SCOPED_TRACE(json);
    reads_under.expect_each_reads_as_json(json, narrow, "max_collection_length 1");
    // A string past max_string_length, a cache code too: refused where JSON refuses it (the
    // messages name MessagePack's "str" and JSON's "string").
    for (const std::size_t limit : {1, 2}) {
      SCOPED_TRACE("max_string_length " + std::to_string(limit));
      ReadOptions short_strings;
      short_strings.max_string_length = limit;
      std::optional<Value> from_json, from_mp;
      std::string json_error = "none", mp_error = "none";
      try {
        from_json = transit::read(json, Encoding::json, short_strings);
      } catch (const Error& e) {
        json_error = std::string(transit::code_name(e.code())) + e.path();
      }
      try {
        from_mp = transit::read(transit::test::msgpack_items_of(json), Encoding::msgpack, short_strings);
      } catch (const Error& e) {
        mp_error = std::string(transit::code_name(e.code())) + e.path();
      }
      EXPECT_EQ(mp_error, json_error);
      EXPECT_EQ(from_mp, from_json);
    }
  }
  // Built by hand: a two-digit code names the 45th string cached, as a key and as a value.
  const Value read = transit::read(transit::test::msgpack_items_of(many_codes), Encoding::msgpack);
  const Value& last = read.items()[50];
  EXPECT_EQ(last, Value::map({{Value("key1000"), Value("key1044")},
                              {Value("key1045"), Value::map({{Value("key1049"),
                                                              Value::array({Value("key1000"),
                                                                            Value("key1045")})}})}}));
}

// A map of two entries whose keys are both inline and not doubles has its keys compared
// by their bits (finish_map_in_arena, with no call of same_key): equal keys keep one entry
// with the last value, keys of different kinds or bytes stay apart, and doubles (0.0 and
// -0.0 are equal keys) and long keys (in nodes) still go by same_key. Read from MessagePack
// and from JSON, both built in their map's node.
TEST(MsgpackRead, TwoKeyMapsCheckTheirKeysAsEveryMapDoes) {
  const std::string long_key = "a-key-longer-than-inline-text";
  const Value longer(long_key);
  const std::vector<std::pair<std::string, Value>> cases = {
      {R"({"abcd": 1, "abcd": 2})", Value::map({{Value("abcd"), Value(2)}})},
      {R"({"~:abcd": 1, "abcd": 2})",
       Value::map({{Value::keyword("abcd"), Value(1)}, {Value("abcd"), Value(2)}})},
      {R"({"~:abcd": 1, "~$abcd": 2})",
       Value::map({{Value::keyword("abcd"), Value(1)}, {Value::symbol("abcd"), Value(2)}})},
      {R"({"abcd": 1, "abce": 2})", Value::map({{Value("abcd"), Value(1)}, {Value("abce"), Value(2)}})},
      {R"(["^ ", 1, "a", "~d1.0", "b"])", Value::map({{Value(1), Value("a")}, {Value(1.0), Value("b")}})},
      {R"(["^ ", "~d0.0", "a", "~d-0.0", "b"])", Value::map({{Value(0.0), Value("b")}})},
      {R"(["^ ", "~_", 1, "~?f", 2])", Value::map({{Value(), Value(1)}, {Value(false), Value(2)}})},
      {R"(["^ ", 1, "a", 1, "b"])", Value::map({{Value(1), Value("b")}})},
      {"{\"" + long_key + "\": 1, \"" + long_key + "\": 2}", Value::map({{longer, Value(2)}})},
      {"{\"" + long_key + "\": 1, \"^0\": 2}", Value::map({{longer, Value(2)}})},
      {"{\"" + long_key + "\": 1, \"abcd\": 2}", Value::map({{longer, Value(1)}, {Value("abcd"), Value(2)}})},
  };
  for (const auto& [json, expected] : cases) {
    SCOPED_TRACE(json);
    EXPECT_EQ(transit::read(json, Encoding::json), expected);
    EXPECT_EQ(transit::read(transit::test::msgpack_items_of(json), Encoding::msgpack), expected);
    EXPECT_EQ(transit::read(json, Encoding::json).size(), expected.size());
    EXPECT_EQ(transit::read(transit::test::msgpack_items_of(json), Encoding::msgpack).size(),
              expected.size());
  }
}

// An error inside a map built in its node names the key it is under, as on the stack.
TEST(MsgpackErrors, PathsThroughAnnouncedMaps) {
  expect_read_error("82 " + str("a") + " 01 " + str("b") + " 92 01", Errc::truncated, 8,
                    "transit: truncated at byte 8 in $[\"b\"][1]: input ends inside a value");
  expect_read_error("82 " + str("a") + " 01 " + str("b") + " 91 a1 ff", Errc::invalid_utf8, 7,
                    "transit: invalid_utf8 at byte 7 in $[\"b\"][0]: string is not valid UTF-8");
}

TEST(MsgpackErrors, Syntax) {
  expect_read_error("93 01 c1 02", Errc::syntax, 2,
                    "transit: syntax at byte 2 in $[1]: 0xc1 is not a MessagePack type");
}

TEST(MsgpackErrors, ExtTypesAreNotTransit) {
  expect_read_error("92 01 d4 05 00", Errc::bad_rep, 2,
                    "transit: bad_rep at byte 2 in $[1]: MessagePack ext type 5 is not part of Transit");
  expect_read_error("91 c7 01 ff 00", Errc::bad_rep, 1,
                    "transit: bad_rep at byte 1 in $[0]: MessagePack ext type -1 is not part of Transit");
}

TEST(MsgpackErrors, InvalidUtf8) {
  expect_read_error("92 01 a2 c3 28", Errc::invalid_utf8, 2,
                    "transit: invalid_utf8 at byte 2 in $[1]: string is not valid UTF-8");
  // A surrogate's three bytes (CESU-8, as Java's modified UTF-8 writes each half of a pair)
  // are named, after valid text and inside a string too long for the ASCII tests.
  expect_read_error("92 01 a4 61 ed b0 80", Errc::invalid_utf8, 2,
                    "transit: invalid_utf8 at byte 2 in $[1]: string is not valid UTF-8: it holds "
                    "U+DC00, a UTF-16 surrogate, which UTF-8 does not encode (the bytes ED B0 80)");
  expect_read_error("91 " + str(std::string(70, 'a') + "\xed\xa0\x80\xed\xb0\x80"),
                    Errc::invalid_utf8, 1,
                    "transit: invalid_utf8 at byte 1 in $[0]: string is not valid UTF-8: it holds "
                    "U+D800, a UTF-16 surrogate, which UTF-8 does not encode (the bytes ED A0 80)");
}

// Text of up to 64 bytes is found to be ASCII by overlapping word loads (is_short_ascii and
// is_ascii_17_to_64, codec.h): a byte of 0x80 or above anywhere in it, at every length
// either side of the load patterns' edges, still sends the text to the UTF-8 check.
TEST(MsgpackErrors, InvalidUtf8AtEveryPlaceOfShortText) {
  for (std::size_t n = 1; n <= 70; ++n) {
    for (std::size_t at = 0; at < n; ++at) {
      std::string text(n, 'a');
      text[at] = '\xff';
      SCOPED_TRACE("length " + std::to_string(n) + ", byte " + std::to_string(at));
      expect_read_error("92 01 " + str(text), Errc::invalid_utf8, 2,
                        "transit: invalid_utf8 at byte 2 in $[1]: string is not valid UTF-8");
      // A valid two-byte character there is read as it is.
      std::string valid(n + 1, 'a');
      valid[at] = '\xc3';
      valid[at + 1] = '\xa9';
      EXPECT_EQ(read_mp("92 01 " + str(valid)), Value::array({Value(1), Value(valid)}));
    }
  }
}

TEST(MsgpackErrors, BadCacheCode) {
  expect_read_error("92 " + str("a") + " " + str("^5"), Errc::bad_cache_code, 3,
                    "transit: bad_cache_code at byte 3 in $[1]: cache code \"^5\" (slot 5) is not "
                    "assigned: the cache holds 0 entries");
}

TEST(MsgpackErrors, TooDeep) {
  ReadOptions options;
  options.max_depth = 3;
  expect_read_error("91 91 91 91 01", Errc::too_deep, 3,
                    "transit: too_deep at byte 3 in $[0][0][0]: nesting deeper than 3 levels", options);
}

TEST(MsgpackErrors, BadTaggedValuesArePlacedAtTheirEnd) {
  // The tag has no rep: the array ends after its last item, byte 6.
  expect_read_error("91 92 01 91 " + str("~#t"), Errc::bad_tagged_value, 8,
                    "transit: bad_tagged_value at byte 8 in $[0][1]<#t>: tagged value ~#t has no rep");
}

// In memory, a map's claim beyond the input (65,535 entries in 11 bytes) inside a value longer
// than max_value_bytes: the value's length is what is reported, at the first header past the
// limit, as from a Source. The claim, judged again while the bytes before that header were
// read to find its path, sent the read back to the length check without end (a stack
// overflow; found by comparing the two parse loops).
TEST(MsgpackErrors, AClaimBeyondTheInputInAValueOverTheLimitIsTheLimits) {
  ReadOptions options;
  options.max_value_bytes = 8;
  expect_read_error("92 a1 61 de ff ff 01 02 03 04 05", Errc::too_large, 8,
                    "transit: too_large at byte 8 in $[1]<key>: value is longer than 8 bytes",
                    options);
}

TEST(MsgpackErrors, TrailingData) {
  expect_read_error("91 01 02", Errc::trailing_data, 2,
                    "transit: trailing_data at byte 2: more input after the value");
}

// ---- every header form -----------------------------------------------------------------

// `v` in `width` big-endian bytes, as hex.
std::string be(std::uint64_t v, int width) {
  std::string out;
  for (int i = width - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
  return hex(out);
}

// Every header form the reader's parse loop takes, each at the edges of its length or value
// range, read inside an array (an item, not a top-level scalar) and compared with the value
// built by hand.
TEST(MsgpackRead, EveryHeaderFormAtEachLengthBoundary) {
  const std::vector<std::pair<std::string, Value>> scalars = {
      {"00", 0}, {"7f", 127}, {"e0", -32}, {"ff", -1},
      {"cc 00", 0}, {"cc ff", 255},
      {"cd 00 00", 0}, {"cd ff ff", 65535},
      {"ce 00 00 00 00", 0}, {"ce ff ff ff ff", std::int64_t{4294967295}},
      {"cf 00 00 00 00 00 00 00 00", 0}, {"cf 7f ff ff ff ff ff ff ff", INT64_MAX},
      {"cf 80 00 00 00 00 00 00 00", Value::big_integer("9223372036854775808")},
      {"cf ff ff ff ff ff ff ff ff", Value::big_integer("18446744073709551615")},
      {"d0 80", -128}, {"d0 7f", 127},
      {"d1 80 00", -32768}, {"d1 7f ff", 32767},
      {"d2 80 00 00 00", std::int64_t{INT32_MIN}}, {"d2 7f ff ff ff", std::int64_t{INT32_MAX}},
      {"d3 80 00 00 00 00 00 00 00", INT64_MIN}, {"d3 7f ff ff ff ff ff ff ff", INT64_MAX},
      {"d3 ff ff ff ff ff ff ff ff", -1},
      {"ca 3f 80 00 00", 1.0}, {"ca c0 20 00 00", -2.5},
      {"cb 3f f0 00 00 00 00 00 00", 1.0}, {"cb c0 04 00 00 00 00 00 00", -2.5},
      {"c0", Value()}, {"c2", false}, {"c3", true},
  };
  for (const auto& [item, expected] : scalars) {
    SCOPED_TRACE(item);
    const Value v = read_mp("91 " + item);
    ASSERT_EQ(v, Value::array({expected}));
    EXPECT_EQ(v[0].kind(), expected.kind());
  }

  // Strings and bins: each form at its shortest, at its longest (up to 65,536 bytes), and at
  // the lengths either side of the form below it.
  const auto text = [](std::size_t n) {
    std::string s(n, 'x');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    return s;
  };
  const std::vector<std::pair<std::string, std::vector<std::size_t>>> sized = {
      {"a", {0, 1, 31}}, {"d9", {0, 31, 32, 255}}, {"da", {0, 255, 256, 65535}},
      {"db", {0, 65535, 65536}}, {"c4", {0, 1, 255}}, {"c5", {0, 256, 65535}},
      {"c6", {0, 65536}}};
  for (const auto& [form, lengths] : sized) {
    for (const std::size_t n : lengths) {
      SCOPED_TRACE(form + " of " + std::to_string(n));
      const std::string s = text(n);
      std::string header;
      if (form == "a") header = hex(std::string(1, static_cast<char>(0xa0 | n)));
      else header = form + " " + be(n, form == "d9" || form == "c4" ? 1 : form == "da" || form == "c5" ? 2 : 4);
      const std::string input = "91 " + header + (n ? " " + hex(s) : "");
      const Value expected = form[0] == 'c' ? Value::bytes(s) : Value(s);
      EXPECT_EQ(read_mp(input), Value::array({expected}));
      // One byte short: truncated, after the last byte there is.
      if (n != 0)
        expect_read_error(input.substr(0, input.size() - 3), Errc::truncated, bytes(input).size() - 1,
                          "transit: truncated at byte " + std::to_string(bytes(input).size() - 1) +
                              " in $[0]: input ends inside a value");
    }
  }

  // Arrays and maps: fixarray/fixmap, 16 and 32, at their edges, nested in an array. Items
  // are integers (keys distinct), so each map has all its entries.
  const std::vector<std::pair<std::string, std::vector<std::size_t>>> counted = {
      {"9", {0, 1, 15}}, {"dc", {0, 15, 16, 65535}}, {"dd", {0, 65536}},
      {"8", {0, 1, 15}}, {"de", {0, 15, 16, 65535}}, {"df", {0, 65536}}};
  for (const auto& [form, counts] : counted) {
    for (const std::size_t n : counts) {
      SCOPED_TRACE(form + " of " + std::to_string(n));
      const bool map = form == "8" || form[1] == 'e' || form[1] == 'f';
      std::string input = "91 " + (form.size() == 1 ? form + "0123456789abcdef"[n]
                                                    : form + " " + be(n, form[1] == 'c' || form[1] == 'e' ? 2 : 4));
      std::vector<Value> items;
      std::vector<transit::Entry> entries;
      std::size_t before_last = 0;  // the input's hex before its last item
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t k = static_cast<std::int64_t>(i);
        input += " " + (i < 128 ? be(i, 1) : "cd " + be(i, 2));
        if (map) {
          before_last = input.size();
          input += " " + be(i % 100, 1);
          entries.emplace_back(k, static_cast<std::int64_t>(i % 100));
        } else {
          items.emplace_back(k);
        }
        if (!map && i + 2 == n) before_last = input.size();
      }
      if (!map && n == 1) before_last = input.size() - 3;
      const Value inner = map ? Value::map(std::move(entries)) : Value::array(std::move(items));
      EXPECT_EQ(read_mp(input), Value::array({inner}));
      // Its last item missing: truncated at the end, the path at that item.
      if (n != 0) {
        const std::string cut = input.substr(0, before_last);
        const std::size_t at = bytes(cut).size();
        try {
          (void)read_mp(cut);
          ADD_FAILURE() << "read";
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), Errc::truncated) << e.what();
          EXPECT_EQ(e.offset(), at) << e.what();
          EXPECT_EQ(e.detail(), "input ends inside a value");
          EXPECT_EQ(e.path(), "$[0][" + std::to_string(n - 1) + "]");
        }
      }
    }
  }
}

// Truncation inside every length field and fixed-size body: each cut reads as a truncation at
// the input's end, from memory and from a Source, whatever the form.
TEST(MsgpackErrors, TruncatedInsideEveryHeader) {
  // The form's type byte and the bytes after it that a whole item needs (a length field of
  // the largest values, and for ext, its type byte).
  const std::vector<std::string> forms = {
      "c4 01 00",       "c5 00 01 00",    "c6 00 00 00 01 00",
      "c7 01 05 00",    "c8 00 01 05 00", "c9 00 00 00 01 05 00",
      "ca 3f 80 00 00", "cb 3f f0 00 00 00 00 00 00",
      "cc ff",          "cd ff ff",       "ce ff ff ff ff",    "cf ff ff ff ff ff ff ff ff",
      "d0 80",          "d1 80 00",       "d2 80 00 00 00",    "d3 80 00 00 00 00 00 00 00",
      "d4 05 00",       "d5 05 00 00",    "d6 05 00 00 00 00", "d7 05 00 00 00 00 00 00 00 00",
      "d8 05 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
      "d9 01 61",       "da 00 01 61",    "db 00 00 00 01 61",
      "dc 00 01 01",    "dd 00 00 00 01 01",
      "de 00 01 01 01", "df 00 00 00 01 01 01",
      "a1 61",          "91 01",          "81 01 01"};
  for (const std::string& form : forms) {
    const std::size_t size = bytes(form).size();
    for (std::size_t k = 1; k < size; ++k) {
      const std::string input = "91 " + form.substr(0, 3 * k - 1);
      // Once a container's header is in, the path is inside it: at its first item (a map's
      // first key), then at the key's value.
      const bool array = form[0] == '9' || form.starts_with("dc") || form.starts_with("dd");
      const bool map = form[0] == '8' || form.starts_with("de") || form.starts_with("df");
      const std::size_t header = form[0] == '9' || form[0] == '8' ? 1 : form[1] == 'c' || form[1] == 'e' ? 3 : 5;
      std::string path = "$[0]";
      if (array && k >= header) path += "[0]";
      if (map && k == header) path += "<key>";
      if (map && k > header) path += "[1]";
      expect_read_error(input, Errc::truncated, k + 1,
                        "transit: truncated at byte " + std::to_string(k + 1) + " in " + path +
                            ": input ends inside a value");
    }
  }
}

// A map keyed by maps is one level per map in lenient MessagePack, but writers emit it as a
// cmap: a tag and its rep, two levels each. Reading back what was written needs twice the
// depth (plus one for a top-level quote), which the round-trip fuzzer allows for.
TEST(MsgpackRead, MapsKeyedByMapsNestDeeperOnceWrittenAsCmaps) {
  const std::string mp = "\x81\x81\x80\x01\x02";  // {{{} 1} 2}: three native maps deep
  transit::ReadOptions options;
  options.max_depth = 3;
  const Value v = transit::read(mp, Encoding::msgpack, options);
  EXPECT_EQ(v, Value::map({{Value::map({{Value::map({}), 1}}), 2}}));
  const std::string json = transit::write(v, Encoding::json);
  EXPECT_EQ(json, R"(["~#cmap",[["^0",[["^ "],1]],2]])");
  try {
    transit::read(json, Encoding::json, options);
    FAIL() << "five levels read within three";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::too_deep);
  }
  options.max_depth = 2 * 3 + 1;
  EXPECT_EQ(transit::read(json, Encoding::json, options), v);
}

}  // namespace

// A MessagePack array's node is reserved as it begins (Decoder::sized_array_begin), so that
// its first item goes straight into it; a tag or "^ " first (as a string or as a cache code)
// gives the node up, and an array at a depth where one began with a tag takes place() at its
// first item instead (Decoder::tag_first_). Tags and "^ " first, later (refused, or a plain
// string), after and before plain arrays at the same depth, with no rep or two, arrays of
// containers and of cache codes, empty arrays, and the limits: the MessagePack read gives the
// JSON read's value or error, plain, with a read handler, with builders, at max_depth 2 and
// at max_collection_length 2.
TEST(MsgpackRead, ArraysReservedAsTheyBeginReadAsTheJsonRead) {
  const ComparedReads reads_under;
  ReadOptions narrow;
  narrow.max_collection_length = 2;
  const std::vector<std::string_view> cases = {
      R"([[1, 2], [3, 4], [[5, 6], [7, 8]]])",
      R"([["~#point", [1, 2]], ["~#point", [3, 4]], [5, 6], ["~#point", 7]])",
      R"([[1, 2], ["~#point", [3, 4]], [5, 6], [7, 8], ["~#point", 9]])",
      R"([["^ ", "abcd", 1], ["abcd", 2], ["^ ", "^0", [3, 4]], [5, "^ "]])",
      R"([["~#point", 1], ["^0", 2], ["^0", [3]], [4, "^0"]])",
      R"([[1, "~#point"], [2]])",
      R"([["~#point"], [1]])",
      R"([["~#point", 1, 2]])",
      R"([["~#set", [[1], [2], ["~#point", [3]]]], ["~#list", [["~#point", 4], [5]]]])",
      R"([["~#cmap", [[1, 2], "a", [3], "b"]], [[1, 2], [3]]])",
      R"([{"abcd": [1, 2]}, ["^0", [3, [4, ["^0"]]]], [[], [[]], {}]])",
      R"([["~#'", [1, 2]], [["~#'", 3], [4, 5]]])",
      R"([["^ "], ["^ ", 1], [["^ ", "x", [1, 2]]]])",
      R"([[1, 2, 3], [4, 5, 6], [["~#point", 1], ["~#point", 2], [3, 4]]])",
      R"(["~#point", [1, 2]])",
      R"([1, 2])",
  };
  for (const std::string_view json : cases) {
    SCOPED_TRACE(json);
    reads_under.expect_each_reads_as_json(json, narrow, "max_collection_length 2");
  }
  // Built by hand: tagged values stay tagged values beside plain arrays at their depth, in
  // either order, and plain pairs hold what was read.
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(
                              R"([[1, 2], ["~#point", [3, 4]], [5, 6], ["~#point", 7], [8, 9]])"),
                          Encoding::msgpack),
            Value::array({Value::array({Value(1), Value(2)}),
                          Value::tagged("point", Value::array({Value(3), Value(4)})),
                          Value::array({Value(5), Value(6)}), Value::tagged("point", Value(7)),
                          Value::array({Value(8), Value(9)})}));
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(R"([["^ ", "x", 1], ["x", "^ "]])"),
                          Encoding::msgpack),
            Value::array({Value::map({{Value("x"), Value(1)}}),
                          Value::array({Value("x"), Value("^ ")})}));
  // Many values read by one reader: what one value's tags taught (tag_first_) is forgotten
  // at the next, and every value still reads as its JSON does.
  std::string stream = transit::test::msgpack_items_of(R"([["~#point", 1], ["~#point", 2]])");
  stream += transit::test::msgpack_items_of(R"([[1, 2], [3, 4]])");
  stream += transit::test::msgpack_items_of(R"([["~#point", 5], [6, 7]])");
  transit::Reader reader(stream, Encoding::msgpack);
  EXPECT_EQ(reader.next(), Value::array({Value::tagged("point", 1), Value::tagged("point", 2)}));
  EXPECT_EQ(reader.next(), Value::array({Value::array({Value(1), Value(2)}),
                                         Value::array({Value(3), Value(4)})}));
  EXPECT_EQ(reader.next(),
            Value::array({Value::tagged("point", 5), Value::array({Value(6), Value(7)})}));
  EXPECT_EQ(reader.next(), std::nullopt);
}

// MessagePack's instants (`["~#m", ms]`) and UUIDs (`["~#u", [hi, lo]]`) are built straight
// from their rep as the tagged value ends (Decoder::end_tagged, TagRule::instant and ::uuid):
// each reads as the JSON read of the same items and as the value built by hand, first in an
// array or map, as a map key, as a tag's rep, beside the other tags, cached or not; a rep of
// any other shape is refused as before, and the limits apply.
TEST(MsgpackRead, InstantsAndUuidsFromTheirRepReadAsTheJsonRead) {
  const ComparedReads reads_under;
  ReadOptions narrow;
  narrow.max_collection_length = 2;
  const std::vector<std::string_view> cases = {
      R"(["~#m", 1175598021336])",
      R"(["~#m", -5])",
      R"([["~#m", 0], ["~#m", 9007199254740991], ["~#m", -9007199254740991]])",
      R"(["~#u", [9055455520436522617, -1]])",
      R"([["~#u", [1, 2]], ["~#u", [-3, -4]], ["~#m", 5]])",
      R"([["^ ", "~:at", ["~#m", 7]], ["^ ", "^0", ["~#m", 8]], 9])",
      R"(["^ ", ["~#m", 1], ["~#u", [2, 3]], "x", 1, "y", 2])",
      R"([["~#set", [["~#m", 1], ["~#m", 1], ["~#u", [1, 2]]]], ["~#list", [["~#m", 2]]]])",
      R"([["~#point", ["~#m", 3]], ["~#'", ["~#u", [4, 5]]], ["~#cmap", [["~#m", 1], 2]]])",
      R"({"~#m": 6})",
      R"([{"~#u": [7, 8]}, {"abcd": ["~#m", 9]}, {"^0": ["~#u", [1, 0]]}])",
      R"(["~#m", "1175598021336"])",
      R"(["~#u", "7db644e0-c849-ee7a-e376-a9b1a2036b72"])",
      R"(["~#m", [1]])",
      R"(["~#m"])",
      R"(["~#m", 1, 2])",
      R"(["~#m", 1, [2]])",
      R"(["~#u", [1]])",
      R"(["~#u", [1, 2, 3]])",
      R"(["~#u", ["a", 2]])",
      R"(["~#u", {"a": 2}])",
      R"(["~#u", 5])",
      R"(["~#u", [1, 2], [3, 4]])",
      R"([[["~#u", [1, 2]]]])",
      R"([["~#m", 1], [2, 3], ["~#u", [4, 5]], [6, 7]])",
  };
  for (const std::string_view json : cases) {
    SCOPED_TRACE(json);
    reads_under.expect_each_reads_as_json(json, narrow, "max_collection_length 2");
  }
  // By hand: the values are what decode_tagged builds.
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(
                              R"([["~#m", 1175598021336], ["~#u", [9055455520436522617, -1]], ["~#m", -5]])"),
                          Encoding::msgpack),
            Value::array({Value::instant(1175598021336),
                          Value::uuid({9055455520436522617ULL, ~std::uint64_t{0}}),
                          Value::instant(-5)}));
  // A tagged value's rep counts as an item (Decoder::place): JSON's read refuses it past a
  // max_collection_length of 0, as MessagePack's refuses the array's header.
  ReadOptions none;
  none.max_collection_length = 0;
  for (const Encoding encoding : {Encoding::json, Encoding::msgpack}) {
    const std::string json = R"(["~#m", 1])";
    try {
      transit::read(encoding == Encoding::json ? json : transit::test::msgpack_items_of(json),
                    encoding, none);
      ADD_FAILURE() << "read";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::too_large) << e.what();
    }
  }
  // A rep above INT64_MAX is a big integer (MessagePack's uint64), no instant's or UUID's:
  // refused.
  // So are a double, a nil and a boolean.
  for (const char* hex : {"92 a3 7e 23 6d cf ff ff ff ff ff ff ff ff",
                          "92 a3 7e 23 75 92 01 cf ff ff ff ff ff ff ff ff",
                          "92 a3 7e 23 6d cb 3f f8 00 00 00 00 00 00", "92 a3 7e 23 6d c0",
                          "92 a3 7e 23 75 92 01 cb 40 04 00 00 00 00 00 00",
                          "92 a3 7e 23 75 92 c3 02"}) {
    (void)read_refused(hex, Errc::bad_rep);
  }
}

// MessagePack's `["~#m", ms]` and `["~#u", [hi, lo]]` (a 2-item array whose first item is the
// tag) are read by the decoder's pair path (Decoder::start_pair): an instant's rep goes into
// one slot of the decoder's, a UUID's `[hi, lo]` is made the UUID as it ends (its node
// reserved as it began, or at its first item after a tag first at its depth), and end_pair
// delivers the instant or UUID. Every rep that path
// can be given reads as the JSON read of the same items: scalars, cache codes (a long string
// held in the arena, a cached UUID key, a tag), containers, empty ones, pairs inside pairs
// (the slot used again before the outer rep fills it), pairs in sets, cmaps and "^ " maps, and
// the near misses that take the general path (1 or 3 items, the tag later, as a map key, a
// longer tag), with errors inside a rep and their paths, plain, with a read handler, with
// builders, at max_depth 2 and at max_collection_length 2.
TEST(MsgpackRead, InstantAndUuidPairsReadAsTheJsonRead) {
  const ComparedReads reads_under;
  ReadOptions narrow;
  narrow.max_collection_length = 2;
  const std::vector<std::string_view> cases = {
      R"(["~#m", 0])",
      R"(["~#m", 9223372036854775807])",
      R"(["~#m", -9223372036854775808])",
      R"(["~#u", [-9223372036854775808, 9223372036854775807]])",
      R"(["~#u", [0, 0]])",
      R"([{"abcdefghijklmnopqrstuvwxyz": 1}, ["~#m", "^0"], ["~#u", "^0"], ["~#m", ["^0"]]])",
      R"([{"~u7db644e0-c849-ee7a-e376-a9b1a2036b72": 1}, ["~#u", "^0"], ["~#m", "^0"]])",
      R"([{"~m1175598021336": 1}, ["~#m", "^0"]])",
      R"([["~#point", 1], ["~#m", "^0"]])",
      R"([["~#point", 1], ["~#u", ["^0", 1]]])",
      R"([["~#m", "^0"]])",
      R"(["~#m", "^ "])",
      R"(["~#u", ["^ ", 1, 2]])",
      R"(["~#m", "~#m"])",
      R"(["~#m", "~m5"])",
      R"(["~#u", "~u7db644e0-c849-ee7a-e376-a9b1a2036b72"])",
      R"(["~#m", "abcdefghijklmnopqrstuvwxyz"])",
      R"(["~#m", "x"])",
      R"([["~#u", ["~#m", 1]], ["~#u", [1, 2]], ["~#u", [3, 4]]])",
      R"([["~#m", ["~#u", [1, 2]]], ["~#u", [["~#m", 1], 2]], ["~#u", [3, 4]]])",
      R"(["~#m", []])",
      R"(["~#m", {}])",
      R"(["~#u", []])",
      R"(["~#u", {}])",
      R"(["~#u", {"a": 1}])",
      R"(["~#u", [[1], 2]])",
      R"(["~#m", ["~#m", 1]])",
      R"(["~#u", ["~#m", 1]])",
      R"(["~#u", [["~#m", 1], ["~#m", 2]]])",
      R"(["~#m", ["~#u", [1, 2]]])",
      R"(["~#u", ["~#u", [1, 2]]])",
      R"(["~#m", ["~#set", [1]]])",
      R"(["~#m", ["~#point", 1]])",
      R"(["~#u", ["~#list", [1, 2]]])",
      R"([["~#m", 1], ["~#m", 1], ["~#u", [1, 2]], ["~#u", [1, 2]]])",
      R"(["~#set", [["~#m", 1], ["~#m", 1], ["~#u", [1, 2]], ["~#u", [1, 2]]]])",
      R"(["~#cmap", [["~#m", 1], ["~#u", [1, 2]], ["~#u", [1, 2]], ["~#m", 1]]])",
      R"(["^ ", ["~#m", 1], ["~#u", [1, 2]], ["~#u", [3, 4]], ["~#m", 2], "x", 3])",
      R"({"a": ["~#m", 1], "b": ["~#u", [1, 2]]})",
      R"([[["~#m", 1]], [[["~#u", [1, 2]]]]])",
      R"(["~#m", ["^9"]])",
      R"(["~#u", [1, "^9"]])",
      R"(["~#u", [1, ["~#m"]]])",
      R"(["~#m", "^9"])",
      R"([1, "~#m"])",
      R"(["~#m"])",
      R"(["~#u"])",
      R"(["~#m", 1, 2])",
      R"(["~#u", [1, 2], 3])",
      R"({"~#m": 1})",
      R"({"~#u": [1, 2]})",
      R"([{"~#m": 1, "x": 2}])",
      R"(["~#mm", 1])",
      R"(["~#uu", [1, 2]])",
      R"(["~#M", 1])",
      R"(["^ ", "~#m", 1])",
  };
  for (const std::string_view json : cases) {
    SCOPED_TRACE(json);
    reads_under.expect_each_reads_as_json(json, narrow, "max_collection_length 2");
  }
  // By hand: the values, and a pair inside another tagged value's rep.
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(
                              R"([["~#m", 1], ["~#u", [2, -1]], ["~#point", ["~#m", 3]]])"),
                          Encoding::msgpack),
            Value::array({Value::instant(1), Value::uuid({2, ~std::uint64_t{0}}),
                          Value::tagged("point", Value::instant(3))}));
  // Reps the JSON helper cannot write: a nil, a boolean, a double (whole and as a UUID's
  // half), refused as the general path refuses them (see the test above).
  for (const char* hex : {"92 a3 7e 23 6d c0", "92 a3 7e 23 6d c3",
                          "92 a3 7e 23 6d cb 3f f8 00 00 00 00 00 00",
                          "92 a3 7e 23 75 92 01 cb 40 04 00 00 00 00 00 00",
                          "92 a3 7e 23 75 92 c0 01"}) {
    const std::string what = read_refused(hex, Errc::bad_rep);
    EXPECT_NE(what.find(" in $"), std::string::npos) << what;
  }
  // Truncated inside a pair's rep, after a whole pair, and before a pair's rep: an error, the
  // pair's frame dropped (Decoder::drop_pair; ASan and LeakSanitizer watch it).
  for (const char* hex : {"92 a3 7e 23 75 92 01", "92 92 a3 7e 23 75 92 01 02 92",
                          "92 a3 7e 23 6d"}) {
    (void)read_refused(hex, Errc::truncated);
  }
}

// An instant's or a UUID's pair whose rep is integers in any of MessagePack's integer
// encodings that fit an int64, as a map key and value too, is that instant or UUID. A uint64
// past INT64_MAX, a rep cut short, a read handler for `m` or `u`, and a pair past max_depth
// keep the general path's value or error. (Written for a reader that read such a pair whole
// in its loop, measured and not landed: see docs/performance-log.md, "Instants and UUIDs, round
// sixteen"; any such path must keep these.)
TEST(MsgpackRead, PairsReadEveryIntegerEncoding) {
  const std::vector<std::pair<std::string, std::int64_t>> ints = {
      {"00", 0},
      {"7f", 127},
      {"ff", -1},
      {"e0", -32},
      {"cc ff", 255},
      {"cd ff ff", 65535},
      {"ce ff ff ff ff", 4294967295},
      {"cf 7f ff ff ff ff ff ff ff", INT64_MAX},
      {"d0 80", -128},
      {"d1 80 00", -32768},
      {"d2 80 00 00 00", INT32_MIN},
      {"d3 80 00 00 00 00 00 00 00", INT64_MIN},
      {"d3 00 00 01 8c 2e 0e 3a 98", 1701579733656}};
  for (const auto& [enc, v] : ints) {
    SCOPED_TRACE(enc);
    EXPECT_EQ(transit::read(bytes("92 92 a3 7e 23 6d " + enc + " 01"), Encoding::msgpack),
              Value::array({Value::instant(v), Value(1)}));
    EXPECT_EQ(transit::read(bytes("91 92 a3 7e 23 75 92 " + enc + " " + enc), Encoding::msgpack),
              Value::array({Value::uuid({static_cast<std::uint64_t>(v),
                                         static_cast<std::uint64_t>(v)})}));
    EXPECT_EQ(transit::read(bytes("81 92 a3 7e 23 75 92 01 " + enc + " 92 a3 7e 23 6d " + enc),
                            Encoding::msgpack),
              Value::map({{Value::uuid({1, static_cast<std::uint64_t>(v)}), Value::instant(v)}}));
  }
  // Past INT64_MAX: a big integer, refused as an instant's rep and as a UUID's half.
  (void)read_refused("91 92 a3 7e 23 6d cf 80 00 00 00 00 00 00 00", Errc::bad_rep);
  (void)read_refused("91 92 a3 7e 23 75 92 01 cf 80 00 00 00 00 00 00 00", Errc::bad_rep);
  // Cut short inside the integer.
  for (const char* hex : {"91 92 a3 7e 23 6d cf 00 00", "91 92 a3 7e 23 75 92 01 d3 00",
                          "91 92 a3 7e 23 75 92 01", "91 92 a3 7e 23 75"})
    (void)read_refused(hex, Errc::truncated);
  // A read handler for `m` and for `u` still takes the pair's rep.
  transit::ReadHandlers handlers;
  handlers.add("m", [](const Value& rep) { return Value::array({Value("m"), rep}); });
  handlers.add("u", [](const Value& rep) { return Value::array({Value("u"), rep}); });
  ReadOptions with_handlers;
  with_handlers.handlers = &handlers;
  EXPECT_EQ(transit::read(bytes("92 92 a3 7e 23 6d 05 92 a3 7e 23 75 92 01 02"), Encoding::msgpack,
                          with_handlers),
            Value::array({Value::array({Value("m"), Value(5)}),
                          Value::array({Value("u"), Value::array({Value(1), Value(2)})})}));
  // max_depth counts the pair's arrays as the general path does: an instant in an array needs
  // 2, a UUID in an array 3.
  ReadOptions shallow;
  shallow.max_depth = 2;
  EXPECT_EQ(transit::read(bytes("91 92 a3 7e 23 6d 05"), Encoding::msgpack, shallow),
            Value::array({Value::instant(5)}));
  try {
    (void)transit::read(bytes("91 92 a3 7e 23 75 92 01 02"), Encoding::msgpack, shallow);
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_deep) << e.what();
  }
  shallow.max_depth = 1;
  try {
    (void)transit::read(bytes("91 92 a3 7e 23 6d 05"), Encoding::msgpack, shallow);
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::too_deep) << e.what();
  }
}

// A read's outcome: the value, or the error's message (code, offset, path and detail).
struct PairOutcome {
  std::optional<Value> value;
  std::string error;
  friend bool operator==(const PairOutcome&, const PairOutcome&) = default;
};
PairOutcome read_outcome(const std::string& input, const ReadOptions& options,
                         Encoding encoding = Encoding::msgpack) {
  PairOutcome out;
  try {
    out.value = transit::read(input, encoding, options);
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}
// read_outcome() of the first value from a Source that gives `step` bytes at a time.
PairOutcome source_outcome(const std::string& input, const ReadOptions& options,
                           Encoding encoding = Encoding::msgpack, std::size_t step = 3) {
  transit::test::StepSource source(input, step);
  transit::Reader reader(source, encoding, options);
  PairOutcome out;
  try {
    out.value = reader.next();
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}
std::ostream& operator<<(std::ostream& os, const PairOutcome& o) {
  return os << (o.value ? "a value" : o.error);
}

// A MessagePack value whose first 512 bytes hold a pair's start (`92 a3 7e 23 6d`,
// `92 a3 7e 23 75`) is read by the parse loop that reads `["~#m", ms]` and `["~#u", [hi, lo]]`
// whole (no frame, no tag, no node) where the decoder allows it; any other value by the plain
// loop, which reads a pair item by item (Decoder::start_pair). The same bytes read by the
// plain loop (testing::set_msgpack_pairs_look(0)) must give the same value, or the same error
// at the same place with the same path, for pairs in arrays, maps (keys and values), tagged
// values, map arrays, beside cache codes, in every integer encoding, with reps that are no
// instant's or UUID's, under handlers and limits, whole and cut short at every byte (a pair
// cut anywhere after its start), in memory and from a Source; and a pair past the look is
// read by the plain loop, unless its reader met a pair in a value before (Decoder::met_pair).
TEST(MsgpackRead, PairsReadWholeAsTheItemByItemRead) {
  namespace testing = transit::detail::testing;
  const std::string m = "92 a3 7e 23 6d ";
  const std::string u = "92 a3 7e 23 75 92 ";
  std::vector<std::string> cases = {
      "92 " + m + "05 " + u + "01 02",
      m + "05",
      u + "01 02",
      "82 a1 61 " + m + "ff a1 62 " + u + "d3 80 00 00 00 00 00 00 00 cf 7f ff ff ff ff ff ff ff",
      "82 " + u + "01 02 " + m + "05 " + m + "05 01",
      "82 " + m + "05 01 " + m + "05 02",
      "92 a5 7e 23 73 65 74 92 " + m + "01 " + m + "02",
      "92 a5 7e 23 73 65 74 92 " + m + "01 " + m + "01",
      "92 a6 7e 23 6c 69 73 74 91 " + u + "01 02",
      "92 a6 7e 23 63 6d 61 70 92 " + m + "01 " + u + "01 02",
      "92 a4 7e 23 66 6f " + m + "05",
      "93 a4 7e 23 66 6f 01 " + m + "05",
      "95 a2 5e 20 a3 7e 3a 61 " + m + "05 a3 7e 3a 62 " + u + "07 08",
      "95 " + m + "05 a6 7e 3a 61 62 63 64 a2 5e 30 " + u + "01 02 a2 5e 30",
      "91 91 91 " + u + "01 02",
      "92 " + m + m + "05",
      "92 " + u + "01 02 " + u + "03 04",
      "92 " + m + u + "01 02 " + u + m + "05 06",
      "92 " + m + "05 a3 7e 23 6d",
      "92 " + m + "05 81 a3 7e 23 6d 05",
      "91 " + m + "a1 78",
      "91 " + m + "cb 3f f8 00 00 00 00 00 00",
      "91 " + m + "90",
      "91 " + m + "c0",
      "91 " + m + "c1",
      "91 " + m + "cf 80 00 00 00 00 00 00 00",
      "91 92 a3 7e 23 75 91 01",
      "91 92 a3 7e 23 75 90",
      "91 92 a3 7e 23 75 93 01 02 03",
      "91 92 a3 7e 23 75 a1 78",
      "91 " + u + "01 a1 61",
      "91 " + u + "cf 80 00 00 00 00 00 00 00 01",
      "91 " + u + "01 cf ff ff ff ff ff ff ff ff",
      "91 " + u + "01 02 03",
  };
  for (const char* enc : {"00", "7f", "ff", "e0", "cc ff", "cd ff ff", "ce ff ff ff ff",
                          "cf 7f ff ff ff ff ff ff ff", "d0 80", "d1 80 00", "d2 80 00 00 00",
                          "d3 80 00 00 00 00 00 00 00", "d3 00 00 01 8c 2e 0e 3a 98"}) {
    cases.push_back("92 " + m + enc + " " + u + enc + " " + enc);
    cases.push_back("81 " + u + enc + " 01 " + m + enc);
  }
  transit::ReadHandlers handlers;
  handlers.add("m", [](const Value& rep) { return Value::array({Value("m"), rep}); });
  handlers.add("u", [](const Value& rep) { return Value::array({Value("u"), rep}); });
  std::vector<ReadOptions> options(6);
  options[1].max_depth = 1;
  options[2].max_depth = 2;
  options[3].max_depth = 3;
  options[4].max_collection_length = 1;
  options[5].handlers = &handlers;
  // Both loops' outcomes of every case, whole and cut, under every option.
  auto outcomes = [&](std::size_t look) {
    testing::set_msgpack_pairs_look(look);
    std::vector<PairOutcome> out;
    for (const std::string& hex : cases) {
      const std::string input = bytes(hex);
      for (const ReadOptions& o : options) {
        for (std::size_t cut = 1; cut <= input.size(); ++cut)
          out.push_back(read_outcome(input.substr(0, cut), o));
        // From a Source, three bytes at a time.
        out.push_back(source_outcome(input, o));
      }
    }
    testing::set_msgpack_pairs_look(512);
    return out;
  };
  const std::size_t before = testing::msgpack_pairs_reads();
  const std::vector<PairOutcome> whole = outcomes(512);
  const std::size_t pairs_reads = testing::msgpack_pairs_reads() - before;
  const std::vector<PairOutcome> plain = outcomes(0);
  EXPECT_EQ(testing::msgpack_pairs_reads() - before, pairs_reads);  // none with look 0
  EXPECT_GT(pairs_reads, whole.size() / 2);
  ASSERT_EQ(whole.size(), plain.size());
  std::size_t values = 0;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(whole[i], plain[i]) << i;
    values += whole[i].value.has_value();
  }
  EXPECT_GT(values, 100u);
  // A few values, spelled out.
  EXPECT_EQ(transit::read(bytes(cases[0]), Encoding::msgpack),
            Value::array({Value::instant(5), Value::uuid({1, 2})}));
  EXPECT_EQ(transit::read(bytes(cases[4]), Encoding::msgpack),
            Value::map({{Value::uuid({1, 2}), Value::instant(5)}, {Value::instant(5), Value(1)}}));
  EXPECT_EQ(transit::read(bytes(cases[5]), Encoding::msgpack, options[5]),
            Value::map({{Value::array({Value("m"), Value(5)}), Value(2)}}));
  // A pair past the first 512 bytes: read by the plain loop, to the same value.
  const std::string pad(600, 'x');
  const std::size_t reads = testing::msgpack_pairs_reads();
  EXPECT_EQ(transit::read(bytes("92 da 02 58") + pad + bytes(cases[0]), Encoding::msgpack),
            Value::array({Value(pad), Value::array({Value::instant(5), Value::uuid({1, 2})})}));
  EXPECT_EQ(testing::msgpack_pairs_reads(), reads);
  // Its five bytes the last of the first 512: the pairs' loop; a byte later: the plain loop.
  const std::string near(503, 'x');
  EXPECT_EQ(transit::read(bytes("92 da 01 f7") + near + bytes(m + "05"), Encoding::msgpack),
            Value::array({Value(near), Value::instant(5)}));
  EXPECT_EQ(testing::msgpack_pairs_reads(), reads + 1);
  EXPECT_EQ(transit::read(bytes("92 da 01 f8") + near + "x" + bytes(m + "05"), Encoding::msgpack),
            Value::array({Value(near + "x"), Value::instant(5)}));
  EXPECT_EQ(testing::msgpack_pairs_reads(), reads + 1);
  // A reader that met a pair reads its next values with the pairs' loop, wherever their pairs
  // are: the same values.
  const std::string late = bytes("92 da 02 58") + pad + bytes(cases[0]);
  const Value late_value =
      Value::array({Value(pad), Value::array({Value::instant(5), Value::uuid({1, 2})})});
  const std::string four = late + late + bytes("92 01 02") + late;
  transit::Reader stream(four, Encoding::msgpack);
  EXPECT_EQ(stream.next(), late_value);
  EXPECT_EQ(testing::msgpack_pairs_reads(), reads + 1);
  EXPECT_EQ(stream.next(), late_value);
  EXPECT_EQ(stream.next(), Value::array({Value(1), Value(2)}));
  EXPECT_EQ(stream.next(), late_value);
  EXPECT_EQ(stream.next(), std::nullopt);
  EXPECT_EQ(testing::msgpack_pairs_reads(), reads + 4);
}

// A cache code is told by the parse loop from its header (a fixstr of 2 or 3 bytes, 0xa2 or
// 0xa3, that starts with `^`) and placed there (Decoder::cached_code), and ReadCache::find
// takes the one or two chars its caller names as digits. Texts of 0 to 5 bytes and of 31 and
// 32 (the last fixstr and the first str8) made of `^`, digits and bytes that are none (`"^ "`,
// `^\`, `^/`, `^^`...), naming slots assigned, a cached tag and slots not assigned, each as a
// map key, a value and the input's last item: the shortest MessagePack form reads as the JSON
// read of the same text (and the JSON read from memory as the JSON read from a Source), the
// same text as str8, str16 and str32 as the shortest form (but for the error's byte), both
// parse loops alike, whole, cut at every byte of those last items, and from a Source.
TEST(MsgpackRead, CacheCodesToldByTheirHeaderReadAsEveryOtherString) {
  namespace testing = transit::detail::testing;
  // 50 keys cached (slots 0 to 49, ^0 to ^15) and the tag ~#point (slot 50, ^16); ^17 on are
  // not assigned. The instant's pair makes the value one the loop that reads pairs whole
  // reads (with look 512).
  std::string json_prefix = "[{";
  std::string mp_prefix = bytes("95 de 00 32");
  for (int i = 0; i < 50; ++i) {
    const std::string key = "key" + std::to_string(1000 + i);
    json_prefix += (i == 0 ? "\"" : ", \"") + key + "\": " + std::to_string(i);
    mp_prefix += static_cast<char>(0xa0 | key.size()) + key + static_cast<char>(i);
  }
  json_prefix += R"(}, ["~#point", 1], ["~#m", 5], )";
  mp_prefix += bytes("92 a7") + "~#point" + bytes("01 92 a3 7e 23 6d 05");

  const std::string chars = std::string("0156[\\/ ^~a") + '\x7f';
  std::vector<std::string> texts = {"", "^", "a", "~", "a0", "~0", "00", "ab0", "^^^^^", "^0000",
                                    "^ 000", "^[[[[", "^1" + std::string(29, '0'),
                                    "^" + std::string(30, ' '), "^" + std::string(31, '0'),
                                    "^1" + std::string(30, ' ')};
  for (const char a : chars) {
    texts.push_back(std::string("^") + a);
    for (const char b : chars) texts.push_back(std::string("^") + a + b);
  }
  for (const char a : std::string("0[ "))
    for (const char b : std::string("0[ "))
      for (const char c : std::string("0[ ")) texts.push_back(std::string("^") + a + b + c);

  const auto json_quoted = [](const std::string& text) {
    std::string out = "\"";
    for (const char c : text) out += c == '\\' ? std::string("\\\\") : std::string(1, c);
    return out + "\"";
  };
  // The text as fixstr (up to 31 bytes), str8, str16 and str32.
  const auto encoded = [](const std::string& text, int form) {
    const auto n = text.size();
    switch (form) {
      case 0: return static_cast<char>(0xa0 | n) + text;
      case 1: return bytes("d9") + static_cast<char>(n) + text;
      case 2: return bytes("da 00") + static_cast<char>(n) + text;
      default: return bytes("db 00 00 00") + static_cast<char>(n) + text;
    }
  };
  // The outcome without the error's byte, which moves with the header's size.
  const auto unplaced = [](PairOutcome o) {
    const std::size_t at = o.error.find(" at byte ");
    if (at != std::string::npos)
      o.error.erase(at, o.error.find_first_not_of("0123456789", at + 9) - at);
    return o;
  };
  const ComparedReads reads_under;
  const std::vector<std::pair<std::string, ReadOptions>> options = {
      {"plain", reads_under.plain}, {"handler", reads_under.with_handler},
      {"builders", reads_under.built}, {"max_depth 2", reads_under.shallow}};
  // The error's code and path, or the value: what the JSON read must agree with.
  const auto code_and_path = [](const std::string& input, Encoding encoding, const ReadOptions& o) {
    std::pair<std::optional<Value>, std::string> out;
    try {
      out.first = transit::read(input, encoding, o);
    } catch (const Error& e) {
      out.second = std::string(transit::code_name(e.code())) + e.path();
    }
    return out;
  };

  std::size_t codes_placed = 0;
  const std::size_t pairs_before = testing::msgpack_pairs_reads();
  std::size_t pairs_expected = 0;
  for (const std::string& text : texts) {
    SCOPED_TRACE("text \"" + text + "\" (" + std::to_string(text.size()) + " bytes)");
    const std::string json =
        json_prefix + "{" + json_quoted(text) + ": 7}, " + json_quoted(text) + "]";
    for (const auto& [name, o] : options) {
      SCOPED_TRACE(name);
      // JSON from memory and from a Source.
      EXPECT_EQ(source_outcome(json, o, Encoding::json, 7), read_outcome(json, o, Encoding::json))
          << "JSON from a Source";
      PairOutcome shortest;
      for (int form = text.size() <= 31 ? 0 : 1; form <= 3; ++form) {
        SCOPED_TRACE("form " + std::to_string(form));
        const std::string tail =
            bytes("81") + encoded(text, form) + bytes("07") + encoded(text, form);
        const std::string input = mp_prefix + tail;
        testing::set_msgpack_pairs_look(512);
        const PairOutcome whole = read_outcome(input, o);
        ++pairs_expected;
        testing::set_msgpack_pairs_look(0);
        EXPECT_EQ(read_outcome(input, o), whole) << "the plain loop";
        testing::set_msgpack_pairs_look(512);
        if (shortest.value || !shortest.error.empty()) {
          EXPECT_EQ(unplaced(whole), unplaced(shortest)) << "another str form";
        } else {
          shortest = whole;
          // As the JSON read: the value, or the error's code and path.
          EXPECT_EQ(code_and_path(input, Encoding::msgpack, o),
                    code_and_path(json, Encoding::json, o));
          codes_placed += whole.value.has_value() && text.size() >= 2 && text.size() <= 3 &&
                          text[0] == '^' && (*whole.value)[4] != Value(text);
        }
        // Cut at every byte of the last items: short (or, after an item read whole fails, its
        // error), by either loop.
        for (std::size_t cut = mp_prefix.size(); cut < input.size(); ++cut) {
          const PairOutcome part = read_outcome(input.substr(0, cut), o);
          EXPECT_FALSE(part.value) << cut;
          if (whole.value) {
            EXPECT_NE(part.error.find("truncated"), std::string::npos) << cut;
          }
          testing::set_msgpack_pairs_look(0);
          EXPECT_EQ(read_outcome(input.substr(0, cut), o), part) << cut;
          testing::set_msgpack_pairs_look(512);
          pairs_expected += 1;
        }
        EXPECT_EQ(source_outcome(input, o), whole) << "from a Source, three bytes at a time";
      }
    }
  }
  // JSON's walk places a code itself too (Decoder::place_code): in every kind of place, from
  // memory as from a Source (RapidJSON, by string()).
  for (const char* code : {"^0", "^15", "^16", "^17", "^ ", "^\\"}) {
    const std::string c = std::string("\"") + code + "\"";
    for (const std::string& tail :
         {"[\"~#'\", " + c + "], [\"~#set\", [" + c + ", 1]], [\"~#list\", [" + c + "]], 0]",
          "{" + c + ": [" + c + "]}, [\"~#point\", " + c + "], [\"^ \", " + c + ", " + c + "], 0]",
          "[\"~#cmap\", [" + c + ", " + c + "]], [" + c + ", [" + c + "]], {" + c + ": " + c + "}, 0]"}) {
      const std::string json = json_prefix + tail;
      SCOPED_TRACE(json.substr(json_prefix.size()));
      const PairOutcome memory = read_outcome(json, ReadOptions{}, Encoding::json);
      EXPECT_EQ(source_outcome(json, ReadOptions{}, Encoding::json, 5), memory);
      EXPECT_EQ(source_outcome(json, reads_under.built, Encoding::json, 5),
                read_outcome(json, reads_under.built, Encoding::json));
      codes_placed += memory.value.has_value();
    }
  }
  // Past max_string_length (1 to 3) a code is refused as any string is, never placed.
  for (const std::size_t limit : {1, 2, 3}) {
    ReadOptions o;
    o.max_string_length = limit;
    for (const std::string& text : texts) {
      if (text.size() > 3) continue;
      SCOPED_TRACE("max_string_length " + std::to_string(limit) + ", text \"" + text + "\"");
      const std::string json = "[" + json_quoted(text) + ", {" + json_quoted(text) + ": 1}]";
      const std::string input =
          bytes("92") + encoded(text, 0) + bytes("81") + encoded(text, 0) + bytes("01");
      EXPECT_EQ(code_and_path(input, Encoding::msgpack, o), code_and_path(json, Encoding::json, o));
    }
  }
  // The codes named slots, and the loop that reads pairs whole read every whole value.
  EXPECT_GE(codes_placed, 40u);
  EXPECT_GE(testing::msgpack_pairs_reads() - pairs_before, pairs_expected / 2);
  // A few spelled out: a code of one and of two digits, a key naming the cached tag (a tagged
  // value in map form), `"^ "` as a plain string in MessagePack, a code at the input's end.
  EXPECT_EQ(transit::read(mp_prefix + bytes("81 a2 5e 30 07 a3 5e 31 35"), Encoding::msgpack)[4],
            Value("key1049"));
  EXPECT_EQ(transit::read(mp_prefix + bytes("81 a2 5e 30 07 a3 5e 31 35"), Encoding::msgpack)[3],
            Value::map({{Value("key1000"), Value(7)}}));
  EXPECT_EQ(transit::read(mp_prefix + bytes("81 a3 5e 31 36 07 a2 5e 20"), Encoding::msgpack)[3],
            Value::tagged("point", 7));
  EXPECT_EQ(transit::read(mp_prefix + bytes("81 a3 5e 31 36 07 a2 5e 20"), Encoding::msgpack)[4],
            Value("^ "));
}

// An array whose items are all inline scalars is finished by ValueAccess::finish_sequence with
// no adoption pass (geojson's coordinate pairs): one level deep, as an array of any other
// items is measured by that pass. Each read array's depth and value is the one Value::array
// builds from the same items, in both encodings, for arrays of scalars of every inline kind
// and arrays where an empty container, a string on the heap, a cached (borrowed) one or a
// nested array comes first, in the middle or last; and the depth limit (Value::kMaxDepth)
// still counts them.
TEST(MsgpackRead, ArraysOfInlineScalarsAreOneLevelDeep) {
  const std::string long_text = "abcdefghijklmnopqrstuvwxyz";
  const std::vector<std::pair<std::string, Value>> cases = {
      {R"([1, 2])", Value::array({Value(1), Value(2)})},
      {R"([1, "ab", "~:k", "~$s", "~m5", 3])",
       Value::array({Value(1), Value("ab"), Value::keyword("k"), Value::symbol("s"),
                     Value::instant(5), Value(3)})},
      {R"([[], 1])", Value::array({Value::array({}), Value(1)})},
      {R"([1, {}])", Value::array({Value(1), Value::map({})})},
      {R"([1, [], 2])", Value::array({Value(1), Value::array({}), Value(2)})},
      {R"([1, ")" + long_text + R"("])", Value::array({Value(1), Value(long_text)})},
      {R"([")" + long_text + R"(", 1])", Value::array({Value(long_text), Value(1)})},
      {R"([1, [2]])", Value::array({Value(1), Value::array({Value(2)})})},
      {R"([[1], 2])", Value::array({Value::array({Value(1)}), Value(2)})},
  };
  for (const auto& [json, expected] : cases) {
    SCOPED_TRACE(json);
    for (const Encoding encoding : {Encoding::json, Encoding::msgpack}) {
      const Value read = transit::read(
          encoding == Encoding::json ? json : transit::test::msgpack_items_of(json), encoding);
      EXPECT_EQ(read, expected);
      EXPECT_EQ(read.depth(), expected.depth());
    }
  }
  // A map key cached and named again (a borrowed alias of a string on the heap) as an item.
  const std::string cached = R"([{")" + long_text + R"(": 1}, ["^0", 2], [3, "^0"]])";
  for (const Encoding encoding : {Encoding::json, Encoding::msgpack}) {
    const Value read = transit::read(
        encoding == Encoding::json ? cached : transit::test::msgpack_items_of(cached), encoding);
    EXPECT_EQ(read[1], Value::array({Value(long_text), Value(2)}));
    EXPECT_EQ(read[2], Value::array({Value(3), Value(long_text)}));
    EXPECT_EQ(read[1].depth(), 1u);
    EXPECT_EQ(read.depth(), 2u);
  }
}

// A `"~#tag"` string goes from the MessagePack reader straight to Decoder::checked_tag, and a
// `"~b"` string to Decoder::checked_base64, not through string(): tags first, later (refused)
// and as map keys, valid or not, cached by their UTF-16 length (ASCII or not), named by cache
// codes later; base64 as items, map keys (cached), reps and bad text, with "^ " map arrays
// around them: each reads as the JSON read of the same items, plain, with a read handler,
// with builders, at max_depth 2 and at max_collection_length 2.
TEST(MsgpackRead, TagsAndBase64FromTheReaderReadAsTheJsonRead) {
  const ComparedReads reads_under;
  ReadOptions narrow;
  narrow.max_collection_length = 2;
  const std::vector<std::string_view> cases = {
      R"([["~#point", 1], ["^0", 2], ["~#pt", [3]], ["^1", 4]])",
      R"([["~#é", 1], ["^0", 2]])",
      R"([["~#éé", 1], ["^0", 2], 3])",
      R"([["~#ab", 1], ["^0", 2], 3])",
      R"([["~#", 1]])",
      R"([["~# x", 1]])",
      R"([1, "~#point"])",
      R"(["~#point"])",
      R"(["~#point", "~#point"])",
      R"({"~#point": ["~#list", [1]]})",
      R"([{"a": 1, "~#point": 2}])",
      R"([["^ ", "~#point", 1]])",
      R"(["~bAAEC", "~bAAECAw==", "~b", 1])",
      R"([{"~bAAECAw==": 1}, {"^0": 2}, ["^ ", "^0", "~bAAEC"], 3])",
      R"(["^ ", "~bAAECAw==", 1, "^0", 2, "x", 3])",
      R"([["~#point", "~bAAEC"], ["~#'", "~bAAEC"], ["~#set", ["~bAA==", "~bAA=="]]])",
      R"(["~b=", 1, 2])",
      R"(["~bA", 1, 2])",
      R"(["~b!!!!", 1, 2])",
      R"(["~bAAE C", 1, 2])",
      R"(["~bé", 1, 2])",
      R"("~bAAEC")",
      R"(["~b", "~bAAEC"])",
  };
  for (const std::string_view json : cases) {
    SCOPED_TRACE(json);
    reads_under.expect_each_reads_as_json(json, narrow, "max_collection_length 2");
  }
  // By hand: a base64 map key is cached, and its code names the same bytes.
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(R"([{"~bAAECAw==": 1}, {"^0": 2}])"),
                          Encoding::msgpack),
            Value::array({Value::map({{Value::bytes(std::string_view("\0\1\2\3", 4)), Value(1)}}),
                          Value::map({{Value::bytes(std::string_view("\0\1\2\3", 4)), Value(2)}})}));
}

// A `~X` scalar string of a MessagePack read (`~n`, `~f`, `~r`, `~c`, `~m`, `~u` ...) goes
// from Decoder::checked_string straight to json_scalar_string, not through string(); escapes
// (`~~`, `~^`, `~``) still go to string(). Every ground scalar, unknown ones, bad text, map
// keys (cached, and named by codes later), non-ASCII text, and the limits: each reads as the
// JSON read of the same items.
TEST(MsgpackRead, ScalarStringsFromTheReaderReadAsTheJsonRead) {
  const ComparedReads reads_under;
  ReadOptions narrow;
  narrow.max_collection_length = 2;
  const std::vector<std::string_view> cases = {
      R"(["~n58729356529324039774", "~f0.845145", "~rhttps://example.com/r/0", "~cA"])",
      R"(["~m1175598021336", "~u7db644e0-c849-ee7a-e376-a9b1a2036b72", "~i12", "~d1.5"])",
      R"(["~t2007-04-03T11:00:21.336Z", "~zNaN", "~zINF", "~?t", "~_", "~bAAEC"])",
      R"(["~~x", "~^ ", "~`y", "~", "~q", "~qabc", "~Xyz"])",
      R"(["~nabc", 1, 2])",
      R"(["~fx.y", 1, 2])",
      R"(["~mzz", 1, 2])",
      R"(["~u12", 1, 2])",
      R"(["~?x", 1, 2])",
      R"(["~cAB", 1, 2])",
      R"(["~ré", "~cé", "~nö", 1])",
      R"([{"~n12345": 1, "~rhttp://x": 2}, {"^0": 3, "^1": 4}, ["^ ", "~cA", 5]])",
      R"(["^ ", "~m1", 1, "~u7db644e0-c849-ee7a-e376-a9b1a2036b72", 2, "^0", 3])",
      R"([["~#point", "~n1"], ["~#set", ["~f1.0", "~f1.0"]], {"~#'": "~cA"}])",
      R"("~rhttps://example.com")",
  };
  for (const std::string_view json : cases) {
    SCOPED_TRACE(json);
    reads_under.expect_each_reads_as_json(json, narrow, "max_collection_length 2");
  }
  // By hand, a few of them.
  EXPECT_EQ(transit::read(transit::test::msgpack_items_of(R"(["~n12", "~m5", "~cA", "~~x"])"),
                          Encoding::msgpack),
            Value::array({Value::big_integer("12"), Value::instant(5), Value::character(U'A'),
                          Value("~x")}));
}

// A typed read's MessagePack strings go from Decoder::checked_string to tape_walk_string, as
// the walk of a parsed JSON document sends them: a cache code naming text on the tape is
// taped there, anything else (a code naming a tag or a Value built inside a tag, "^ ", a bad
// or unassigned code, a plain string) takes string(). Each typed read of the MessagePack items
// gives the typed JSON read's value or error (bar the byte offset).
TEST(MsgpackRead, TypedCacheCodesReadAsTheTypedJsonRead) {
  using Map = std::map<std::string, int>;
  using Tags = std::vector<std::map<transit::Keyword, std::variant<std::string, std::set<transit::Keyword>>>>;
  auto same = [](auto expected_type, std::string_view json) {
    using T = decltype(expected_type);
    SCOPED_TRACE(json);
    std::optional<T> from_json, from_mp;
    std::string json_error = "none", mp_error = "none";
    try {
      from_json = transit::read<T>(std::string(json), Encoding::json);
    } catch (const Error& e) {
      json_error = e.what();
    }
    try {
      from_mp = transit::read<T>(transit::test::msgpack_items_of(json), Encoding::msgpack);
    } catch (const Error& e) {
      mp_error = e.what();
    }
    EXPECT_EQ(mp_error.substr(0, mp_error.find(" at byte")),
              json_error.substr(0, json_error.find(" at byte")));
    EXPECT_EQ(mp_error.substr(std::min(mp_error.size(), mp_error.find(" in $"))),
              json_error.substr(std::min(json_error.size(), json_error.find(" in $"))));
    EXPECT_EQ(from_mp, from_json);
  };
  same(Tags{}, R"([["^ ","~:name","alpha","~:tags",["~#set",["~:red"]]],["^ ","^0","beta","^1",["^2",["^3"]]]])");
  same(std::vector<Map>{}, R"([["^ ","alpha",1,"beta",2],["^ ","^1",3,"^0",4]])");
  same(std::pair<Value, Map>{}, R"([["~#point",["^ ","name",1]],["^ ","^1",2,"name",3]])");
  same(std::pair<Value, Map>{}, R"([["~#point",["^ ","name",1]],["^ ","^1",2]])");
  same(std::vector<Map>{}, R"([["^ ","alpha",1],["^ ","^5",2]])");
  same(std::vector<Map>{}, R"([["^ ","alpha",1],["^ ","^",2]])");
  same(std::vector<Map>{}, R"([["^ ","alpha",1],["^ ","^zz",2]])");
  same(std::vector<Map>{}, R"([["^ ","alpha",1],["^ ","^ ",2]])");
  same(std::vector<std::string>{}, R"(["alpha","^0","^ ","~~x","^0"])");
  same(std::string{}, R"("^0")");
  same(std::vector<Map>{}, R"([["^ ","alpha",1],["^ ","^0","x"]])");
  // The cache's wrap: after 44 * 44 keys, slot 0 names the next cacheable string.
  std::string text = R"([["^ ")";
  for (int i = 0; i < 44 * 44; ++i) text += ",\"key" + std::to_string(i) + "\"," + std::to_string(i);
  text += R"(],["^ ","later",1,"^0",2]])";
  same(std::vector<Map>{}, text);
}

// A read handler's failure names it as the input wrote the value: "~#pt" for a tagged value,
// "~x" for a scalar string of a one-character tag, and "~#x" for the same tag written as a
// tagged value; in each encoding, and after the handler was replaced.
TEST(ReadHandlerNames, ErrorsNameTheHandlerAsTheInputWroteIt) {
  transit::ReadHandlers handlers;
  const auto fails = [](const char* why) {
    return [why](const Value&) -> Value { throw std::runtime_error(why); };
  };
  handlers.add("pt", fails("first"));
  handlers.add("pt", fails("no point"));  // replaced: the name stays the tag's
  handlers.add("x", fails("no x"));
  ReadOptions options;
  options.handlers = &handlers;
  const std::vector<std::pair<Value, std::string>> cases = {
      {Value::tagged("pt", Value(std::int64_t{1})), "read handler for ~#pt failed: no point"},
      {Value::tagged("x", Value(std::int64_t{1})), "read handler for ~#x failed: no x"},
      {Value::array({Value(std::int64_t{1}), Value::tagged("pt", Value::array({}))}),
       "read handler for ~#pt failed: no point"},
  };
  for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    for (const auto& [v, want] : cases) {
      SCOPED_TRACE(transit::write(v, Encoding::json_verbose));
      try {
        (void)transit::read(transit::write(v, e), e, options);
        ADD_FAILURE() << "no error";
      } catch (const Error& err) {
        EXPECT_EQ(err.code(), Errc::bad_rep);
        EXPECT_EQ(err.detail(), want) << err.what();
      }
    }
    // A `~x` string, which no writer makes from a Value: the scalar form of tag x.
    const std::string scalar = e == Encoding::msgpack ? bytes("91 a3 7e 78 61") : "[\"~xa\"]";
    try {
      (void)transit::read(scalar, e, options);
      ADD_FAILURE() << "no error";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), Errc::bad_rep);
      EXPECT_EQ(err.detail(), "read handler for ~x failed: no x") << err.what();
    }
  }
}

// A read handler's call allocates nothing of its own: its name for errors is made when it is
// added, not per value (it is longer than std::string's inline capacity). Twice the handled
// values make hardly more allocations (the value stack and the call record grow by doubling).
TEST(ReadHandlerNames, HandledValuesAllocateNoNameEach) {
  transit::ReadHandlers handlers;
  handlers.add("a-long-point-tag", [](const Value& rep) { return rep; });
  handlers.add("x", [](const Value& rep) { return rep; });
  ReadOptions options;
  options.handlers = &handlers;
  const auto allocations = [&](std::size_t n, Encoding e) {
    std::vector<Value> items;
    for (std::size_t i = 0; i < n; ++i)
      items.push_back(Value::tagged("a-long-point-tag", Value(static_cast<std::int64_t>(i))));
    const std::string text = transit::write(Value::array(std::move(items)), e);
    g_allocations = 0;
    g_track_allocations = true;
    const Value v = transit::read(text, e, options);
    g_track_allocations = false;
    EXPECT_EQ(v.size(), n);
    EXPECT_EQ(v[n - 1], Value(static_cast<std::int64_t>(n - 1)));
    return g_allocations.load();
  };
  for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    SCOPED_TRACE(static_cast<int>(e));
    const std::size_t once = allocations(1000, e);
    const std::size_t twice = allocations(2000, e);
    EXPECT_LT(twice, once + 100) << once << " allocations for 1,000 values, " << twice << " for 2,000";
  }
  // The scalar form: 2,000 `~x` strings against 1,000.
  const auto scalars = [&](std::size_t n) {
    std::string text = "[";
    for (std::size_t i = 0; i < n; ++i) text += i ? ",\"~xa\"" : "\"~xa\"";
    text += "]";
    g_allocations = 0;
    g_track_allocations = true;
    const Value v = transit::read(text, Encoding::json, options);
    g_track_allocations = false;
    EXPECT_EQ(v.size(), n);
    return g_allocations.load();
  };
  const std::size_t once = scalars(1000);
  EXPECT_LT(scalars(2000), once + 100);
}

// A MessagePack Reader done with may be kept, on its thread, for the next one made there
// (transit::read of one small message per request then makes no reader): the next reads as a
// reader made new would, whatever the kept one read before (a pair, a cache full of codes, a
// failure, other limits, handlers, a typed read), to the same values, errors (offsets and
// paths) and offsets; two readers alive at once, a read handler's own reads, and threads
// each read their own.
TEST(MsgpackRead, AKeptReaderReadsAsANewOne) {
  namespace testing = transit::detail::testing;
  const std::string m = "92 a3 7e 23 6d 05 ";
  const std::string u = "92 a3 7e 23 75 92 01 02 ";
  const Value event = Value::map({{Value::keyword("id"), Value(12345)},
                                  {Value::keyword("user"), Value::keyword("alice")},
                                  {Value::keyword("ts"), Value::instant(1700000000000)},
                                  {Value::keyword("tags"), Value::set({Value::keyword("a"),
                                                                       Value::keyword("b")})}});
  std::vector<std::string> cases = {
      transit::write(event, Encoding::msgpack),
      transit::write(Value::array({event, event, event}), Encoding::msgpack),
      bytes("93 01 02 03"),
      bytes("92 " + m + u),
      bytes("91 " + m + "c1"),
      bytes("91 91 91 91 01"),
      bytes("93 a3 7e 3a 61 a2 5e 30 a2 5e 31"),  // a code for no entry
      bytes("92 a3 7e 3a 61 a3 7e 3a 61") + bytes("01"),  // trailing data
      bytes("a5 61 62 63 64 65"),
      bytes("c1"),
      std::string(),
  };
  transit::ReadHandlers handlers;
  handlers.add("m", [](const Value& rep) { return Value::array({Value("m"), rep}); });
  const std::vector<ReadOptions> options = transit::test::one_limit_each(handlers, 4);
  // Every case, whole and cut, under every option, one after another on this thread: each
  // read after the first finds the reader the one before it kept, when their options allow.
  const auto outcomes = [&] {
    std::vector<PairOutcome> out;
    for (const std::string& input : cases)
      for (std::size_t cut = 0; cut <= input.size(); ++cut) {
        const std::string text = input.substr(0, cut);
        for (const ReadOptions& o : options) out.push_back(read_outcome(text, o));
        // Typed reads too (a reader kept or new, read as a tape and then not kept).
        for (const ReadOptions& o : options) {
          try {
            out.push_back({Value(static_cast<std::int64_t>(
                               transit::read<std::vector<std::int64_t>>(text, Encoding::msgpack, o)
                                   .size())),
                           {}});
          } catch (const Error& e) {
            out.push_back({std::nullopt, e.what()});
          }
          out.push_back(read_outcome(text, o));
        }
      }
    return out;
  };
  transit::test::expect_kept_readers_read_as_new(outcomes, testing::set_msgpack_reader_reuse,
                                                 testing::msgpack_reader_kept);
  EXPECT_EQ(transit::read(cases[0], Encoding::msgpack), event);
  EXPECT_TRUE(testing::msgpack_reader_kept());
  // A failed read's reader, and a reader from a Source, are not kept; one that read well is,
  // once, and the next Reader takes it.
  testing::set_msgpack_reader_reuse(false);
  testing::set_msgpack_reader_reuse(true);
  EXPECT_THROW(transit::read(bytes("c1"), Encoding::msgpack), Error);
  EXPECT_FALSE(testing::msgpack_reader_kept());
  EXPECT_EQ(source_outcome(cases[0], {}).value, event);
  EXPECT_FALSE(testing::msgpack_reader_kept());
  {
    const std::string text_a = cases[0] + cases[2];
    const std::string text_b = cases[2] + cases[0];
    transit::Reader a(text_a, Encoding::msgpack);
    EXPECT_FALSE(testing::msgpack_reader_kept());
    // A second reader alive at once is made new, and the two read apart.
    transit::Reader b(text_b, Encoding::msgpack);
    EXPECT_EQ(a.next(), event);
    EXPECT_EQ(b.next(), Value::array({Value(1), Value(2), Value(3)}));
    EXPECT_EQ(a.offset(), cases[0].size());
    EXPECT_EQ(b.offset(), cases[2].size());
    EXPECT_EQ(transit::read(cases[1], Encoding::msgpack), Value::array({event, event, event}));
    EXPECT_TRUE(testing::msgpack_reader_kept());  // the read's own, kept
    EXPECT_EQ(b.next(), event);
    EXPECT_EQ(a.next(), Value::array({Value(1), Value(2), Value(3)}));
    EXPECT_EQ(a.next(), std::nullopt);
    EXPECT_EQ(b.next(), std::nullopt);
    EXPECT_EQ(a.offset(), cases[0].size() + cases[2].size());
  }
  EXPECT_TRUE(testing::msgpack_reader_kept());
  // A read handler that reads (with no handlers, so with a kept reader) inside a read.
  transit::ReadHandlers nested;
  nested.add("point", [&](const Value& rep) {
    return transit::read(transit::write(Value::array({rep, event}), Encoding::msgpack),
                         Encoding::msgpack);
  });
  ReadOptions with_nested;
  with_nested.handlers = &nested;
  const std::string outer = transit::write(
      Value::array({Value::tagged("point", Value(1)), event, Value::tagged("point", Value(2))}),
      Encoding::msgpack);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(transit::read(outer, Encoding::msgpack, with_nested),
              Value::array({Value::array({Value(1), event}), event,
                            Value::array({Value(2), event})}));
  // Threads: each its own.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        if (transit::read(cases[i % 3], Encoding::msgpack) !=
            transit::read(cases[i % 3], Encoding::msgpack, options[i % 3 == 2 ? 1 : 0]))
          ++wrong;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}
