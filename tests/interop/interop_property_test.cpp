// SPDX-License-Identifier: Apache-2.0
// Property tests through transit-js, in JSON and JSON-Verbose, thousands of generated values at a
// time, each direction in one node process per encoding (interop_test.cpp checks a hand-written
// list the same ways):
//
// WeWriteTransitJsReadsAndWritesBack: values from JsValueGen (js_gen.h: every kind transit-js
// represents, strings that look like escapes or cache codes, unknown tags, cmaps, sets and lists,
// values that wrap both caches and values nested 200 deep) are written by us, read by transit-js,
// which reports how it typed each part, and written back by it in JSON and in JSON-Verbose; we
// read both. The types must be `js_type`'s, the values `as_transit_js_sees_it`'s, and where
// transit-js holds the value exactly and writes it in our encoding, the bytes ours (same cache
// codes in the same places), but for JSON-Verbose maps with keys like "0" or "42", which a
// JavaScript object puts first.
//
// TransitJsWritesWeReadAndWriteBack: peer.js's seeded generator makes transit-js values of its
// own types (goog.math.Long, hashed maps of more than 32 entries, plain objects, links ...) and
// writes them; we read each (typed as transit-js typed it: `js_type`), must write the very bytes
// back, and write it in both encodings; transit-js makes the same values again from the seed and
// checks with transit.equals that it reads ours as its own.
//
// TypedValuesThroughTransitJs: values of the typed catalogue (tests/support/typed_gen.h) whose
// types transit-js holds exactly (no doubles, whose -0.0 and 2.0 come back 0 and 2; no Values;
// no time points beyond JavaScript's dates) are written by us, written back by transit-js, and
// read with read<T>, equal to what we wrote.
//
// Seeds are fixed, so CI runs the same values every time; for a soak run set
// TRANSIT_INTEROP_SEED (any number) and TRANSIT_INTEROP_COUNT (values per test and encoding,
// 1000 by default), e.g.
//   TRANSIT_INTEROP_SEED=$RANDOM TRANSIT_INTEROP_COUNT=20000
//     build/tests/interop/transit_interop_test --gtest_filter='*InteropProperty*'
// A failure names the seed, the value's index, the value and both texts. What transit-js or
// JavaScript cannot do is left out of both generators, each with a JsLimits test
// (interop_test.cpp) that pins it.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "js_gen.h"
#include "peer.h"
#include "support/typed_gen.h"
#include "transit/transit.h"

