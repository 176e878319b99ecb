// SPDX-License-Identifier: Apache-2.0
// Typed values generated from a stream of choices, for the typed round-trip property test
// (tests/typed_roundtrip_test.cpp, choices from a PRNG) and fuzzer
// (tests/fuzz/typed_roundtrip_fuzz.cpp, choices from libFuzzer's bytes). A Sample is one value
// of one type of the catalogue below, with what it takes to write it, read it back typed and
// compare: the checks themselves (check_alone, check_stream) are here too, so both drivers run
// exactly the same ones.
//
// Left out on purpose, each a limit of the format or of C++ rather than a bug (see
// docs/typed-data.md, "What round-trips"):
// - char and char8_t: the library refuses them at compile time (ambiguous: a string or an int).
// - a char16_t, char32_t or wchar_t that is no Unicode character (a surrogate, a value past
//   U+10FFFF): an error to write, as in a string of them.
// - NaN as a key of a std::map or member of a std::set: NaN breaks the container's ordering.
// - std::optional of something that can itself be nil (optional<optional<T>>, optional<Value>,
//   optional<unique_ptr<T>>, optional<std::monostate>): both empties are nil on the wire.
// - long double: written as the nearest double (Transit's floats are 64 bits).
// - a std::wstring where wchar_t has 16 bits (Windows): this suite runs where it has 32.
// - std::variant whose alternatives share a wire form (variant<int32_t, int64_t>, <float,
//   double>, <std::vector<int>, std::set<int>>...): the first alternative that fits is read.
// - time points finer than a millisecond: Transit's instants are milliseconds, so a
//   microsecond or nanosecond time point round-trips only on whole milliseconds (generated so);
//   a floating one only as the double nearest a millisecond count (generated so).
// - BigInteger digits not in canonical form ("007", "-0"): a reader canonicalises them.
// - unordered containers keyed by composite types: the standard library has no hash for them.
// - a verbose_rep that differs from the rep (Gauge, Dial) is what JSON-Verbose read as Values
//   without the handlers shows: those samples (Sample::verbose_rep) compare the three encodings'
//   Values read with the handlers instead.
// And from_value<T> of what a read into Value with the handlers made of a move-only record (a
// Person) is not checked: such an object is bound only when it can be copied (Sample::move_only).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <forward_list>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <valarray>
#include <variant>
#include <vector>

#include "support/step_source.h"
#include "transit/transit.h"

