// SPDX-License-Identifier: Apache-2.0
// to_edn: values printed the way Clojure prints them, for messages, the CLI and tests.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#endif

#include "codec.h"
#include "transit/value.h"

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

// The readable name of a user type where the ABI offers one (typeid names are mangled).
std::string type_name(std::type_index type) {
#if __has_include(<cxxabi.h>)
  struct Free {
    void operator()(char* p) const noexcept { std::free(p); }
  };
  int status = 0;
  const std::unique_ptr<char, Free> demangled(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status));
  if (status == 0 && demangled) return demangled.get();
#endif
  return type.name();
}

void print(const Value& v, std::string& out);

void print_items(std::span<const Value> items, std::string& out) {
  bool first = true;
  for (const Value& item : items) {
    if (!first) out.push_back(' ');
    first = false;
    print(item, out);
  }
}

void print_entries(std::span<const Entry> entries, std::string& out) {
  out.push_back('{');
  bool first = true;
  for (const auto& [key, val] : entries) {
    if (!first) out.append(", ");
    first = false;
    print(key, out);
    out.push_back(' ');
    print(val, out);
  }
  out.push_back('}');
}

void print(const Value& v, std::string& out) {
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
      out.append(v.as_string());
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
    case Kind::big_decimal:
      out.append(v.as_string());
      out.push_back('M');
      return;
    case Kind::string:
      append_string(v.as_string(), out);
      return;
    case Kind::bytes:
      out.append("#bytes \"");
      detail::base64_encode(v.as_bytes(), out);
      out.push_back('"');
      return;
    case Kind::keyword:
      out.push_back(':');
      out.append(v.as_string());
      return;
    case Kind::symbol:
      out.append(v.as_string());
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
      append_string(v.as_string(), out);
      return;
    case Kind::array:
      out.push_back('[');
      print_items(v.items(), out);
      out.push_back(']');
      return;
    case Kind::list:
      out.push_back('(');
      print_items(v.items(), out);
      out.push_back(')');
      return;
    case Kind::set:
      out.append("#{");
      print_items(v.items(), out);
      out.push_back('}');
      return;
    case Kind::map:
      print_entries(v.entries(), out);
      return;
    case Kind::link:
      out.append("#link ");
      print_entries(v.entries(), out);
      return;
    case Kind::tagged:
      out.push_back('#');
      out.append(v.tag());
      out.push_back(' ');
      print(v.rep(), out);
      return;
    case Kind::object:
      out.append("#object[");
      out.append(type_name(v.object_type()));
      out.push_back(']');
      return;
  }
}

}  // namespace

std::string to_edn(const Value& v) {
  std::string out;
  print(v, out);
  return out;
}

}  // namespace transit
