// SPDX-License-Identifier: Apache-2.0
// transit::Error and the one cold function that throws it.
#include "transit/error.h"

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#endif

#include <array>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "codec/codec.h"

namespace transit {

std::string_view code_name(Errc code) noexcept {
  switch (code) {
    case Errc::syntax: return "syntax";
    case Errc::truncated: return "truncated";
    case Errc::invalid_utf8: return "invalid_utf8";
    case Errc::bad_cache_code: return "bad_cache_code";
    case Errc::odd_map: return "odd_map";
    case Errc::bad_tagged_value: return "bad_tagged_value";
    case Errc::bad_rep: return "bad_rep";
    case Errc::too_deep: return "too_deep";
    case Errc::too_large: return "too_large";
    case Errc::trailing_data: return "trailing_data";
    case Errc::wrong_kind: return "wrong_kind";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::no_handler: return "no_handler";
    case Errc::type_mismatch: return "type_mismatch";
    case Errc::io: return "io";
  }
  return "unknown";
}

namespace {
// An error message stays a few KB whatever the input put in its path or detail (a key of
// 16 MB, 400 levels of long keys): both are cut in the middle past these sizes. A path of
// array indices at the deepest depth a reader allows ("[0]" 1000 times) is kept whole.
constexpr std::size_t kMaxPath = 4096;
constexpr std::size_t kMaxDetail = 1024;

std::string format_message(Errc code, const Location& where, const std::string& path,
                           const std::string& detail) {
  // Built with append only: g++ 12 warns (-Wrestrict, a false positive) on chains of
  // std::string operator+ here.
  std::string msg = "transit: ";
  msg.append(code_name(code));
  if (where.offset != Location::npos) {
    msg.append(" at byte ").append(std::to_string(where.offset));
    if (where.line != 0) {
      msg.append(" (line ").append(std::to_string(where.line));
      msg.append(", column ").append(std::to_string(where.column)).append(")");
    }
  }
  if (!path.empty()) msg.append(" in ").append(path);
  msg.append(": ").append(detail);  // both already cut to size
  return msg;
}
}  // namespace

Error::Error(Errc code, Location where, std::string path, const std::string& detail)
    : std::runtime_error(""),
      code_(code),
      where_(where),
      path_(path.size() > kMaxPath ? detail::elide_middle(path, kMaxPath) : std::move(path)),
      detail_(detail::elide_middle(detail, kMaxDetail)) {
  static_cast<std::runtime_error&>(*this) = std::runtime_error(format_message(code, where, path_, detail_));
}

namespace detail {

namespace {

// Shortens a demangled type name to what a user writes: every template argument list is
// rebuilt with its trailing standard defaults dropped (`std::map<std::string, int>`, not its
// comparator and allocator spelled out), `>>` for `> >` and `const T` for `T const` where
// that means the same. A name it cannot parse (unbalanced brackets) is left as it was.
class Shortener {
 public:
  explicit Shortener(std::string_view name) : s_(name) {}

  std::optional<std::string> run() {
    std::string out = text("");
    if (!ok_ || i_ != s_.size()) return std::nullopt;
    return out;
  }

 private:
  static bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == ':';
  }

  // True when `out` ends with the keyword `operator` (not `my_operator`).
  static bool ends_with_operator(const std::string& out) {
    constexpr std::string_view kOperator = "operator";
    if (!out.ends_with(kOperator)) return false;
    if (out.size() == kOperator.size()) return true;
    const char before = out[out.size() - kOperator.size() - 1];
    return before == ':' || !is_name_char(before);
  }

  // The qualified name `out` ends with (`std::vector`), whose argument list opens next.
  static std::string_view trailing_name(const std::string& out) {
    std::size_t b = out.size();
    while (b > 0 && is_name_char(out[b - 1])) --b;
    return std::string_view(out).substr(b);
  }

  // An operator's name (`&ns::operator<` as a template argument) is text, not a bracket: the
  // longest operator token at the cursor is copied as it is.
  void copy_operator(std::string& out) {
    static constexpr std::string_view kTokens[] = {
        "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "->", "()", "[]", "==", "!=", "&&",
        "||",  "++",  "--",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<",  ">",  "=",
        "!",   "+",   "-",   "*",   "/",  "%",  "&",  "|",  "^",  "~",  ","};
    for (std::string_view t : kTokens)
      if (s_.substr(i_, t.size()) == t) {
        out.append(t);
        i_ += t.size();
        return;
      }
  }

  // Text up to an unmatched character of `stops` at this level (not consumed), with every
  // template argument list in it shortened.
  std::string text(std::string_view stops) {
    std::string out;
    while (ok_ && i_ < s_.size()) {
      const char c = s_[i_];
      if (ends_with_operator(out)) {
        copy_operator(out);
        if (ends_with_operator(out)) out += s_[i_++];  // `operator new`, `operator int`
      } else if (stops.find(c) != std::string_view::npos) {
        break;
      } else if (c == '<' && !out.empty() && is_name_char(out.back())) {
        ++i_;
        arguments(out);
      } else if (c == '(' || c == '[' || c == '{') {
        const char close = c == '(' ? ')' : c == '[' ? ']' : '}';
        out += s_[i_++];
        out += text(std::string_view(&close, 1));
        if (i_ == s_.size()) ok_ = false;
        else out += s_[i_++];
      } else {
        out += s_[i_++];
      }
    }
    return out;
  }

