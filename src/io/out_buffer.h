// SPDX-License-Identifier: Apache-2.0
// The writers' output buffer. With a sink that holds its bytes in memory (StringSink: see
// Sink::open_region), the emitters encode straight into the sink's memory, which grows as they
// write, and each top-level value is committed whole when it ends: no staging copy. With any
// other sink, a flat buffer of its own spills to the sink in large chunks. Either way no call
// per byte or per value is virtual.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "transit/error.h"
#include "transit/sink.h"

namespace transit::detail {

class OutBuffer {
 public:
  /// `capacity`: the size of the buffer of its own, and with a limit (`max_value_bytes`) the
  /// most bytes written between two checks of it. Nothing is allocated until the first byte.
  OutBuffer(Sink& sink, std::size_t capacity, std::size_t max_value_bytes = SIZE_MAX)
      : sink_(sink), limit_(max_value_bytes), capacity_(std::max<std::size_t>(capacity, 256)) {}

  void Reserve(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) make_room(n);
  }
  /// The write position, for writers that fill a Reserve()d run in place and then commit()
  /// its end.
  char* cursor() noexcept { return cur_; }
  void commit(char* end) noexcept { cur_ = end; }

  void write(const char* data, std::size_t size) {
    Reserve(size);
    std::memcpy(cur_, data, size);
    cur_ += size;
  }

  /// Remembers where the current top-level value starts.
  void mark() noexcept {
    mark_ = buffered();
    spilled_in_value_ = 0;
    track_first_ = nullptr;
  }

  /// The encoder's progress through one container of the current value (the first it opens
  /// with many items: see Encoder::tracks): its items as bytes [first, last), and at each item
  /// track_at(item). When the sink's memory must grow in the middle of that container, the
  /// next step is sized from it (see room_wanted), so that a large value is copied once or
  /// twice as its string grows rather than at every doubling.
  void track_begin(const void* first, const void* last) noexcept {
    track_first_ = track_at_ = static_cast<const char*>(first);
    track_last_ = static_cast<const char*>(last);
    track_start_ = value_bytes();
  }
  void track_at(const void* item) noexcept { track_at_ = static_cast<const char*>(item); }
  void track_end() noexcept { track_first_ = nullptr; }
  bool tracking() const noexcept { return track_first_ != nullptr; }
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
  /// A top-level value is complete: in the sink's memory it becomes output at once (the sink
  /// holds complete values only, so a string sink can be read between writes); a buffer of
  /// our own spills once it is half full. `kNewline`: '\n' follows the value
  /// (WriteOptions::newline_after_value), written after the limit's check, which counts the
  /// value's bytes only.
  template <bool kNewline = false>
  void end_value() {
    check_limit();
    if constexpr (kNewline) put_newline();
    if (direct_) {
      if (base_ != nullptr) close_region(buffered());
    } else if (buffered() >= capacity_ / 2) {
      spill();
    }
  }
  /// Drops a value that failed half-way, so the sink only ever sees complete values. In the
  /// sink's memory nothing of it was output, however large it grew. With a buffer of our own,
  /// bytes already spilled (a single value larger than the buffer) cannot be taken back, but
  /// what is still buffered of it (all of the buffer since the spill) is dropped. Returns how
  /// many bytes of it the sink holds: 0 when it holds complete values only.
  std::size_t rollback() noexcept {
    cur_ = base_ + mark_;
    if (direct_ && base_ != nullptr) close_region(mark_);
    return spilled_in_value_;
  }

  /// Hands every byte written so far to the sink and flushes it.
  void flush_sink() {
    if (direct_) {
      if (base_ != nullptr) close_region(buffered());
    } else {
      spill();
    }
    sink_.flush();
  }
  std::size_t buffered() const noexcept { return static_cast<std::size_t>(cur_ - base_); }

 private:
  // The newline that ends a value goes to the sink in the same write() as the value's last
  // byte, so a reader of a pipe never holds a value without it while the writer holds the
  // newline: a buffer of our own, full, has a byte more for it (see make_room). Taking that
  // byte leaves cur_ one past end_, with the buffer full; end_value's spill, due once half
  // of it is used, empties it before anything else is written.
  void put_newline() {
    if (cur_ == end_ && !own_) [[unlikely]]
      make_room(1);  // the sink's memory grows: nothing is handed to the sink
    *cur_++ = '\n';
  }

  void spill() {
    const std::size_t used = buffered();
    if (used != 0) sink_.write(base_, used);
    spilled_in_value_ += used - mark_;
    cur_ = base_;
    mark_ = 0;
  }

