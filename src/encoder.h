// SPDX-License-Identifier: Apache-2.0
// The Transit write rules, independent of the backend. `Out` is a backend emitter with
//   null(), boolean(b), integer(i64), floating(d), string(sv),
//   array_begin(n), array_end(), map_begin(n), map_end()
// and, for a binary backend, uinteger(u64) (native unsigned 64-bit integers).
// The encoder is a template over it so no backend call is virtual; it is instantiated once per
// backend inside the library.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>

#include "cache.h"
#include "codec.h"
#include "transit/error.h"
#include "transit/value.h"

namespace transit::detail {

/// Whether a value is written as a single string or scalar (its Transit tag is one character).
/// Such values are quoted at top level, and a map whose keys are all like this is written as a
/// map rather than a cmap.
inline bool writes_as_scalar(const Value& v) noexcept {
  switch (v.kind()) {
    case Kind::array:
    case Kind::list:
    case Kind::set:
    case Kind::map:
    case Kind::link:
    case Kind::object:
      return false;
    case Kind::tagged: {
      // "~#x", "~~x", "~^x" and "~`x" would read back as a tag or an escaped string, so these
      // one-character tags keep the ["~#t", rep] form.
      const std::string_view tag = v.tag();
      return tag.size() == 1 && tag.find_first_of("#~^`") == std::string_view::npos &&
             v.rep().kind() == Kind::string;
    }
    default:
      return true;
  }
}

// Largest integer JavaScript represents exactly; larger ones go as "~i" strings in JSON.
inline constexpr std::int64_t kMaxJsonInt = (std::int64_t{1} << 53) - 1;

/// Which encoding's rules apply where they differ.
enum class Mode : std::uint8_t {
  json,     ///< maps as ["^ ", ...] arrays, cache, `~m` dates, big integers as `~i`
  verbose,  ///< maps as objects, no cache, `~t` dates
  msgpack,  ///< native maps, integers and scalar keys, cache, dates as ["~#m", ms]
};

template <class Out>
class Encoder {
 public:
  Encoder(Out& out, Mode mode)
      : out_(out), verbose_(mode == Mode::verbose), msgpack_(mode == Mode::msgpack) {}

  /// One top-level value, with a fresh cache.
  void write_top(const Value& v) {
    cache_.reset();
    if (writes_as_scalar(v))
      write_tagged("'", v);
    else
      write(v, false);
  }

 private:
  void write(const Value& v, bool as_key) {
    switch (v.kind()) {
      // MessagePack keys need not be strings: nil, booleans, numbers stay native there, as
      // transit-java writes them.
      case Kind::null:
        return as_key && !msgpack_ ? emit_string("~_", true) : out_.null();
      case Kind::boolean:
        return as_key && !msgpack_ ? emit_string(v.as_bool() ? "~?t" : "~?f", true)
                                   : out_.boolean(v.as_bool());
      case Kind::integer: {
        const std::int64_t i = v.as_int();
        if (msgpack_ || (!as_key && i >= -kMaxJsonInt && i <= kMaxJsonInt)) return out_.integer(i);
        char buf[24];
        auto end = std::to_chars(buf, buf + sizeof buf, i).ptr;
        return emit_prefixed('i', {buf, static_cast<std::size_t>(end - buf)}, as_key);
      }
      case Kind::big_integer:
        if constexpr (requires(std::uint64_t u) { out_.uinteger(u); }) {
          std::uint64_t u = 0;
          const std::string_view digits = v.as_string();
          // Exactly the big integers a uint 64 can hold and int64 cannot, so that reading the
          // native uint 64 back gives a big integer again. Others keep their `~n`.
          if (msgpack_ &&
              std::from_chars(digits.data(), digits.data() + digits.size(), u).ec == std::errc() &&
              u > static_cast<std::uint64_t>(INT64_MAX))
            return out_.uinteger(u);
        }
        return emit_prefixed('n', v.as_string(), as_key);
      case Kind::floating: {
        const double d = v.as_double();
        if (std::isnan(d)) return emit_prefixed('z', "NaN", as_key);
        if (std::isinf(d)) return emit_prefixed('z', d > 0 ? "INF" : "-INF", as_key);
        if (!as_key || msgpack_) return out_.floating(d);
        start_scratch('d');
        format_double_json(d, scratch_);
        return emit_string(scratch_, as_key);
      }
      case Kind::big_decimal:
        return emit_prefixed('f', v.as_string(), as_key);
      case Kind::string: {
        const std::string_view s = v.as_string();
        // A leading ~, ^ or ` would be read as a tag, a cache code or a reserved prefix.
        if (!s.empty() && (s[0] == '~' || s[0] == '^' || s[0] == '`'))
          return emit_prefixed(s[0], s.substr(1), as_key);
        return emit_string(s, as_key);
      }
      case Kind::bytes: {
        // A `~b` base64 string in MessagePack too, not a msgpack bin: what transit-java
        // writes and every Transit MessagePack reader understands.
        start_scratch('b');
        base64_encode(v.as_bytes(), scratch_);
        return emit_string(scratch_, as_key);
      }
      case Kind::keyword:
        return emit_prefixed(':', v.as_string(), as_key);
      case Kind::symbol:
        return emit_prefixed('$', v.as_string(), as_key);
      case Kind::character: {
        start_scratch('c');
        append_utf8(v.as_char(), scratch_);
        return emit_string(scratch_, as_key);
      }
      case Kind::instant: {
        if (msgpack_ && !as_key) return write_tagged_ints('m', {v.as_instant()});
        if (verbose_) {
          start_scratch('t');
          format_instant(v.as_instant(), scratch_);
          return emit_string(scratch_, as_key);
        }
        char buf[24];
        auto end = std::to_chars(buf, buf + sizeof buf, v.as_instant()).ptr;
        return emit_prefixed('m', {buf, static_cast<std::size_t>(end - buf)}, as_key);
      }
      case Kind::uuid: {
        if (msgpack_ && !as_key) {
          const Uuid u = v.as_uuid();
          return write_tagged_ints('u', {static_cast<std::int64_t>(u.hi),
                                         static_cast<std::int64_t>(u.lo)});
        }
        start_scratch('u');
        format_uuid(v.as_uuid(), scratch_);
        return emit_string(scratch_, as_key);
      }
      case Kind::uri:
        return emit_prefixed('r', v.as_string(), as_key);
      case Kind::array:
        return write_array(v);
      case Kind::list:
        return write_tagged("list", v, &Encoder::write_array);
      case Kind::set:
        return write_tagged("set", v, &Encoder::write_array);
      case Kind::map:
        return write_map(v);
      case Kind::link:
        return write_tagged("link", v, &Encoder::write_stringable_map);
      case Kind::tagged:
        if (writes_as_scalar(v)) return emit_prefixed(v.tag()[0], v.rep().as_string(), as_key);
        return write_tagged(v.tag(), v.rep());
      case Kind::object:
        throw_error(Errc::no_handler, std::string("no write handler for C++ type ") +
                                          v.object_type().name());
    }
  }