namespace transit {
namespace {

using namespace transit::interop;

struct Config {
  std::uint64_t seed;
  std::size_t count;
  std::string rerun;  // the environment that makes the same values again
};

// The fixed seed, or TRANSIT_INTEROP_SEED mixed with it (each test gets its own values).
Config config(std::uint64_t fixed) {
  Config c{fixed, 1000, ""};
  if (const char* s = std::getenv("TRANSIT_INTEROP_SEED"); s != nullptr && *s != '\0') {
    c.seed = std::strtoull(s, nullptr, 10) * 1000003 + fixed;
    c.rerun = std::string("TRANSIT_INTEROP_SEED=") + s + " ";
  }
  if (const char* n = std::getenv("TRANSIT_INTEROP_COUNT"); n != nullptr && *n != '\0') {
    c.count = std::strtoull(n, nullptr, 10);
    c.rerun += std::string("TRANSIT_INTEROP_COUNT=") + n;
  }
  c.seed &= 0xFFFFFFFF;  // peer.js's generator takes 32 bits
  return c;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = text.find(sep, from);
    out.push_back(text.substr(from, at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

std::vector<std::string> lines_of(const std::string& out) {
  std::vector<std::string> lines = split(out, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::string clip(const std::string& s, std::size_t n = 600) {
  return s.size() <= n ? s : s.substr(0, n) + "... (" + std::to_string(s.size()) + " bytes)";
}

// Reports the first few failures in full and counts the rest.
class Failures {
 public:
  explicit Failures(const Config& c)
      : seed_("seed " + std::to_string(c.seed) +
              (c.rerun.empty() ? std::string() : " (" + c.rerun + ")")) {}
  ~Failures() {
    if (n_ > kShown) ADD_FAILURE() << n_ - kShown << " more failures, " << seed_;
  }
  void add(std::size_t index, const std::string& what) {
    if (++n_ <= kShown) ADD_FAILURE() << seed_ << ", value " << index << ": " << what;
  }

 private:
  static constexpr std::size_t kShown = 8;
  std::string seed_;
  std::size_t n_ = 0;
};

// Whether a map in `v` has a string key that is an array index ("0", "42"): a JavaScript object
// lists those first, so transit-js writes such a JSON-Verbose map's entries in another order.
bool has_index_key(const Value& v) {
  const auto index_like = [](const Value& k) {
    if (!k.is(Kind::string)) return false;
    const std::string_view s = k.as_string();
    if (s.empty() || s.size() > 9 || (s.size() > 1 && s[0] == '0')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  switch (v.kind()) {
    case Kind::array:
    case Kind::list:
    case Kind::set:
      return std::any_of(v.items().begin(), v.items().end(), has_index_key);
    case Kind::map:
    case Kind::link:
      return std::any_of(v.entries().begin(), v.entries().end(), [&](const Entry& e) {
        return index_like(e.first) || has_index_key(e.first) || has_index_key(e.second);
      });
    case Kind::tagged:
      return has_index_key(v.rep());
    default:
      return false;
  }
}

// Whether two JSON texts are the same but for how numbers are spelled: JSON.stringify writes
// 4.9e-6 as 0.0000049 and 3.9e-8 as 3.9e-8, std::to_chars as 4.9e-06 and 3.9e-08, the same
// doubles. Number tokens compare by value, and as integers or not; \u escapes in any case.
bool same_json(const std::string& a_text, const std::string& b_text) {
  const std::string a = normalize_escapes(a_text), b = normalize_escapes(b_text);
  std::size_t i = 0, j = 0;
  bool in_string = false;
  const auto number_end = [](const std::string& s, std::size_t at) {
    while (at < s.size() && std::strchr("-+.eE0123456789", s[at]) != nullptr) ++at;
    return at;
  };
  while (i < a.size() && j < b.size()) {
    if (!in_string && (a[i] == '-' || std::isdigit(static_cast<unsigned char>(a[i])))) {
      const std::size_t ai = number_end(a, i), bj = number_end(b, j);
      const std::string x = a.substr(i, ai - i), y = b.substr(j, bj - j);
      const bool x_int = x.find_first_of(".eE") == std::string::npos;
      const bool y_int = y.find_first_of(".eE") == std::string::npos;
      if (y.empty() || x_int != y_int || (x != y && std::strtod(x.c_str(), nullptr) !=
                                                        std::strtod(y.c_str(), nullptr)))
        return false;
      i = ai;
      j = bj;
      continue;
    }
    if (a[i] != b[j]) return false;
    if (a[i] == '"') {
      in_string = !in_string;
    } else if (in_string && a[i] == '\\') {
      if (i + 1 >= a.size() || j + 1 >= b.size() || a[i + 1] != b[j + 1]) return false;
      ++i;
      ++j;
    }
    ++i;
    ++j;
  }
  return i == a.size() && j == b.size();
}

// Whether transit-js may write `v` in other bytes than ours though it holds it exactly:
// - a set of two or more members: transit-js keeps a set in a hashed map and writes members
//   whose transit.hash collide (null, false, 0, "" and empty bytes all hash to 0) side by side.
// - JSON-Verbose maps with keys like "0" or "42": a JavaScript object lists those first.
bool js_may_write_other_bytes(const Value& v, Encoding e) {
  const auto walk = [e](const auto& self, const Value& x) -> bool {
    switch (x.kind()) {
      case Kind::set:
        if (x.size() >= 2) return true;
        [[fallthrough]];
      case Kind::array:
      case Kind::list:
        return std::any_of(x.items().begin(), x.items().end(),
                           [&](const Value& y) { return self(self, y); });
      case Kind::map:
      case Kind::link:
        return std::any_of(x.entries().begin(), x.entries().end(), [&](const Entry& y) {
          return (e == Encoding::json_verbose && has_index_key(Value::map({{y.first, nullptr}}))) ||
                 self(self, y.first) || self(self, y.second);
        });
      case Kind::tagged:
        return self(self, x.rep());
      default:
        return false;
    }
  };
  return walk(walk, v);
}

bool has_instant_outside_years_1000_to_9999(const Value& v) {
  switch (v.kind()) {
    case Kind::instant:
      return v.as_instant() < -30610224000000 || v.as_instant() >= 253402300800000;
    case Kind::array:
    case Kind::list:
    case Kind::set:
      return std::any_of(v.items().begin(), v.items().end(),
                         has_instant_outside_years_1000_to_9999);
    case Kind::map:
    case Kind::link:
      return std::any_of(v.entries().begin(), v.entries().end(), [](const Entry& e) {
        return has_instant_outside_years_1000_to_9999(e.first) ||
               has_instant_outside_years_1000_to_9999(e.second);
      });
    case Kind::tagged:
      return has_instant_outside_years_1000_to_9999(v.rep());
    default:
      return false;
  }
}

// A file for one test's values in the build tree's interop directory, named for this process,
// so that runs side by side (a soak beside ctest) do not share it.
fs::path scratch_file(const std::string& name) {
  return interop_dir() / (name + "-" + std::to_string(getpid()) + ".txt");
}

class InteropProperty : public ::testing::TestWithParam<Encoding> {
 protected:
  void SetUp() override {
    if (const auto& reason = skip_reason()) GTEST_SKIP() << *reason;
  }
  Encoding encoding() const { return GetParam(); }
  std::string enc() const { return std::string(encoding_name(GetParam())); }
  Encoding other() const {
    return GetParam() == Encoding::json ? Encoding::json_verbose : Encoding::json;
  }
  std::uint64_t offset() const { return GetParam() == Encoding::json ? 0 : 1; }
};

TEST_P(InteropProperty, WeWriteTransitJsReadsAndWritesBack) {
  const Config c = config(2900 + offset());
  JsValueGen gen(c.seed);
  std::vector<Value> values;
  std::vector<std::string> texts;
  std::string input;
  for (std::size_t i = 0; i < c.count; ++i) {
    values.push_back(gen.next());
    texts.push_back(write(values.back(), encoding()));
    input += texts.back() + "\n";
  }
  const fs::path in_path = scratch_file("property-ours-" + enc());
  write_file(in_path, input);
  const NodeRun run = run_peer({"roundtrip", "json,json-verbose", in_path.string()});
  fs::remove(in_path);
  ASSERT_EQ(run.spawn_error, 0) << std::strerror(run.spawn_error);
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto answers = lines_of(run.out);
  ASSERT_EQ(answers.size(), values.size()) << run.err;

  Failures failures(c);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Value& original = values[i];
    const std::string& ours = texts[i];
    const auto fields = split(answers[i], '\t');
    const std::string value_text = "\n  value:             " + clip(to_edn(original)) +
                                   "\n  we wrote:          " + clip(ours);
    if (fields.size() != 3) {
      failures.add(i, "transit-js failed: " + fields[0] + value_text);
      continue;
    }
    if (fields[0] != js_type(original))
      failures.add(i, "transit-js typed what we wrote differently" + value_text + "\n" +
                          first_difference(fields[0], js_type(original)));
    const Value expected = as_transit_js_sees_it(original);
    for (const Encoding out : {Encoding::json, Encoding::json_verbose}) {
      const std::string& js = fields[out == Encoding::json ? 1 : 2];
      const std::string where = "\n  transit-js wrote (" + std::string(encoding_name(out)) +
                                "): " + clip(js);
      if (out == encoding() && expected == original &&
          !js_may_write_other_bytes(original, out) &&
          !same_json(js, out == Encoding::json ? with_js_cache_codes(ours) : ours))
        failures.add(i, "transit-js writes this value in other bytes" + value_text + where +
                            "\n" + first_difference(normalize_escapes(js), normalize_escapes(ours)));
      try {
        const Value back = read(js, out);
        if (back != expected)
          failures.add(i, "we read back another value" + value_text + where +
                              "\n  we read:           " + clip(to_edn(back)) +
                              "\n  expected:          " + clip(to_edn(expected)));
      } catch (const Error& e) {
        failures.add(i, std::string("cannot read what transit-js wrote: ") + e.what() +
                            value_text + where);
      }
    }
  }
}

TEST_P(InteropProperty, TransitJsWritesWeReadAndWriteBack) {
  const Config c = config(2910 + offset());
  const std::string seed = std::to_string(c.seed), count = std::to_string(c.count);
  const NodeRun run = run_peer({"generate", enc(), seed, count});
  ASSERT_EQ(run.spawn_error, 0) << std::strerror(run.spawn_error);
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto made = lines_of(run.out);
  ASSERT_EQ(made.size(), c.count) << run.err;

  Failures failures(c);
  std::vector<std::string> js_texts, ours;
  std::string back;
  for (std::size_t i = 0; i < made.size(); ++i) {
    const auto tab = made[i].find('\t');
    ASSERT_NE(tab, std::string::npos) << made[i];
    const std::string desc = made[i].substr(0, tab), text = made[i].substr(tab + 1);
    js_texts.push_back(text);
    const std::string where = "\n  transit-js wrote:  " + clip(text);
    if (desc.starts_with("self-mismatch:"))
      failures.add(i, "transit-js does not read back what it wrote as the value it made" + where);
    std::string line = text + "\t" + text;  // a value we cannot read: transit-js's own text
    try {
      const Value v = read(text, encoding());
      if (js_type(v) != desc && !desc.starts_with("self-mismatch:"))
        failures.add(i, "we type what transit-js wrote differently" + where +
                            "\n  we read:           " + clip(to_edn(v)) + "\n" +
                            first_difference(desc, js_type(v)));
      const std::string same = write(v, encoding());
      if (!js_may_write_other_bytes(v, encoding()) &&
          !same_json(text, encoding() == Encoding::json ? with_js_cache_codes(same) : same))
        failures.add(i, "we write this value in other bytes" + where +
                            "\n  we read:           " + clip(to_edn(v)) + "\n" +
                            first_difference(normalize_escapes(text), normalize_escapes(same)));
      // A date outside the years 1000 to 9999 goes back in JSON only: in JSON-Verbose its `~t`
      // text has a year of more than 4 digits (or a sign), and transit-js reads none but the
      // +-YYYYYY of JavaScript's Date (JsLimits.VerboseDatesBeforeYear1000,
      // VerboseDatesAfterYear9999).
      line = same + "\t" +
             (encoding() == Encoding::json && has_instant_outside_years_1000_to_9999(v)
                  ? same
                  : write(v, other()));
    } catch (const Error& e) {
      failures.add(i, std::string("cannot read what transit-js wrote: ") + e.what() + where);
    }
    ours.push_back(line);
    back += line + "\n";
  }
  const fs::path back_path = scratch_file("property-js-back-" + enc());
  write_file(back_path, back);
  const NodeRun check = run_peer({"check", enc(), seed, count, back_path.string()});
  fs::remove(back_path);
  ASSERT_EQ(check.exit_status, 0) << check.err;
  const auto verdicts = lines_of(check.out);
  ASSERT_EQ(verdicts.size(), c.count) << check.err;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    if (verdicts[i] == "ok") continue;
    const auto fields = split(verdicts[i], '\t');
    const bool first = fields.size() > 1 && fields[1] == "0";
    const Encoding out = first ? encoding() : other();
    std::string edn;
    try {
      edn = to_edn(read(js_texts[i], encoding()));
    } catch (const Error& e) {
      edn = e.what();
    }
    failures.add(i, "transit-js reads what we wrote back (" + std::string(encoding_name(out)) +
                        ") as another value: " + (fields.size() > 2 ? fields[2] : verdicts[i]) +
                        "\n  transit-js wrote:  " + clip(js_texts[i]) +
                        "\n  we read:           " + clip(edn) + "\n  we wrote:          " +
                        clip(split(ours[i], '\t')[first ? 0 : 1]));
  }
}

// ---- typed values ------------------------------------------------------------------------------

namespace tg = transit::test::typed_gen;

template <class T>
constexpr bool js_exact(bool verbose);

template <template <class...> class Of, class... A>
constexpr bool all_js_exact(std::type_identity<Of<A...>>, bool verbose) {
  return (js_exact<A>(verbose) && ...);
}

template <class... A>
constexpr bool has_character_alternative(std::type_identity<std::variant<A...>>) {
  return (detail::CharacterType<A> || ...);
}

// Whether transit-js gives back every value of T exactly, so that read<T> of what it wrote
// equals what we wrote. Unknown types are not.
template <class T>
constexpr bool js_exact(bool verbose) {
  using namespace std::chrono;
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::byte> ||
                (std::is_integral_v<T> && !std::is_same_v<T, char>) ||
                std::is_same_v<T, std::string> || std::is_same_v<T, Keyword> ||
                std::is_same_v<T, Symbol> || std::is_same_v<T, Uuid> ||
                std::is_same_v<T, BigInteger> || std::is_same_v<T, BigDecimal> ||
                std::is_same_v<T, Uri> || std::is_same_v<T, tg::Color> ||
                std::is_same_v<T, tg::Level> || std::is_same_v<T, tg::Address> ||
                std::is_same_v<T, tg::Money> || std::is_same_v<T, tg::Route> ||
                std::is_same_v<T, tg::Reading> || std::is_same_v<T, tg::Gauge> ||
                std::is_same_v<T, tg::Ticket> || std::is_same_v<T, tg::Stamp>) {
    return true;
  } else if constexpr (std::is_same_v<T, tg::Dial>) {
    // Its JSON-Verbose rep is a map under a one-character tag, which transit-js cannot write
    // (JsLimits.OneCharacterTagsNeedStringReps).
    return !verbose;
  } else if constexpr (std::is_same_v<T, system_clock::time_point>) {
    // Nanoseconds since 1970 in 64 bits: years 1677 to 2262, within JavaScript's dates and
    // JSON-Verbose's years 1000 to 9999; the generator makes whole milliseconds.
    return std::is_same_v<system_clock::duration, nanoseconds>;
  } else if constexpr (tg::is_a_v<T, std::optional> || tg::is_a_v<T, std::vector> ||
                       tg::is_a_v<T, std::deque> || tg::is_a_v<T, std::list> ||
                       tg::is_a_v<T, std::forward_list> || tg::is_a_v<T, std::set> ||
                       tg::is_a_v<T, std::unordered_set> || detail::is_std_array_v<T>) {
    return js_exact<typename T::value_type>(verbose);
  } else if constexpr (tg::is_a_v<T, std::map> || tg::is_a_v<T, std::unordered_map>) {
    return js_exact<typename T::key_type>(verbose) && js_exact<typename T::mapped_type>(verbose);
  } else if constexpr (tg::is_a_v<T, std::unique_ptr> || tg::is_a_v<T, std::shared_ptr>) {
    return !std::is_same_v<typename T::element_type, tg::Shape> &&
           js_exact<typename T::element_type>(verbose);
  } else if constexpr (tg::is_a_v<T, std::pair>) {
    return js_exact<typename T::first_type>(verbose) && js_exact<typename T::second_type>(verbose);
  } else if constexpr (tg::is_a_v<T, std::variant>) {
    // transit-js gives a character back as a string (JsLimits.CharactersComeBackAsStrings),
    // which a variant's string alternative before it takes.
    return all_js_exact(std::type_identity<T>{}, verbose) &&
           !has_character_alternative(std::type_identity<T>{});
  } else if constexpr (tg::is_a_v<T, std::tuple>) {
    return all_js_exact(std::type_identity<T>{}, verbose);
  } else {
    return false;
  }
}

TEST_P(InteropProperty, TypedValuesThroughTransitJs) {
  const Config c = config(2920 + offset());
  const bool verbose = encoding() == Encoding::json_verbose;
  std::vector<std::size_t> exact;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((js_exact<std::tuple_element_t<I, tg::Catalogue>>(verbose) ? exact.push_back(I) : void()),
     ...);
  }(std::make_index_sequence<tg::kCatalogueSize>());
  ASSERT_GT(exact.size(), tg::kCatalogueSize / 2) << "too few typed types go through transit-js";

  tg::Picker p(c.seed);
  std::vector<tg::Sample> samples;
  std::vector<std::string> texts;
  std::string input;
  for (std::size_t i = 0; i < c.count; ++i) {
    samples.push_back(tg::make_sample(exact[p.below(exact.size())], p));
    texts.push_back(samples.back().write(encoding(), false));
    input += texts.back() + "\n";
  }
  const fs::path in_path = scratch_file("property-typed-" + enc());
  write_file(in_path, input);
  const NodeRun run = run_peer({"roundtrip", enc(), in_path.string()});
  fs::remove(in_path);
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto answers = lines_of(run.out);
  ASSERT_EQ(answers.size(), samples.size()) << run.err;

  Failures failures(c);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto fields = split(answers[i], '\t');
    const std::string what = samples[i].type_name + "\n  we wrote:          " + clip(texts[i]);
    if (fields.size() != 2) {
      failures.add(i, "transit-js failed: " + fields[0] + " on " + what);
      continue;
    }
    if (std::string f = samples[i].read_typed(fields[1], encoding(),
                                              ReadOptions::kLibraryDefault);
        !f.empty())
      failures.add(i, f + " of " + what + "\n  transit-js wrote:  " + clip(fields[1]));
  }
}

INSTANTIATE_TEST_SUITE_P(Encodings, InteropProperty,
                         ::testing::Values(Encoding::json, Encoding::json_verbose),
                         [](const ::testing::TestParamInfo<Encoding>& info) {
                           return info.param == Encoding::json ? "json" : "json_verbose";
                         });

}  // namespace
}  // namespace transit
