// SPDX-License-Identifier: Apache-2.0
// transit::Error and the one cold function that throws it.
#include "transit/error.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

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

std::string type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !demangled) return type.name();
  std::string name(demangled.get());
  // The standard library's long spellings, as a reader would write them.
  for (const auto& [from, to] :
       {std::pair<std::string_view, std::string_view>{
            "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
            "std::string"},
        {"std::__cxx11::", "std::"},
        {"std::filesystem::__cxx11::", "std::filesystem::"},
        {"std::basic_string<char8_t, std::char_traits<char8_t>, std::allocator<char8_t> >",
         "std::u8string"},
        {"std::basic_string<char16_t, std::char_traits<char16_t>, std::allocator<char16_t> >",
         "std::u16string"},
        {"std::basic_string<char32_t, std::char_traits<char32_t>, std::allocator<char32_t> >",
         "std::u32string"},
        {"std::basic_string<wchar_t, std::char_traits<wchar_t>, std::allocator<wchar_t> >",
         "std::wstring"},
        {"decltype(nullptr)", "std::nullptr_t"}}) {
    for (std::size_t at = name.find(from); at != std::string::npos; at = name.find(from, at))
      name.replace(at, from.size(), to);
  }
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
