// SPDX-License-Identifier: Apache-2.0
// transit-cpp: reading values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "transit/encoding.h"
#include "transit/read_handlers.h"
#include "transit/value.h"

namespace transit {

namespace detail {
struct Tape;
struct BindFailure;
}  // namespace detail

/// Reader settings. The limits bound what hostile input can make a reader do: each is checked
/// before the memory it guards is used, so a MessagePack length prefix claiming 4 GiB fails at
/// once rather than being waited for. Set a limit to SIZE_MAX to lift it (max_depth excepted).
struct ReadOptions {
  /// The largest max_depth a reader accepts: Value::kMaxDepth, the deepest any Value nests.
  /// Reading, writing, comparing and destroying a value recurse once per level; 1,000 levels
  /// take a few hundred KiB of stack in an optimized build and stay within a default 8 MiB
  /// thread stack under AddressSanitizer, whose frames are ten times larger or more (2,000
  /// levels overflow it, comparing).
  static constexpr std::size_t kMaxDepthLimit = Value::kMaxDepth;
  /// typed_batch_tokens's default: whatever batch the library reads with (256 tokens; the
  /// library's own tests set it small, see src/testing.h).
  static constexpr std::size_t kLibraryDefault = SIZE_MAX;
  /// Deepest nesting of arrays, maps and tagged values accepted; deeper input is an
  /// Error(too_deep). The JSON parser recurses once per level, so this also bounds stack use.
  /// A reader built with more than kMaxDepthLimit throws Error(invalid_argument).
  std::size_t max_depth = 512;
  /// Longest string, byte array, number (in digits) or tag, in bytes as on the wire; longer is an
  /// Error(too_large).
  std::size_t max_string_length = std::size_t{16} << 20;  // 16 MiB
  /// Most items in an array, list or set, or entries in a map; more is an Error(too_large).
  std::size_t max_collection_length = std::size_t{1} << 24;  // 16,777,216
  /// Most bytes one top-level value may take on the wire; more is an Error(too_large). A reader
  /// from a Source buffers at most this (plus one chunk) for a value, whatever the input claims.
  std::size_t max_value_bytes = std::size_t{64} << 20;  // 64 MiB
  /// Bytes read from a Source at a time (at least 1 for JSON and 16 for MessagePack: a smaller
  /// size, 0 included, reads that many).
  std::size_t chunk_size = 64 * 1024;
  /// Read handlers for user tags, a default handler, map and array builders. Null: tags this
  /// library does not know are read as tagged values. Must outlive the reader.
  const ReadHandlers* handlers = nullptr;
  /// Typed reads (read<T>) of JSON in memory: about how many tokens of the value are written
  /// ahead of the binder at a time, so that the tokens stay in the processor's caches (the
  /// tokens a binder may go back to are kept too). 0: the whole value at once. Any value reads
  /// the same either way; a small number makes every value a many-batch one (tests).
  /// kLibraryDefault (the default): the library's own choice, 256 tokens (4 KiB).
  std::size_t typed_batch_tokens = kLibraryDefault;
};

/// Where a streaming Reader gets its bytes. `read` writes at most `size` bytes to `buffer` and
/// returns how many: the bytes available now (at least one, waiting only while there are
/// none) or 0 at the end of the input, so a reader never waits for more than the value it is
/// reading. Throws Error(io) on failure. A `read` that returns more than `size` is a broken
/// Source: the reader reading from it throws Error(io) ("Source::read returned N bytes for a
/// buffer of M") rather than read past what was written.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::size_t read(char* buffer, std::size_t size) = 0;
};

/// Reads a file descriptor: a pipe, a socket, a file. Retries EINTR; a non-blocking descriptor
/// with no bytes yet (EAGAIN) is waited on with poll, as a blocking one.
class FdSource final : public Source {
 public:
  explicit FdSource(int fd) : fd_(fd) {}
  std::size_t read(char* buffer, std::size_t size) override;

 private:
  int fd_;
};

/// Reads a std::istream, taking what its buffer holds and waiting for one byte only when it
/// holds none.
class IstreamSource final : public Source {
 public:
  explicit IstreamSource(std::istream& is) : is_(is) {}
  std::size_t read(char* buffer, std::size_t size) override;

 private:
  std::istream& is_;
};

/// Reads top-level values one after another, from text in memory or from a Source. JSON and JSON-Verbose are
/// both read by Encoding::json (a reader tells them apart value by value). Values may be
/// separated by whitespace or by nothing.
class Reader {
 public:
  /// Reads `input`, which must outlive the reader. Throws Error(invalid_argument) for an
  /// encoding this build cannot read.
  Reader(std::string_view input, Encoding encoding = Encoding::json, ReadOptions options = {});
  /// Reads values as they arrive from `source`, which must outlive the reader: `next()`
  /// returns each value as soon as its last byte is in, and memory stays bounded by the
  /// largest single value, not the length of the stream.
  Reader(Source& source, Encoding encoding = Encoding::json, ReadOptions options = {});
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  /// The next value, or nullopt at the end of the input. Throws Error with the byte offset
  /// (and line and column for JSON) on malformed input, and every later call throws it again;
  /// and when user code (a read handler, a Record, a builder) refuses the value, its Error,
  /// after which the next call reads the value after it (docs/errors.md).
  std::optional<Value> next();
  /// The next value read straight into a T (see transit/typed.h for the types it takes), or
  /// nullopt at the end of the input. Throws Error(type_mismatch) naming the byte offset, the
  /// path and the C++ type when the value does not fit T, and what next() throws.
  template <class T>
  std::optional<T> next();
  /// Byte offset of the first byte not yet consumed.
  std::size_t offset() const noexcept;

  class Impl;

 private:
  /// Reads the next value onto the tape; false at the end of the input.
  bool next_tape();
  /// Turns a failure to bind the tape into an Error placed in the input.
  [[noreturn]] void fail_bind(const detail::BindFailure& failure) const;
  /// Reads the last value again onto the tape whole, after a bounded typed read stopped.
  void retape();

  std::unique_ptr<Impl> impl_;
  std::unique_ptr<detail::Tape> tape_;
  const ReadHandlers* handlers_ = nullptr;
};

namespace detail {
/// read()'s checks once the reader has read what it read: no value is an Error(truncated),
/// anything but whitespace after it an Error(trailing_data).
void check_one_value(std::string_view input, Encoding encoding, bool got, std::size_t offset);
}  // namespace detail

/// Reads exactly one value; anything but whitespace after it is an Error(trailing_data).
Value read(std::string_view input, Encoding encoding = Encoding::json, ReadOptions options = {});
/// Reads exactly one value straight into a T, with no Value tree in between (see
/// transit/typed.h). Throws Error(type_mismatch) when it does not fit T, and what read() throws.
template <class T>
T read(std::string_view input, Encoding encoding = Encoding::json, ReadOptions options = {});
/// Reads every value in the input.
std::vector<Value> read_all(std::string_view input, Encoding encoding = Encoding::json,
                            ReadOptions options = {});

}  // namespace transit
