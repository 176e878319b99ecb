// SPDX-License-Identifier: Apache-2.0
// transit-cpp: writing C++ values directly, and write handlers for user types.
//
// Standard types are written by the templates here, resolved at compile time. User types go
// through a Registry at run time: exact type first, then declared ancestors, memoized. A type
// that is neither, and is not a class type (so no registry could hold it), is a compile-time
// error.
#pragma once

#include <array>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <deque>
#include <forward_list>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <ratio>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "transit/registry.h"
#include "transit/value.h"

namespace transit {

/// Views that tell the typed writer how to write something it would otherwise write another
/// way: `as_keyword("a")` is the keyword :a, `as_map(pairs)` writes any range of pairs as a
/// map, `as_list(r)` and `as_set(r)` write any range as a list or a set. A view of an lvalue
/// refers to it; a view of a temporary owns it, so a handler's rep may return
/// `as_map(std::array{...})`.
struct KeywordView {
  std::string_view name;
};
struct SymbolView {
  std::string_view name;
};
template <class Range>
struct MapView {
  Range range;  // a reference type for lvalues
};
template <class Range>
struct ListView {
  Range range;
};
template <class Range>
struct SetView {
  Range range;
};
inline KeywordView as_keyword(std::string_view name) noexcept { return {name}; }
inline SymbolView as_symbol(std::string_view name) noexcept { return {name}; }
template <class Range>
MapView<Range> as_map(Range&& r) {
  return {std::forward<Range>(r)};
}
template <class Range>
ListView<Range> as_list(Range&& r) {
  return {std::forward<Range>(r)};
}
template <class Range>
SetView<Range> as_set(Range&& r) {
  return {std::forward<Range>(r)};
}

/// Names for an enum's values, so it is written and read as keywords (:open) rather than as
/// its integer. Specialize with an array of (value, name) pairs:
///   template <> struct transit::EnumNames<Status> {
///     static constexpr std::array names{std::pair{Status::open, "open"},
///                                       std::pair{Status::shipped, "shipped"}};
///   };
template <class E>
struct EnumNames;

template <class E>
concept NamedEnum = std::is_enum_v<E> && requires { EnumNames<E>::names; };

namespace detail {

/// The writer's core as the typed templates see it: one call per token, compiled inside the
/// library once per backend. `as_key` marks a key of a map whose keys are all scalars.
class ObjectEncoder {
 public:
  virtual void null(bool as_key) = 0;
  virtual void boolean(bool b, bool as_key) = 0;
  virtual void integer(std::int64_t i, bool as_key) = 0;
  /// Values above INT64_MAX are big integers.
  virtual void uinteger(std::uint64_t u, bool as_key) = 0;
  virtual void floating(double d, bool as_key) = 0;
  virtual void string(std::string_view s, bool as_key) = 0;
  virtual void keyword(std::string_view name, bool as_key) = 0;
  virtual void symbol(std::string_view name, bool as_key) = 0;
  virtual void instant(std::int64_t ms, bool as_key) = 0;
  virtual void bytes(std::span<const std::byte> data, bool as_key) = 0;
  virtual void value(const Value& v, bool as_key) = 0;
  /// A user object, resolved through the registry by its C++ type.
  virtual void object(const std::type_info& type, const void* obj, bool as_key) = 0;
  /// Whether a user object is written as a scalar (its handler's tag has one character).
  virtual bool object_is_scalar(const std::type_info& type, const void* obj) = 0;
  virtual void array_begin(std::size_t n) = 0;
  virtual void array_end() = 0;
  /// A map of `n` entries; `scalar_keys` says whether every key is written as a scalar (else
  /// the map is written as a cmap and its keys as ordinary values).
  virtual void map_begin(std::size_t n, bool scalar_keys) = 0;
  virtual void map_end() = 0;
  /// `["~#tag", rep]`: the rep is written between begin and end.
  virtual void tagged_begin(std::string_view tag) = 0;
  virtual void tagged_end() = 0;
  /// A top-level value; scalars are quoted.
  virtual void top_begin(bool scalar) = 0;
  virtual void top_end(bool scalar) = 0;
  /// The form of a user object as it is written (its handler's tag, and its rep's form where
  /// that is static); RepForm::unknown where only its rep, once made, can tell.
  virtual RepForm object_form(const std::type_info& type, const void* obj) = 0;
  /// Checks a rep just made against `rep_check`, which it resets; throws Error(bad_rep), naming
  /// the handler's type and tag, when the rep is not of the form its tag needs.
  virtual void check_rep(RepShape shape) = 0;

  /// Set by the writer just before it calls a handler's rep when that rep, once made, must be
  /// checked (its tag needs a form its C++ type does not promise); the rep's writer then calls
  /// check_rep before it writes anything.
  RepCheck rep_check = RepCheck::none;