namespace transit::test::typed_gen {

// ---- choices ---------------------------------------------------------------------------------

/// Where choices come from: a PRNG (the unit test) or a fuzzer's bytes, which give zeros once
/// used up, so that every generation ends (sizes 0, first alternatives).
class Picker {
 public:
  explicit Picker(std::uint64_t seed) : rng_(seed), from_rng_(true) {}
  explicit Picker(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  /// `bytes` random bits (1 to 8 bytes' worth).
  std::uint64_t bits(int bytes = 8) {
    if (from_rng_) {
      const std::uint64_t r = rng_();
      return bytes >= 8 ? r : r & ((std::uint64_t{1} << (8 * bytes)) - 1);
    }
    std::uint64_t r = 0;
    for (int i = 0; i < bytes && at_ < bytes_.size(); ++i) r = r << 8 | bytes_[at_++];
    return r;
  }
  /// A number below n (n > 0).
  std::size_t below(std::size_t n) {
    if (n <= 1) return 0;
    return static_cast<std::size_t>(bits(n <= 256 ? 1 : n <= 65536 ? 2 : 8) % n);
  }
  bool coin() { return below(2) == 1; }
  /// Whether the choices have run out (never, from a PRNG).
  bool exhausted() const noexcept { return !from_rng_ && at_ >= bytes_.size(); }

 private:
  std::mt19937_64 rng_;
  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
  bool from_rng_ = false;
};

// ---- the catalogue's user types --------------------------------------------------------------

struct Address {
  std::string street;
  std::optional<std::string> zip;
  std::int32_t number = 0;
  auto tie() const { return std::tie(street, zip, number); }
  // For a std::map keyed by Address (a cmap on the wire).
  friend bool operator<(const Address& a, const Address& b) { return a.tie() < b.tie(); }
  friend bool operator==(const Address& a, const Address& b) { return a.tie() == b.tie(); }
};

enum class Color { red, green, blue };
enum class Level : std::uint8_t { low = 1, high = 200 };  // no EnumNames: an integer

struct Shape {
  virtual ~Shape() = default;
  std::string id;
};
struct Circle : Shape {
  double radius = 0;
  auto tie() const { return std::tie(id, radius); }
};
struct Polygon : Shape {
  std::vector<std::pair<std::int64_t, std::int64_t>> points;
  std::optional<Color> fill;
  auto tie() const { return std::tie(id, points, fill); }
};

struct Person {
  std::string name;
  std::optional<std::int64_t> age;
  std::optional<Address> home;
  std::vector<Address> others;
  std::map<Keyword, double> scores;
  std::unique_ptr<Shape> badge;
  Color color = Color::red;
  Level level = Level::low;
  auto tie() const { return std::tie(name, age, home, others, scores, badge, color, level); }
};

// User types registered the other way (docs/custom-types.md): a Handler<T> on the write side,
// add_object<T> on the read side, whose decode walks the rep's Value by hand. Between them they
// take every shape of rep and tag: a map, an array holding another user type, an integer, another
// user type itself, and one-character tags whose string rep is written "~X..." and is a map key.
// Each compares by ==, which a Value holding it uses too.

/// Tag "gen/money", a map rep {:currency "EUR", :cents 150}.
struct Money {
  std::string currency;
  std::int64_t cents = 0;
  auto tie() const { return std::tie(currency, cents); }
  friend bool operator==(const Money& a, const Money& b) { return a.tie() == b.tie(); }
  friend bool operator<(const Money& a, const Money& b) { return a.tie() < b.tie(); }
};
/// Tag "gen/route", an array rep [name, [Money ...]].
struct Route {
  std::string name;
  std::vector<Money> legs;
  auto tie() const { return std::tie(name, legs); }
  friend bool operator==(const Route& a, const Route& b) { return a.tie() == b.tie(); }
};
/// Tag "T", a string rep: "~T215" wherever it is, a map key too.
struct Reading {
  std::int64_t tenths = 0;
  auto tie() const { return std::tie(tenths); }
  friend bool operator==(const Reading& a, const Reading& b) { return a.tenths == b.tenths; }
  friend bool operator<(const Reading& a, const Reading& b) { return a.tenths < b.tenths; }
};
/// Tag "G", a string rep, and a string verbose rep that differs: JSON "~G7", JSON-Verbose
/// "~G7 units", a map key either way.
struct Gauge {
  std::int64_t units = 0;
  auto tie() const { return std::tie(units); }
  friend bool operator==(const Gauge& a, const Gauge& b) { return a.units == b.units; }
  friend bool operator<(const Gauge& a, const Gauge& b) { return a.units < b.units; }
};
/// Tag "D", a string rep and a map verbose rep: JSON "~D3"; JSON-Verbose {"~#D": {"~:turns": 3}}
/// as a value and "~D3" as a map key (a key is a string).
struct Dial {
  std::int64_t turns = 0;
  auto tie() const { return std::tie(turns); }
  friend bool operator==(const Dial& a, const Dial& b) { return a.turns == b.turns; }
  friend bool operator<(const Dial& a, const Dial& b) { return a.turns < b.turns; }
};
/// Tag "gen/ticket", an integer rep.
struct Ticket {
  std::uint32_t seat = 0;
  auto tie() const { return std::tie(seat); }
  friend bool operator==(const Ticket& a, const Ticket& b) { return a.seat == b.seat; }
};
/// Tag "gen/stamp", whose rep is another user type: ["~#gen/stamp", "~T215"].
struct Stamp {
  Reading at;
  auto tie() const { return std::tie(at); }
  friend bool operator==(const Stamp& a, const Stamp& b) { return a.at == b.at; }
};

}  // namespace transit::test::typed_gen

template <>
struct transit::EnumNames<transit::test::typed_gen::Color> {
  static constexpr std::array names{std::pair{transit::test::typed_gen::Color::red, "red"},
                                    std::pair{transit::test::typed_gen::Color::green, "green"},
                                    std::pair{transit::test::typed_gen::Color::blue, "blue"}};
};

namespace transit::test::typed_gen {

/// An integer's decimal text, and back: the one-character tags' string reps. `rest` is what
/// may follow the digits (a verbose rep's unit).
inline std::int64_t parse_int(std::string_view text, std::string_view rest = {}) {
  std::int64_t i = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec != std::errc() || std::string_view(end, text.data() + text.size() - end) != rest)
    throw std::runtime_error("not an integer: " + std::string(text));
  return i;
}

/// The Handler<T>s of the user types above.
inline void add_handler_types(RegistryBuilder& b) {
  b.add(Handler<Money>("gen/money").rep([](const Money& m) {
    return as_map(std::array{std::pair{as_keyword("currency"), Value(m.currency)},
                             std::pair{as_keyword("cents"), Value(m.cents)}});
  }));
  b.add(Handler<Route>("gen/route").rep([](const Route& r) {
    return std::pair<std::string_view, const std::vector<Money>&>{r.name, r.legs};
  }));
  b.add(Handler<Reading>("T").rep([](const Reading& r) { return std::to_string(r.tenths); }));
  b.add(Handler<Gauge>("G")
            .rep([](const Gauge& g) { return std::to_string(g.units); })
            .verbose_rep([](const Gauge& g) { return std::to_string(g.units) + " units"; }));
  b.add(Handler<Dial>("D")
            .rep([](const Dial& d) { return std::to_string(d.turns); })
            .verbose_rep([](const Dial& d) {
              return as_map(std::array{std::pair{as_keyword("turns"), d.turns}});
            }));
  b.add(Handler<Ticket>("gen/ticket").rep([](const Ticket& t) { return t.seat; }));
  b.add(Handler<Stamp>("gen/stamp").rep([](const Stamp& s) -> const Reading& { return s.at; }));
}

/// Their add_object<T>s, each walking its rep as a user would: entries, items, find, as_*.
inline void add_handler_types(ReadHandlers& h) {
  h.add_object<Money>("gen/money", [](const Value& rep) {
    Money m;
    for (const auto& [key, value] : rep.entries()) {
      if (key == Value::keyword("currency"))
        m.currency = std::string(value.as_string());
      else if (key == Value::keyword("cents"))
        m.cents = value.as_int();
      else
        throw std::runtime_error("gen/money: unknown key " + to_edn(key));
    }
    return m;
  });
  h.add_object<Route>("gen/route", [](const Value& rep) {
    Route r;
    r.name = std::string(rep[0].as_string());
    for (const Value& leg : rep[1].items()) r.legs.push_back(leg.as<Money>());
    return r;
  });
  h.add_object<Reading>("T",
                        [](const Value& rep) { return Reading{parse_int(rep.as_string())}; });
  // JSON and MessagePack give the rep, JSON-Verbose the verbose rep.
  h.add_object<Gauge>("G", [](const Value& rep) {
    const std::string_view text = rep.as_string();
    const bool verbose = text.ends_with(" units");
    return Gauge{parse_int(text, verbose ? " units" : "")};
  });
  h.add_object<Dial>("D", [](const Value& rep) {
    if (rep.is(Kind::string)) return Dial{parse_int(rep.as_string())};
    const Value* turns = rep.find(Value::keyword("turns"));
    if (!turns || rep.size() != 1) throw std::runtime_error("D: not {:turns n}: " + to_edn(rep));
    return Dial{turns->as_int()};
  });
  h.add_object<Ticket>("gen/ticket", [](const Value& rep) {
    const std::int64_t seat = rep.as_int();
    if (!std::in_range<std::uint32_t>(seat)) throw std::runtime_error("gen/ticket: seat");
    return Ticket{static_cast<std::uint32_t>(seat)};
  });
  h.add_object<Stamp>("gen/stamp", [](const Value& rep) { return Stamp{rep.as<Reading>()}; });
}

/// The write and read handlers for the catalogue's records and Handler<T> types, made once.
struct Handlers {
  Registry registry;
  ReadHandlers read;
};

inline const Handlers& handlers() {
  static const Handlers h = [] {
    auto address = Record<Address>("gen/address")
                       .field(&Address::street, "street")
                       .field(&Address::zip, "zip")
                       .field(&Address::number, "number");
    auto circle = Record<Circle>("gen/circle")
                      .field(&Circle::id, "id")
                      .field(&Circle::radius, "radius")
                      .derives<Shape>();
    auto polygon = Record<Polygon>("gen/polygon")
                       .field(&Polygon::id, "id")
                       .field(&Polygon::points, "points")
                       .field(&Polygon::fill, "fill")
                       .derives<Shape>();
    auto person = Record<Person>("gen/person")
                      .field(&Person::name, "name")
                      .field(&Person::age, "age")
                      .field(&Person::home, "home")
                      .field(&Person::others, "others")
                      .field(&Person::scores, "scores")
                      .field(&Person::badge, "badge")
                      .field(&Person::color, "color")
                      .field(&Person::level, "level");
    RegistryBuilder b;
    b.add(address).add(circle).add(polygon).add(person);
    add_handler_types(b);
    Handlers out{std::move(b).freeze(), {}};
    out.read.add(address).add(circle).add(polygon).add(person);
    add_handler_types(out.read);
    return out;
  }();
  return h;
}

// ---- equality, with NaN equal to itself and -0.0 apart from 0.0 ------------------------------

template <class T>
inline constexpr bool is_time_point_v = detail::is_time_point_v<T>;
template <class T, template <class...> class Of>
inline constexpr bool is_a_v = detail::is_specialization_v<T, Of>;

template <class T>
bool same(const T& a, const T& b);

inline bool same_shape(const Shape& a, const Shape& b) {
  if (typeid(a) != typeid(b)) return false;
  if (const auto* c = dynamic_cast<const Circle*>(&a))
    return same(c->tie(), static_cast<const Circle&>(b).tie());
  if (const auto* p = dynamic_cast<const Polygon*>(&a))
    return same(p->tie(), static_cast<const Polygon&>(b).tie());
  return false;
}

template <class T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
  } else if constexpr (requires { a.tie(); }) {
    return same(a.tie(), b.tie());
  } else if constexpr (is_a_v<T, std::tuple>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (same(std::get<I>(a), std::get<I>(b)) && ...);
    }
    (std::make_index_sequence<std::tuple_size_v<T>>());
  } else if constexpr (is_a_v<T, std::pair>) {
    return same(a.first, b.first) && same(a.second, b.second);
  } else if constexpr (is_a_v<T, std::optional>) {
    return a.has_value() == b.has_value() && (!a || same(*a, *b));
  } else if constexpr (is_a_v<T, std::variant>) {
    if (a.index() != b.index()) return false;
    return std::visit(
        [&](const auto& x) { return same(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
  } else if constexpr (detail::SmartPointer<T>) {
    if (!a || !b) return !a && !b;
    if constexpr (std::is_same_v<typename T::element_type, Shape>)
      return same_shape(*a, *b);
    else
      return same(*a, *b);
  } else if constexpr (is_a_v<T, std::unordered_map> || is_a_v<T, std::unordered_set>) {
    if (a.size() != b.size()) return false;
    for (const auto& item : a) {
      if constexpr (is_a_v<T, std::unordered_map>) {
        const auto it = b.find(item.first);
        if (it == b.end() || !same(item.first, it->first) || !same(item.second, it->second))
          return false;
      } else {
        const auto it = b.find(item);
        if (it == b.end() || !same(item, *it)) return false;
      }
    }
    return true;
  } else if constexpr (is_a_v<T, std::unordered_multimap> || is_a_v<T, std::unordered_multiset>) {
    // Keys in any order; a key's items in the order the container holds them (the reader
    // inserts each after the last: docs/typed-data.md).
    if (a.size() != b.size()) return false;
    for (const auto& item : a) {
      const auto& key = [&]() -> const auto& {
        if constexpr (is_a_v<T, std::unordered_multimap>)
          return item.first;
        else
          return item;
      }();
      const auto [i, j] = a.equal_range(key);
      const auto [k, l] = b.equal_range(key);
      if (!std::equal(i, j, k, l, [](const auto& x, const auto& y) { return same(x, y); }))
        return false;
    }
    return true;
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Value> ||
                       std::is_same_v<T, std::filesystem::path> ||
                       std::is_same_v<T, std::pmr::string>) {
    return a == b;
  } else if constexpr (std::ranges::range<T>) {
    // std::begin: a std::valarray has no member begin.
    auto i = std::begin(a);
    auto j = std::begin(b);
    for (; i != std::end(a) && j != std::end(b); ++i, ++j)
      if (!same(*i, *j)) return false;
    return i == std::end(a) && j == std::end(b);
  } else {
    return a == b;
  }
}

// ---- generation ------------------------------------------------------------------------------

// clang-format off
/// Strings a writer must escape or cache, or a reader could mistake for something else; keys
/// and keywords come from the first few often, so that cache codes repeat within a value and
/// across the values of a stream.
inline constexpr std::string_view kStrings[] = {
    "name", "id", "street", "zip", "number", "a", "ab", "abc", "abcd", "scores",  // common
    "", "~", "^", "`", "^ ", "~:a", "~#tag", "~~", "~^", "~`", "^0", "^1", "^ZZ", "^!", "~i5",
    "~m0", "~d1.5", "~n", "~$sym", "~u", "~#set", "~#cmap", "~#'", "`~", " ", "\t", "null",
    "true", "0", "-0", "1e5", "héllo", "日本語", "\xF0\x9F\x98\x80", "a\nb", "\"q\"", "\\",
    "\x01\x1F", "ü~", "long-enough-to-cache", "ns/name", "/", "a/b/c",
};
// clang-format on
inline constexpr std::size_t kCommonStrings = 10;

inline std::string gen_string(Picker& p) {
  switch (p.below(8)) {
    case 0:
    case 1:
    case 2:
      return std::string(kStrings[p.below(kCommonStrings)]);
    case 3:
    case 4:
      return std::string(kStrings[p.below(std::size(kStrings))]);
    case 5: {  // a random mix of ASCII and multi-byte characters
      std::string s;
      for (std::size_t n = p.below(12); n > 0; --n) {
        switch (p.below(4)) {
          case 0:
            s += static_cast<char>(0x20 + p.below(0x5F));
            break;
          case 1:
            s += "é";
            break;
          case 2:
            s += "\xE2\x82\xAC";
            break;  // euro sign, 3 bytes
          default:
            s += "\xF0\x9F\x8E\x89";
            break;  // 4 bytes, a UTF-16 surrogate pair
        }
      }
      return s;
    }
    case 6: {  // a cache code's look, or a tag's
      std::string s(1, "^~`"[p.below(3)]);
      for (std::size_t n = p.below(3); n > 0; --n) s += static_cast<char>(0x21 + p.below(0x5E));
      return s;
    }
    default: {  // long
      std::string s(std::size_t{64} << p.below(8), 'x');
      for (char& c : s) c = static_cast<char>('a' + p.below(26));
      return s;
    }
  }
}

/// A keyword's or symbol's name: a common one mostly, so that the write cache repeats them.
inline std::string gen_name(Picker& p) {
  if (p.below(4) != 0) return std::string(kStrings[p.below(kCommonStrings)]);
  std::string s = gen_string(p);
  return s.empty() ? "k" : s;
}

template <class I>
I gen_integer(Picker& p) {
  using L = std::numeric_limits<I>;
  switch (p.below(6)) {
    case 0:
      return L::min();
    case 1:
      return L::max();
    case 2:
      return static_cast<I>(p.below(5));
    case 3: {
      if constexpr (sizeof(I) == 8) {
        // Around 2^53, where JSON numbers stop being exact as doubles.
        constexpr std::int64_t k53 = std::int64_t{1} << 53;
        const std::int64_t near =
            (p.coin() ? k53 : -k53) + static_cast<std::int64_t>(p.below(5)) - 2;
        if constexpr (std::is_signed_v<I>)
          return near;
        else
          return static_cast<I>(near < 0 ? -near : near);
      } else {
        return static_cast<I>(L::max() - static_cast<I>(p.below(3)));
      }
    }
    default:
      return static_cast<I>(p.bits(sizeof(I)));
  }
}

/// A code point that character type C holds (a char16_t one of the Basic Multilingual Plane):
/// ASCII, what JSON escapes or Transit marks, the edges of the surrogates and of the planes.
template <class C>
C gen_character(Picker& p) {
  static constexpr char32_t kEdges[] = {U'a', U'~', U'^', U'`', U' ', U'\n', U'"', U'\\', 0,
                                        0x7F, 0xE9, 0x4E2D, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
                                        0x10000, 0x1F600, 0x10FFFF};
  const char32_t most = sizeof(C) == 2 ? 0xFFFF : 0x10FFFF;
  char32_t cp = kEdges[p.below(std::size(kEdges))];
  if (p.coin()) cp = static_cast<char32_t>(p.bits(3) % (most + 1));
  if (cp > most || (cp >= 0xD800 && cp <= 0xDFFF)) cp = U'?';
  return static_cast<C>(cp);
}

template <class F>
F gen_floating(Picker& p, bool nan_allowed) {
  using L = std::numeric_limits<F>;
  switch (p.below(14)) {
    case 0:
      return F(-0.0);
    case 1:
      return F(0.0);
    case 2:
      return L::denorm_min();
    case 3:
      return -L::denorm_min() * 3;
    case 4:
      return L::infinity();
    case 5:
      return -L::infinity();
    case 6:
      return nan_allowed ? L::quiet_NaN() : F(1.5);
    case 7:
      return L::max();
    case 8:
      return L::lowest();
    case 9:
      return L::min();  // the smallest normal
    case 10:
      return static_cast<F>(static_cast<double>(p.bits(2)) / 8.0 - 4000);
    case 11:
      return static_cast<F>(9007199254740993.0 * (p.coin() ? 1 : -1));
    default: {
      F f;
      do {
        if constexpr (sizeof(F) == 8)
          f = std::bit_cast<F>(p.bits(8));
        else
          f = std::bit_cast<F>(static_cast<std::uint32_t>(p.bits(4)));
      } while (std::isnan(f) && !nan_allowed && !p.exhausted());
      return std::isnan(f) && !nan_allowed ? F(2.5) : f;
    }
  }
}

/// A count in [-limit, limit] (limit > 0): 0, -1, a limit, `now` and a little after, or any.
inline std::int64_t gen_count(Picker& p, std::int64_t limit, std::int64_t now) {
  switch (p.below(6)) {
    case 0:
      return 0;
    case 1:
      return -1;
    case 2:
      return limit;
    case 3:
      return -limit;
    case 4:
      return now + static_cast<std::int64_t>(p.bits(4));
    default:
      return static_cast<std::int64_t>(p.bits(8) % static_cast<std::uint64_t>(limit)) *
             (p.coin() ? 1 : -1);
  }
}

/// Milliseconds since the epoch that duration D holds: the whole range for milliseconds,
/// whole milliseconds within D's range for finer ones.
template <class D>
std::int64_t gen_millis(Picker& p) {
  using namespace std::chrono;
  const std::int64_t limit =
      duration_cast<milliseconds>(D::max()).count() - 1;  // whole milliseconds D holds
  return gen_count(p, limit, 1'700'000'000'000);  // 2023 and on
}

/// A system_clock time point that round-trips (docs/typed-data.md, "What round-trips"). As fine
/// as a millisecond or finer: whole milliseconds. Coarser (seconds, hours, days): any count
/// of its unit whose milliseconds an int64 holds (gen_millis computed D::max() in
/// milliseconds, which overflows for them). Floating: the double a read makes of a millisecond
/// count of at most 2^50 (35,000 years), which is within a tenth of a millisecond of it, so
/// that the nearest millisecond it is written as is that count; a double between two
/// milliseconds is written as the nearer.
template <class T>
T gen_time_point(Picker& p) {
  using namespace std::chrono;
  using D = typename T::duration;
  using Rep = typename D::rep;
  constexpr std::int64_t kNow = 1'700'000'000'000;  // ms: 2023
  if constexpr (std::is_floating_point_v<Rep>) {
    return T(duration_cast<D>(milliseconds(gen_count(p, std::int64_t{1} << 50, kNow))));
  } else if constexpr (std::ratio_greater_v<typename D::period, std::milli>) {
    using PerUnit = std::ratio_divide<typename D::period, std::milli>;
    static_assert(PerUnit::den == 1 && sizeof(Rep) == 8, "a whole number of milliseconds per unit");
    constexpr std::int64_t kMost = std::numeric_limits<std::int64_t>::max() / PerUnit::num;
    return T(D(static_cast<Rep>(gen_count(p, kMost, kNow / PerUnit::num))));
  } else {
    return T(duration_cast<D>(milliseconds(gen_millis<D>(p))));
  }
}

inline std::string gen_digits(Picker& p, std::size_t most) {
  std::string s(1, static_cast<char>('1' + p.below(9)));
  for (std::size_t n = p.below(most); n > 0; --n) s += static_cast<char>('0' + p.below(10));
  return s;
}

inline Value gen_value(Picker& p, int depth);

template <class T>
struct Gen;

template <class T>
T gen(Picker& p, int depth) {
  return Gen<T>::make(p, depth);
}

/// A container's size: small, and 0 when deep.
inline std::size_t gen_size(Picker& p, int depth) {
  return depth <= 0 ? 0 : p.below(5);
}

template <class T>
struct Gen {
  static T make(Picker& p, int depth) {
    if constexpr (std::is_same_v<T, bool>) {
      return p.coin();
    } else if constexpr (detail::CharacterType<T>) {
      return gen_character<T>(p);
    } else if constexpr (std::is_integral_v<T>) {
      return gen_integer<T>(p);
    } else if constexpr (std::is_floating_point_v<T>) {
      return gen_floating<T>(p, true);
    } else if constexpr (std::is_same_v<T, std::string>) {
      return gen_string(p);
    } else if constexpr (detail::is_specialization_v<T, std::basic_string> &&
                         detail::WideText<T>) {
      // The same text in another character type (every generated string is UTF-8).
      T out;
      if (!detail::text_from_utf8(gen_string(p), out)) throw std::logic_error("not UTF-8");
      return out;
    } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
      return std::filesystem::path(gen<std::u8string>(p, depth));
    } else if constexpr (std::is_same_v<T, std::pmr::string>) {
      const std::string s = gen_string(p);
      return T(s.begin(), s.end());
    } else if constexpr (std::is_same_v<T, std::byte>) {
      return static_cast<std::byte>(p.bits(1));
    } else if constexpr (std::is_same_v<T, std::basic_string<std::byte>>) {
      const auto bytes = gen<std::vector<std::byte>>(p, depth);
      return T(bytes.begin(), bytes.end());
    } else if constexpr (std::is_same_v<T, std::monostate> || std::is_same_v<T, std::nullptr_t>) {
      return T{};
    } else if constexpr (std::is_same_v<T, Keyword>) {
      return Keyword{gen_name(p)};
    } else if constexpr (std::is_same_v<T, Symbol>) {
      return Symbol{gen_name(p)};
    } else if constexpr (std::is_same_v<T, Uuid>) {
      return p.coin() ? Uuid{0x6BA7B8109DAD11D1, 0x80B400C04FD430C8} : Uuid{p.bits(), p.bits()};
    } else if constexpr (std::is_same_v<T, BigInteger>) {
      switch (p.below(4)) {
        case 0:
          return BigInteger{"0"};
        case 1:
          return BigInteger{"18446744073709551616"};  // 2^64
        default:
          return BigInteger{(p.coin() ? "-" : "") + gen_digits(p, 40)};
      }
    } else if constexpr (std::is_same_v<T, BigDecimal>) {
      std::string s = p.coin() ? "-" : "";
      s += p.coin() ? "0" : gen_digits(p, 20);
      if (p.coin()) s += "." + std::to_string(p.below(1000));
      if (p.below(4) == 0) s += (p.coin() ? "E-" : "E+") + std::to_string(p.below(400));
      return BigDecimal{s};
    } else if constexpr (std::is_same_v<T, Uri>) {
      return Uri{"https://example.com/" + gen_string(p)};
    } else if constexpr (std::is_same_v<T, Value>) {
      return gen_value(p, depth);
    } else if constexpr (std::is_same_v<T, Color>) {
      return static_cast<Color>(p.below(3));
    } else if constexpr (std::is_same_v<T, Level>) {
      return p.coin() ? Level::low : static_cast<Level>(p.bits(1));
    } else if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
      std::vector<std::byte> out(p.below(4) == 0 ? 0 : p.below(70));
      for (std::byte& b : out) b = static_cast<std::byte>(p.bits(1));
      return out;
    } else if constexpr (is_time_point_v<T>) {
      return gen_time_point<T>(p);
    } else if constexpr (std::is_same_v<T, Money>) {
      return Money{gen_string(p), gen_integer<std::int64_t>(p)};
    } else if constexpr (std::is_same_v<T, Route>) {
      return Route{gen_string(p), gen<std::vector<Money>>(p, depth - 1)};
    } else if constexpr (std::is_same_v<T, Reading>) {
      return Reading{gen_integer<std::int64_t>(p)};
    } else if constexpr (std::is_same_v<T, Gauge>) {
      return Gauge{gen_integer<std::int64_t>(p)};
    } else if constexpr (std::is_same_v<T, Dial>) {
      return Dial{gen_integer<std::int64_t>(p)};
    } else if constexpr (std::is_same_v<T, Ticket>) {
      return Ticket{gen_integer<std::uint32_t>(p)};
    } else if constexpr (std::is_same_v<T, Stamp>) {
      return Stamp{gen<Reading>(p, depth)};
    } else if constexpr (std::is_same_v<T, Address>) {
      Address a;
      a.street = gen_string(p);
      if (p.coin()) a.zip = gen_string(p);
      a.number = gen_integer<std::int32_t>(p);
      return a;
    } else if constexpr (std::is_same_v<T, Person>) {
      Person x;
      x.name = gen_string(p);
      if (p.coin()) x.age = gen_integer<std::int64_t>(p);
      if (p.coin()) x.home = gen<Address>(p, depth - 1);
      x.others = gen<std::vector<Address>>(p, depth - 1);
      x.scores = gen<std::map<Keyword, double>>(p, depth - 1);
      x.badge = gen<std::unique_ptr<Shape>>(p, depth - 1);
      x.color = gen<Color>(p, depth);
      x.level = gen<Level>(p, depth);
      return x;
    } else if constexpr (std::is_same_v<T, std::unique_ptr<Shape>> ||
                         std::is_same_v<T, std::shared_ptr<Shape>>) {
      switch (p.below(3)) {
        case 0:
          return nullptr;
        case 1: {
          auto c = std::make_unique<Circle>();
          c->id = gen_string(p);
          c->radius = gen_floating<double>(p, true);
          return T(std::move(c));
        }
        default: {
          auto g = std::make_unique<Polygon>();
          g->id = gen_string(p);
          g->points = gen<decltype(g->points)>(p, depth - 1);
          if (p.coin()) g->fill = gen<Color>(p, depth);
          return T(std::move(g));
        }
      }
    } else if constexpr (detail::SmartPointer<T>) {
      using E = std::remove_cv_t<typename T::element_type>;  // shared_ptr<const E> too
      if (p.below(4) == 0) return nullptr;
      return T(new E(gen<E>(p, depth)));
    } else if constexpr (is_a_v<T, std::optional>) {
      if (p.below(3) == 0) return std::nullopt;
      return gen<typename T::value_type>(p, depth);
    } else if constexpr (is_a_v<T, std::variant>) {
      return pick_alternative(p, depth, std::make_index_sequence<std::variant_size_v<T>>());
    } else if constexpr (is_a_v<T, std::pair>) {
      auto first = gen<typename T::first_type>(p, depth - 1);
      return T(std::move(first), gen<typename T::second_type>(p, depth - 1));
    } else if constexpr (is_a_v<T, std::tuple>) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return T{gen<std::tuple_element_t<I, T>>(p, depth - 1)...};
      }
      (std::make_index_sequence<std::tuple_size_v<T>>());
    } else if constexpr (detail::is_std_array_v<T>) {
      T out;
      for (auto& item : out) item = gen<typename T::value_type>(p, depth - 1);
      return out;
    } else if constexpr (detail::MapLike<T>) {
      T out;
      for (std::size_t n = gen_size(p, depth); n > 0; --n) {
        auto key = gen_key<typename T::key_type>(p, depth - 1);
        out.emplace(std::move(key), gen<typename T::mapped_type>(p, depth - 1));
      }
      // A multimap's key again, with another value: a run of two or more values.
      if constexpr (detail::MultiKeyed<T>)
        if (!out.empty() && p.coin())
          out.emplace(out.begin()->first, gen<typename T::mapped_type>(p, depth - 1));
      return out;
    } else if constexpr (detail::SetLike<T>) {
      T out;
      for (std::size_t n = gen_size(p, depth); n > 0; --n)
        out.insert(gen_key<typename T::value_type>(p, depth - 1));
      if constexpr (detail::MultiKeyed<T>)
        if (!out.empty() && p.coin()) out.insert(*out.begin());  // a member twice
      return out;
    } else if constexpr (is_a_v<T, std::forward_list>) {
      const auto items = gen<std::vector<typename T::value_type>>(p, depth);
      return T(items.begin(), items.end());
    } else if constexpr (is_a_v<T, std::valarray>) {
      const auto items = gen<std::vector<typename T::value_type>>(p, depth);
      return T(items.data(), items.size());
    } else {  // sequences
      T out;
      for (std::size_t n = gen_size(p, depth); n > 0; --n)
        out.push_back(gen<typename T::value_type>(p, depth - 1));
      return out;
    }
  }

  template <std::size_t... I>
  static T pick_alternative(Picker& p, int depth, std::index_sequence<I...>) {
    const std::size_t which = p.below(sizeof...(I));
    T out;
    ((which == I ? (void)(out = T(std::in_place_index<I>,
                                  gen<std::variant_alternative_t<I, T>>(p, depth - 1)))
                 : (void)0),
     ...);
    return out;
  }

  /// A key of a map or a member of a set: no NaN (it breaks a std::map's order).
  template <class K>
  static K gen_key(Picker& p, int depth) {
    if constexpr (std::is_floating_point_v<K>)
      return gen_floating<K>(p, false);
    else if constexpr (is_a_v<K, std::tuple>)
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return K{gen_key<std::tuple_element_t<I, K>>(p, depth)...};
      }
    (std::make_index_sequence<std::tuple_size_v<K>>());
    else return gen<K>(p, depth);
  }
};

