// SPDX-License-Identifier: Apache-2.0
// transit-cpp: writing values.
#pragma once

#include <memory>
#include <string>

#include "transit/encoding.h"
#include "transit/sink.h"
#include "transit/value.h"

namespace transit {

/// Writer settings.
struct WriteOptions {
  /// Bytes buffered before they are handed to the sink.
  std::size_t buffer_size = 64 * 1024;
  /// MessagePack only: write a double as float 32 (5 bytes instead of 9) whenever converting it
  /// to float and back gives the same double, so nothing is lost; others stay float 64. Off by
  /// default: float 64 always, as the other Transit implementations write. Ignored by JSON.
  bool float32 = false;
};

/// Writes top-level values, one after another, to a sink. Each `write` is one complete Transit
/// value with its own key cache, as every Transit reader expects. Bytes reach the sink when the
/// internal buffer fills and on `flush()`.
class Writer {
 public:
  /// Throws Error(invalid_argument) for an encoding this build cannot write.
  Writer(Sink& sink, Encoding encoding, WriteOptions options = {});
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// Writes one top-level value. Scalars are wrapped in the quote tag (`["~#'", v]`).
  /// Throws Error(no_handler) for a user object with no handler, Error(io) from the sink.
  void write(const Value& v);
  /// Hands every buffered byte to the sink and flushes it; throws Error(io) on failure.
  void flush();

  Encoding encoding() const noexcept;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// One value as a complete Transit text (or MessagePack bytes) in `encoding`.
std::string write(const Value& v, Encoding encoding = Encoding::json);

}  // namespace transit