 protected:
  ~ObjectEncoder() = default;
};

template <class T>
using plain_t = std::remove_cvref_t<T>;

template <class T, template <class...> class Of>
inline constexpr bool is_specialization_v = false;
template <template <class...> class Of, class... A>
inline constexpr bool is_specialization_v<Of<A...>, Of> = true;

template <class T>
inline constexpr bool is_std_array_v = false;
template <class U, std::size_t N>
inline constexpr bool is_std_array_v<std::array<U, N>> = true;

template <class T>
inline constexpr bool is_time_point_v = false;
template <class D>
inline constexpr bool is_time_point_v<std::chrono::time_point<std::chrono::system_clock, D>> = true;

template <class T>
concept StringLike = std::is_convertible_v<const T&, std::string_view> && !std::is_same_v<T, Value>;

/// Text of a character type other than char (std::u8string, std::u16string, std::u32string,
/// std::wstring, their views, u"..." literals): written as a Transit string, in UTF-8.
template <class T, class C>
concept TextOf = std::is_convertible_v<const T&, std::basic_string_view<C>>;
template <class T>
concept WideText = !std::is_same_v<T, Value> &&
                   (TextOf<T, char8_t> || TextOf<T, char16_t> || TextOf<T, char32_t> ||
                    TextOf<T, wchar_t>);
/// The character type of a WideText.
template <class T>
using text_char_t = std::conditional_t<
    TextOf<T, char8_t>, char8_t,
    std::conditional_t<TextOf<T, char16_t>, char16_t,
                       std::conditional_t<TextOf<T, char32_t>, char32_t, wchar_t>>>;

/// A container that keeps equal keys apart (std::multimap, std::multiset and their unordered
/// kin): its insert gives an iterator, where a unique container's gives a pair.
template <class T>
concept MultiKeyed = requires(T& t, const typename T::value_type& v) {
  typename T::key_type;
  { t.insert(v) } -> std::same_as<typename T::iterator>;
};

template <class T>
concept ByteRange = requires(const T& t) {
  { std::span<const std::byte>(t) };
};

template <class T>
concept SmartPointer = is_specialization_v<T, std::unique_ptr> || is_specialization_v<T, std::shared_ptr>;

template <class T>
concept MapLike = requires { typename T::key_type; typename T::mapped_type; } && std::ranges::range<T>;

template <class T>
concept SetLike = requires { typename T::key_type; } && !MapLike<T> && std::ranges::range<T>;

/// A type the static writer knows. Everything else must be a class type, written through the
/// registry.
template <class T>
inline constexpr bool is_view_v = is_specialization_v<T, MapView> ||
                                  is_specialization_v<T, ListView> ||
                                  is_specialization_v<T, SetView>;

template <class T>
inline constexpr bool is_value_type_v =
    std::is_same_v<T, Uuid> || std::is_same_v<T, Keyword> || std::is_same_v<T, Symbol> ||
    std::is_same_v<T, BigInteger> || std::is_same_v<T, BigDecimal> || std::is_same_v<T, Uri>;

template <class T>
concept StaticallyWritable =
    std::is_arithmetic_v<T> || std::is_enum_v<T> || is_value_type_v<T> || StringLike<T> || std::is_same_v<T, Value> || is_view_v<T> ||
    std::is_same_v<T, KeywordView> || std::is_same_v<T, SymbolView> ||
    std::is_same_v<T, std::nullptr_t> || std::is_same_v<T, std::monostate> ||
    is_time_point_v<T> || ByteRange<T> || WideText<T> ||
    is_specialization_v<T, std::optional> || is_specialization_v<T, std::variant> ||
    is_specialization_v<T, std::pair> || is_specialization_v<T, std::tuple> ||
    SmartPointer<T> || std::is_pointer_v<T> || is_specialization_v<T, std::reference_wrapper> ||
    std::ranges::range<T>;

template <class T>
void write_any(ObjectEncoder& e, const T& v, bool as_key = false);

/// trunc(v * Num / Den) in `out`, as duration_cast computes it but with no intermediate
/// product that overflows where the result fits; false when the result does not fit.
template <std::intmax_t Num, std::intmax_t Den>
bool scale_exact(std::int64_t v, std::int64_t& out) noexcept {
  static_assert(Num > 0 && Den > 0);
  if constexpr (Den == 1) {
    return !__builtin_mul_overflow(v, Num, &out);
  } else if constexpr (Num == 1) {
    out = v / Den;
    return true;
  } else {
    // (q * Den + r) * Num / Den == q * Num + r * Num / Den, each truncated toward zero alike.
    std::int64_t whole, part;
    return !__builtin_mul_overflow(v / Den, Num, &whole) &&
           !__builtin_mul_overflow(v % Den, Num, &part) &&
           !__builtin_add_overflow(whole, part / Den, &out);
  }
}

[[noreturn, gnu::cold]] void time_point_out_of_range(const std::type_info& type);

/// True when `s` is well-formed UTF-8 (src/codec/codec.cpp).
bool is_valid_utf8(std::string_view s) noexcept;
/// Appends code point `c` (a Unicode scalar value) to `out` as UTF-8 (src/codec/codec.cpp).
void append_utf8(char32_t c, std::string& out);
/// The one code point UTF-8 `s` holds, or nullopt when it holds not exactly one (src/codec/codec.cpp).
std::optional<char32_t> decode_one_code_point(std::string_view s) noexcept;

/// The standard integer of T's size and sign: T itself but for the character types, which
/// std::in_range refuses to compile and which an enum's integer is written as.
template <class T>
using integer_of_t =
    std::conditional_t<std::is_signed_v<T>, std::make_signed_t<T>, std::make_unsigned_t<T>>;

/// Throws Error(invalid_argument): text of `type` that is no Unicode text, `why`.
[[noreturn, gnu::cold, gnu::noinline]] inline void not_text(const std::type_info& type,
                                                            std::string_view why) {
  throw_error(Errc::invalid_argument,
              type_name(type) + " is not Unicode text: " + std::string(why));
}

/// `s` as UTF-8 in `out`: UTF-8 (char8_t) checked, UTF-16 (char16_t, a 16-bit wchar_t) and
/// UTF-32 (char32_t, a 32-bit wchar_t) transcoded. A lone surrogate, a code point past
/// U+10FFFF or ill-formed UTF-8 is Error(invalid_argument) naming `type`, not a replacement
/// character: the text a peer reads is the text that was meant, or nothing.
template <class C>
void utf8_of(std::basic_string_view<C> s, const std::type_info& type, std::string& out) {
  if constexpr (sizeof(C) == 1) {
    // char8_t may alias nothing but itself; char may alias it.
    const std::string_view bytes(reinterpret_cast<const char*>(s.data()), s.size());
    if (!is_valid_utf8(bytes)) not_text(type, "ill-formed UTF-8");
    out.assign(bytes);
  } else {
    out.clear();
    out.reserve(s.size());
    using Unit = std::make_unsigned_t<C>;
    for (std::size_t i = 0; i < s.size(); ++i) {
      char32_t cp = static_cast<Unit>(s[i]);
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        if constexpr (sizeof(C) == 2) {
          const char32_t low = i + 1 < s.size() ? static_cast<Unit>(s[i + 1]) : 0;
          if (cp > 0xDBFF || low < 0xDC00 || low > 0xDFFF)
            not_text(type, "a lone surrogate at code unit " + std::to_string(i));
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          ++i;
        } else {
          not_text(type, "a surrogate code point at code unit " + std::to_string(i));
        }
      } else if (cp > 0x10FFFF) {
        not_text(type, "a code point past U+10FFFF at code unit " + std::to_string(i));
      }
      append_utf8(cp, out);
    }
  }
}

/// std::filesystem::path, known by its shape (a generic form in UTF-8, a native string type, a
/// preferred separator, made from UTF-8) so that these headers need not include <filesystem>:
/// it cost a user's file that includes transit/transit.h about 0.2 s to compile, a tenth of it
/// (performance-log.md, "What `<filesystem>` in the public headers costs"). A user who has a
/// path has included it.
template <class T>
concept FilesystemPath = requires(const T& p) {
  { p.generic_u8string() } -> std::same_as<std::u8string>;
  typename T::string_type;
  T::preferred_separator;
} && std::constructible_from<T, std::u8string>;

/// A path as the text every peer reads it as: its generic form (`/` between its parts, as
/// POSIX writes them and Windows reads them), in UTF-8. A path whose bytes are not UTF-8 (POSIX
/// allows any but `/` and NUL) is Error(invalid_argument), not a string a peer mangles.
template <FilesystemPath P>
std::string path_text(const P& p) {
  std::string out;
  const std::u8string text = p.generic_u8string();
  utf8_of(std::u8string_view(text), typeid(P), out);
  return out;
}

/// `x` rounded to the nearest integer, halves away from zero, as std::round does (without
/// <cmath> in every user's build).
template <class F>
F round_half_away(F x) noexcept {
  if constexpr (std::is_same_v<F, float>)
    return __builtin_roundf(x);
  else if constexpr (std::is_same_v<F, double>)
    return __builtin_round(x);
  else
    return __builtin_roundl(static_cast<long double>(x));
}

/// The milliseconds since 1970 that a time point of duration `d` is written as (Transit's
/// instants are int64 milliseconds): an integer count truncated toward zero as duration_cast
/// does, a floating one rounded to the nearest (a read of a millisecond count made the double
/// nearest it, perhaps a hair nearer zero, which truncation took a millisecond lower). Throws
/// Error(invalid_argument) for one that holds no such count: a coarse duration's large count
/// (hours, years), a floating one's NaN, infinity or huge value, an unsigned one above
/// INT64_MAX; those were a signed overflow or an out-of-range float conversion. A signed
/// integer count finer than or as fine as a millisecond (system_clock's) always fits: it is
/// divided, on the same path as before, with no check.
template <class TimePoint, class D>
std::int64_t instant_millis(D d) {
  using Rep = typename D::rep;
  using ToMillis = std::ratio_divide<typename D::period, std::milli>;
  if constexpr (std::is_floating_point_v<Rep>) {
    const Rep ms = round_half_away(std::chrono::duration<Rep, std::milli>(d).count());
    // The int64 range as the float type holds it: [-2^63, 2^63). NaN fails both tests.
    if (!(ms >= Rep(-0x1p63) && ms < Rep(0x1p63))) time_point_out_of_range(typeid(TimePoint));
    return static_cast<std::int64_t>(ms);
  } else if constexpr (std::is_integral_v<Rep> && std::is_signed_v<Rep> &&
                       sizeof(Rep) <= sizeof(std::int64_t) && ToMillis::num == 1) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  } else if constexpr (std::is_unsigned_v<Rep> && ToMillis::num == 1) {
    const std::uintmax_t ms = static_cast<std::uintmax_t>(d.count()) / ToMillis::den;
    if (!std::in_range<std::int64_t>(ms)) time_point_out_of_range(typeid(TimePoint));
    return static_cast<std::int64_t>(ms);
  } else if constexpr (!std::is_integral_v<Rep>) {
    // A class type standing in for a number: as duration_cast makes it, unchecked.
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  } else {
    std::int64_t ms = 0;
    if (!std::in_range<std::int64_t>(d.count()) ||
        !scale_exact<ToMillis::num, ToMillis::den>(static_cast<std::int64_t>(d.count()), ms))
      time_point_out_of_range(typeid(TimePoint));
    return ms;
  }
}