/// A Value tree of every kind a typed value may hold as its escape hatch.
inline Value gen_value(Picker& p, int depth) {
  const std::size_t kinds = depth <= 0 ? 12 : 17;
  switch (p.below(kinds)) {
    case 0:
      return Value();
    case 1:
      return Value::boolean(p.coin());
    case 2:
      return Value::integer(gen_integer<std::int64_t>(p));
    case 3:
      return Value::floating(gen_floating<double>(p, true));
    case 4:
      return Value::string(gen_string(p));
    case 5:
      return Value::keyword(gen_name(p));
    case 6:
      return Value::symbol(gen_name(p));
    case 7:
      return Value::big_integer(gen<BigInteger>(p, 0).digits);
    case 8:
      return Value::instant(gen_millis<std::chrono::milliseconds>(p));
    case 9:
      return Value::uuid(gen<Uuid>(p, 0));
    case 10:
      return Value::character(p.coin() ? U'x' : U'\u00e9');
    case 11:
      return Value::big_decimal(gen<BigDecimal>(p, 0).text);
    case 12: {
      std::vector<Value> items(gen_size(p, depth));
      for (Value& v : items) v = gen_value(p, depth - 1);
      return Value::array(std::move(items));
    }
    case 13: {
      std::vector<Value> items(gen_size(p, depth));
      for (Value& v : items) v = gen_value(p, depth - 1);
      return Value::list(std::move(items));
    }
    case 14: {
      std::vector<Value> items;
      for (std::size_t n = gen_size(p, depth); n > 0; --n) {
        Value v = gen_value(p, depth - 1);
        bool dup = false;
        for (const Value& w : items) dup |= w == v;
        if (!dup) items.push_back(std::move(v));
      }
      return Value::set(std::move(items));
    }
    case 15: {
      std::vector<Entry> entries;
      for (std::size_t n = gen_size(p, depth); n > 0; --n) {
        Value k = p.coin() ? Value::keyword(gen_name(p)) : gen_value(p, depth - 1);
        bool dup = false;
        for (const Entry& e : entries) dup |= e.first == k;
        if (!dup) entries.emplace_back(std::move(k), gen_value(p, depth - 1));
      }
      return Value::map(std::move(entries));
    }
    default:
      return Value::tagged("gen/unknown", gen_value(p, depth - 1));
  }
}

