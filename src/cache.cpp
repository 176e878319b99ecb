// SPDX-License-Identifier: Apache-2.0
// The write cache's spare tables: one set per thread, left by the last cache destroyed on it
// and taken by the next one made (see WriteCacheBase in cache.h).
#include "cache.h"

#include <utility>

namespace transit::detail {
namespace {

struct Spare {
  WriteCacheBase::Tables tables;
  ~Spare();
};

// Set when this thread's spare is destroyed (at the thread's end): a cache destroyed after it
// (a Writer in static storage, destroyed after the main thread's thread_locals) frees its own
// tables. A plain bool, so it is never destroyed itself.
thread_local bool spare_gone = false;
thread_local Spare spare;

Spare::~Spare() { spare_gone = true; }

// The text of the cached strings is kept up to this capacity: a value whose keys were long
// (a cached key can be megabytes) must not leave its thread holding them.
constexpr std::size_t kSpareText = 64 * 1024;

}  // namespace

// Every writer's cache, instantiated here only (see WriteCache in cache.h).
template class BasicWriteCache<KeyedCacheHash>;

void WriteCacheBase::adopt_spare() {
  Tables* const s = spare_gone ? nullptr : &spare.tables;
  if (s == nullptr || s->slots.empty()) {
    slots_.resize(kMinSlots);
    text_mask_ = kMinSlots - 1;
    return;
  }
  slots_ = std::exchange(s->slots, {});
  values_ = std::exchange(s->values, {});
  text_ = std::exchange(s->text, {});
  generation_ = s->generation;
  text_mask_ = slots_.size() - 1;
  if (!values_.empty()) {
    value_table_ = values_.data();
    value_mask_ = values_.size() - 1;
  }
  reset();  // a stamp past every one in the tables: all their slots are free
}

void WriteCacheBase::leave_spare() noexcept {
  if (spare_gone) return;
  Tables& s = spare.tables;
  if (slots_.size() <= s.slots.size()) return;  // the spare is as large: ours are freed
  // held_ goes with this cache; the text's bytes need not wait in the spare for the next
  // owner's reset().
  text_size_ = 0;
  if (text_.size() > kSpareText) std::vector<char>().swap(text_);
  s.slots = std::move(slots_);
  s.values = std::move(values_);
  s.text = std::move(text_);
  s.generation = generation_;
}

}  // namespace transit::detail
