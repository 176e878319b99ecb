// SPDX-License-Identifier: Apache-2.0
// The writers' output buffer: a flat buffer that spills to the sink in large chunks, so no
// call per byte or per value is virtual. It serves RapidJSON (Put, PutUnsafe, Reserve) and
// msgpack-cxx (write) alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "transit/error.h"
#include "transit/sink.h"

namespace transit::detail {

class OutBuffer {
 public:
  using Ch = char;

  // Left uninitialised: a one-shot write of a small value must not pay for clearing 64 KiB.
  OutBuffer(Sink& sink, std::size_t capacity, std::size_t max_value_bytes = SIZE_MAX)
      : sink_(sink),
        limit_(max_value_bytes),
        size_(std::max<std::size_t>(capacity, 256)),
        buf_(std::make_unique_for_overwrite<char[]>(size_)),
        cur_(buf_.get()) {}

  // RapidJSON's output stream concept.
  void Put(char c) {
    Reserve(1);
    *cur_++ = c;
  }
  void PutUnsafe(char c) noexcept { *cur_++ = c; }
  void Reserve(std::size_t n) {
    if (static_cast<std::size_t>(buf_.get() + size_ - cur_) < n) make_room(n);
  }
  /// The write position, for writers that fill a Reserve()d run in place and then commit()
  /// its end.
  char* cursor() noexcept { return cur_; }
  void commit(char* end) noexcept { cur_ = end; }
  void Flush() {}  // RapidJSON calls this at the end of each root; the Writer decides when

  // msgpack-cxx's packer stream.
  void write(const char* data, std::size_t size) {
    Reserve(size);
    std::memcpy(cur_, data, size);
    cur_ += size;
  }

  /// Remembers where the current top-level value starts.
  void mark() noexcept {
    mark_ = buffered();
    spilled_in_value_ = 0;
  }
  /// Bytes the current top-level value has produced so far, spilled or buffered.
  std::size_t value_bytes() const noexcept { return spilled_in_value_ + buffered() - mark_; }
  /// Throws Error(too_large) when the current value has produced more bytes than the limit.
  /// Called whenever the buffer fills and when a value ends, so a value is stopped within one
  /// buffer of the limit, before that buffer reaches the sink.
  void check_limit() const {
    if (value_bytes() > limit_) [[unlikely]]
      throw_error(Errc::too_large, "a value written expands to more than " +
                                       std::to_string(limit_) +
                                       " bytes (WriteOptions::max_output_bytes)");
  }
  /// Drops a value that failed half-way, so the sink only ever sees complete values. Bytes
  /// already spilled (a single value larger than the buffer) cannot be taken back, but what is
  /// still buffered of it (all of the buffer since the spill) is dropped.
  void rollback() noexcept { cur_ = buf_.get() + mark_; }

  void spill() {
    const std::size_t used = buffered();
    if (used != 0) sink_.write(buf_.get(), used);
    spilled_in_value_ += used - mark_;
    cur_ = buf_.get();
    mark_ = 0;
  }
  void flush_sink() {
    spill();
    sink_.flush();
  }
  std::size_t buffered() const noexcept { return static_cast<std::size_t>(cur_ - buf_.get()); }
  std::size_t capacity() const noexcept { return size_; }

 private:
  void make_room(std::size_t n) {
    check_limit();
    spill();
    if (size_ < n) {
      size_ = n;
      buf_ = std::make_unique_for_overwrite<char[]>(size_);
      cur_ = buf_.get();
    }
  }

  Sink& sink_;
  std::size_t limit_;
  std::size_t size_;
  std::unique_ptr<char[]> buf_;
  char* cur_;
  std::size_t mark_ = 0;
  std::size_t spilled_in_value_ = 0;
};

}  // namespace transit::detail