/// The standard types always written as one string or scalar.
template <class U>
inline constexpr bool is_static_scalar_v =
    std::is_arithmetic_v<U> || std::is_enum_v<U> || is_value_type_v<U> || StringLike<U> ||
    std::is_same_v<U, std::nullptr_t> || std::is_same_v<U, std::monostate> || WideText<U> ||
    FilesystemPath<U> || is_time_point_v<U> || ByteRange<U> || std::is_same_v<U, KeywordView> ||
    std::is_same_v<U, SymbolView>;

/// Whether `v` is written as a scalar: decided at compile time for standard types, by the
/// handler's tag for user objects.
template <class T>
bool is_scalar(ObjectEncoder& e, const T& v) {
  using U = plain_t<T>;
  if constexpr (is_static_scalar_v<U>) {
    return true;
  } else if constexpr (std::is_same_v<U, Value>) {
    if (v.kind() == Kind::object) return e.object_is_scalar(v.object_type_info(), v.object_address());
    switch (v.kind()) {
      case Kind::array: case Kind::list: case Kind::set: case Kind::map: case Kind::link:
        return false;
      case Kind::tagged:
        return v.tag().size() == 1 && string_tag_char(v.tag()[0]) && v.rep().kind() == Kind::string;
      default:
        return true;
    }
  } else if constexpr (is_specialization_v<U, std::optional>) {
    return !v || is_scalar(e, *v);
  } else if constexpr (is_specialization_v<U, std::reference_wrapper>) {
    return is_scalar(e, v.get());
  } else if constexpr (is_specialization_v<U, std::variant>) {
    return std::visit([&](const auto& x) { return is_scalar(e, x); }, v);
  } else if constexpr (SmartPointer<U> || std::is_pointer_v<U>) {
    if (!v) return true;
    if constexpr (std::is_polymorphic_v<std::remove_cv_t<std::remove_pointer_t<typename std::pointer_traits<U>::element_type*>>>)
      return e.object_is_scalar(typeid(*v), dynamic_cast<const void*>(&*v));
    else
      return is_scalar(e, *v);
  } else if constexpr (StaticallyWritable<U>) {
    return false;  // containers, pairs, tuples
  } else if constexpr (std::is_polymorphic_v<U>) {
    return e.object_is_scalar(typeid(v), dynamic_cast<const void*>(&v));
  } else {
    return e.object_is_scalar(typeid(U), &v);
  }
}

