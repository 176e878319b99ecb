// SPDX-License-Identifier: Apache-2.0
// A recursive-descent EDN reader, just enough for the exemplars and for to_edn's output.
#include "support/edn.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "codec/codec.h"

namespace transit::test {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ',';
}

bool is_delimiter(char c) {
  return is_space(c) || std::string_view("()[]{}\";\\").find(c) != std::string_view::npos;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<Value> parse_top() {
    Value v = parse_value();
    skip_space();
    if (!at_end()) fail("text after the value");
    if (unrepresentable_) return std::nullopt;
    return v;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  // Set when some part has no Value form; parsing goes on so malformed text is still reported.
  bool unrepresentable_ = false;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("edn: " + what + " at byte " + std::to_string(i_));
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return s_[i_]; }

  // Skips whitespace, commas, comments and `#_` discarded forms.
  void skip_space() {
    while (!at_end()) {
      if (is_space(peek())) {
        ++i_;
      } else if (peek() == ';') {
        while (!at_end() && peek() != '\n') ++i_;
      } else if (s_.substr(i_, 2) == "#_") {
        i_ += 2;
        const bool before = unrepresentable_;
        parse_value();
        unrepresentable_ = before;
      } else {
        break;
      }
    }
  }

  std::string_view token() {
    const std::size_t start = i_;
    while (!at_end() && !is_delimiter(peek())) ++i_;
    return s_.substr(start, i_ - start);
  }

  Value parse_value() {
    skip_space();
    if (at_end()) fail("unexpected end of text");
    switch (peek()) {
      case '[':
        ++i_;
        return Value::array(parse_items(']'));
      case '(':
        ++i_;
        return Value::list(parse_items(')'));
      case '{':
        ++i_;
        return parse_map();
      case '"':
        return Value(parse_string());
      case '\\':
        return parse_char();
      case '#':
        ++i_;
        return parse_dispatch();
      case ')':
      case ']':
      case '}':
        fail(std::string("unexpected '") + peek() + "'");
      default:
        return parse_atom();
    }
  }

  std::vector<Value> parse_items(char close) {
    std::vector<Value> items;
    for (;;) {
      skip_space();
      if (at_end()) fail(std::string("missing '") + close + "'");
      if (peek() == close) {
        ++i_;
        return items;
      }
      items.push_back(parse_value());
    }
  }

  Value parse_map() {
    std::vector<Value> flat = parse_items('}');
    if (flat.size() % 2 != 0) fail("map with an odd number of forms");
    std::vector<Entry> entries;
    entries.reserve(flat.size() / 2);
    for (std::size_t k = 0; k < flat.size(); k += 2)
      entries.emplace_back(std::move(flat[k]), std::move(flat[k + 1]));
    return Value::map(std::move(entries));
  }

  unsigned hex4() {
    if (s_.size() - i_ < 4) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      const int d = is_digit(c)              ? c - '0'
                    : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                    : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                             : -1;
      if (d < 0) fail("bad \\u escape");
      v = v * 16 + static_cast<unsigned>(d);
    }
    return v;
  }

  std::string parse_string() {
    ++i_;  // the opening quote
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') break;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_end()) fail("unterminated string");
      switch (s_[i_++]) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'u': {
          char32_t cp = hex4();
          // Code points above U+FFFF come as a surrogate pair of escapes.
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(i_, 2) == "\\u") {
            i_ += 2;
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          if (cp >= 0xD800 && cp <= 0xDFFF) fail("unpaired surrogate");
          detail::append_utf8(cp, out);
          break;
        }
        default:
          fail("unknown string escape");
      }
    }
    if (!detail::is_valid_utf8(out)) fail("string is not UTF-8");
    return out;
  }

  Value parse_char() {
    ++i_;  // the backslash
    if (at_end()) fail("backslash at end of text");
    // The first character is taken whatever it is (`\(` is a paren), then the token goes on.
    const std::size_t start = i_;
    const auto lead = static_cast<unsigned char>(peek());
    i_ += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (i_ > s_.size()) fail("truncated character");
    token();
    const std::string_view name = s_.substr(start, i_ - start);
    if (auto cp = detail::decode_one_code_point(name)) return Value::character(*cp);
    if (name == "newline") return Value::character('\n');
    if (name == "space") return Value::character(' ');
    if (name == "tab") return Value::character('\t');
    if (name == "return") return Value::character('\r');
    if (name == "formfeed") return Value::character('\f');
    if (name == "backspace") return Value::character('\b');
    if (name.size() == 5 && name[0] == 'u') {
      i_ = start + 1;
      const char32_t cp = hex4();
      if (cp >= 0xD800 && cp <= 0xDFFF) fail("surrogate character");
      return Value::character(cp);
    }
    fail("unknown character name \\" + std::string(name));
  }

  // After '#'.
  Value parse_dispatch() {
    if (at_end()) fail("'#' at end of text");
    if (peek() == '{') {
      ++i_;
      return Value::set(parse_items('}'));
    }
    if (peek() == '#') {
      ++i_;
      const std::string_view name = token();
      if (name == "NaN") return Value(std::numeric_limits<double>::quiet_NaN());
      if (name == "Inf") return Value(std::numeric_limits<double>::infinity());
      if (name == "-Inf") return Value(-std::numeric_limits<double>::infinity());
      fail("unknown symbolic value ##" + std::string(name));
    }
    const std::string tag(token());
    if (tag.empty()) fail("'#' without a tag");
    if (tag == "object") return parse_object();
    const std::size_t at = i_;
    Value rep = parse_value();
    const auto text_rep = [&]() -> std::string_view {
      if (!rep.is(Kind::string)) {
        i_ = at;
        fail("#" + tag + " needs a string");
      }
      return rep.as_string();
    };
    if (tag == "inst") {
      if (auto ms = detail::parse_instant(text_rep())) return Value::instant(*ms);
      fail("bad #inst");
    }
    if (tag == "uuid") {
      if (auto u = detail::parse_uuid(text_rep())) return Value::uuid(*u);
      fail("bad #uuid");
    }
    if (tag == "uri") return Value::uri(text_rep());
    if (tag == "bytes") {
      if (auto b = detail::base64_decode(text_rep())) return Value::bytes(*b);
      fail("bad #bytes");
    }
    if (tag == "link") {
      if (!rep.is(Kind::map)) fail("#link needs a map");
      return Value::link(rep);
    }
    return Value::tagged(tag, rep);
  }

  // `#object[class 0xhash rep]` as Clojure prints Java objects; only java.net.URI has a Value.
  Value parse_object() {
    skip_space();
    if (at_end() || peek() != '[') fail("#object needs '['");
    ++i_;
    skip_space();
    const std::string_view cls = token();
    if (cls == "java.net.URI") {
      skip_space();
      if (s_.substr(i_, 2) == "0x") token();
      skip_space();
      if (at_end() || peek() != '"') fail("#object[java.net.URI] needs a string");
      Value uri = Value::uri(parse_string());
      skip_space();
      if (at_end() || peek() != ']') fail("missing ']' after #object[java.net.URI]");
      ++i_;
      return uri;
    }
    // Anything else is skipped to its closing bracket; strings may hold brackets.
    unrepresentable_ = true;
    for (int depth = 1; depth > 0;) {
      if (at_end()) fail("unterminated #object");
      const char c = peek();
      if (c == '"') {
        parse_string();
        continue;
      }
      if (c == '[') ++depth;
      if (c == ']') --depth;
      ++i_;
    }
    return Value();
  }

  Value parse_atom() {
    const std::size_t at = i_;
    const std::string_view tok = token();
    if (tok.empty()) fail(std::string("unexpected '") + peek() + "'");
    if (tok == "nil") return Value();
    if (tok == "true") return Value(true);
    if (tok == "false") return Value(false);
    const bool signed_number = tok.size() > 1 && (tok[0] == '+' || tok[0] == '-') && is_digit(tok[1]);
    if (is_digit(tok[0]) || signed_number) {
      i_ = at;  // point errors at the number
      Value v = parse_number(tok);
      i_ = at + tok.size();
      return v;
    }
    if (tok[0] == ':') {
      if (tok.size() == 1 || tok[1] == ':') fail("bad keyword " + std::string(tok));
      return Value::keyword(tok.substr(1));
    }
    return Value::symbol(tok);
  }

  Value parse_number(std::string_view tok) {
    if (tok[0] == '+') tok.remove_prefix(1);
    const char suffix = tok.back();
    if (suffix == 'N') {
      const std::string_view digits = tok.substr(0, tok.size() - 1);
      if (!detail::is_integer_text(digits)) fail("bad big integer");
      return Value::big_integer(digits);
    }
    if (suffix == 'M') {
      const std::string_view text = tok.substr(0, tok.size() - 1);
      if (!detail::is_decimal_text(text)) fail("bad big decimal");
      return Value::big_decimal(text);
    }
    if (tok.find_first_of(".eE") != std::string_view::npos) {
      if (auto d = detail::parse_double(tok)) return Value(*d);
      fail("bad floating-point number");
    }
    if (!detail::is_integer_text(tok)) fail("unsupported number syntax");
    const std::string_view digits = tok.substr(tok[0] == '-' ? 1 : 0);
    // Clojure would read a leading zero as octal.
    if (digits.size() > 1 && digits[0] == '0') fail("octal integers are not supported");
    if (auto i = detail::parse_int64(tok)) return Value(*i);
    return Value::big_integer(tok);
  }
};

}  // namespace

std::optional<Value> parse_edn(std::string_view text) { return Parser(text).parse_top(); }

}  // namespace transit::test