// ---- the catalogue ---------------------------------------------------------------------------

using Key3 = std::tuple<std::int32_t, std::string, bool>;

/// Every type a Sample may be of: scalars alone (written quoted at the top level) and the
/// containers and records around them.
using Catalogue = std::tuple<
    bool, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
    std::int64_t, std::uint64_t, double, float, std::string, Keyword, Symbol, Uuid, BigInteger,
    BigDecimal, Uri, Value, Color, Level, std::vector<std::byte>,
    std::chrono::system_clock::time_point,
    std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>,
    std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>, Address, Person,
    std::unique_ptr<Shape>, std::shared_ptr<Shape>, std::vector<Person>,
    std::deque<std::optional<Address>>, std::list<Keyword>, std::vector<std::string>,
    std::vector<double>, std::vector<std::int64_t>, std::vector<std::uint64_t>, std::vector<Value>,
    std::vector<std::unique_ptr<Shape>>, std::map<std::string, std::int64_t>,
    std::map<Keyword, std::vector<std::string>>, std::map<std::int64_t, std::string>,
    std::map<std::uint64_t, bool>, std::map<double, Keyword>, std::map<Address, std::int32_t>,
    std::map<Key3, double>, std::map<std::vector<std::int32_t>, std::string>,
    std::map<Symbol, Value>, std::unordered_map<Uuid, std::uint16_t>, std::map<bool, std::string>,
    std::unordered_map<std::string, Address>, std::unordered_map<Keyword, std::int64_t>,
    std::unordered_map<std::int64_t, Keyword>, std::unordered_map<double, std::string>,
    std::set<std::string>, std::set<std::int64_t>, std::set<double>, std::set<Keyword>,
    std::set<Key3>, std::unordered_set<Keyword>, std::unordered_set<std::string>,
    std::optional<std::string>, std::optional<Person>, std::vector<std::optional<double>>,
    std::variant<std::int64_t, std::string, Keyword, std::vector<std::string>, Address>,
    std::vector<std::variant<bool, double, Symbol, Uuid>>,
    std::tuple<std::int8_t, std::string, Keyword, std::optional<double>, Value>,
    std::pair<std::string, std::map<std::string, std::string>>, std::array<Keyword, 3>,
    std::array<std::uint64_t, 2>, std::vector<std::pair<Keyword, Value>>,
    std::map<std::string, std::map<Keyword, std::set<std::string>>>,
    std::vector<std::chrono::system_clock::time_point>,
    std::map<std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>, int>,
    std::unordered_map<BigInteger, BigDecimal>, std::vector<Uri>, std::forward_list<std::string>,
    std::vector<bool>, std::map<Color, std::int32_t>, std::map<Level, bool>,
    std::unique_ptr<Address>, std::map<std::string, std::optional<Keyword>>,
    // Handler<T> types (add_object<T> on the read side), alone, as keys and inside each other.
    Money, Route, Reading, Gauge, Dial, Ticket, Stamp, std::vector<Route>,
    std::map<Reading, Money>, std::set<Reading>, std::map<Gauge, std::vector<Reading>>,
    std::map<Dial, Ticket>, std::vector<Dial>, std::map<Money, Reading>,
    std::optional<Stamp>, std::variant<Reading, Money, std::int64_t>,
    std::map<Keyword, std::map<Reading, Gauge>>,
    // The std:: types of round twenty-nine: text of other character types and paths (strings),
    // multi-key containers (a multiset an array, a multimap a map of arrays), monostate and
    // nullptr (nil), bytes in an array or a basic_string, pointers to const.
    std::u16string, std::u32string, std::wstring, std::u8string, std::filesystem::path,
    std::map<std::u16string, std::filesystem::path>, std::set<std::u32string>,
    std::multiset<std::int64_t>, std::multimap<std::string, std::int64_t>,
    std::multimap<Keyword, std::vector<std::u8string>>, std::multimap<Key3, std::string>,
    std::unordered_multimap<Keyword, Value>, std::unordered_multiset<std::string>,
    std::multiset<Reading>, std::variant<std::monostate, std::int64_t, std::string>,
    std::vector<std::variant<std::monostate, Address>>,
    std::tuple<std::nullptr_t, std::monostate, std::array<std::byte, 4>>,
    std::array<std::byte, 16>, std::basic_string<std::byte>,
    std::map<std::string, std::array<std::byte, 2>>, std::shared_ptr<const Address>,
    std::vector<std::shared_ptr<const std::string>>, std::map<std::pmr::string, std::pmr::string>,
    // Characters (`~c`), alone, as keys and members, and beside an integer and a string in a
    // variant (whose alternatives come first: a character reads from either).
    char16_t, char32_t, wchar_t, std::map<char32_t, std::u16string>, std::set<char16_t>,
    std::vector<wchar_t>, std::variant<std::int64_t, std::string, char32_t>,
    // A std::valarray (an array), alone and in other containers.
    std::valarray<double>, std::map<Keyword, std::valarray<std::int32_t>>,
    // Time points of a coarse or floating duration.
    std::chrono::time_point<std::chrono::system_clock, std::chrono::hours>,
    std::chrono::time_point<std::chrono::system_clock, std::chrono::minutes>,
    std::chrono::sys_seconds, std::chrono::sys_days,
    std::chrono::time_point<std::chrono::system_clock, std::chrono::duration<double>>,
    std::chrono::time_point<std::chrono::system_clock, std::chrono::duration<double, std::ratio<3600>>>,
    std::map<std::chrono::sys_seconds, std::string>,
    std::vector<std::chrono::time_point<std::chrono::system_clock, std::chrono::duration<double>>>>;