template <class Range>
std::size_t count(const Range& r) {
  if constexpr (std::ranges::sized_range<const Range>)
    return static_cast<std::size_t>(std::ranges::size(r));
  else
    return static_cast<std::size_t>(std::ranges::distance(r));
}

// ---- rep forms: what a handler's rep is written as, told from its C++ type ---------------------

template <class U>
constexpr RepForm static_form();

/// A form or null: a scalar when the form is one, else only the value can tell.
constexpr RepForm or_null(RepForm f) noexcept { return f == RepForm::scalar ? f : RepForm::unknown; }

/// A map's form from its key type: a map when keys are scalars, a cmap when they are not.
template <class K>
constexpr RepForm map_form() {
  constexpr RepForm k = static_form<K>();
  if constexpr (k == RepForm::scalar)
    return StringLike<plain_t<K>> ? RepForm::string_map : RepForm::map;
  else if constexpr (k == RepForm::unknown)
    return RepForm::unknown;
  else
    return RepForm::tagged;
}

template <class Range>
using pair_key_t = plain_t<std::tuple_element_t<0, std::ranges::range_value_t<plain_t<Range>>>>;

/// The form of a std::variant of these: theirs when they have one, else whether it is a scalar
/// when they agree on that.
template <class... A>
constexpr RepForm same_form() {
  constexpr RepForm forms[] = {static_form<A>()...};
  bool same = true, composite = true;
  for (const RepForm f : forms) {
    same = same && f == forms[0];
    composite = composite && f != RepForm::scalar && f != RepForm::unknown;
  }
  return same ? forms[0] : composite ? RepForm::composite : RepForm::unknown;
}
template <class V>
struct variant_form;
template <class... A>
struct variant_form<std::variant<A...>> {
  static constexpr RepForm value = same_form<A...>();
};

