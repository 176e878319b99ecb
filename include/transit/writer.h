// SPDX-License-Identifier: Apache-2.0
// transit-cpp: writing values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "transit/encoding.h"
#include "transit/registry.h"
#include "transit/sink.h"
#include "transit/value.h"
#include "transit/write_handlers.h"

namespace transit {

/// Writer settings.
struct WriteOptions {
  /// Bytes buffered before they are handed to the sink. A sink with memory of its own
  /// (StringSink) is written into directly: there it is only how often max_output_bytes is
  /// checked.
  std::size_t buffer_size = 64 * 1024;
  /// MessagePack only: write a double as float 32 (5 bytes instead of 9) whenever converting it
  /// to float and back gives the same double, so nothing is lost; others stay float 64. Off by
  /// default: float 64 always, as the other Transit implementations write. Ignored by JSON.
  bool float32 = false;
  /// The deepest nesting of arrays and maps written, counted on the wire as a reader counts it
  /// (a cmap, set, list or tagged value takes two levels; a MessagePack date one, a UUID two).
  /// A value nested deeper fails with Error(too_deep) rather than being written for a reader
  /// with the same limit (ReadOptions::max_depth, 512 by default) to reject; it leaves in the
  /// output what any failed value leaves (see Writer::write). SIZE_MAX lifts it.
  std::size_t max_depth = 512;
  /// Handlers for user types (Value::object and C++ objects written directly). Null: only the
  /// built-in types can be written. Must outlive the writer.
  const Registry* registry = nullptr;
  /// The most bytes one top-level value may expand to on the wire; a value that would exceed it
  /// fails with Error(too_large), leaving the values before it in the output. Cache codes let a
  /// small input stand for a huge output (a 16 MB key referred to 1000 times by `^0` is 16 GB of
  /// JSON-Verbose), so a service writing what it was sent sets this. The check happens when
  /// the buffer fills and when the value ends: a value larger than `buffer_size` has handed
  /// its first bytes to the sink by the time it fails (but to a StringSink, nothing). No limit
  /// by default.
  std::size_t max_output_bytes = SIZE_MAX;
  /// Collects handler-lookup statistics when set (see LookupProfiler). Must outlive the writer.
  LookupProfiler* profiler = nullptr;
  /// JSON and JSON-Verbose: end each top-level value with a newline (`\n`), so the output is
  /// one value a line, for a peer that reads one value a text (transit-js's `reader.read`),
  /// `jq`, `wc -l` or a log. Nothing else written holds a raw newline (a string's control
  /// characters are escaped), so each line is exactly one value. The newline belongs to the
  /// value: it reaches the sink with the value's last byte (so `flush()` never leaves a value
  /// without it), `transit::write` ends its text with it, a value that fails leaves none, and
  /// it is not counted by max_output_bytes. Ignored by MessagePack, whose values delimit
  /// themselves and where the byte would be read as the integer 10, so a program choosing the
  /// encoding at run time can set it once. Off by default: values follow each other with nothing
  /// between, which this library's and transit-java's readers take.
  bool newline_after_value = false;
};

/// Writes top-level values, one after another, to a sink (nothing between them, or a newline
/// after each JSON value: WriteOptions::newline_after_value). Each `write` is one complete
/// Transit value with its own key cache, as every Transit reader expects. Bytes reach the sink
/// when the internal buffer fills and on `flush()`; a StringSink's string holds each value as
/// soon as it is written.
class Writer {
 public:
  /// Throws Error(invalid_argument) for an encoding this build cannot write.
  Writer(Sink& sink, Encoding encoding, WriteOptions options = {});
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// Writes one top-level value. Scalars are wrapped in the quote tag (`["~#'", v]`).
  /// Throws Error(no_handler) for a user object with no handler, Error(too_large) beyond
  /// WriteOptions::max_output_bytes, Error(io) from the sink; a value that fails leaves
  /// nothing of itself in the output, unless it was larger than the buffer and the sink is
  /// not a StringSink: then its first bytes are in the output, and every later write throws
  /// Error(io), since no reader could find a value written after them.
  void write(const Value& v);
  /// Writes a C++ value directly, with no intermediate Value: bool, integers, floating point,
  /// strings, std containers (sequences as arrays, std::list as lists, sets, maps or cmaps),
  /// optional, variant, pair, tuple, system_clock time points, byte spans, pointers (null is
  /// nil; a polymorphic pointee is written by its dynamic type), Value, and user types
  /// through WriteOptions::registry.
  template <class T>
  void write(const T& v) {
    detail::ObjectEncoder& e = begin_value();
    try {
      detail::write_top(e, v);
      end_value();
    } catch (...) {
      abandon_value();
      throw;
    }
  }
  /// Hands every buffered byte to the sink and flushes it; throws Error(io) on failure.
  void flush();

  Encoding encoding() const noexcept;

  class Impl;

 private:
  detail::ObjectEncoder& begin_value();
  void end_value();
  void abandon_value() noexcept;

  std::unique_ptr<Impl> impl_;
};

/// One value, a Value or any C++ value Writer::write takes, as a complete Transit text (or
/// MessagePack bytes) in `encoding`.
template <class T>
std::string write(const T& v, Encoding encoding = Encoding::json, const WriteOptions& options = {}) {
  std::string out;
  StringSink sink(out);
  Writer writer(sink, encoding, options);
  writer.write(v);
  writer.flush();
  return out;
}

}  // namespace transit
