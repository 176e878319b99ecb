// SPDX-License-Identifier: Apache-2.0
// Internal access to Value's representation, for the decoder and the encoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <span>

#include "transit/value.h"

namespace transit {

/// Builders that take their parts by moving out of a caller-owned range, so the decoder can
/// build a container straight from its value stack with one allocation.
struct ValueAccess {
  /// Makes `child`, about to be stored in a node of `arena`, hold no count when it refers to a
  /// node of that same arena. False when it refers to a node elsewhere (it keeps its count).
  static bool borrow(Value& child, detail::ArenaHeader* arena) noexcept;
  /// A copy of `v` that holds no count when `v` is inline or lives in the arena of the
  /// ArenaScope open on this thread, and so costs a copy of 16 bytes; otherwise an ordinary
  /// copy. Valid while that arena lives: for holders that never outlive the scope (the read
  /// cache of the document being read). Copies made from it count as usual.
  static Value alias(const Value& v) noexcept {
    return (v.small_.flags & Value::kHeap) ? alias_node(v) : v;
  }
  /// `slot = alias(v)`, at the cost of a 16-byte store when neither holds a count.
  static void assign_alias(Value& slot, const Value& v) noexcept {
    if ((slot.small_.flags & (Value::kHeap | Value::kBorrowed)) != Value::kHeap &&
        !(v.small_.flags & Value::kHeap)) {
      slot.raw_ = v.raw_;
      return;
    }
    slot = alias(v);
  }
  /// Sets `out` to a copy of `v` that refers to no arena node and returns true, or returns
  /// false (leaving `out` alone) when `v` refers to none and can itself be shared. Run with no
  /// ArenaScope open, so what it builds goes to the heap.
  static bool detach_into(const Value& v, Value& out);
  /// The heap node of `v`, or nullptr when `v` is inline: the identity of a long string, the
  /// same for every copy of it (and for every cache reference a reader resolved to it).
  static const void* node_of(const Value& v) noexcept {
    return (v.small_.flags & Value::kHeap) ? v.wide_.u.node : nullptr;
  }
  /// Two words that are equal for two Values exactly when both are the same inline value
  /// (every inline value starts from zero bytes, so equal ones have equal bits) or both refer
  /// to the same node (as kind, size and address). Whether the Value holds a count on its node
  /// is left out: a copy of a value in an arena counts where the original does not.
  static std::pair<std::uint64_t, std::uint64_t> identity(const Value& v) noexcept {
    Value::Raw raw = v.raw_;
    if (v.small_.flags & Value::kBorrowed) {
      Value::Small head = v.small_;
      head.flags &= static_cast<std::uint8_t>(~Value::kBorrowed);
      std::memcpy(&raw.a, &head, sizeof raw.a);
    }
    return {raw.a, raw.b};
  }
  /// An empty container of `kind` (array, list, set, map or link): inline, with no node.
  static Value empty(Kind kind) noexcept;
  /// The heap bytes of the arena `v` lives in (its blocks, headers included), or 0 when `v`
  /// is inline or on the heap: what a read document holds, whatever pooled blocks served it.
  static std::size_t arena_bytes(const Value& v) noexcept;
  /// An array, list or set from `items` (moved from). Sets drop duplicates.
  static Value make_sequence(Kind kind, std::span<Value> items);
  /// A map or link from interleaved keys and values (moved from); `flat.size()` is even.
  static Value make_map(Kind kind, std::span<Value> flat);

 private:
  static Value alias_node(const Value& v) noexcept;
  /// The last step of make_sequence and make_map (defined beside them).
  template <class ContainerNode, class ForEachChild>
  static Value finish_container(Kind kind, ContainerNode* node, std::uint32_t children,
                                ForEachChild for_each_child);
};

/// While alive, the nodes of Values built on this thread go into one new arena: a reader
/// builds each document in one, so reading it allocates blocks, not nodes, and dropping it
/// frees the blocks. Only for code that runs no user callbacks while the scope is open: a user
/// object holding a Value of the arena it sits in would keep the arena alive for ever.
/// Scopes nest.
class ArenaScope {
 public:
  ArenaScope();
  ~ArenaScope();
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  detail::ArenaHeader* arena_;
  detail::ArenaHeader* previous_;
};

}  // namespace transit
