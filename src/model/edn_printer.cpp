// SPDX-License-Identifier: Apache-2.0
// to_edn: values printed the way Clojure prints them, for messages, the CLI and tests.
#include <charconv>
#include <cmath>
#include <string>

#include "codec/codec.h"
#include "model/edn.h"
#include "transit/reader.h"
#include "transit/value.h"
#include "transit/writer.h"

namespace transit {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

// `uXXXX`; the backslash before it is the caller's.
void append_hex4(char32_t c, std::string& out) {
  out.push_back('u');
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(c >> shift) & 15]);
}

bool is_control(char32_t c) { return c < 0x20 || (c >= 0x7F && c <= 0x9F); }

void append_string(std::string_view s, std::string& out) {
  out.push_back('"');
  for (const char ch : s) {
    switch (ch) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\t': out.append("\\t"); break;
      case '\r': out.append("\\r"); break;
      default: {
        // Bytes of multi-byte sequences are >= 0x80 and are copied as they are.
        const auto b = static_cast<unsigned char>(ch);
        if (b < 0x20 || b == 0x7F) {
          out.push_back('\\');
          append_hex4(b, out);
        } else {
          out.push_back(ch);
        }
      }
    }
  }
  out.push_back('"');
}

void append_char(char32_t c, std::string& out) {
  out.push_back('\\');
  switch (c) {
    case '\n': out.append("newline"); return;
    case ' ': out.append("space"); return;
    case '\t': out.append("tab"); return;
    case '\r': out.append("return"); return;
    case '\f': out.append("formfeed"); return;
    case '\b': out.append("backspace"); return;
    default:
      if (is_control(c))
        append_hex4(c, out);
      else
        detail::append_utf8(c, out);
  }
}

// Prints into one output string, streaming: no level of a nested value keeps a string of its
// own, so memory is the output's size. With a limit it stops soon after the output has grown
// by `limit` bytes (a long string is cut before it is escaped, loops stop at the next item).
struct Printer {
  std::string& out;
  std::size_t end;                      // out.size() past which printing stops
  const Registry* registry = nullptr;  // to print user objects as their handlers write them

  bool full() const noexcept { return out.size() > end; }

  // The first bytes of a long text that can still show; escaping only ever lengthens text.
  std::string_view room_for(std::string_view s) const noexcept {
    if (end == SIZE_MAX) return s;
    const std::size_t room = end >= out.size() ? end - out.size() + 1 : 0;
    return s.size() > room ? s.substr(0, room) : s;
  }

  void items(std::span<const Value> items) {
    bool first = true;
    for (const Value& item : items) {
      if (full()) return;
      if (!first) out.push_back(' ');
      first = false;
      print(item);
    }
  }

  void entries(std::span<const Entry> entries) {
    out.push_back('{');
    bool first = true;
    for (const auto& [key, val] : entries) {
      if (full()) return;
      if (!first) out.append(", ");
      first = false;
      print(key);
      out.push_back(' ');
      print(val);
    }
    out.push_back('}');
  }

  void object(const Value& v) {
    if (registry) {
      // What its write handler writes, read back as the tag and representation it is:
      // `#money "9.50"`. Nothing is registered for reading, so unknown tags stay tagged.
      WriteOptions options;
      options.registry = registry;
      try {
        return print(read(write(v, Encoding::json, options)));
      } catch (const Error& e) {
        if (e.code() != Errc::no_handler) throw;  // no handler: as without a registry
      }
    }
    out.append("#object[");
    out.append(detail::type_name(v.object_type_info()));
    out.push_back(']');
  }

  void print(const Value& v) {
    switch (v.kind()) {
      case Kind::null:
        out.append("nil");
        return;
      case Kind::boolean:
        out.append(v.as_bool() ? "true" : "false");
        return;
      case Kind::integer: {
        char buf[24];
        out.append(buf, std::to_chars(buf, buf + sizeof buf, v.as_int()).ptr);
        return;
      }
      case Kind::big_integer:
        out.append(room_for(v.as_string()));
        out.push_back('N');
        return;
      case Kind::floating: {
        const double d = v.as_double();
        if (std::isnan(d))
          out.append("##NaN");
        else if (std::isinf(d))
          out.append(d < 0 ? "##-Inf" : "##Inf");
        else
          detail::format_double_java(d, out);
        return;
      }
      case Kind::big_decimal: {
        // Java's BigDecimal takes ".5", but Clojure reads a number only where a digit comes
        // first (after the sign): `.5M` would read back as a symbol. It prints 0.5M.
        std::string_view text = room_for(v.as_string());
        const std::size_t sign = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
        if (text.size() > sign && text[sign] == '.') {
          out.append(text.substr(0, sign));
          out.push_back('0');
          text.remove_prefix(sign);
        }
        out.append(text);
        out.push_back('M');
        return;
      }
      case Kind::string:
        append_string(room_for(v.as_string()), out);
        return;
      case Kind::bytes: {
        out.append("#bytes \"");
        auto data = v.as_bytes();
        const std::size_t room = room_for(std::string_view(reinterpret_cast<const char*>(data.data()), data.size())).size();
        detail::base64_encode(data.first(std::min(data.size(), room)), out);
        out.push_back('"');
        return;
      }
      case Kind::keyword:
        out.push_back(':');
        out.append(room_for(v.as_string()));
        return;
      case Kind::symbol:
        out.append(room_for(v.as_string()));
        return;
      case Kind::character:
        append_char(v.as_char(), out);
        return;
      case Kind::instant:
        out.append("#inst \"");
        detail::format_instant_edn(v.as_instant(), out);
        out.push_back('"');
        return;
      case Kind::uuid:
        out.append("#uuid \"");
        detail::format_uuid(v.as_uuid(), out);
        out.push_back('"');
        return;
      case Kind::uri:
        out.append("#uri ");
        append_string(room_for(v.as_string()), out);
        return;
      case Kind::array:
        out.push_back('[');
        items(v.items());
        out.push_back(']');
        return;
      case Kind::list:
        out.push_back('(');
        items(v.items());
        out.push_back(')');
        return;
      case Kind::set:
        out.append("#{");
        items(v.items());
        out.push_back('}');
        return;
      case Kind::map:
        entries(v.entries());
        return;
      case Kind::link:
        out.append("#link ");
        entries(v.entries());
        return;
      case Kind::tagged:
        out.push_back('#');
        out.append(room_for(v.tag()));
        out.push_back(' ');
        print(v.rep());
        return;
      case Kind::object:
        object(v);
        return;
    }
  }
};

}  // namespace

std::string to_edn(const Value& v) {
  std::string out;
  detail::append_edn(v, out);
  return out;
}

std::string to_edn(const Value& v, const Registry& registry) {
  std::string out;
  detail::append_edn(v, out, SIZE_MAX, &registry);
  return out;
}

namespace detail {

bool append_edn(const Value& v, std::string& out, std::size_t limit, const Registry* registry) {
  const std::size_t start = out.size();
  Printer printer{out, limit > SIZE_MAX - start ? SIZE_MAX : start + limit, registry};
  printer.print(v);
  if (out.size() - start <= limit) return true;
  // Cut at the limit, on a UTF-8 character boundary, and say that something was cut.
  std::size_t cut = start + limit;
  while (cut > start && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  out.append("\xE2\x80\xA6");  // U+2026, an ellipsis
  return false;
}

}  // namespace detail

}  // namespace transit