inline constexpr std::size_t kCatalogueSize = std::tuple_size_v<Catalogue>;

// ---- a sample and its checks ------------------------------------------------------------------

inline constexpr Encoding kEncodings[] = {Encoding::json, Encoding::json_verbose,
                                          Encoding::msgpack};

inline std::string name_of(Encoding e) {
  return std::string(encoding_name(e));
}

/// One generated value, type-erased: what the checks need of it.
struct Sample {
  std::size_t type_index = 0;
  std::string type_name;
  /// write<T>(v, enc) alone; `float32`: WriteOptions::float32 (MessagePack's floats in 32
  /// bits where nothing is lost).
  std::function<std::string(Encoding, bool float32)> write;
  std::function<void(Writer&)> write_to;  // Writer::write(v)
  /// Reads the next value of `reader` as T; "" when it equals v, else what went wrong.
  std::function<std::string(Reader&)> read_next;
  /// read<T> of `text` in `enc`, taped `batch` tokens at a time (ReadOptions::
  /// typed_batch_tokens), compared with v: "" or what went wrong.
  std::function<std::string(std::string_view, Encoding, std::size_t batch)> read_typed;
  /// from_value<T> of `v`, compared: "" or what went wrong.
  std::function<std::string(const Value&)> from_value;
  /// Whether T holds a Person, a move-only record (its unique_ptr): from_value binds the user
  /// objects a read into Value made only when they can be copied (docs/typed-data.md).
  bool move_only = false;
  /// Whether T holds a Gauge or a Dial, whose JSON-Verbose rep differs from their rep by
  /// design: the three encodings read as equal Values with the handlers (equal objects), not
  /// without (tagged values of different reps).
  bool verbose_rep = false;
};