  [[gnu::noinline]] void make_room(std::size_t n) {
    check_limit();
    if (!own_) {
      if (direct_ && static_cast<std::size_t>(region_end_ - cur_) >= n) {
        set_end(n);  // room left in the region: only the limit's check was due
        return;
      }
      // The sink's memory, grown to take n more bytes after the value's bytes so far (on the
      // first call, this also asks whether the sink has memory to offer).
      const std::size_t keep = buffered();
      const std::span<char> region = sink_.open_region(keep, keep + room_wanted(n));
      if (!region.empty()) {
        direct_ = true;
        base_ = region.data();
        cur_ = base_ + keep;
        region_end_ = base_ + region.size();
        set_end(n);
        return;
      }
      if (direct_)
        throw_error(Errc::invalid_argument,
                    "a Sink that opened a region once must open one whenever asked");
      own_ = true;
    } else {
      spill();
    }
    if (size_ < n || buf_ == nullptr) {
      // Left uninitialised: a one-shot write of a small value must not pay for clearing it.
      // One byte more than is handed out, for a newline after a value (see put_newline).
      size_ = std::max(capacity_, n);
      buf_ = std::make_unique_for_overwrite<char[]>(size_ + 1);
    }
    base_ = cur_ = buf_.get();
    end_ = base_ + size_;
  }

  // The room to ask of the sink's memory for n more bytes: n, or when the value is far enough
  // into a tracked container, what the value's end is expected to take (its bytes before the
  // container, plus the container's bytes so far scaled by its items, and half again: its first
  // items can be far from the mean, and a guess short of the end costs a copy of it all). At
  // most 16 MiB, or 8 times the value's bytes so far when more, whatever a few large first
  // items suggest (untouched room costs address space, not memory). Only a size asked for:
  // too little costs one more growth, too much is trimmed by the sink (StringSink keeps at
  // most twice what it holds).
  std::size_t room_wanted(std::size_t n) const noexcept {
    constexpr std::size_t kSample = 16 * 1024;  // container bytes before its rate is trusted
    const std::size_t so_far = value_bytes();
    if (track_first_ == nullptr || track_at_ == track_first_ || so_far < track_start_ + kSample)
      return n;
    const double done = static_cast<double>(track_at_ - track_first_);
    const double items = static_cast<double>(track_last_ - track_first_);
    const double expected = static_cast<double>(track_start_) +
                            static_cast<double>(so_far - track_start_) * (items / done);
    constexpr double kFreeStep = 16.0 * 1024 * 1024;
    double more = std::min(expected * 1.5 - static_cast<double>(so_far),
                           std::max(kFreeStep, 8.0 * static_cast<double>(so_far)));
    if (limit_ != SIZE_MAX) more = std::min(more, static_cast<double>(limit_ - std::min(limit_, so_far)));
    return more > static_cast<double>(n) ? static_cast<std::size_t>(more) : n;
  }

  // The end of the room handed out in the sink's memory: all of the region, or with a limit
  // one buffer's worth, so that check_limit() runs at least once a buffer.
  void set_end(std::size_t n) noexcept {
    const auto left = static_cast<std::size_t>(region_end_ - cur_);
    end_ = limit_ == SIZE_MAX ? region_end_ : cur_ + std::min(left, std::max(n, capacity_));
  }

  // Makes the region's first n bytes output; the next byte opens a new region.
  void close_region(std::size_t n) noexcept {
    sink_.commit_region(n);
    base_ = cur_ = end_ = region_end_ = nullptr;
    mark_ = 0;
  }

  Sink& sink_;
  std::size_t limit_;
  std::size_t capacity_;
  bool direct_ = false;  // writing into the sink's memory (decided at the first byte)
  bool own_ = false;     // writing into buf_, spilled to the sink with write()
  std::unique_ptr<char[]> buf_;
  std::size_t size_ = 0;  // of buf_
  char* base_ = nullptr;  // where the region or buf_ starts
  char* cur_ = nullptr;
  char* end_ = nullptr;         // of the room handed out
  char* region_end_ = nullptr;  // of the sink's region
  std::size_t mark_ = 0;
  std::size_t spilled_in_value_ = 0;
  const char* track_first_ = nullptr;  // nullptr: no container tracked
  const char* track_at_ = nullptr;
  const char* track_last_ = nullptr;
  std::size_t track_start_ = 0;  // value_bytes() when the tracked container began
};

}  // namespace transit::detail