/// The form `write_any` writes a U in, as far as U tells: the same branches in the same order.
template <class U>
constexpr RepForm static_form() {
  if constexpr (is_static_scalar_v<U>) {
    return RepForm::scalar;
  } else if constexpr (std::is_same_v<U, Value>) {
    return RepForm::unknown;
  } else if constexpr (is_specialization_v<U, MapView>) {
    return map_form<pair_key_t<decltype(std::declval<U>().range)>>();
  } else if constexpr (is_specialization_v<U, ListView> || is_specialization_v<U, SetView>) {
    return RepForm::tagged;
  } else if constexpr (is_specialization_v<U, std::optional>) {
    return or_null(static_form<plain_t<typename U::value_type>>());
  } else if constexpr (is_specialization_v<U, std::variant>) {
    return variant_form<U>::value;
  } else if constexpr (is_specialization_v<U, std::reference_wrapper>) {
    return static_form<plain_t<typename U::type>>();
  } else if constexpr (is_specialization_v<U, std::pair> || is_specialization_v<U, std::tuple>) {
    return RepForm::array;
  } else if constexpr (SmartPointer<U> || std::is_pointer_v<U>) {
    using Pointee = std::remove_cv_t<std::remove_reference_t<decltype(*std::declval<U>())>>;
    if constexpr (std::is_polymorphic_v<Pointee> || !StaticallyWritable<Pointee>)
      return RepForm::unknown;
    else
      return or_null(static_form<Pointee>());
  } else if constexpr (MapLike<U>) {
    return map_form<typename U::key_type>();
  } else if constexpr (MultiKeyed<U>) {
    return RepForm::array;
  } else if constexpr (SetLike<U> || is_specialization_v<U, std::list> ||
                       is_specialization_v<U, std::forward_list>) {
    return RepForm::tagged;
  } else if constexpr (std::ranges::range<U>) {
    return RepForm::array;
  } else {
    return RepForm::unknown;  // a user type: its handler decides
  }
}

/// The user type whose handler decides the form of a rep of type R (RegistryBuilder::freeze
/// looks it up), or null: R tells its form itself, leaves it to the value (a Value, a pointer
/// that may be null), or is a reference to a polymorphic type, which may be a derived one.
template <class R>
const std::type_info* user_rep_type() noexcept {
  using U = plain_t<R>;
  if constexpr (std::is_class_v<U> && !StaticallyWritable<U> && !FilesystemPath<U> &&
                (!std::is_polymorphic_v<U> || std::is_final_v<U> || !std::is_reference_v<R>))
    return &typeid(U);
  else
    return nullptr;
}

/// Whether a map key is written as a string.
template <class K>
bool key_is_string(const K& k) {
  if constexpr (std::is_same_v<plain_t<K>, Value>)
    return k.kind() == Kind::string;
  else
    return StringLike<plain_t<K>>;
}

/// The form of a rep as made: static_form where its type tells, else from the value.
/// Reads what it must and writes nothing.
template <class T>
RepShape shape_of(ObjectEncoder& e, const T& r) {
  using U = plain_t<T>;
  constexpr RepForm form = static_form<U>();
  if constexpr (form == RepForm::array) {
    if constexpr (is_specialization_v<U, std::pair> || is_specialization_v<U, std::tuple>)
      return {form, std::tuple_size_v<U>};
    else
      return {form, count(r)};
  } else if constexpr (form != RepForm::unknown && form != RepForm::composite) {
    return {form, kNoCount};
  } else if constexpr (std::is_same_v<U, Value>) {
    switch (r.kind()) {
      case Kind::array:
        return {RepForm::array, r.size()};
      case Kind::map: {
        bool strings = true;
        for (const auto& entry : r.entries()) {
          const RepForm k = shape_of(e, entry.first).form;
          if (k != RepForm::scalar && k != RepForm::unknown) return {RepForm::tagged, kNoCount};
          strings = strings && entry.first.kind() == Kind::string;
        }
        return {strings ? RepForm::string_map : RepForm::map, kNoCount};
      }
      case Kind::list: case Kind::set: case Kind::link:
        return {RepForm::tagged, kNoCount};
      case Kind::tagged:
        return {is_scalar(e, r) ? RepForm::scalar : RepForm::tagged, kNoCount};
      case Kind::object:
        return {e.object_form(r.object_type_info(), r.object_address()), kNoCount};
      default:
        return {RepForm::scalar, kNoCount};
    }
  } else if constexpr (is_specialization_v<U, MapView> || MapLike<U>) {
    // Keys whose form only their values tell: a map when all are scalars, else a cmap.
    bool strings = true;
    const auto& range = [&]() -> const auto& {
      if constexpr (is_specialization_v<U, MapView>) return r.range; else return r;
    }();
    for (const auto& entry : range) {
      const RepForm k = shape_of(e, entry.first).form;
      if (k != RepForm::scalar && k != RepForm::unknown) return {RepForm::tagged, kNoCount};
      strings = strings && key_is_string(entry.first);
    }
    return {strings ? RepForm::string_map : RepForm::map, kNoCount};
  } else if constexpr (is_specialization_v<U, std::optional>) {
    if (!r) return {RepForm::scalar, kNoCount};
    return shape_of(e, *r);
  } else if constexpr (is_specialization_v<U, std::variant>) {
    return std::visit([&](const auto& x) { return shape_of(e, x); }, r);
  } else if constexpr (is_specialization_v<U, std::reference_wrapper>) {
    return shape_of(e, r.get());
  } else if constexpr (SmartPointer<U> || std::is_pointer_v<U>) {
    if (!r) return {RepForm::scalar, kNoCount};
    using Pointee = std::remove_cv_t<std::remove_reference_t<decltype(*r)>>;
    if constexpr (std::is_polymorphic_v<Pointee>)
      return {e.object_form(typeid(*r), dynamic_cast<const void*>(&*r)), kNoCount};
    else
      return shape_of(e, *r);
  } else if constexpr (std::is_polymorphic_v<U>) {
    return {e.object_form(typeid(r), dynamic_cast<const void*>(&r)), kNoCount};
  } else {
    return {e.object_form(typeid(U), &r), kNoCount};
  }
}