  void write_array(const Value& v) {
    const auto items = v.items();
    out_.array_begin(items.size());
    for (const Value& item : items) write(item, false);
    out_.array_end();
  }

  void write_map(const Value& v) {
    for (const auto& entry : v.entries())
      if (!writes_as_scalar(entry.first)) return write_tagged("cmap", v, &Encoder::write_cmap_rep);
    write_stringable_map(v);
  }

  void write_stringable_map(const Value& v) {
    const auto entries = v.entries();
    const bool native = verbose_ || msgpack_;
    if (native) {
      out_.map_begin(entries.size());
    } else {
      out_.array_begin(2 * entries.size() + 1);
      out_.string("^ ");
    }
    for (const auto& [key, value] : entries) {
      write(key, true);
      write(value, false);
    }
    native ? out_.map_end() : out_.array_end();
  }

  // A cmap's rep is an array of keys and values, the keys written as ordinary values.
  void write_cmap_rep(const Value& v) {
    const auto entries = v.entries();
    out_.array_begin(2 * entries.size());
    for (const auto& [key, value] : entries) {
      write(key, false);
      write(value, false);
    }
    out_.array_end();
  }

  using RepWriter = void (Encoder::*)(const Value&);

  /// `["~#tag", rep]` (cached tag) or `{"~#tag": rep}` in verbose mode.
  void write_tagged(std::string_view tag, const Value& rep, RepWriter write_rep = nullptr) {
    scratch_.assign("~#").append(tag);
    if (verbose_) {
      out_.map_begin(1);
      out_.string(scratch_);
    } else {
      out_.array_begin(2);
      emit_string(scratch_, false);
    }
    if (write_rep)
      (this->*write_rep)(rep);
    else
      write(rep, false);
    verbose_ ? out_.map_end() : out_.array_end();
  }

  /// MessagePack's tagged forms of dates and UUIDs: `["~#m", ms]`, `["~#u", [hi, lo]]`.
  void write_tagged_ints(char tag, std::initializer_list<std::int64_t> rep) {
    const char name[] = {'~', '#', tag};
    out_.array_begin(2);
    emit_string({name, sizeof name}, false);
    if (rep.size() == 1) {
      out_.integer(*rep.begin());
    } else {
      out_.array_begin(rep.size());
      for (const std::int64_t i : rep) out_.integer(i);
      out_.array_end();
    }
    out_.array_end();
  }

  void start_scratch(char tag) {
    scratch_.assign(1, '~');
    scratch_.push_back(tag);
  }

  void emit_prefixed(char tag, std::string_view body, bool as_key) {
    start_scratch(tag);
    scratch_.append(body);
    emit_string(scratch_, as_key);
  }

  void emit_string(std::string_view s, bool as_key) {
    if (!verbose_ && is_cacheable(s, as_key)) {
      const std::string_view code = cache_.find_or_add(s);
      if (!code.empty()) return out_.string(code);
    }
    out_.string(s);
  }

  Out& out_;
  bool verbose_;
  bool msgpack_;
  WriteCache cache_;
  std::string scratch_;  // "~X" + text for the string being written; reused, so no allocation
};

}  // namespace transit::detail
