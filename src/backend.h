// SPDX-License-Identifier: Apache-2.0
// What a backend provides to the Writer and Reader facades. One virtual call per top-level
// value; everything inside a value is static dispatch.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "transit/reader.h"
#include "transit/writer.h"

namespace transit {

namespace detail {
/// `source.read(buffer, size)`, held to its contract: a Source that says it gave more than
/// `size` bytes would have a reader read past its buffer, so that is an Error(io) instead.
std::size_t read_checked(Source& source, char* buffer, std::size_t size);
}  // namespace detail

class Writer::Impl {
 public:
  virtual ~Impl() = default;
  virtual void write(const Value& v) = 0;
  /// A top-level value written token by token from C++ objects: begin, tokens, end; or
  /// abandon when writing it failed, dropping its bytes. abandon_value returns how many of
  /// them the sink already holds (a value larger than the buffer): 0 when none.
  virtual detail::ObjectEncoder& begin_value() = 0;
  virtual void end_value() = 0;
  virtual std::size_t abandon_value() noexcept = 0;
  virtual void flush() = 0;
  Encoding encoding = Encoding::json;
  /// The bytes of a failed value that the sink holds, once one has left any: no reader could
  /// find a value written after them, so Writer writes none (kept here, out of the backends'
  /// code).
  std::size_t partial = 0;
};

class Reader::Impl {
 public:
  virtual ~Impl() = default;
  virtual std::optional<Value> next() = 0;
  virtual std::size_t offset() const noexcept = 0;
  /// Typed reads: the next value as a tape; false at the end of the input.
  virtual bool next_tape(detail::Tape& tape) = 0;
  /// Where a token of the last value read starts, from the mark the backend gave it.
  virtual Location locate_mark(std::size_t mark) const = 0;
  /// Gives the tokens of the last value's tape their marks, when the parser that read it had
  /// none to give (simdjson); called on the error path only.
  virtual void remark(detail::Tape&) {}
  /// Reads the last value again onto `tape` whole (no bounded batches), after a bounded typed
  /// read of it stopped (see Reader::next<T>). Throws what reading it throws.
  virtual void retape(detail::Tape&) {}
  /// The Reader that owns this (`self`) is done with it, having read no tape: a backend may
  /// keep it, emptied, for the next Reader made on this thread (make_msgpack_reader), rather
  /// than free it. Left in `self`, it is freed.
  virtual void retire(std::unique_ptr<Impl>& self) noexcept { (void)self; }
};

namespace detail {
std::unique_ptr<Writer::Impl> make_json_writer(Sink& sink, bool verbose,
                                               const WriteOptions& options);
/// `use_simdjson` false reads with RapidJSON only, as a build without simdjson does (tests
/// compare the two).
std::unique_ptr<Reader::Impl> make_json_reader(std::string_view input, const ReadOptions& options,
                                               bool use_simdjson = true);
std::unique_ptr<Reader::Impl> make_json_reader(Source& source, const ReadOptions& options);
/// The JSON reader of a text in memory kept on this thread (json::keep_json_reader),
/// reopened over `input`, if it reads as make_json_reader(input, options, use_simdjson) would;
/// else null. Asked by the Reader, not by make_json_reader: in json_reader.cpp, the call made
/// GCC compile Decoder::null otherwise (twitter's JSON read 0.09% more instructions).
std::unique_ptr<Reader::Impl> take_json_reader(std::string_view input, const ReadOptions& options,
                                               bool use_simdjson) noexcept;
std::unique_ptr<Writer::Impl> make_msgpack_writer(Sink& sink, const WriteOptions& options);
std::unique_ptr<Reader::Impl> make_msgpack_reader(std::string_view input,
                                                  const ReadOptions& options);
std::unique_ptr<Reader::Impl> make_msgpack_reader(Source& source, const ReadOptions& options);
}  // namespace detail

}  // namespace transit