template <class Range>
void write_items(ObjectEncoder& e, const Range& r) {
  e.array_begin(count(r));
  for (const auto& item : r) write_any(e, item, false);
  e.array_end();
}

// Any range of pairs (std::map, a vector of pairs ...) as a map, or a cmap when a key is not
// a scalar.
template <class Range>
void write_pairs(ObjectEncoder& e, const Range& r) {
  bool scalar_keys = true;
  for (const auto& [key, value] : r)
    if (!is_scalar(e, key)) {
      scalar_keys = false;
      break;
    }
  e.map_begin(count(r), scalar_keys);
  for (const auto& [key, value] : r) {
    write_any(e, key, scalar_keys);
    write_any(e, value, false);
  }
  e.map_end();
}

/// Whether `a` and `b` are one key of MultiKeyed container `m`.
template <class M>
bool same_key(const M& m, const typename M::key_type& a, const typename M::key_type& b) {
  if constexpr (requires { m.key_eq(); })
    return m.key_eq()(a, b);
  else
    return !m.key_comp()(a, b) && !m.key_comp()(b, a);
}

/// The end of the run of `m`'s items with the key of `from`'s, from `from` on (a multi
/// container keeps equal keys next to each other); `n` counts them.
template <class M>
auto key_run_end(const M& m, typename M::const_iterator from, std::size_t& n) {
  auto end = from;
  for (n = 0; end != m.end() && same_key(m, end->first, from->first); ++end) ++n;
  return end;
}

// A std::multimap (or unordered_multimap) as a map from each key to the array of its values,
// in the container's order: no peer keeps two entries of one key, so they are one entry.
template <class M>
void write_key_runs(ObjectEncoder& e, const M& m) {
  bool scalar_keys = true;
  std::size_t keys = 0, n = 0;
  for (auto it = m.begin(); it != m.end(); it = key_run_end(m, it, n)) {
    ++keys;
    if (scalar_keys && !is_scalar(e, it->first)) scalar_keys = false;
  }
  e.map_begin(keys, scalar_keys);
  for (auto it = m.begin(); it != m.end();) {
    const auto end = key_run_end(m, it, n);
    write_any(e, it->first, scalar_keys);
    e.array_begin(n);
    for (; it != end; ++it) write_any(e, it->second, false);
    e.array_end();
  }
  e.map_end();
}

