// SPDX-License-Identifier: Apache-2.0
// A seeded generator of Values of the kinds transit-js represents, for the property test that
// sends thousands of them through transit-js (interop_property_test.cpp). What comes back is
// compared with `as_transit_js_sees_it` and `js_type` (peer.h), so the generator may make what
// transit-js changes in a known way (integral doubles, characters); it leaves out what transit-js
// or JavaScript loses or cannot write, each pinned in a JsLimits test:
//   - numbers with a fraction, and integral doubles from 2^63 on, as map keys: transit-js writes
//     every number key as `~i` (`~i1.5`, `~i100000000000000000000`), not an integer we read as
//     the key we wrote (JsLimits.DoubleMapKeys).
//   - one-character tags whose rep is not a string: transit-js cannot write them
//     (JsLimits.OneCharacterTagsNeedStringReps).
//   - `__proto__` as a map key: transit-js's JSON-Verbose writer drops the entry
//     (JsLimits.ProtoKey).
//   - maps of more than 32 entries with two keys of the same transit.hash (`:abcd` and
//     `"abcd"`, `"Aa"` and `"BB"`, 97 and `"a"`): transit-js reads them into its hashed map,
//     whose key iterator then throws when the map is written (JsLimits.HashedMapKeysThatCollide).
//   - instants before the year 1000 or from the year 10000 on: in JSON-Verbose transit-js
//     reads no date from 10000 on, nor its own unpadded years before 1000, which we read
//     (JsLimits.VerboseDatesBeforeYear1000, JsLimits.VerboseDatesAfterYear9999), and every
//     value here goes back in JSON-Verbose too.
//   - two members of a set, or keys of a map, that transit-js cannot tell apart (2 and 2.0, "x"
//     and the character x, an empty map and empty bytes, an empty array or the instant 0:
//     JsLimits.EmptyMapEqualsEmptyBytesAndArrays):
//     transit-js would keep one, so the generator keeps the first.
// Unknown tags, sets, lists, composite keys (cmaps), strings that begin with `~`, `^`, `` ` `` or
// are `^ `, unicode and empty strings are all in; now and then a value holds thousands of
// distinct cacheable strings (map keys longer than 3, keywords, symbols, tags), so that both
// caches wrap within it, with the same keys again at many depths, or nests a couple of hundred
// levels deep.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "peer.h"
#include "transit/transit.h"

