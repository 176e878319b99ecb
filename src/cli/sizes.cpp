// SPDX-License-Identifier: Apache-2.0
#include "sizes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "codec/codec.h"
#include "transit/transit.h"

namespace transit::cli {
namespace {

void append_string(std::string_view s, std::string& out) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool is_text(Kind k) { return k == Kind::string || k == Kind::keyword || k == Kind::symbol; }

void append_plain(const Value& v, std::string& out) {
  switch (v.kind()) {
    case Kind::null:
    case Kind::object:
      out += "null";
      break;
    case Kind::boolean:
      out += v.as_bool() ? "true" : "false";
      break;
    case Kind::integer:
      out += std::to_string(v.as_int());
      break;
    case Kind::instant:
      out += std::to_string(v.as_instant());
      break;
    case Kind::big_integer:
      out += v.as_string();
      break;
    case Kind::floating:
      if (std::isfinite(v.as_double()))
        detail::format_double_json(v.as_double(), out);
      else
        out += "null";
      break;
    case Kind::string:
    case Kind::keyword:
    case Kind::symbol:
    case Kind::uri:
    case Kind::big_decimal:
      append_string(v.as_string(), out);
      break;
    case Kind::character:
    case Kind::uuid:
    case Kind::bytes: {
      std::string text;
      if (v.kind() == Kind::character)
        detail::append_utf8(v.as_char(), text);
      else if (v.kind() == Kind::uuid)
        detail::format_uuid(v.as_uuid(), text);
      else
        detail::base64_encode(v.as_bytes(), text);
      append_string(text, out);
      break;
    }
    case Kind::array:
    case Kind::list:
    case Kind::set: {
      out += '[';
      bool first = true;
      for (const Value& item : v.items()) {
        if (!first) out += ',';
        first = false;
        append_plain(item, out);
      }
      out += ']';
      break;
    }
    case Kind::map:
    case Kind::link: {
      const auto entries = v.entries();
      const bool object = std::all_of(entries.begin(), entries.end(),
                                      [](const Entry& e) { return is_text(e.first.kind()); });
      out += object ? '{' : '[';
      bool first = true;
      for (const auto& [key, value] : entries) {
        if (!first) out += ',';
        first = false;
        if (object) {
          append_string(key.as_string(), out);
          out += ':';
          append_plain(value, out);
        } else {
          out += '[';
          append_plain(key, out);
          out += ',';
          append_plain(value, out);
          out += ']';
        }
      }
      out += object ? '}' : ']';
      break;
    }
    case Kind::tagged:
      append_plain(v.rep(), out);
      break;
  }
}

std::size_t written_size(std::span<const Value> values, Encoding encoding, bool float32) {
  WriteOptions options;
  options.float32 = float32;
  return write_values(values, encoding, options).size();
}

}  // namespace

std::string write_values(std::span<const Value> values, Encoding encoding,
                         const WriteOptions& options) {
  std::string out;
  StringSink sink(out);
  Writer writer(sink, encoding, options);
  for (const Value& v : values) writer.write(v);
  writer.flush();
  return out;
}

std::string thousands(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string plain_json(std::span<const Value> values) {
  std::string out;
  for (const Value& v : values) {
    append_plain(v, out);
    out += '\n';
  }
  return out;
}

Sizes measure_sizes(std::span<const Value> values) {
  Sizes s;
  s.plain_json = plain_json(values).size();
  s.json = written_size(values, Encoding::json, false);
  s.json_verbose = written_size(values, Encoding::json_verbose, false);
  s.msgpack = written_size(values, Encoding::msgpack, false);
  s.msgpack_float32 = written_size(values, Encoding::msgpack, true);
  return s;
}

void print_size_table(std::ostream& out, std::span<const SizeRow> rows) {
  constexpr const char* kHeads[] = {"plain JSON", "Transit JSON", "JSON-Verbose", "MessagePack",
                                    "MsgPack+float32"};
  std::size_t name_width = 6;
  for (const SizeRow& row : rows) name_width = std::max(name_width, row.name.size());
  const auto cell = [](std::string text, std::size_t width) {
    return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
  };
  constexpr std::size_t kWidth = 18;
  std::string line = "bytes" + std::string(name_width - 5, ' ');
  for (const char* head : kHeads) line += cell(head, kWidth);
  out << line << "\n";
  for (const SizeRow& row : rows) {
    const Sizes& s = row.sizes;
    line = row.name + std::string(name_width - row.name.size(), ' ') + cell(thousands(s.plain_json), kWidth);
    for (const std::size_t n : {s.json, s.json_verbose, s.msgpack, s.msgpack_float32}) {
      char share[16];
      std::snprintf(share, sizeof share, " (%3.0f%%)",
                    s.plain_json == 0 ? 0.0 : 100.0 * static_cast<double>(n) / static_cast<double>(s.plain_json));
      line += cell(thousands(n) + share, kWidth);
    }
    out << line << "\n";
  }
  out << "(percent of plain JSON in parentheses)\n";
}

}  // namespace transit::cli