template <class T>
void write_any(ObjectEncoder& e, const T& v, bool as_key) {
  using U = plain_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    e.boolean(v, as_key);
  } else if constexpr (std::is_enum_v<U>) {
    if constexpr (NamedEnum<U>) {
      for (const auto& [value, name] : EnumNames<U>::names)
        if (value == v) return e.keyword(name, as_key);
      throw_error(Errc::no_handler, "no name for " + type_name(typeid(U)) + " value " +
                                        std::to_string(static_cast<std::underlying_type_t<U>>(v)));
    } else {
      // An integer, whatever the underlying type (an enum of char32_t is no character).
      write_any(e, static_cast<integer_of_t<std::underlying_type_t<U>>>(v), as_key);
    }
  } else if constexpr (std::is_same_v<U, Uuid>) {
    e.value(Value::uuid(v), as_key);
  } else if constexpr (std::is_same_v<U, Keyword>) {
    e.keyword(v.name, as_key);
  } else if constexpr (std::is_same_v<U, Symbol>) {
    e.symbol(v.name, as_key);
  } else if constexpr (std::is_same_v<U, BigInteger>) {
    e.value(Value::big_integer(v.digits), as_key);
  } else if constexpr (std::is_same_v<U, BigDecimal>) {
    e.value(Value::big_decimal(v.text), as_key);
  } else if constexpr (std::is_same_v<U, Uri>) {
    e.value(Value::uri(v.text), as_key);
  } else if constexpr (std::is_same_v<U, char> || std::is_same_v<U, char8_t>) {
    static_assert(!std::is_same_v<U, U>,
                  "transit: a char is ambiguous; write a std::string, or an int, or "
                  "transit::Value::character(c)");
  } else if constexpr (CharacterType<U>) {
    // As transit-java writes a Java char and transit-clj a Clojure one: `~c`, a string.
    e.value(Value(v), as_key);
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    e.integer(v, as_key);
  } else if constexpr (std::is_integral_v<U>) {
    e.uinteger(v, as_key);
  } else if constexpr (std::is_floating_point_v<U>) {
    e.floating(static_cast<double>(v), as_key);
  } else if constexpr (std::is_same_v<U, std::nullptr_t> || std::is_same_v<U, std::monostate>) {
    e.null(as_key);
  } else if constexpr (std::is_same_v<U, Value>) {
    e.value(v, as_key);
  } else if constexpr (StringLike<U>) {
    e.string(std::string_view(v), as_key);
  } else if constexpr (WideText<U>) {
    using C = text_char_t<U>;
    std::string utf8;
    utf8_of(std::basic_string_view<C>(v), typeid(U), utf8);
    e.string(utf8, as_key);
  } else if constexpr (FilesystemPath<U>) {
    e.string(path_text(v), as_key);
  } else if constexpr (std::is_same_v<U, KeywordView>) {
    e.keyword(v.name, as_key);
  } else if constexpr (std::is_same_v<U, SymbolView>) {
    e.symbol(v.name, as_key);
  } else if constexpr (is_specialization_v<U, MapView>) {
    write_pairs(e, v.range);
  } else if constexpr (is_specialization_v<U, ListView>) {
    e.tagged_begin("list");
    write_items(e, v.range);
    e.tagged_end();
  } else if constexpr (is_specialization_v<U, SetView>) {
    e.tagged_begin("set");
    write_items(e, v.range);
    e.tagged_end();
  } else if constexpr (is_time_point_v<U>) {
    e.instant(instant_millis<U>(v.time_since_epoch()), as_key);
  } else if constexpr (ByteRange<U>) {
    e.bytes(std::span<const std::byte>(v), as_key);
  } else if constexpr (is_specialization_v<U, std::optional>) {
    if (v)
      write_any(e, *v, as_key);
    else
      e.null(as_key);
  } else if constexpr (is_specialization_v<U, std::variant>) {
    std::visit([&](const auto& x) { write_any(e, x, as_key); }, v);
  } else if constexpr (is_specialization_v<U, std::reference_wrapper>) {
    // The object it refers to (a std::vector<std::reference_wrapper<const T>> is written as
    // the Ts), resolved as that object is, user types by their dynamic type.
    write_any(e, v.get(), as_key);
  } else if constexpr (is_specialization_v<U, std::pair>) {
    e.array_begin(2);
    write_any(e, v.first);
    write_any(e, v.second);
    e.array_end();
  } else if constexpr (is_specialization_v<U, std::tuple>) {
    e.array_begin(std::tuple_size_v<U>);
    std::apply([&](const auto&... x) { (write_any(e, x), ...); }, v);
    e.array_end();
  } else if constexpr (SmartPointer<U> || std::is_pointer_v<U>) {
    using Pointee = std::remove_cv_t<std::remove_reference_t<decltype(*v)>>;
    static_assert(!std::is_void_v<Pointee> && !std::is_function_v<Pointee>,
                  "transit: cannot write through a void or function pointer");
    if (!v) return e.null(as_key);
    if constexpr (std::is_polymorphic_v<Pointee>)
      // Dispatch on the dynamic type; the handler receives the most-derived object.
      e.object(typeid(*v), dynamic_cast<const void*>(&*v), as_key);
    else
      write_any(e, *v, as_key);
  } else if constexpr (MapLike<U> && MultiKeyed<U>) {
    write_key_runs(e, v);
  } else if constexpr (MultiKeyed<U>) {
    // A multiset as the array of its members, duplicates and all: a `~#set` keeps one of each
    // at every peer.
    write_items(e, v);
  } else if constexpr (MapLike<U>) {
    write_pairs(e, v);
  } else if constexpr (SetLike<U>) {
    e.tagged_begin("set");
    write_items(e, v);
    e.tagged_end();
  } else if constexpr (is_specialization_v<U, std::list> || is_specialization_v<U, std::forward_list>) {
    e.tagged_begin("list");
    write_items(e, v);
    e.tagged_end();
  } else if constexpr (std::ranges::range<U>) {
    write_items(e, v);
  } else {
    static_assert(std::is_class_v<U>,
                  "transit: no way to write this type: it is not a standard type transit "
                  "knows and not a class type a Registry could hold a handler for");
    if constexpr (std::is_polymorphic_v<U>)
      // Through a reference to a base, by the dynamic type, as through a pointer.
      e.object(typeid(v), dynamic_cast<const void*>(&v), as_key);
    else
      e.object(typeid(U), &v, as_key);
  }
}

template <class T>
void write_top(ObjectEncoder& e, const T& v) {
  const bool scalar = is_scalar(e, v);
  e.top_begin(scalar);
  write_any(e, v, false);
  e.top_end(scalar);
}

// A handler's rep, checked before any of it is written where the tag needs a form (a rep of
// the wrong one would be output no reader reads), then written: erase_rep's and the typed
// default handler's.
template <class R>
void write_checked_rep(ObjectEncoder& e, const R& rep, bool as_key) {
  if (e.rep_check != RepCheck::none) [[unlikely]] e.check_rep(shape_of(e, rep));
  write_any(e, rep, as_key);
}

template <class T, class F>
std::function<void(const void*, ObjectEncoder&, bool)> erase_rep(F f) {
  return [f = std::move(f)](const void* obj, ObjectEncoder& e, bool as_key) {
    write_checked_rep(e, f(*static_cast<const T*>(obj)), as_key);
  };
}

