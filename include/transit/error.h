// SPDX-License-Identifier: Apache-2.0
// transit-cpp: the one exception type.
#pragma once

// Every public header includes this one (encoding.h, which needs nothing newer, aside): a
// consumer built as C++17 is told why here, first, rather than by a page of errors below.
#if defined(_MSVC_LANG) ? _MSVC_LANG < 202002L : __cplusplus < 201709L
#error "transit-cpp needs C++20: compile with -std=c++20 (CMake's transit::transit target asks for it)"
#endif

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

namespace transit {

/// Stable error codes. The name (see `code_name`) appears in every message and never changes.
enum class Errc : std::uint8_t {
  syntax,             ///< the bytes are not well-formed JSON
  truncated,          ///< input ended inside a value
  invalid_utf8,       ///< a string is not valid UTF-8
  bad_cache_code,     ///< a cache code that is malformed, out of range or not yet assigned
  odd_map,            ///< a `"^ "` map array (or cmap) with an odd number of items
  bad_tagged_value,   ///< a `["~#tag", rep]` array or `{"~#tag": rep}` object of the wrong shape
  bad_rep,            ///< a representation that does not decode (bad `~u`, `~t`, `~b`, `~z` ...)
  too_deep,           ///< nesting deeper than the reader's limit
  too_large,          ///< a string, collection or value past the reader's limits, or a JSON
                      ///< number beyond a double's range
  trailing_data,      ///< more than one value where exactly one was asked for
  wrong_kind,         ///< a Value accessor used on a value of another kind
  invalid_argument,   ///< a Value built from invalid parts (bad big integer digits, ...)
  no_handler,         ///< no write handler for a value's type
  type_mismatch,      ///< a typed read (read<T>) met a value that does not fit T
  io,                 ///< a sink or source failed
};

/// The stable name of a code, e.g. "bad_cache_code".
std::string_view code_name(Errc code) noexcept;

/// Where an error happened. `offset` is the byte offset into the input (npos when the error is
/// not about input); `line`/`column` are 1-based and 0 when unknown (non-JSON input).
struct Location {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t offset = npos;
  std::size_t line = 0;
  std::size_t column = 0;
};

/// Every failure in transit-cpp is a transit::Error. Its message reads
/// `transit: <code> at byte N: <detail>` (or `transit: <code>: <detail>` without a position).
class Error : public std::runtime_error {
 public:
  Error(Errc code, Location where, std::string path, const std::string& detail);

  Errc code() const noexcept { return code_; }
  /// Byte offset into the input, or Location::npos.
  std::size_t offset() const noexcept { return where_.offset; }
  std::size_t line() const noexcept { return where_.line; }
  std::size_t column() const noexcept { return where_.column; }
  /// Path of the value being read, e.g. `$[3]["name"]`; empty when unknown.
  const std::string& path() const noexcept { return path_; }
  /// The message without the code and position.
  const std::string& detail() const noexcept { return detail_; }
  Location location() const noexcept { return where_; }

 private:
  Errc code_;
  Location where_;
  std::string path_;
  std::string detail_;
};

namespace detail {
/// A C++ type's name as it is written in source, for messages: `std::map<std::string, int>`,
/// without the standard arguments its declaration defaults (a comparator or allocator of the
/// user's own stays), the library's inline namespaces, or `> >`.
std::string type_name(const std::type_info& type);
/// The same from a mangled name, `typeid(T).name()`, where that is what is kept.
std::string type_name(const char* mangled);
/// The one place errors are thrown from; kept out of line and cold.
[[noreturn]] void throw_error(Errc code, std::string_view detail,
                              std::size_t offset = Location::npos);
[[noreturn]] void throw_error(Errc code, std::string_view detail, Location where,
                              std::string path);
}  // namespace detail

}  // namespace transit