/// `v` as EDN (of its JSON text read back), its first 400 bytes, for a failure's message.
template <class T>
std::string show(const T& v) {
  try {
    std::string edn = to_edn(
        transit::read(transit::write(v, Encoding::json, {.registry = &handlers().registry})));
    if (edn.size() > 400) edn = edn.substr(0, 400) + "...";
    return edn;
  } catch (const Error& e) {
    return std::string("(not shown: ") + e.what() + ")";
  }
}

template <class T>
std::string compare(const std::optional<T>& got, const T& want, const char* how) {
  if (!got) return std::string(how) + ": no value";
  if (!same(*got, want))
    return std::string(how) + ": a different value: want " + show(want) + ", got " + show(*got);
  return {};
}

template <class T>
Sample make_sample(std::size_t index, Picker& p, int depth) {
  auto v = std::make_shared<const T>(gen<T>(p, depth));
  const Handlers& h = handlers();
  Sample s;
  s.type_index = index;
  s.type_name = detail::type_name(typeid(T));
  s.move_only = std::is_same_v<T, Person> || std::is_same_v<T, std::vector<Person>> ||
                std::is_same_v<T, std::optional<Person>>;
  s.verbose_rep = std::is_same_v<T, Gauge> || std::is_same_v<T, Dial> ||
                  std::is_same_v<T, std::map<Gauge, std::vector<Reading>>> ||
                  std::is_same_v<T, std::map<Dial, Ticket>> || std::is_same_v<T, std::vector<Dial>> ||
                  std::is_same_v<T, std::map<Keyword, std::map<Reading, Gauge>>>;
  s.write = [v, &h](Encoding e, bool float32) {
    return transit::write(*v, e, {.float32 = float32, .registry = &h.registry});
  };
  s.write_to = [v](Writer& w) { w.write(*v); };
  s.read_next = [v](Reader& r) -> std::string {
    try {
      return compare<T>(r.next<T>(), *v, "Reader::next<T>");
    } catch (const Error& e) {
      return std::string("Reader::next<T> threw: ") + e.what();
    }
  };
  s.read_typed = [v, &h](std::string_view text, Encoding e, std::size_t batch) -> std::string {
    try {
      return compare<T>(
          transit::read<T>(text, e, {.handlers = &h.read, .typed_batch_tokens = batch}), *v,
          "read<T>");
    } catch (const Error& x) {
      return std::string("read<T> threw: ") + x.what();
    }
  };
  s.from_value = [v, &h](const Value& value) -> std::string {
    try {
      return compare<T>(transit::from_value<T>(value, &h.read), *v, "from_value<T>");
    } catch (const Error& x) {
      return std::string("from_value<T> threw: ") + x.what();
    }
  };
  return s;
}

