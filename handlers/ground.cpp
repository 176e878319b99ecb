// SPDX-License-Identifier: Apache-2.0
// Built-in read handlers: every tag of the Transit spec's two tables.
#include "ground.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "model/value_internal.h"

namespace transit::detail {

namespace {

// From this many chars, `~b` text is decoded before its padding is looked for (a cache line:
// a shorter text's end is loaded with its start). Its bytes, less at most two of padding, are
// then still too many for an inline value, as ValueAccess::shorten_filled_text requires.
constexpr std::size_t kLongBase64 = 64;
static_assert(base64_room(kLongBase64) - 2 > ValueAccess::kInlineText);

[[noreturn]] void bad_rep(char tag, std::string_view rest, const char* why) {
  std::string shown(rest.substr(0, 64));
  if (rest.size() > 64) shown += "...";
  throw_error(Errc::bad_rep, std::string("~") + tag + " value \"" + shown + "\": " + why);
}

// A number's text with a `+` before its digits, which every peer's reader takes
// (transit-java's Long.parseLong, BigInteger(String) and Double.parseDouble; transit-js's
// Long.fromString, parseInt and parseFloat), and transit-js writes a big integer's text as the
// program gave it (`t.bigInt("+5")` is `~n+5`); else Error(bad_rep). No writer's own form has
// one, so it is looked for only once the text has failed as it is: out of line and cold, as
// the errors are (inline in decode_scalar, it cost the handlers read of extensions.json 0.19%
// more instructions, with no `+` in it).
[[gnu::cold, gnu::noinline]] Value with_plus(char tag, std::string_view rest, const char* why) {
  if (rest.size() < 2 || rest[0] != '+' || !((rest[1] >= '0' && rest[1] <= '9') || rest[1] == '.'))
    bad_rep(tag, rest, why);
  const std::string_view digits = rest.substr(1);
  switch (tag) {
    case 'i':
      if (auto i = parse_int64(digits)) return *i;
      [[fallthrough]];
    case 'n':
      if (is_integer_text(digits)) return ValueAccess::big_integer_of(digits);
      break;
    case 'd':
      if (auto d = parse_double(digits)) return *d;
      break;
    case 'm':
      if (auto ms = parse_int64(digits)) return Value::instant(*ms);
      break;
    default:
      break;
  }
  bad_rep(tag, rest, why);
}

}  // namespace

Value decode_bytes(std::string_view rest) {
  // The plain form Transit writers emit is decoded straight into the value; anything else
  // (line breaks, odd padding, a bad char) by base64_decode, which decides. A long text is
  // given room for no padding and shortened after: its padding is at its end, which the
  // decode reaches last (base64_decode_plain_to).
  if (rest.size() >= kLongBase64 && rest.size() % 4 != 1) {
    Value v;
    char* out = ValueAccess::init_text_to_fill(v, Kind::bytes, base64_room(rest.size()));
    if (const std::size_t n = base64_decode_plain_to(rest, out); n != kNotPlainBase64) {
      ValueAccess::shorten_filled_text(v, n);
      return v;
    }
  } else if (const std::size_t chars = base64_plain_chars(rest); chars != kNotPlainBase64) {
    Value v;
    char* out = ValueAccess::init_text_to_fill(v, Kind::bytes, base64_plain_bytes(chars));
    if (base64_decode_plain_chars(rest.data(), chars, out)) return v;
  }
  if (auto bytes = base64_decode(rest)) return Value::bytes(*bytes);
  bad_rep('b', rest, "not base64");
}

Value decode_scalar(char tag, std::string_view rest) {
  switch (tag) {
    case ':':
      return Value::keyword(rest);
    case '$':
      return Value::symbol(rest);
    case 'i':
      if (auto i = parse_int64(rest)) return *i;
      // Peers write any integer as ~i; one beyond int64 is a big integer, as transit-java
      // reads it.
      if (is_integer_text(rest)) return ValueAccess::big_integer_of(rest);
      return with_plus(tag, rest, "not an integer");
    case 'n':
      if (is_integer_text(rest)) return ValueAccess::big_integer_of(rest);
      return with_plus(tag, rest, "not an integer");
    case 'd':
      if (auto d = parse_double(rest)) return *d;
      return with_plus(tag, rest, "not a number");
    case 'f':
      if (!is_decimal_text(rest)) bad_rep(tag, rest, "not a decimal number");
      return ValueAccess::big_decimal_of(rest);
    case 'b':
      return decode_bytes(rest);
    case 'c':
      if (auto c = decode_one_code_point(rest)) return Value::character(*c);
      bad_rep(tag, rest, "not exactly one character");
    case 'm':
      if (auto ms = parse_int64(rest)) return Value::instant(*ms);
      return with_plus(tag, rest, "not milliseconds since the epoch");
    case 't':
      if (auto ms = parse_instant(rest)) return Value::instant(*ms);
      bad_rep(tag, rest, "not an ISO 8601 date-time");
    case 'u':
      if (auto u = parse_uuid(rest)) return Value::uuid(*u);
      bad_rep(tag, rest, "not a UUID");
    case 'r':
      return Value::uri(rest);
    case 'z':
      if (rest == "NaN") return std::numeric_limits<double>::quiet_NaN();
      if (rest == "INF") return std::numeric_limits<double>::infinity();
      if (rest == "-INF") return -std::numeric_limits<double>::infinity();
      bad_rep(tag, rest, "expected NaN, INF or -INF");
    case '?':
      if (rest == "t") return true;
      if (rest == "f") return false;
      bad_rep(tag, rest, "expected t or f");
    case '_':
      if (rest.empty()) return nullptr;
      bad_rep(tag, rest, "null has no text");
    default:
      return ValueAccess::tagged(Value(std::string_view(&tag, 1)), Value(rest));
  }
}

namespace {

// Built-in tags whose representation is a collection. A rep held by nothing else gives up
// its items; otherwise they are copied.
Value decode_collection(std::string_view tag, Value& rep) {
  if (rep.kind() != Kind::array)
    throw_error(Errc::bad_rep, "~#" + std::string(tag) + " needs an array, got " +
                                   std::string(kind_name(rep.kind())));
  std::vector<Value> copied;
  std::span<Value> items = ValueAccess::sole_items(rep);
  if (items.empty() && rep.size() != 0) {
    copied.assign(rep.items().begin(), rep.items().end());
    items = copied;
  }
  if (tag == "set") return ValueAccess::make_sequence(Kind::set, items);
  if (tag == "list") return ValueAccess::make_sequence(Kind::list, items);
  if (items.size() % 2 != 0)
    throw_error(Errc::odd_map, "~#cmap array has an odd number of items (" +
                                   std::to_string(items.size()) + ")");
  return ValueAccess::make_map(Kind::map, items);
}

}  // namespace

Value decode_tagged(std::string_view tag, Value rep) {
  if (tag == "'") return rep;
  if (tag == "set" || tag == "list") return decode_collection(tag, rep);
  if (tag == "cmap") {
    if (rep.kind() == Kind::map) return rep;  // lenient: a cmap some peer wrote as a map
    return decode_collection(tag, rep);
  }
  if (tag == "link") {
    const auto entries = rep.kind() == Kind::map ? rep.entries() : std::span<const Entry>();
    if (rep.kind() != Kind::map ||
        std::any_of(entries.begin(), entries.end(), [](const Entry& e) { return e.first.kind() != Kind::string; }))
      throw_error(Errc::bad_rep, "~#link needs a map with string keys");
    return Value::link(std::move(rep));
  }
  if (tag.size() == 1) {
    const char t = tag[0];
    if (rep.kind() == Kind::string) return decode_scalar(t, rep.as_string());
    if (t == 'u' && rep.kind() == Kind::array && rep.size() == 2 &&
        rep[0].kind() == Kind::integer && rep[1].kind() == Kind::integer)
      return Value::uuid(
          {static_cast<std::uint64_t>(rep[0].as_int()), static_cast<std::uint64_t>(rep[1].as_int())});
    if (t == 'm' && rep.kind() == Kind::integer) return Value::instant(rep.as_int());
    if ((t == 'i' || t == 'n') && (rep.kind() == Kind::integer || rep.kind() == Kind::big_integer))
      return rep;
    if (t == 'd' && rep.kind() == Kind::floating) return rep;
    if ((t == '?' && rep.kind() == Kind::boolean) || (t == '_' && rep.kind() == Kind::null) ||
        (t == 'b' && rep.kind() == Kind::bytes))
      return rep;
    // The spec's scalar tags have a meaning: a rep of another kind is not theirs to keep.
    if (std::string_view(":$indfbcmtruz?_").find(t) != std::string_view::npos)
      throw_error(Errc::bad_rep, "~#" + std::string(tag) + " with a " +
                                     std::string(kind_name(rep.kind())) + " representation");
  }
  // A tag no reader decodes: nothing for Value::tagged to check.
  return ValueAccess::tagged(Value(tag), std::move(rep));
}

}  // namespace transit::detail