namespace transit::interop {

/// transit-js's hash (transit.hash) of a string: 31 * h + each UTF-16 code unit, modulo 2^32.
inline std::uint64_t js_string_hash(std::string_view utf8_text) {
  std::uint64_t h = 0;
  const auto unit = [&h](std::uint32_t u) { h = (31 * h + u) % 0x100000000ull; };
  for (std::size_t i = 0; i < utf8_text.size();) {
    const auto c = static_cast<unsigned char>(utf8_text[i]);
    const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    std::uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (std::size_t j = 1; j < n && i + j < utf8_text.size(); ++j)
      cp = cp << 6 | (static_cast<unsigned char>(utf8_text[i + j]) & 0x3F);
    if (cp >= 0x10000) {
      unit(0xD800 + ((cp - 0x10000) >> 10));
      unit(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      unit(cp);
    }
    i += n;
  }
  return h;
}

class JsValueGen {
 public:
  explicit JsValueGen(std::uint64_t seed) : rng_(seed) {}

  /// The next top-level value: mostly small and mixed, now and then a cache-wrapping or a
  /// deeply nested one.
  Value next() {
    const std::size_t r = below(100);
    if (r == 0) return cache_wrapping();
    if (r == 1) return deep();
    return value(static_cast<int>(below(5)));
  }

  std::size_t below(std::size_t n) { return n <= 1 ? 0 : static_cast<std::size_t>(rng_() % n); }
  bool coin() { return below(2) == 1; }

  /// Strings a writer must escape or may cache, or a reader could take for something else, and
  /// the names of Object.prototype's properties (transit-js keeps its caches in plain objects).
  static constexpr std::string_view kStrings[] = {
      "", "a", "ab", "abc", "abcd", "name", "id", "~", "~tilde", "~~", "^", "^caret", "^ ", "^0",
      "^ZZ", "`", "`backquote", "~#notatag", "~:notakeyword", "~i5", "~m0",
      "tab\tnewline\n\"quote\"\\", "\x01\x1f\b\f\r\x7f", "h\u00e9llo w\u00f6rld", "\u4e2d\u6587",
      "\U0001F600 \U0001D11E", "\u2028\u2029", "constructor", "toString", "hasOwnProperty",
      "valueOf", "0", "42", "-1", " ", "null", "true", "long-enough-to-cache", "ns/name", "/"};
  static constexpr std::string_view kNames[] = {
      "a", "id", "name", "tags", "my.ns/kw", "a/b", "k\u00e9", "\U0001F600", "with space",
      "constructor", "~", "^", "long-keyword-name"};
  // Tags no reader knows: transit-js keeps a TaggedValue, and so do we.
  static constexpr std::string_view kTags[] = {"point", "gen/thing", "x-y", "person", "ns/tag"};
  static constexpr std::string_view kOneCharTags[] = {"X", "Q", "W", "g", "h", "y"};

 private:
  template <std::size_t N>
  std::string pick(const std::string_view (&from)[N]) {
    return std::string(from[below(N)]);
  }

  void append_utf8(std::string& s, char32_t c) { s += utf8(c); }

  std::string chars(std::size_t n) {
    std::string s;
    for (; n > 0; --n) {
      switch (below(7)) {
        case 0:
          s += static_cast<char>(1 + below(31));  // control characters
          break;
        case 1:
          s += "~^` \"\\/\x7f"[below(8)];
          break;
        case 2:
          append_utf8(s, static_cast<char32_t>(0xA0 + below(0x700)));
          break;
        case 3:
          append_utf8(s, static_cast<char32_t>(0x3000 + below(0x6000)));
          break;
        case 4:
          append_utf8(s, static_cast<char32_t>(0x10000 + below(0x10000)));  // a surrogate pair
          break;
        default:
          s += static_cast<char>(0x20 + below(0x5F));
          break;
      }
    }
    return s;
  }

  std::string string() {
    switch (below(7)) {
      case 0:
      case 1:
      case 2:
        return pick(kStrings);
      case 3:
        return chars(below(12));
      case 4:
        return below(4) == 0 ? std::string("^ ") : std::string(1, "~^`"[below(3)]) + chars(below(4));
      case 5:
        return "key-" + std::to_string(below(3000));  // cacheable, repeated across values
      default:
        return chars(std::size_t{64} << below(6));
    }
  }

  std::string name() { return coin() ? pick(kNames) : string(); }

  std::string digits(std::size_t most) {
    std::string s(1, static_cast<char>('1' + below(9)));
    for (std::size_t n = below(most); n > 0; --n) s += static_cast<char>('0' + below(10));
    return s;
  }

  std::int64_t integer() {
    constexpr std::int64_t k53 = std::int64_t{1} << 53;
    switch (below(6)) {
      case 0:
        return static_cast<std::int64_t>(below(10)) - 5;
      case 1:
        return (coin() ? k53 : -k53) + static_cast<std::int64_t>(below(5)) - 2;
      case 2:
        return coin() ? std::numeric_limits<std::int64_t>::max()
                      : std::numeric_limits<std::int64_t>::min();
      case 3:
        return static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(k53)) *
               (coin() ? 1 : -1);
      default:
        return static_cast<std::int64_t>(rng_());
    }
  }

  double floating() {
    switch (below(8)) {
      case 0: {
        constexpr double kEdges[] = {0.1,     0.5,  -2.5e-10, 5e-324, 1.7976931348623157e308,
                                     2.2250738585072014e-308, 1e21, -1e300, 1.5e22};
        return kEdges[below(std::size(kEdges))];
      }
      case 1: {
        // Integral doubles: transit-js gives them back as integers (as_transit_js_sees_it).
        constexpr double kIntegral[] = {-0.0, 0.0, 2.0, -3.0, 9007199254740992.0,
                                        1152921504606846976.0, 1e20};
        return kIntegral[below(std::size(kIntegral))];
      }
      case 2: {
        constexpr double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity()};
        return kSpecial[below(std::size(kSpecial))];
      }
      default: {
        std::uniform_real_distribution<double> unit(-0.5, 0.5);
        const int exponent = static_cast<int>(below(40)) - 20;
        return unit(rng_) * std::pow(10.0, exponent);
      }
    }
  }

  std::string big_decimal() {
    std::string s = coin() ? "-" : "";
    s += coin() ? "0" : digits(25);
    if (coin()) s += "." + digits(10) + (coin() ? "00" : "");
    if (below(4) == 0) s += std::string(coin() ? "E+" : "E-") + std::to_string(below(400));
    return s;
  }

