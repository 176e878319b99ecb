// SPDX-License-Identifier: Apache-2.0
// The MessagePack form of a JSON text, item for item, for forms no writer writes ("^ " map
// arrays, a tag's second rep, errors inside taped or slotted containers): tests compare its
// read with the JSON read of the same text.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace transit::test {

/// `text` is JSON made of arrays, objects, strings without escapes (under 256 bytes) and
/// integers; each becomes the MessagePack item a reader meets in the same place (containers
/// with their counts, strings as str8, integers as int64). `fixstr`: strings under 32 bytes
/// as fixstr, as writers write them (a cache code then is one MessagePack's reader tells by
/// its header).
inline std::string msgpack_items_of(std::string_view text, bool fixstr = false) {
  std::string out;
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == ':')) ++i;
  };
  auto header = [&](unsigned char fix, unsigned char wide, std::size_t n) {
    if (n < 16) {
      out += static_cast<char>(fix | n);
    } else {
      out += static_cast<char>(wide);
      out += static_cast<char>(n >> 8);
      out += static_cast<char>(n & 0xFF);
    }
  };
  // Appends the value at i and returns; containers count their items first.
  std::function<void()> value = [&] {
    skip_space();
    const char c = text[i];
    if (c == '[' || c == '{') {
      const char close = c == '[' ? ']' : '}';
      std::string saved = std::move(out);
      out.clear();
      ++i;
      std::size_t n = 0;
      for (skip_space(); text[i] != close; skip_space(), ++n) value();
      ++i;
      std::string items = std::move(out);
      out = std::move(saved);
      if (c == '[')
        header(0x90, 0xdc, n);
      else
        header(0x80, 0xde, n / 2);
      out += items;
    } else if (c == '"') {
      const std::size_t end = text.find('"', i + 1);
      const std::string_view s = text.substr(i + 1, end - i - 1);
      if (fixstr && s.size() < 32) {
        out += static_cast<char>(0xa0 | s.size());
      } else {
        out += static_cast<char>(0xd9);
        out += static_cast<char>(s.size());
      }
      out += s;
      i = end + 1;
    } else {
      std::size_t end = i;
      while (end < text.size() && (text[end] == '-' || (text[end] >= '0' && text[end] <= '9'))) ++end;
      const long n = std::stol(std::string(text.substr(i, end - i)));
      out += static_cast<char>(0xd3);
      for (int b = 7; b >= 0; --b)
        out += static_cast<char>((static_cast<unsigned long>(n) >> (8 * b)) & 0xFF);
      i = end;
    }
  };
  value();
  return out;
}

}  // namespace transit::test