/// A sample of the catalogue's type `index`.
inline Sample make_sample(std::size_t index, Picker& p, int depth = 3) {
  using Maker = Sample (*)(std::size_t, Picker&, int);
  static constexpr auto kMakers = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Maker, sizeof...(I)>{&make_sample<std::tuple_element_t<I, Catalogue>>...};
  }
  (std::make_index_sequence<kCatalogueSize>());
  return kMakers[index % kCatalogueSize](index % kCatalogueSize, p, depth);
}

inline Sample make_sample(Picker& p, int depth = 3) {
  return make_sample(p.below(kCatalogueSize), p, depth);
}

/// Reads `text` as a Value, or says why not.
inline std::optional<Value> read_as_value(std::string_view text, Encoding e, const ReadHandlers* h,
                                          std::string& failure) {
  try {
    return transit::read(text, e, {.handlers = h});
  } catch (const Error& x) {
    failure = std::string("read as Value threw: ") + x.what();
    return std::nullopt;
  }
}

/// The checks of one value alone; "" when all pass, else the first failure with the texts.
inline std::string check_alone(const Sample& s) {
  const Handlers& h = handlers();
  std::optional<Value> as_values[3];
  std::optional<Value> with_handlers[3];
  std::string texts[3];
  for (std::size_t i = 0; i < 3; ++i) {
    const Encoding e = kEncodings[i];
    const auto where = [&](const std::string& what) {
      return s.type_name + " in " + name_of(e) + ": " + what;
    };
    try {
      texts[i] = s.write(e, false);
    } catch (const Error& x) {
      return where(std::string("write<T> threw: ") + x.what());
    }
    if (std::string f = s.read_typed(texts[i], e, ReadOptions::kLibraryDefault); !f.empty())
      return where(f);
    // Taped a few tokens at a time (JSON in memory), so that the binders meet the batches'
    // ends everywhere: a variant tried again, a record's keys, a container of records.
    if (e != Encoding::msgpack)
      if (std::string f = s.read_typed(texts[i], e, 3); !f.empty())
        return where(f + " (3 tokens a batch)");
    // MessagePack with floats in 32 bits wherever that loses nothing.
    if (e == Encoding::msgpack) {
      std::string small;
      try {
        small = s.write(e, true);
      } catch (const Error& x) {
        return where(std::string("write<T> with float32 threw: ") + x.what());
      }
      if (std::string f = s.read_typed(small, e, ReadOptions::kLibraryDefault); !f.empty())
        return where(f + " (float32)");
    }
    // A peer with no handlers: tagged values, bound by the typed readers.
    std::string failure;
    as_values[i] = read_as_value(texts[i], e, nullptr, failure);
    if (!as_values[i]) return where(failure);
    if (std::string f = s.from_value(*as_values[i]); !f.empty()) return where(f + " (no handlers)");
    // A peer with the handlers: user objects, copied out.
    if (s.move_only) continue;
    with_handlers[i] = read_as_value(texts[i], e, &h.read, failure);
    if (!with_handlers[i]) return where(failure + " (with handlers)");
    if (std::string f = s.from_value(*with_handlers[i]); !f.empty())
      return where(f + " (with handlers)");
  }
  const auto& peer = s.verbose_rep ? with_handlers : as_values;
  for (std::size_t i = 1; i < 3; ++i)
    if (*peer[i] != *peer[0])
      return s.type_name + ": " + name_of(kEncodings[i]) + " reads as " + to_edn(*peer[i]) +
             ", json as " + to_edn(*peer[0]) + (s.verbose_rep ? " (with handlers)" : "");
  return {};
}

