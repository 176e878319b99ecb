// SPDX-License-Identifier: Apache-2.0
// The prefetch of a built tree's records' nodes, for the encoder's walk (value_internal.h, "the
// write of a built tree's records"). Apart from value.cpp: there these functions changed how
// GCC compiled the map builders that reads with read handlers call (extensions' handlers rows
// 0.6% and 0.8% more instructions).
#include <algorithm>
#include <cstddef>
#include <span>

#include "model/value_internal.h"
#include "transit/value.h"

namespace transit {

bool ValueAccess::built_records(const Value& v) noexcept {
  const auto all = items(v);
  return !all.empty() && all.front().kind() == Kind::map &&
         (v.small_.flags & (Value::kHeap | Value::kBorrowed)) == Value::kHeap &&
         v.wide_.u.node->arena == nullptr;
}

void ValueAccess::prefetch_records_ahead(std::span<const Value> items, std::size_t i) noexcept {
  constexpr std::size_t kLevels = 2, kStep = 2;  // a record 4 ahead, its children 2 ahead
  for (std::size_t level = 0; level < kLevels; ++level)
    if (const std::size_t ahead = i + kStep * (kLevels - level); ahead < items.size())
      prefetch_tree(items[ahead], static_cast<unsigned>(level));
}

void ValueAccess::prefetch_tree(const Value& v, unsigned depth) noexcept {
  if (!(v.small_.flags & Value::kHeap)) return;
  const Kind kind = v.small_.kind;
  const bool sequence = kind == Kind::array || kind == Kind::list || kind == Kind::set;
  const bool map = kind == Kind::map || kind == Kind::link;
  if (depth == 0) {
    const std::size_t payload = sequence ? std::size_t{v.wide_.size} * sizeof(Value)
                                : map    ? std::size_t{v.wide_.size} * sizeof(Entry)
                                : is_text(kind) ? std::size_t{v.wide_.size}
                                                : 0;
    const char* node = reinterpret_cast<const char*>(v.wide_.u.node);
    const std::size_t bytes = std::min<std::size_t>(kPayloadOffset + payload, 256);
    for (std::size_t at = 0; at < bytes; at += 64) __builtin_prefetch(node + at);
    return;
  }
  if (sequence) {
    for (const Value& item : items(v).first(std::min<std::size_t>(v.wide_.size, kPrefetchFanOut)))
      prefetch_tree(item, depth - 1);
  } else if (map) {
    for (const Entry& e : entries(v).first(std::min<std::size_t>(v.wide_.size, kPrefetchFanOut))) {
      prefetch_tree(e.first, depth - 1);
      prefetch_tree(e.second, depth - 1);
    }
  }
}

}  // namespace transit