  std::int64_t millis() {
    constexpr std::int64_t kYear1000 = -30610224000000;  // 1000-01-01T00:00:00.000Z
    constexpr std::int64_t kYear10000 = 253402300800000;  // 10000-01-01T00:00:00.000Z
    switch (below(4)) {
      case 0: {
        constexpr std::int64_t kEdges[] = {0, -1, 1700000000123, kYear1000, kYear10000 - 1};
        return kEdges[below(std::size(kEdges))];
      }
      default:
        return kYear1000 + static_cast<std::int64_t>(
                               rng_() % static_cast<std::uint64_t>(kYear10000 - kYear1000));
    }
  }

  Value bytes() {
    std::string b(below(4) == 0 ? 0 : below(40), '\0');
    for (char& c : b) c = static_cast<char>(below(256));
    return Value::bytes(b);
  }

  Value scalar() {
    switch (below(17)) {
      case 0:
        return Value();
      case 1:
        return Value::boolean(coin());
      case 2:
      case 3:
        return Value::integer(integer());
      case 4:
        return Value::floating(floating());
      case 5:
        return Value::big_integer((coin() ? "-" : "") + digits(40));
      case 6:
        return Value::big_decimal(big_decimal());
      case 7:
      case 8:
        return Value::string(string());
      case 9:
        return Value::keyword(name());
      case 10:
        return Value::symbol(name());
      case 11: {
        const char32_t c = static_cast<char32_t>(coin() ? 0x20 + below(0x5F) : 0xA0 + below(0x10000));
        return Value::character(c >= 0xD800 && c < 0xE000 ? U'x' : c);
      }
      case 12:
        return Value::uuid({rng_(), rng_()});
      case 13:
        return Value::instant(millis());
      case 14:
        return Value::uri("http://example.com/" + string());
      default:
        return bytes();
    }
  }

  /// A key transit-js gives back as the key we wrote (see the header).
  Value key(int depth) {
    for (;;) {
      Value k = below(6) == 0 && depth > 0 ? value(depth - 1) : scalar();
      if (k.is(Kind::floating) && !(as_transit_js_sees_it(k).is(Kind::integer))) continue;
      if (k.is(Kind::string) && k.as_string() == "__proto__") continue;
      return k;
    }
  }

  std::vector<Value> items(int depth, std::size_t most) {
    std::vector<Value> out;
    for (std::size_t n = depth <= 0 ? 0 : below(most); n > 0; --n) out.push_back(value(depth - 1));
    return out;
  }

  /// What transit-js tells a set member or map key apart by: the value as it comes back, but
  /// empty bytes, an empty array and the instant 0 are an empty map (transit.equals holds an
  /// empty map equal to any object with no keys of its own, and all four hash to 0;
  /// JsLimits.EmptyMapEqualsEmptyBytesAndArrays).
  static Value js_identity(const Value& v) {
    if ((v.is(Kind::bytes) && v.as_bytes().empty()) || (v.is(Kind::array) && v.size() == 0) ||
        (v.is(Kind::instant) && v.as_instant() == 0))
      return Value::map({});
    return as_transit_js_sees_it(v);
  }

  /// Set members that transit-js tells apart, as they come back.
  static std::vector<Value> distinct(std::vector<Value> in) {
    std::vector<Value> out, seen;
    for (Value& v : in) {
      Value js = js_identity(v);
      if (std::find(seen.begin(), seen.end(), js) != seen.end()) continue;
      seen.push_back(std::move(js));
      out.push_back(std::move(v));
    }
    return out;
  }

  enum class Keys { keywords, strings, any };

