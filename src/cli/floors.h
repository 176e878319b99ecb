// SPDX-License-Identifier: Apache-2.0
// The floors `transit bench` times beside Transit: the raw JSON and MessagePack libraries doing
// the same job on the same bytes, with no Transit rules (issue 11 asks for ours beside them).
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "transit/encoding.h"

namespace transit::cli {

/// A floor's work, one run each, on the very bytes Transit wrote for `encoding`: for JSON and
/// JSON-Verbose, RapidJSON parses every value into a fresh `Document` (full-precision numbers,
/// as the library reads) and its `Writer` writes those documents into a fresh buffer; for
/// MessagePack, msgpack-cxx `unpack`s every value into a fresh zone and `pack`s the objects into
/// a fresh buffer. Each returns the bytes it handled or produced, so the work cannot be dropped.
class Floor {
 public:
  Floor(std::string_view bytes, Encoding encoding);
  ~Floor();
  Floor(const Floor&) = delete;
  Floor& operator=(const Floor&) = delete;

  /// RapidJSON or msgpack-cxx.
  std::string_view library() const noexcept;
  /// Parses every value of the bytes; returns how many values.
  std::size_t read() const;
  /// Writes every value (parsed once, at construction) into a fresh buffer; returns its size.
  std::size_t write() const;

 private:
  struct Parsed;
  std::string_view bytes_;
  Encoding encoding_;
  std::unique_ptr<Parsed> parsed_;
};

}  // namespace transit::cli