template <class T, class F>
std::function<std::string(const void*)> erase_string(F f) {
  return [f = std::move(f)](const void* obj) {
    return std::string(f(*static_cast<const T*>(obj)));
  };
}

}  // namespace detail

/// The full handler for a user type T: tag, representation, string representation and an
/// optional JSON-Verbose representation. `rep` returns anything writable (a std type, a
/// Value, another user type: nested types are resolved through the registry too).
///
///   Handler<Point>("point").rep([](const Point& p) { return std::array{p.x, p.y}; })
template <class T>
class Handler {
 public:
  /// `tag`: one character ("x") writes `"~x" + string_rep` where a string rep is given;
  /// "array", "map" and `_ ? i d s` write the rep as it is (a map keyed by objects whose rep
  /// is no scalar is a cmap; a rep that is another user type has the form its handler gives
  /// it, known when the registry is frozen; a rep whose form only its value tells, a Value,
  /// must be a scalar as a map key, else the write fails with Error(bad_rep)); anything else
  /// writes `["~#tag", rep]`. Under `set`, `list`,
  /// `cmap` and `link` the rep must have the form the spec gives it: add() throws
  /// Error(invalid_argument) for a rep whose type is of another, a write Error(bad_rep) for a
  /// rep (a Value ...) found to be of another once made.
  explicit Handler(std::string tag) { h_.tag = std::move(tag); }

  template <class F>
  Handler& rep(F f) {
    using R = std::invoke_result_t<F, const T&>;
    if constexpr (detail::StringLike<detail::plain_t<R>>)
      if (!h_.string_rep) h_.string_rep = detail::erase_string<T>(f);
    h_.rep_form = detail::static_form<detail::plain_t<R>>();
    h_.rep_type = detail::user_rep_type<R>();
    h_.write_rep = detail::erase_rep<T>(std::move(f));
    return *this;
  }
  template <class F>
  Handler& string_rep(F f) {
    h_.string_rep = detail::erase_string<T>(std::move(f));
    return *this;
  }
  /// What JSON-Verbose writes instead of `rep`, wherever `rep` would be written. With a
  /// one-character tag X written as a `"~X..."` string: a string verbose rep is written as
  /// `"~X" + verbose rep`, as a value and as a map key; any other is written as a value
  /// `{"~#X": verbose rep}`, and a map key keeps `"~X" + string_rep` (a key is a string).
  template <class F>
  Handler& verbose_rep(F f) {
    using R = std::invoke_result_t<F, const T&>;
    if constexpr (detail::StringLike<detail::plain_t<R>>)
      h_.verbose_string_rep = detail::erase_string<T>(f);
    else
      h_.verbose_string_rep = nullptr;
    h_.verbose_rep_form = detail::static_form<detail::plain_t<R>>();
    h_.verbose_rep_type = detail::user_rep_type<R>();
    h_.write_verbose_rep = detail::erase_rep<T>(std::move(f));
    return *this;
  }
  /// A tag that depends on the object (overrides the constructor's).
  template <class F>
  Handler& tag(F f) {
    h_.tag_of = detail::erase_string<T>(std::move(f));
    return *this;
  }

  detail::ErasedHandler erase() && { return std::move(h_); }

 private:
  detail::ErasedHandler h_;
};

/// Registers `handler` for exactly T.
template <class T>
RegistryBuilder& add(RegistryBuilder& builder, Handler<T> handler) {
  return builder.add_erased(typeid(T), std::move(handler).erase());
}

/// The one-line tier: "write T as `tag` with this representation".
///   add<Money>(builder, "money", [](const Money& m) { return m.to_string(); });
template <class T, class F>
RegistryBuilder& add(RegistryBuilder& builder, std::string tag, F rep) {
  return add(builder, Handler<T>(std::move(tag)).rep(std::move(rep)));
}

template <class T>
RegistryBuilder& RegistryBuilder::add(Handler<T> handler) {
  return add_erased(typeid(T), std::move(handler).erase());
}

template <class T, class F>
RegistryBuilder& RegistryBuilder::add(std::string tag, F rep) {
  return add(Handler<T>(std::move(tag)).rep(std::move(rep)));
}

template <class F>
RegistryBuilder& RegistryBuilder::set_default(std::string tag, F rep) {
  using R = std::invoke_result_t<F, const ObjectInfo&>;
  detail::ErasedHandler h;
  h.tag = std::move(tag);
  h.rep_form = detail::static_form<detail::plain_t<R>>();
  h.rep_type = detail::user_rep_type<R>();
  if constexpr (detail::StringLike<detail::plain_t<R>>)
    h.typed_string_rep = [rep](const std::type_info& type, const void* obj) {
      const std::string name = detail::type_name(type);
      return std::string(rep(ObjectInfo{type, name, obj}));
    };
  h.write_typed_rep = [rep = std::move(rep)](const std::type_info& type, const void* obj,
                                             detail::ObjectEncoder& e, bool as_key) {
    const std::string name = detail::type_name(type);  // outlives the rep, which may view it
    detail::write_checked_rep(e, rep(ObjectInfo{type, name, obj}), as_key);
  };
  return set_default(std::move(h));
}

}  // namespace transit