  /// A map of up to `most` entries; one of more than 6 has scalar values (sizes stay bounded)
  /// and keys of distinct transit.hash codes (JsLimits.HashedMapKeysThatCollide).
  Value map(int depth, std::size_t most, Keys keys) {
    std::vector<Entry> out;
    std::vector<Value> seen;
    std::set<std::uint64_t> hashes;
    for (std::size_t n = depth <= 0 ? 0 : below(most); n > 0; --n) {
      Value k = keys == Keys::keywords ? Value::keyword(name())
                : keys == Keys::strings ? Value::string(string())
                                        : key(most > 6 ? 0 : depth);
      if (k.is(Kind::string) && k.as_string() == "__proto__") continue;
      Value js = js_identity(k);
      if (std::find(seen.begin(), seen.end(), js) != seen.end()) continue;
      if (most > 6) {
        // Only keys whose transit.hash is known here: strings, keywords, symbols, integers
        // within +-(2^53 - 1) (their own hash).
        std::uint64_t h = 0;
        if (k.is(Kind::string) || k.is(Kind::keyword) || k.is(Kind::symbol))
          h = js_string_hash(k.as_string());
        else if (js.is(Kind::integer) && js.as_int() >= 0 && js.as_int() <= kMaxSafe)
          h = static_cast<std::uint64_t>(js.as_int());
        else
          continue;
        if (!hashes.insert(h).second) continue;
      }
      seen.push_back(std::move(js));
      out.emplace_back(std::move(k), most > 6 ? scalar() : value(depth - 1));
    }
    return Value::map(std::move(out));
  }

  Value tagged(int depth) {
    if (coin()) return Value::tagged(pick(kOneCharTags), Value::string(string()));
    return Value::tagged(coin() ? pick(kTags) : "tag-" + std::to_string(below(3000)),
                         value(depth - 1));
  }

  Value value(int depth) {
    switch (depth <= 0 ? 0 : below(14)) {
      case 6:
        return Value::array(items(depth, 6));
      case 7:
        return Value::list(items(depth, 5));
      case 8:
        return Value::set(distinct(items(depth, 6)));
      case 9:
        return map(depth, 6, Keys::keywords);
      case 10:
        return map(depth, 6, Keys::any);
      case 11:
        return map(depth, below(8) == 0 ? 60 : 6, Keys::strings);
      case 12:
        return tagged(depth);
      case 13:
        if (coin())
          return Value::link(Value::map({{"href", Value::uri("http://example.com/" +
                                                            std::to_string(below(100)))},
                                         {"rel", string()},
                                         {"render", coin() ? "link" : "image"}}));
        return map(depth, 40, Keys::any);  // large: transit-js's hashed map
      default:
        return scalar();
    }
  }

  /// Thousands of distinct cacheable strings in one value, so that both caches wrap, with the
  /// same keys again at other depths and in composite keys.
  Value cache_wrapping() {
    const std::size_t n = 2000 + below(1000);
    std::vector<Value> out;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string k = "field-" + std::to_string(i);
      switch (below(6)) {
        case 0:
          out.push_back(Value::keyword(k));
          break;
        case 1:
          out.push_back(Value::symbol(k));
          break;
        case 2:
          out.push_back(Value::tagged("tag-" + std::to_string(i), Value::integer(
                                                                      static_cast<std::int64_t>(i))));
          break;
        case 3:
          out.push_back(Value::map({{k, static_cast<std::int64_t>(i)},
                                    {Value::keyword("kw-" + std::to_string(i)),
                                     Value::map({{k, Value::string(pick(kStrings))}})}}));
          break;
        case 4:
          out.push_back(Value::map({{Value::array({Value::keyword(k), Value::string(k)}), k},
                                    {Value::keyword(k), Value::set({Value::symbol(k)})}}));
          break;
        default:
          out.push_back(Value::map(
              {{Value::keyword(k),
                Value::array({Value::keyword(k),
                              Value::map({{"field-" + std::to_string(below(n)),
                                           static_cast<std::int64_t>(i)}})})}}));
          break;
      }
    }
    return Value::array(std::move(out));
  }

  /// Nested 50 to 200 levels deep: below both readers' limits (ours is 512 levels).
  Value deep() {
    Value v = scalar();
    if (v.is(Kind::floating)) v = Value::array({std::move(v)});  // it may become a map key
    for (std::size_t n = 50 + below(150); n > 0; --n) {
      switch (below(6)) {
        case 0:
          v = Value::array({std::move(v), scalar()});
          break;
        case 1:
          v = Value::list({std::move(v)});
          break;
        case 2:
          v = Value::set(distinct({std::move(v), Value::integer(1)}));
          break;
        case 3:
          v = Value::map({{Value::keyword(name()), std::move(v)}});
          break;
        case 4:
          v = Value::map({{std::move(v), "cmap"}});
          break;
        default:
          v = Value::tagged(pick(kTags), std::move(v));
          break;
      }
    }
    return v;
  }

  std::mt19937_64 rng_;
};

}  // namespace transit::interop
