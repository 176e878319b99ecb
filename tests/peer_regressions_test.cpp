// SPDX-License-Identifier: Apache-2.0
// What runs against transit-java, transit-python and transit-ruby found (issue 9): text as those
// peers write it, which must read as they read it, and values that must not lose elements.
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cache.h"
#include "support/exemplars.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Kind;
using transit::kw;
using transit::Value;

constexpr Encoding kEncodings[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

// ---- integers and big integers -------------------------------------------------------------------

// transit-java keeps Long and BigInteger apart, so a set or map it writes may hold 5 and 5N side
// by side; reading must keep both, in every encoding.
TEST(PeerRegressions, SetsAndMapsKeepIntegersAndBigIntegersApart) {
  EXPECT_EQ(transit::read(R"(["~#set",["~n5",5]])").size(), 2u);
  const Value map = transit::read(R"(["^ ","~n2","big","~i2","int"])");
  ASSERT_EQ(map.size(), 2u);
  EXPECT_EQ(*map.find(Value::big_integer("2")), Value("big"));
  EXPECT_EQ(*map.find(2), Value("int"));

  const Value set = Value::set({Value::big_integer("5"), 5});
  const Value keys = Value::map({{Value::big_integer("2"), "big"}, {2, "int"}});
  ASSERT_EQ(set.size(), 2u);
  ASSERT_EQ(keys.size(), 2u);
  for (const Encoding enc : kEncodings) {
    SCOPED_TRACE(static_cast<int>(enc));
    const Value set_back = transit::read(transit::write(set, enc), enc);
    EXPECT_EQ(set_back, set);
    ASSERT_EQ(set_back.size(), 2u);
    EXPECT_EQ(set_back[0].kind(), Kind::big_integer);
    EXPECT_EQ(set_back[1].kind(), Kind::integer);
    const Value keys_back = transit::read(transit::write(keys, enc), enc);
    EXPECT_EQ(keys_back, keys);
    EXPECT_EQ(*keys_back.find(2), Value("int"));
  }
}

// ---- cached JSON with JSON objects inside, as transit-python writes it ---------------------------

// A JSON string at `text[i]` (the opening quote), decoded; `i` ends past the closing quote.
std::string decode_json_string(std::string_view text, std::size_t& i) {
  std::string s;
  auto append_utf8 = [&s](std::uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  auto hex4 = [&text](std::size_t at) {
    std::uint32_t v = 0;
    std::from_chars(text.data() + at, text.data() + at + 4, v, 16);
    return v;
  };
  for (++i; text[i] != '"'; ++i) {
    if (text[i] != '\\') {
      s += text[i];
      continue;
    }
    const char e = text[++i];
    switch (e) {
      case 'b': s += '\b'; break;
      case 'f': s += '\f'; break;
      case 'n': s += '\n'; break;
      case 'r': s += '\r'; break;
      case 't': s += '\t'; break;
      case 'u': {
        std::uint32_t cp = hex4(i + 1);
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && text.substr(i + 1, 2) == "\\u") {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(i + 3) - 0xDC00);
          i += 6;
        }
        append_utf8(cp);
        break;
      }
      default: s += e;
    }
  }
  ++i;
  return s;
}

// Rewrites Transit JSON as transit-python writes it: each cmap (with `all_tags`, each tagged
// value) as the one-entry JSON object {"~#tag": rep} instead of the array ["~#tag", rep]. Only
// brackets and one comma change, and no cache slot moves: a tag is cacheable as the first item
// of an array and as a map key alike. Follows the cache to know which codes name tags.
std::string as_python_writes(std::string_view json, bool all_tags) {
  struct Frame {
    std::size_t open;
    std::size_t items = 0;
    bool map_array = false;  // ["^ ", k, v ...]
    bool rewrite = false;
    std::size_t comma = std::string_view::npos;
  };
  std::string out(json);
  std::vector<Frame> frames;
  std::vector<std::pair<std::string, bool>> slots;  // text, is a tag
  std::size_t next_slot = 0;
  auto add_slot = [&](const std::string& s, bool is_tag) {
    if (next_slot == transit::detail::kCacheSize) next_slot = 0;
    if (next_slot == slots.size()) slots.emplace_back();
    slots[next_slot++] = {s, is_tag};
  };
  auto on_string = [&](const std::string& s) {
    if (frames.empty()) return;
    Frame& f = frames.back();
    const bool first = f.items == 0;
    if (first && s == "^ ") {
      f.map_array = true;
      return;
    }
    std::string tag;
    if (s.size() > 1 && s[0] == '^') {
      const std::size_t d1 = static_cast<std::size_t>(s[1] - '0');
      const std::size_t slot = s.size() == 2 ? d1 : d1 * transit::detail::kCacheDigits +
                                                        static_cast<std::size_t>(s[2] - '0');
      if (slots.at(slot).second) tag = slots[slot].first.substr(2);
    } else {
      const bool key = f.map_array && f.items % 2 == 1;
      const bool is_tag = s.rfind("~#", 0) == 0;
      if (transit::detail::is_cacheable(s, key)) add_slot(s, is_tag);
      if (is_tag) tag = s.substr(2);
    }
    if (first && !tag.empty() && (all_tags || tag == "cmap")) f.rewrite = true;
  };
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (c == '[') {
      frames.push_back({i});
      ++i;
      continue;
    }
    if (c == ',') {
      if (!frames.empty() && frames.back().items == 1) frames.back().comma = i;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      ++i;
      continue;
    }
    if (c == ']') {
      const Frame f = frames.back();
      frames.pop_back();
      if (f.rewrite) {
        out[f.open] = '{';
        out[f.comma] = ':';
        out[i] = '}';
      }
      ++i;
    } else if (c == '"') {
      on_string(decode_json_string(json, i));
    } else {
      while (i < json.size() && json[i] != ',' && json[i] != ']' && json[i] != ' ') ++i;
    }
    if (!frames.empty()) ++frames.back().items;
  }
  return out;
}

TEST(PeerRegressions, PythonStyleRewriteMovesNoCacheSlot) {
  EXPECT_EQ(as_python_writes(R"([["~#cmap",[["x"],"~:victim"]],"^1",["^0",[]]])", false),
            R"([{"~#cmap":[["x"],"~:victim"]},"^1",{"^0":[]}])");
  EXPECT_EQ(as_python_writes(R"([["~#set",[1]],["~#cmap",[]]])", false),
            R"([["~#set",[1]],{"~#cmap":[]}])");
  EXPECT_EQ(as_python_writes(R"([["~#set",[1]],["^0",[2]]])", true),
            R"([{"~#set":[1]},{"^0":[2]}])");
}

// Every exemplar, as transit-clj wrote it, rewritten as transit-python writes cmaps (and, in a
// second pass, every tagged value) as JSON objects inside cached JSON: it reads as the original.
TEST(PeerRegressions, ExemplarsWrittenAsTransitPythonWritesThemReadTheSame) {
  if (!transit::test::exemplars_present()) GTEST_SKIP() << "no exemplars at " << transit::test::exemplar_dir();
  int rewritten_cmaps = 0, rewritten_tags = 0, cases = 0;
  for (const std::string& name : transit::test::exemplar_cases(".json", ".verbose.json")) {
    SCOPED_TRACE(name);
    const std::string original = transit::test::slurp(transit::test::exemplar_dir() / (name + ".json"));
    const Value expected = transit::read(original);
    for (const bool all_tags : {false, true}) {
      const std::string python = as_python_writes(original, all_tags);
      if (python != original) ++(all_tags ? rewritten_tags : rewritten_cmaps);
      EXPECT_EQ(transit::read(python), expected) << python;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 67);
  // The rewrite did something: the cmap exemplars, and every exemplar with a tagged value.
  EXPECT_GE(rewritten_cmaps, 3);
  EXPECT_GE(rewritten_tags, 20);
}

// ---- doubles -------------------------------------------------------------------------------------

// Significant digits of a JSON number's text: no sign, point, exponent, leading or trailing zeros.
std::size_t significant_digits(std::string_view number) {
  number = number.substr(0, number.find_first_of("eE"));
  std::string digits;
  for (const char c : number)
    if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits += c;
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return digits.size();
}

void collect_doubles(const Value& v, std::vector<double>& out) {
  switch (v.kind()) {
    case Kind::floating:
      out.push_back(v.as_double());
      break;
    case Kind::array:
    case Kind::list:
    case Kind::set:
      for (const Value& item : v.items()) collect_doubles(item, out);
      break;
    case Kind::map:
      for (const auto& [key, item] : v.entries()) {
        collect_doubles(key, out);
        collect_doubles(item, out);
      }
      break;
    default:
      break;
  }
}

// A double is written with no more significant digits than the shortest round trip: readers that
// guess a BigDecimal from a long run of digits (transit-ruby on Oj) read -1152921504606846976.0
// as one. Checked on every double of the exemplars and on large magnitudes.
TEST(PeerRegressions, DoublesCarryNoMoreDigitsThanTheShortestRoundTrip) {
  std::vector<double> doubles = {-1152921504606846976.0, 123456789012345683968.0, 9007199254740993.0,
                                 1e15, 1e16 + 2, 4e11, 2.0, -0.0, 1e300, 5e-324, 0.1};
  // The exemplars' doubles too where they are (the list above alone where they are not, as a
  // tree without ../shared: this test then checks those and does not fail for the folder).
  if (transit::test::exemplars_present()) {
    for (const std::string& name : transit::test::exemplar_cases(".json", ".verbose.json"))
      collect_doubles(transit::read(transit::test::slurp(transit::test::exemplar_dir() / (name + ".json"))),
                      doubles);
    ASSERT_GT(doubles.size(), 20u);
  }
  for (const double d : doubles) {
    const std::string text = transit::write(Value::array({d}), Encoding::json);
    SCOPED_TRACE(text);
    const std::string_view number = std::string_view(text).substr(1, text.size() - 2);
    char shortest[32];
    const auto r = std::to_chars(shortest, shortest + sizeof shortest, d, std::chars_format::scientific);
    EXPECT_LE(significant_digits(number), significant_digits({shortest, r.ptr}));
    const Value back = transit::read(text);
    ASSERT_EQ(back[0].kind(), Kind::floating);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back[0].as_double()), std::bit_cast<std::uint64_t>(d));
  }
  EXPECT_EQ(transit::write(Value::array({-1152921504606846976.0}), Encoding::json),
            "[-1.152921504606847e+18]");
}

// ---- instants --------------------------------------------------------------------------------------

// transit-java writes `~t` with SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"), which prints
// a year past 9999 with all its digits and no sign: a Java program's `new Date(Long.MAX_VALUE)`
// (a common "never") is `~t292278994-08-17T07:12:55.807Z`. transit-js writes a year before 1000
// unpadded. Both were refused (bad_rep) until round twenty-nine; each reads as the instant it
// names, as the same instant written here reads.
TEST(PeerRegressions, VerboseDatesWithUnsignedYearsOfAnyWidthRead) {
  const struct {
    const char* text;
    std::int64_t ms;
  } cases[] = {
      {R"({"~#'":"~t292278994-08-17T07:12:55.807Z"})", INT64_MAX},
      {R"({"~#'":"~t10000-01-01T00:00:00.000Z"})", 253402300800000},
      {R"({"~#'":"~t1-01-01T00:00:00.000Z"})", -62135596800000},
      {R"({"~#'":"~t999-12-31T23:59:59.999Z"})", -30610224000001},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const Value v = transit::read(c.text, Encoding::json_verbose);
    EXPECT_EQ(v, Value::instant(c.ms));
    EXPECT_EQ(transit::read(transit::write(v, Encoding::json_verbose), Encoding::json_verbose), v);
  }
}

// transit-js writes a JSON-Verbose year before 0 as JavaScript's getUTCFullYear() prints it,
// a `-` and no padding: `~t-1-12-31T23:59:59.999Z` for the last millisecond of 2 BC (ISO
// 8601's year -1). It was refused (bad_rep) until round thirty-five, where the same year from
// transit-java (`-0001`) read; map keys too (transit-js writes a date key the same way).
TEST(PeerRegressions, VerboseDatesBeforeYear0AsTransitJsWritesThemRead) {
  const struct {
    const char* date;
    std::int64_t ms;
  } cases[] = {
      {"-1-12-31T23:59:59.999Z", -62167219200001},
      {"-1-01-01T00:00:00.000Z", -62198755200000},
      {"-12-06-15T12:30:00.250Z", -62531522999750},
      {"-999-12-31T23:59:59.999Z", -93661056000001},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.date);
    const Value want = Value::instant(c.ms);
    const std::string padded = transit::write(want, Encoding::json_verbose);
    const std::string text = std::string(R"({"~#'":"~t)") + c.date + "\"}";
    EXPECT_EQ(transit::read(text, Encoding::json_verbose), want) << padded;
    const Value keyed =
        transit::read(std::string(R"({"~t)") + c.date + R"(":1})", Encoding::json_verbose);
    EXPECT_EQ(keyed, Value::map({{want, 1}}));
  }
  // A `+` still needs ISO 8601's four digits or more: nobody writes `+12-...`.
  EXPECT_THROW(transit::read(R"({"~#'":"~t+12-01-01T00:00:00.000Z"})", Encoding::json_verbose),
               transit::Error);
}

// ---- streams -----------------------------------------------------------------------------------

// transit-js reads one value per reader.read(text), so a stream for it is framed by newlines
// (docs/wire.md, "Streams"); that needs no raw newline inside a value's text. Control characters
// in strings, keys, symbols, tags' reps and cached keys are escaped in both JSON encodings, and
// the framed stream reads back value by value, whole and from a source a byte at a time.
TEST(PeerRegressions, JsonTextHoldsNoRawNewlineSoNewlinesFrameValues) {
  const std::string nasty = "a\nb\rc\u2028d\x01\x1f\te";
  const std::vector<Value> values = {
      Value(nasty),
      Value::map({{nasty, transit::sym(nasty)}, {kw(nasty), Value::tagged("x", nasty)}}),
      Value::array({Value::map({{nasty, 1}}), Value::map({{nasty, 2}})}),  // a cached key
      Value::map({{Value::array({nasty}), Value::uri(nasty)}}),
  };
  for (const Encoding enc : {Encoding::json, Encoding::json_verbose}) {
    SCOPED_TRACE(static_cast<int>(enc));
    std::string framed;
    for (const Value& v : values) {
      const std::string text = transit::write(v, enc);
      EXPECT_EQ(text.find('\n'), std::string::npos) << text;
      framed += text + "\n";
    }
    EXPECT_EQ(transit::read_all(framed, enc), values);
    std::istringstream in(framed);
    transit::IstreamSource source(in);
    transit::ReadOptions options;
    options.chunk_size = 1;
    transit::Reader reader(source, enc, options);
    std::vector<Value> streamed;
    while (auto v = reader.next()) streamed.push_back(std::move(*v));
    EXPECT_EQ(streamed, values);
  }
}

// ---- signed number texts -------------------------------------------------------------------------

// Every peer's reader takes a `+` before the digits of `~i`, `~n`, `~d` and `~m` text:
// transit-java's Long.parseLong, BigInteger(String) and Double.parseDouble, transit-js's
// Long.fromString, parseFloat and parseInt. transit-js writes `t.bigInt("+5")` as `~n+5`, the
// text a program gave it. They were refused (bad_rep, "not an integer") until round
// thirty-five, while `~f+5` read; now each reads as the number it names, as a value, a map
// key and in a typed read, in every encoding.
TEST(PeerRegressions, SignedNumberTextsReadAsEveryPeerReadsThem) {
  const struct {
    const char* text;
    Value want;
  } cases[] = {
      {"~i+5", Value(5)},
      {"~i+0", Value(0)},
      {"~i+9223372036854775807", Value(INT64_MAX)},
      {"~i+9223372036854775808", Value::big_integer("9223372036854775808")},
      {"~n+5", Value::big_integer("5")},
      {"~n+123456789012345678901234567890", Value::big_integer("123456789012345678901234567890")},
      {"~d+1.5", Value(1.5)},
      {"~d+.5", Value(0.5)},
      {"~m+1000", Value::instant(1000)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    for (const Encoding enc : kEncodings) {
      SCOPED_TRACE(static_cast<int>(enc));
      // The text as a peer's writer puts it on the wire: a value and a map key.
      const std::string t = c.text;
      std::string wire;
      if (enc == Encoding::json) wire = R"([")" + t + R"(",["^ ",")" + t + R"(",1]])";
      if (enc == Encoding::json_verbose) wire = R"([")" + t + R"(",{")" + t + R"(":1}])";
      if (enc == Encoding::msgpack) {
        const std::string str = "\xd9" + std::string(1, static_cast<char>(t.size())) + t;  // str 8
        wire = "\x92" + str + "\x81" + str + "\x01";
      }
      const Value back = transit::read(wire, enc);
      EXPECT_EQ(back, Value::array({c.want, Value::map({{c.want, 1}})})) << transit::to_edn(back);
    }
  }
  EXPECT_EQ(transit::read<std::int64_t>(R"(["~#'","~i+42"])"), 42);
  EXPECT_EQ(transit::read<double>(R"(["~#'","~d+2.5"])"), 2.5);
  for (const char* bad : {"~i+", "~i+-5", "~i++5", "~i-+5", "~n+", "~n+-5", "~d+", "~d+-1.5",
                          "~d++1", "~m+", "~m+-5", "~i +5"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(transit::read(std::string(R"(["~#'",")") + bad + "\"]"), transit::Error);
  }
}

}  // namespace
