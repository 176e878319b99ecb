// SPDX-License-Identifier: Apache-2.0
// The decoder's value stack: the items of every container still open, innermost last.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "transit/value.h"

namespace transit::detail {

/// A growable stack of Values, as std::vector<Value> is, plus one thing a vector cannot do:
/// drop items already moved from without running their destructors (forget_from). A
/// container's items are moved from the stack into its node when it ends, and a moved-from
/// Value is null, holding nothing; a vector's resize() still ran the destructor of each, a
/// test and a branch per item (about 2% of a citm_catalog JSON read).
///
/// Storage is raw memory that grows by relocating the items bitwise (a Value may be moved
/// bitwise: nothing points into one), so growth copies 16 bytes an item and runs no
/// constructor. Every operation either succeeds or, on std::bad_alloc from growth, leaves the
/// stack as it was.
class ValueStack {
 public:
  ValueStack() = default;
  ~ValueStack() { release(); }
  ValueStack(const ValueStack&) = delete;
  ValueStack& operator=(const ValueStack&) = delete;

  std::size_t size() const noexcept { return static_cast<std::size_t>(end_ - begin_); }
  std::size_t capacity() const noexcept { return static_cast<std::size_t>(cap_ - begin_); }
  bool empty() const noexcept { return end_ == begin_; }
  Value* data() noexcept { return begin_; }
  Value& operator[](std::size_t i) noexcept { return begin_[i]; }
  const Value& operator[](std::size_t i) const noexcept { return begin_[i]; }
  Value& back() noexcept { return end_[-1]; }

  /// Appends `v` (moved from); grows by doubling when full. `v` must not be an item of this
  /// stack (growth frees the storage it is in before it is moved).
  Value& emplace_back(Value&& v) { return push(std::move(v)); }
  /// emplace_back(), always inline (growth is the call): for the decoder's strings from
  /// RapidJSON's events (Decoder::deliver's `inline_push`), where GCC called emplace_back out
  /// of line. Forced inline everywhere, it moved GCC's code for the walk of simdjson's
  /// document (keywords' JSON read 0.57% more instructions), so only that caller asks.
  [[gnu::always_inline]] Value& push(Value&& v) {
    if (end_ == cap_) [[unlikely]]
      grow(2 * size() + 16);
    return *new (end_++) Value(std::move(v));
  }
  /// Appends a null.
  Value& emplace_back() {
    if (end_ == cap_) [[unlikely]]
      grow(2 * size() + 16);
    return *new (end_++) Value();
  }
  void pop_back() noexcept { (--end_)->~Value(); }
  /// Room for `n` items in all, allocated once.
  void reserve(std::size_t n) {
    if (n > capacity()) grow(n);
  }

  /// Destroys the items from `start` on.
  void truncate(std::size_t start) noexcept {
    Value* const to = begin_ + start;
    while (end_ != to) (--end_)->~Value();
  }
  /// Drops the items from `start` on with no destructor run: each must hold nothing (moved
  /// from, or null) or have been relocated bitwise to where it is owned now
  /// (Decoder::node_of_stack), or what it held would leak.
  void forget_from(std::size_t start) noexcept { end_ = begin_ + start; }
  /// Destroys every item, keeping the storage.
  void clear() noexcept { truncate(0); }
  /// Destroys every item and gives the storage back.
  void release() noexcept {
    clear();
    std::free(begin_);
    begin_ = end_ = cap_ = nullptr;
  }

 private:
  [[gnu::noinline]] void grow(std::size_t n) {
    if (n > SIZE_MAX / sizeof(Value)) throw std::bad_alloc();
    auto* fresh = static_cast<Value*>(std::malloc(n * sizeof(Value)));
    if (!fresh) throw std::bad_alloc();
    const std::size_t kept = size();
    // Relocated bitwise: the old copies are not destroyed, only their memory freed.
    if (kept != 0) std::memcpy(static_cast<void*>(fresh), static_cast<const void*>(begin_), kept * sizeof(Value));
    std::free(begin_);
    begin_ = fresh;
    end_ = fresh + kept;
    cap_ = fresh + n;
  }

  Value* begin_ = nullptr;
  Value* end_ = nullptr;
  Value* cap_ = nullptr;
};

}  // namespace transit::detail
