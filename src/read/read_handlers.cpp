// SPDX-License-Identifier: Apache-2.0
#include "transit/read_handlers.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "read/read_handlers_access.h"
#include "transit/error.h"

namespace transit {

struct ReadHandlers::Impl {
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  // Each handler with the names its errors use, made when it is added (read_handlers_access.h).
  std::unordered_map<std::string, detail::ReadHandlerEntry, Hash, std::equal_to<>> by_tag;
  std::array<bool, 256> chars{};
  DefaultReadHandler fallback;
  MapBuilder map_builder;
  ArrayBuilder array_builder;
  std::unordered_map<std::string, std::shared_ptr<const detail::TypedReader>, Hash, std::equal_to<>>
      typed_by_tag;
  std::unordered_map<std::type_index, std::pair<std::string, std::shared_ptr<const detail::TypedReader>>>
      typed_by_type;

  // Each Record's chains to its bases (ReadHandlersAccess::chains): made by the first read that
  // needs one, under the mutex, and published whole; let go when a Record is added, which no
  // read may overlap (a ReadHandlers is read-only while readers use it).
  using Chains = std::unordered_map<const detail::TypedReader*, std::vector<detail::UpcastChain>>;
  std::mutex chains_mutex;
  std::atomic<const Chains*> chains{nullptr};
  std::unique_ptr<const Chains> chains_made;
};

ReadHandlers::ReadHandlers() : impl_(std::make_unique<Impl>()) {}
ReadHandlers::~ReadHandlers() = default;
ReadHandlers::ReadHandlers(ReadHandlers&&) noexcept = default;
ReadHandlers& ReadHandlers::operator=(ReadHandlers&&) noexcept = default;

bool ReadHandlers::is_ground(std::string_view tag) noexcept {
  for (std::string_view g : {"_", "s", "?", "i", "d", "b", "'", "array", "map"})
    if (tag == g) return true;
  return false;
}

ReadHandlers& ReadHandlers::add(std::string tag, ReadHandler handler) {
  if (tag.empty()) detail::throw_error(Errc::invalid_argument, "a read handler needs a tag");
  if (is_ground(tag))
    detail::throw_error(Errc::invalid_argument,
                        "the ground tag \"" + tag + "\" cannot have a custom read handler");
  detail::ReadHandlerEntry entry{std::move(handler), detail::kTaggedHandlerName.data() + tag, {}};
  if (tag.size() == 1) {
    impl_->chars[static_cast<unsigned char>(tag[0])] = true;
    entry.scalar_name = "read handler for ~" + tag;
  }
  impl_->by_tag.insert_or_assign(std::move(tag), std::move(entry));
  return *this;
}

ReadHandlers& ReadHandlers::add_typed(std::string tag,
                                      std::shared_ptr<const detail::TypedReader> reader) {
  if (tag.empty()) detail::throw_error(Errc::invalid_argument, "a read handler needs a tag");
  if (tag.size() == 1 || tag == "array" || tag == "map")
    detail::throw_error(Errc::invalid_argument,
                        "the tag \"" + tag + "\" is the spec's: a record needs a tag of its own");
  impl_->typed_by_type.insert_or_assign(std::type_index(*reader->type), std::pair{tag, reader});
  // Its handler for reads into Value, for a caller of find(), which has no handlers to bind
  // with; the library's reads take `record` (ReadHandlerEntry) and bind with theirs.
  const detail::TypedReader* r = reader.get();
  detail::ReadHandlerEntry entry{
      [reader](const Value& rep) { return detail::bind_record(*reader, rep, nullptr); },
      detail::kTaggedHandlerName.data() + tag, {}, r};
  impl_->by_tag.insert_or_assign(tag, std::move(entry));
  impl_->typed_by_tag.insert_or_assign(std::move(tag), std::move(reader));
  // A new Record may lengthen any other's chains, or end one.
  impl_->chains.store(nullptr, std::memory_order_relaxed);
  impl_->chains_made.reset();
  return *this;
}

const detail::TypedReader* ReadHandlers::find_typed(std::string_view tag) const noexcept {
  if (impl_->typed_by_tag.empty()) return nullptr;
  auto it = impl_->typed_by_tag.find(tag);
  return it == impl_->typed_by_tag.end() ? nullptr : it->second.get();
}

const detail::TypedReader* ReadHandlers::typed_for(std::type_index type,
                                                   std::string_view* tag) const noexcept {
  auto it = impl_->typed_by_type.find(type);
  if (it == impl_->typed_by_type.end()) return nullptr;
  if (tag) *tag = it->second.first;
  return it->second.second.get();
}

ReadHandlers& ReadHandlers::set_default(DefaultReadHandler handler) {
  impl_->fallback = std::move(handler);
  return *this;
}

ReadHandlers& ReadHandlers::set_map_builder(MapBuilder builder) {
  impl_->map_builder = std::move(builder);
  return *this;
}

ReadHandlers& ReadHandlers::set_array_builder(ArrayBuilder builder) {
  impl_->array_builder = std::move(builder);
  return *this;
}

const ReadHandler* ReadHandlers::find(std::string_view tag) const noexcept {
  const detail::ReadHandlerEntry* e = detail::ReadHandlersAccess::find(*this, tag);
  return e ? &e->handler : nullptr;
}

bool ReadHandlers::has_char(char tag) const noexcept {
  return impl_->chars[static_cast<unsigned char>(tag)];
}

const DefaultReadHandler* ReadHandlers::default_handler() const noexcept {
  return impl_->fallback ? &impl_->fallback : nullptr;
}

const MapBuilder* ReadHandlers::map_builder() const noexcept {
  return impl_->map_builder ? &impl_->map_builder : nullptr;
}

const ArrayBuilder* ReadHandlers::array_builder() const noexcept {
  return impl_->array_builder ? &impl_->array_builder : nullptr;
}

namespace detail {

const ReadHandlerEntry* ReadHandlersAccess::find(const ReadHandlers& handlers,
                                                std::string_view tag) noexcept {
  const auto& by_tag = handlers.impl_->by_tag;
  if (by_tag.empty()) return nullptr;
  auto it = by_tag.find(tag);
  return it == by_tag.end() ? nullptr : &it->second;
}

namespace {

/// Every base the declarations reach from `r`'s type: breadth first over the declared bases
/// that have Records in `handlers`, each step keeping the one it came from to rebuild its
/// chain, as deep as Upcasts holds. The first chain to a base is the nearest; the write side
/// walks the same declarations.
std::vector<UpcastChain> chains_from(const TypedReader& r, const ReadHandlers& handlers) {
  struct Step {
    const TypedReader* reader;
    std::size_t from;
    void* (*fn)(void*);
    std::size_t depth;
  };
  std::vector<Step> steps{{&r, 0, nullptr, 0}};
  std::vector<UpcastChain> out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    for (const auto& [base, fn] : steps[i].reader->upcasts) {
      const std::type_index type = base;  // a lambda may not capture a binding (clang 14)
      Upcasts chain;
      chain.n = steps[i].depth + 1;
      std::size_t k = chain.n;
      chain.fns[--k] = fn;
      for (std::size_t j = i; j != 0; j = steps[j].from) chain.fns[--k] = steps[j].fn;
      auto known = std::find_if(out.begin(), out.end(), [&](const UpcastChain& c) { return c.base == type; });
      if (known == out.end())
        out.push_back({type, chain, {}});
      else if (known->others.size() < Upcasts::kMost)  // one that differs is all a read needs
        known->others.push_back(chain);
      if (steps[i].depth + 2 > Upcasts::kMost) continue;
      if (const TypedReader* next = handlers.typed_for(type, nullptr))
        steps.push_back({next, i, fn, steps[i].depth + 1});
    }
  }
  return out;
}

}  // namespace

std::span<const UpcastChain> ReadHandlersAccess::chains(const ReadHandlers& handlers,
                                                        const TypedReader& r) {
  ReadHandlers::Impl& impl = *handlers.impl_;
  const ReadHandlers::Impl::Chains* made = impl.chains.load(std::memory_order_acquire);
  if (!made) {
    std::lock_guard lock(impl.chains_mutex);
    made = impl.chains.load(std::memory_order_relaxed);
    if (!made) {
      auto all = std::make_unique<ReadHandlers::Impl::Chains>();
      // By tag and by type: a Record replaced under its tag by another type's is still its
      // type's reader (typed_for), and the other way round.
      for (const auto& [tag, reader] : impl.typed_by_tag)
        if (!all->count(reader.get())) all->emplace(reader.get(), chains_from(*reader, handlers));
      for (const auto& [type, entry] : impl.typed_by_type)
        if (!all->count(entry.second.get()))
          all->emplace(entry.second.get(), chains_from(*entry.second, handlers));
      made = all.get();
      impl.chains_made = std::move(all);
      impl.chains.store(made, std::memory_order_release);
    }
  }
  auto it = made->find(&r);
  if (it != made->end()) return it->second;
  // A reader these handlers do not hold: the reads ask only for those find_typed and
  // typed_for give, so none reaches here.
  return {};
}

}  // namespace detail

}  // namespace transit
