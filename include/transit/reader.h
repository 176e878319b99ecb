// SPDX-License-Identifier: Apache-2.0
// transit-cpp: reading values.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "transit/encoding.h"
#include "transit/value.h"

namespace transit {

/// Reader settings.
struct ReadOptions {
  /// Deepest nesting of arrays, maps and tagged values accepted; deeper input is an
  /// Error(too_deep). The JSON parser recurses once per level, so this also bounds stack use.
  std::size_t max_depth = 512;
};

/// Reads top-level values one after another from text in memory. JSON and JSON-Verbose are
/// both read by Encoding::json (a reader tells them apart value by value). Values may be
/// separated by whitespace or by nothing. The input must outlive the reader.
class Reader {
 public:
  /// Throws Error(invalid_argument) for an encoding this build cannot read.
  Reader(std::string_view input, Encoding encoding = Encoding::json, ReadOptions options = {});
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  /// The next value, or nullopt at the end of the input. Throws Error with the byte offset
  /// (and line and column for JSON) on malformed input.
  std::optional<Value> next();
  /// Byte offset of the first byte not yet consumed.
  std::size_t offset() const noexcept;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Reads exactly one value; anything but whitespace after it is an Error(trailing_data).
Value read(std::string_view input, Encoding encoding = Encoding::json, ReadOptions options = {});
/// Reads every value in the input.
std::vector<Value> read_all(std::string_view input, Encoding encoding = Encoding::json,
                            ReadOptions options = {});

}  // namespace transit