/// Reads every sample of `r`'s stream in order with Reader::next<T>(); "" or the first failure,
/// named by `how` the reader reads.
inline std::string read_stream(const std::vector<Sample>& samples, Reader& r,
                               const std::string& how) {
  try {
    for (std::size_t i = 0; i < samples.size(); ++i)
      if (std::string f = samples[i].read_next(r); !f.empty())
        return samples[i].type_name + " (value " + std::to_string(i) + " of " + how + "): " + f;
    if (r.next()) return how + " has a value too many";
  } catch (const Error& x) {
    return "reading " + how + " threw: " + x.what();
  }
  return {};
}

/// Many samples through one Writer into one stream, read back by one Reader::next<T>() each:
/// from memory, from memory taped 3 tokens at a time, and from a Source that hands out `step`
/// bytes at a time (cut anywhere, as a pipe may); then the stream read as Values equal the
/// values read one by one; "" or the first failure.
inline std::string check_stream(const std::vector<Sample>& samples, Encoding e,
                                std::size_t step = 7) {
  const Handlers& h = handlers();
  std::string text;
  {
    StringSink sink(text);
    Writer w(sink, e, {.registry = &h.registry});
    for (const Sample& s : samples) {
      try {
        s.write_to(w);
      } catch (const Error& x) {
        return s.type_name + " in a " + name_of(e) + " stream: write threw: " + x.what();
      }
    }
    w.flush();
  }
  {
    Reader r(text, e, {.handlers = &h.read});
    if (std::string f = read_stream(samples, r, "a " + name_of(e) + " stream"); !f.empty())
      return f;
  }
  if (e != Encoding::msgpack) {
    Reader r(text, e, {.handlers = &h.read, .typed_batch_tokens = 3});
    if (std::string f = read_stream(samples, r, "a " + name_of(e) + " stream, 3 tokens a batch");
        !f.empty())
      return f;
  }
  {
    StepSource source(text, step);
    Reader r(source, e, {.chunk_size = step, .handlers = &h.read});
    if (std::string f = read_stream(
            samples, r,
            "a " + name_of(e) + " stream from a Source, " + std::to_string(step) + " bytes a read");
        !f.empty())
      return f;
  }
  try {
    const std::vector<Value> all = read_all(text, e);
    if (all.size() != samples.size())
      return std::string("a ") + name_of(e) + " stream reads as " + std::to_string(all.size()) +
             " Values";
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::string alone = samples[i].write(e, false);
      const Value one = transit::read(alone, e);
      if (all[i] != one)
        return samples[i].type_name + " (value " + std::to_string(i) + " of a " + name_of(e) +
               " stream) reads as " + to_edn(all[i]) + ", alone as " + to_edn(one);
      if (std::string f = samples[i].from_value(all[i]); !f.empty())
        return samples[i].type_name + " (value " + std::to_string(i) + " of a " + name_of(e) +
               " stream, as Values): " + f;
    }
  } catch (const Error& x) {
    return std::string("reading a ") + name_of(e) + " stream as Values threw: " + x.what();
  }
  return {};
}

}  // namespace transit::test::typed_gen