  // After a '<': the argument list up to its '>', appended to `out`, which ends with the
  // template's name.
  void arguments(std::string& out) {
    std::vector<std::string> args;
    while (ok_) {
      std::string arg = text(",>");
      if (i_ == s_.size()) {
        ok_ = false;
        return;
      }
      const std::size_t b = arg.find_first_not_of(' ');
      const std::size_t e = arg.find_last_not_of(' ');
      arg = b == std::string::npos ? std::string() : east_const(unsuffixed(arg.substr(b, e - b + 1)));
      if (!arg.empty() || s_[i_] == ',' || !args.empty()) args.push_back(std::move(arg));
      if (s_[i_++] == '>') break;
    }
    const std::string_view name = trailing_name(out);
    drop_defaults(name, args);
    if (const std::string_view alias = alias_of(name, args); !alias.empty()) {
      out.resize(out.size() - name.size());
      out.append(alias);
      return;
    }
    out += '<';
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (k != 0) out += ", ";
      out += args[k];
    }
    out += '>';
  }

  // An integer literal argument as a user writes it, `3` for the demangler's `3ul` (`u`, `l`,
  // `ll` and their unsigned forms, any case), its sign kept. Only a whole argument: a name
  // (`foo3ul`) or a cast (`(short)-3`, `(Color)1`, which no literal spells) stays.
  static std::string unsuffixed(std::string arg) {
    std::size_t digits = arg.starts_with('-') ? 1 : 0;
    const std::size_t first = digits;
    while (digits < arg.size() && arg[digits] >= '0' && arg[digits] <= '9') ++digits;
    if (digits == first || digits == arg.size()) return arg;
    std::string suffix = arg.substr(digits);
    for (char& c : suffix) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (std::string_view known : {"u", "l", "ul", "lu", "ll", "ull", "llu"})
      if (suffix == known) return arg.substr(0, digits);
    return arg;
  }

  // `T const` as `const T` when T is a plain (possibly qualified, possibly template) name: not
  // for `int* const`, where the const is the pointer's.
  static std::string east_const(const std::string& arg) {
    constexpr std::string_view kSuffix = " const";
    if (!arg.ends_with(kSuffix)) return arg;
    const std::string_view type = std::string_view(arg).substr(0, arg.size() - kSuffix.size());
    if (type.empty() || !(is_name_char(type.back()) || type.back() == '>')) return arg;
    int depth = 0;
    for (char c : type) {
      if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
      else if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
      else if (depth == 0 && (c == '*' || c == '&')) return arg;
    }
    return "const " + std::string(type);
  }

  // The standard templates whose trailing arguments have defaults, from position `first` on,
  // each default spelled with $0 and $1 for the first two arguments, $c for `const $0` as
  // east_const writes it, $n for std::dynamic_extent as unsuffixed writes it.
  struct Defaults {
    std::string_view name;
    std::size_t first;
    std::array<std::string_view, 3> forms;
  };
  static constexpr Defaults kDefaults[] = {
      {"std::vector", 1, {"std::allocator<$0>"}},
      {"std::deque", 1, {"std::allocator<$0>"}},
      {"std::list", 1, {"std::allocator<$0>"}},
      {"std::forward_list", 1, {"std::allocator<$0>"}},
      {"std::set", 1, {"std::less<$0>", "std::allocator<$0>"}},
      {"std::multiset", 1, {"std::less<$0>", "std::allocator<$0>"}},
      {"std::map", 2, {"std::less<$0>", "std::allocator<std::pair<$c, $1>>"}},
      {"std::multimap", 2, {"std::less<$0>", "std::allocator<std::pair<$c, $1>>"}},
      {"std::unordered_set", 1, {"std::hash<$0>", "std::equal_to<$0>", "std::allocator<$0>"}},
      {"std::unordered_multiset", 1, {"std::hash<$0>", "std::equal_to<$0>", "std::allocator<$0>"}},
      {"std::unordered_map", 2,
       {"std::hash<$0>", "std::equal_to<$0>", "std::allocator<std::pair<$c, $1>>"}},
      {"std::unordered_multimap", 2,
       {"std::hash<$0>", "std::equal_to<$0>", "std::allocator<std::pair<$c, $1>>"}},
      {"std::basic_string", 1, {"std::char_traits<$0>", "std::allocator<$0>"}},
      {"std::basic_string_view", 1, {"std::char_traits<$0>"}},
      {"std::unique_ptr", 1, {"std::default_delete<$0>"}},
      {"std::stack", 1, {"std::deque<$0>"}},
      {"std::queue", 1, {"std::deque<$0>"}},
      {"std::priority_queue", 1, {"std::vector<$0>", "std::less<$0>"}},
      {"std::span", 1, {"$n"}},
  };

  static std::string expand(std::string_view form, const std::vector<std::string>& args) {
    std::string out;
    for (std::size_t k = 0; k < form.size(); ++k) {
      if (form[k] != '$') {
        out += form[k];
        continue;
      }
      switch (form[++k]) {
        case '0': out += args[0]; break;
        case '1': out += args[1]; break;
        case 'c': out += east_const(args[0] + " const"); break;
        default:  // 'n'
          out += std::to_string(static_cast<std::size_t>(-1));
      }
    }
    return out;
  }

  static void drop_defaults(std::string_view name, std::vector<std::string>& args) {
    for (const Defaults& d : kDefaults) {
      if (d.name != name) continue;
      while (args.size() > d.first && args.size() - 1 - d.first < d.forms.size() &&
             !d.forms[args.size() - 1 - d.first].empty() &&
             args.back() == expand(d.forms[args.size() - 1 - d.first], args))
        args.pop_back();
      return;
    }
  }

  // The standard aliases a user writes for what is left: std::string for
  // std::basic_string<char>.
  static std::string_view alias_of(std::string_view name, const std::vector<std::string>& args) {
    if (args.size() != 1 || (name != "std::basic_string" && name != "std::basic_string_view"))
      return {};
    static constexpr std::array<std::array<std::string_view, 3>, 5> kAliases{{
        {"char", "std::string", "std::string_view"},
        {"char8_t", "std::u8string", "std::u8string_view"},
        {"char16_t", "std::u16string", "std::u16string_view"},
        {"char32_t", "std::u32string", "std::u32string_view"},
        {"wchar_t", "std::wstring", "std::wstring_view"},
    }};
    for (const auto& a : kAliases)
      if (a[0] == args[0]) return name == "std::basic_string" ? a[1] : a[2];
    return {};
  }

  std::string_view s_;
  std::size_t i_ = 0;
  bool ok_ = true;
};

}  // namespace

std::string type_name(const std::type_info& type) { return type_name(type.name()); }

namespace {

// The demangler's text for a type, with the library's inline namespaces, which no user
// writes, dropped; nothing when it cannot be demangled.
std::optional<std::string> demangle(const char* mangled) {
#if __has_include(<cxxabi.h>)
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  if (status != 0 || !demangled) return std::nullopt;
  std::string name(demangled.get());
#else
  std::string name(mangled);  // MSVC's names are readable already
#endif
  for (const auto& [from, to] : {std::pair<std::string_view, std::string_view>{"std::__cxx11::", "std::"},
                                 {"std::filesystem::__cxx11::", "std::filesystem::"},
                                 {"std::chrono::_V2::", "std::chrono::"},
                                 {"std::__1::", "std::"},
                                 {"decltype(nullptr)", "std::nullptr_t"}}) {
    for (std::size_t at = name.find(from); at != std::string::npos; at = name.find(from, at))
      name.replace(at, from.size(), to);
  }
  return name;
}

// The standard durations as the demangler spells them on this platform
// (`std::chrono::duration<long, std::ratio<1l, 1000l>>`), each with the name a user writes.
const std::vector<std::pair<std::string, std::string_view>>& duration_names() {
  static const auto names = [] {
    std::vector<std::pair<std::string, std::string_view>> out;
    const auto add = [&out](const std::type_info& type, std::string_view name) {
      if (std::optional<std::string> spelled = demangle(type.name()))
        out.emplace_back(*std::move(spelled), name);
    };
    add(typeid(std::chrono::nanoseconds), "std::chrono::nanoseconds");
    add(typeid(std::chrono::microseconds), "std::chrono::microseconds");
    add(typeid(std::chrono::milliseconds), "std::chrono::milliseconds");
    add(typeid(std::chrono::seconds), "std::chrono::seconds");
    add(typeid(std::chrono::minutes), "std::chrono::minutes");
    add(typeid(std::chrono::hours), "std::chrono::hours");
    add(typeid(std::chrono::days), "std::chrono::days");
    add(typeid(std::chrono::weeks), "std::chrono::weeks");
    add(typeid(std::chrono::months), "std::chrono::months");
    add(typeid(std::chrono::years), "std::chrono::years");
    return out;
  }();
  return names;
}

}  // namespace

std::string type_name(const char* mangled) {
  std::optional<std::string> demangled = demangle(mangled);
  if (!demangled) return mangled;
  std::string name = *std::move(demangled);
  if (name.find("std::chrono::duration<") != std::string::npos) {
    for (const auto& [from, to] : duration_names()) {
      for (std::size_t at = name.find(from); at != std::string::npos; at = name.find(from, at))
        name.replace(at, from.size(), to);
    }
  }
  if (std::optional<std::string> shorter = Shortener(name).run()) return *std::move(shorter);
  return name;
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_error(Errc code, std::string_view detail,
                                                        std::size_t offset) {
  throw Error(code, Location{offset, 0, 0}, {}, std::string(detail));
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_error(Errc code, std::string_view detail,
                                                        Location where, std::string path) {
  throw Error(code, where, std::move(path), std::string(detail));
}

}  // namespace detail
}  // namespace transit
