// SPDX-License-Identifier: Apache-2.0
// The write-handler registry: build, freeze, look up, memoize, profile.
#include "transit/registry.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <iomanip>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace transit {

namespace {

std::string readable_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

}  // namespace

// ---- profiler --------------------------------------------------------------------------------------

struct LookupProfiler::Impl {
  std::unordered_map<std::type_index, LookupStats> stats;
};

LookupProfiler::LookupProfiler() : impl_(std::make_unique<Impl>()) {}
LookupProfiler::~LookupProfiler() = default;

LookupStats& LookupProfiler::stats_for(std::type_index type, std::string_view name) {
  auto [it, inserted] = impl_->stats.try_emplace(type);
  if (inserted) it->second.type_name = readable_name(std::string(name).c_str());
  return it->second;
}

void LookupProfiler::clear() { impl_->stats.clear(); }

std::vector<LookupStats> LookupProfiler::report() const {
  std::vector<LookupStats> out;
  for (const auto& [type, stats] : impl_->stats) out.push_back(stats);
  std::sort(out.begin(), out.end(), [](const LookupStats& a, const LookupStats& b) {
    return a.time != b.time ? a.time > b.time : a.type_name < b.type_name;
  });
  return out;
}

std::string LookupProfiler::table() const {
  const auto rows = report();
  LookupStats total;
  std::size_t width = 4;
  for (const auto& r : rows) {
    width = std::max(width, r.type_name.size());
    total.exact_hits += r.exact_hits;
    total.memo_hits += r.memo_hits;
    total.walks += r.walks;
    total.walk_steps += r.walk_steps;
    total.default_fallbacks += r.default_fallbacks;
    total.time += r.time;
  }
  total.type_name = "total";
  std::ostringstream out;
  auto line = [&](const LookupStats& r) {
    const double ns = static_cast<double>(r.time.count());
    const double per = r.lookups() ? ns / static_cast<double>(r.lookups()) : 0.0;
    const double share =
        total.time.count() ? 100.0 * ns / static_cast<double>(total.time.count()) : 0.0;
    out << std::left << std::setw(static_cast<int>(width)) << r.type_name << std::right
        << std::setw(10) << r.lookups() << std::setw(10) << r.exact_hits << std::setw(10)
        << r.memo_hits << std::setw(8) << r.walks << std::setw(8) << r.walk_steps << std::setw(9)
        << r.default_fallbacks << std::setw(12) << std::fixed << std::setprecision(0) << ns
        << std::setw(9) << std::setprecision(1) << per << std::setw(7) << share << "%\n";
  };
  out << std::left << std::setw(static_cast<int>(width)) << "type" << std::right << std::setw(10)
      << "lookups" << std::setw(10) << "exact" << std::setw(10) << "memo" << std::setw(8)
      << "walks" << std::setw(8) << "steps" << std::setw(9) << "default" << std::setw(12)
      << "time ns" << std::setw(9) << "ns/look" << std::setw(8) << "share" << "\n";
  for (const auto& r : rows) line(r);
  line(total);
  return out.str();
}

// ---- frozen state -------------------------------------------------------------------------------

struct Registry::State {
  struct Ancestor {
    std::type_index type;
    std::string name;
    std::vector<detail::Upcast> path;  // from the derived type to this ancestor
    bool fixed_offset;                 // every step is a non-virtual base
  };

  /// How one type resolved, once and for all: kept for the profiler's report.
  enum class Via : std::uint8_t { own, ancestor, fallback, none };
  struct Entry {
    const std::type_info* type;
    const detail::ErasedHandler* handler;  // null: nothing resolves and there is no default
    Via via;
    bool memo;                              // false: registered for exactly this type_info
    std::uint32_t distance;                 // of the ancestor whose handler it is; 0 otherwise
    const Ancestor* ancestor;               // that ancestor (via == ancestor)
    const std::vector<detail::Upcast>* path;  // the upcasts, when no constant offset will do
  };

  // One open-addressing table serves exact and memoized types alike, keyed by type_info
  // address with a multiply-shift hash: a hit is one typeid, one multiply, one compare. A slot
  // carries what the hit needs, so it touches one cache line.
  static constexpr std::int32_t kUsePath = INT32_MIN;
  struct Slot {
    std::atomic<const std::type_info*> key{nullptr};  // published last (release)
    const detail::ErasedHandler* handler = nullptr;
    const Entry* entry = nullptr;
    std::int32_t offset = 0;  // from the most-derived object to the handler's base, or kUsePath
    std::uint32_t id = 0;     // the entry's index in `entries`: the profiler's counter
  };
  struct Table {
    explicit Table(unsigned bits_)
        : bits(bits_), mask((std::size_t{1} << bits_) - 1), slots(new Slot[mask + 1]) {}
    unsigned bits;
    std::size_t mask;
    std::unique_ptr<Slot[]> slots;
    std::size_t used = 0;
    std::size_t home(const std::type_info* type) const noexcept {
      return static_cast<std::size_t>(
          (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(type)) *
           0x9E3779B97F4A7C15ULL) >>
          (64 - bits));
    }
  };

  LookupStrategy strategy = LookupStrategy::memoized;
  std::deque<detail::ErasedHandler> handlers;  // stable addresses
  std::unordered_map<std::type_index, const detail::ErasedHandler*> exact;
  // Declared direct bases, and their breadth-first linearization (nearest first).
  std::unordered_map<std::type_index, std::vector<detail::BaseDecl>> bases;
  std::unordered_map<std::type_index, std::vector<Ancestor>> ancestors;
  std::optional<detail::ErasedHandler> fallback;

  // The current table; readers load it once per lookup and never lock. Inserts take `mutex`;
  // a full table is copied into one twice the size and published, and the old one stays in
  // `tables` until the registry dies, since a reader may still be probing it.
  mutable std::atomic<const Table*> table{nullptr};
  mutable std::mutex mutex;
  mutable std::vector<std::unique_ptr<Table>> tables;
  mutable std::deque<Entry> entries;  // by id; stable addresses

  State() {
    tables.push_back(std::make_unique<Table>(4));
    table.store(tables.back().get(), std::memory_order_release);
  }

  const Slot* probe(const std::type_info& type) const noexcept {
    const Table* t = table.load(std::memory_order_acquire);
    for (std::size_t i = t->home(&type);; i = (i + 1) & t->mask) {
      const std::type_info* key = t->slots[i].key.load(std::memory_order_acquire);
      if (key == &type) return &t->slots[i];
      if (!key) return nullptr;  // never full: at most half the slots are used
    }
  }

  // Adds `entry` (with the constant `offset`, or kUsePath) unless another thread published
  // the same type first; returns the slot that holds it. Takes the lock.
  const Slot* publish(const Entry& entry, std::int32_t offset) const {
    std::lock_guard<std::mutex> lock(mutex);
    if (const Slot* s = probe(*entry.type)) return s;
    Table* t = tables.back().get();
    if (2 * (t->used + 1) > t->mask + 1) t = grow();
    entries.push_back(entry);
    return place(*t, &entries.back(), static_cast<std::uint32_t>(entries.size() - 1), offset);
  }

  Slot* place(Table& t, const Entry* entry, std::uint32_t id, std::int32_t offset) const {
    std::size_t i = t.home(entry->type);
    while (t.slots[i].key.load(std::memory_order_relaxed)) i = (i + 1) & t.mask;
    Slot& s = t.slots[i];
    s.handler = entry->handler;
    s.entry = entry;
    s.offset = offset;
    s.id = id;
    s.key.store(entry->type, std::memory_order_release);
    ++t.used;
    return &s;
  }

  Table* grow() const {
    const Table& old = *tables.back();
    auto next = std::make_unique<Table>(old.bits + 1);
    for (std::size_t i = 0; i <= old.mask; ++i) {
      const Slot& s = old.slots[i];
      if (s.key.load(std::memory_order_relaxed)) place(*next, s.entry, s.id, s.offset);
    }
    tables.push_back(std::move(next));
    table.store(tables.back().get(), std::memory_order_release);
    return tables.back().get();
  }

  struct Found {
    const detail::ErasedHandler* handler = nullptr;
    const Ancestor* via = nullptr;  // null: the type's own handler
    std::uint32_t distance = 0;
  };

  // Walks the precomputed ancestor list: the first with a handler wins (freeze() has ruled out
  // ties). `steps` counts the ancestors probed. Types are compared as std::type_index does,
  // by name where the type_info objects differ: a type whose type_info is duplicated in a
  // shared library (the Itanium ABI allows it) is still found, then memoized by its address.
  Found walk(std::type_index type, std::uint64_t& steps) const {
    if (auto own = exact.find(type); own != exact.end()) return {own->second, nullptr, 0};
    auto it = ancestors.find(type);
    if (it == ancestors.end()) return {};
    for (const Ancestor& a : it->second) {
      ++steps;
      if (auto h = exact.find(a.type); h != exact.end())
        return {h->second, &a, static_cast<std::uint32_t>(a.path.size())};
    }
    return {};
  }

  // transit-ruby's way: build the ancestor list (the type first) afresh for every value, then
  // probe each. `path` receives the upcasts to the one found; `steps` counts the ancestors
  // probed (an exact hit probes none).
  const detail::ErasedHandler* walk_fresh(std::type_index type, std::uint64_t& steps,
                                          std::vector<detail::Upcast>& path) const {
    std::vector<Ancestor> chain{{type, {}, {}, true}};
    std::unordered_set<std::type_index> seen{type};
    for (std::size_t i = 0; i < chain.size(); ++i) {
      if (i > 0) ++steps;
      if (auto h = exact.find(chain[i].type); h != exact.end()) {
        path = std::move(chain[i].path);
        return h->second;
      }
      auto it = bases.find(chain[i].type);
      if (it == bases.end()) continue;
      for (const detail::BaseDecl& b : it->second) {
        if (!seen.insert(b.type).second) continue;
        std::vector<detail::Upcast> p = chain[i].path;
        p.push_back(b.upcast);
        chain.push_back({b.type, b.name, std::move(p), true});
      }
    }
    return nullptr;
  }

  std::string tried(std::type_index type) const {
    std::string names;
    if (auto it = ancestors.find(type); it != ancestors.end())
      for (const Ancestor& a : it->second) {
        if (!names.empty()) names += ", ";
        names += readable_name(a.name.c_str());
      }
    return names.empty() ? "no ancestors are declared (use derives<>)" : "tried ancestors " + names;
  }
};

// ---- builder -------------------------------------------------------------------------------------

struct RegistryBuilder::Impl {
  std::map<std::type_index, detail::ErasedHandler> handlers;
  std::map<std::type_index, std::pair<std::string, std::vector<detail::BaseDecl>>> bases;
  std::optional<detail::ErasedHandler> fallback;
};

RegistryBuilder::RegistryBuilder() : impl_(std::make_unique<Impl>()) {}
RegistryBuilder::~RegistryBuilder() = default;
RegistryBuilder::RegistryBuilder(RegistryBuilder&&) noexcept = default;
RegistryBuilder& RegistryBuilder::operator=(RegistryBuilder&&) noexcept = default;

RegistryBuilder& RegistryBuilder::add_erased(const std::type_info& type,
                                             detail::ErasedHandler handler) {
  // A one-character tag the spec gives a meaning (`~c` is a character, `~u` a UUID ...) would
  // be read back as that type, never as this one. The ground tags that only say "write the rep
  // as it is" (_ ? i d s) stay open, as do one-character tags the spec leaves free.
  if (handler.tag.size() == 1 &&
      std::string_view(":$mturcfnzb'~^#`").find(handler.tag[0]) != std::string_view::npos)
    detail::throw_error(Errc::invalid_argument,
                        "the tag \"" + handler.tag + "\" of the write handler for " +
                            detail::type_name(type) +
                            " is a built-in Transit tag; a user type needs a tag of its own");
  handler.type_key = &type;
  impl_->handlers.insert_or_assign(std::type_index(type), std::move(handler));
  return *this;
}

RegistryBuilder& RegistryBuilder::add_bases(std::type_index derived, std::string_view derived_name,
                                            std::vector<detail::BaseDecl> bases) {
  auto& [name, list] = impl_->bases[derived];
  name = derived_name;
  for (auto& base : bases) {
    const bool known = std::any_of(list.begin(), list.end(),
                                   [&](const auto& a) { return a.type == base.type; });
    if (!known) list.push_back(std::move(base));
  }
  return *this;
}

RegistryBuilder& RegistryBuilder::set_default(detail::ErasedHandler handler) {
  impl_->fallback = std::move(handler);
  return *this;
}

Registry RegistryBuilder::freeze(LookupStrategy strategy) && {
  auto state = std::make_shared<Registry::State>();
  state->strategy = strategy;
  for (auto& [type, handler] : impl_->handlers) {
    state->handlers.push_back(std::move(handler));
    state->exact.emplace(type, &state->handlers.back());
  }
  for (auto& [type, entry] : impl_->bases) state->bases.emplace(type, entry.second);
  state->fallback = std::move(impl_->fallback);

  // Linearize each declared type's ancestors breadth-first: nearest first, and at one
  // distance in declaration order, each with the upcasts that reach it. Two different
  // handlers at the nearest distance that has any is ambiguous: refuse to guess.
  using Ancestor = Registry::State::Ancestor;
  for (const auto& [type, entry] : impl_->bases) {
    std::vector<Ancestor> order;
    std::unordered_set<std::type_index> seen{type};
    std::vector<Ancestor> level;
    for (const auto& b : entry.second) level.push_back({b.type, b.name, {b.upcast}, b.fixed_offset});
    bool resolved = state->exact.count(type) != 0;
    for (std::size_t distance = 1; !level.empty(); ++distance) {
      std::vector<Ancestor> next;
      std::optional<std::string> found;
      for (auto& a : level) {
        if (!seen.insert(a.type).second) continue;
        if (!resolved && state->exact.count(a.type)) {
          if (found)
            detail::throw_error(
                Errc::invalid_argument,
                "ambiguous handler for " + readable_name(entry.first.c_str()) + ": " +
                    readable_name(found->c_str()) + " and " + readable_name(a.name.c_str()) +
                    " both have handlers at distance " + std::to_string(distance) +
                    "; register one for the type itself or declare fewer bases");
          found = a.name;
        }
        if (auto it = impl_->bases.find(a.type); it != impl_->bases.end())
          for (const auto& b : it->second.second) {
            std::vector<detail::Upcast> path = a.path;
            path.push_back(b.upcast);
            next.push_back({b.type, b.name, std::move(path), a.fixed_offset && b.fixed_offset});
          }
        order.push_back(std::move(a));
      }
      if (found) resolved = true;
      level = std::move(next);
    }
    state->ancestors.emplace(type, std::move(order));
  }

  // The exact types go into the lookup table first; derived types join it as they resolve.
  // type_index does not expose its type_info, so the key is the type_info each handler was
  // registered with, kept in the handler's type_key.
  for (const detail::ErasedHandler& handler : state->handlers)
    state->publish({handler.type_key, &handler, Registry::State::Via::own, false, 0, nullptr, nullptr},
                   0);
  impl_ = std::make_unique<Impl>();
  return Registry(std::move(state));
}

// ---- lookup ----------------------------------------------------------------------------------------

Registry::Registry() : state_(std::make_shared<State>()) {}
Registry::Registry(std::shared_ptr<const State> state) : state_(std::move(state)) {}

LookupStrategy Registry::strategy() const noexcept { return state_->strategy; }

bool Registry::empty() const noexcept { return state_->handlers.empty() && !state_->fallback; }

namespace {

using State = Registry::State;

struct Resolution {
  const detail::ErasedHandler* handler;
  enum Via { exact, memo, walk, fallback, none } via;
  std::uint64_t steps;
};

const void* upcast_along(const std::vector<detail::Upcast>& path, const void* obj) {
  for (detail::Upcast up : path) obj = up(obj);
  return obj;
}

const void* adjust(const State::Slot& s, const void* obj) {
  if (!obj) return obj;
  if (s.offset == State::kUsePath) return upcast_along(*s.entry->path, obj);
  return static_cast<const char*>(obj) + s.offset;
}

// A hit: the handler, with `obj` moved to the handler's base (almost always by nothing).
inline const detail::ErasedHandler* take(const State::Slot& s, const void*& obj) {
  if (s.offset != 0) [[unlikely]]
    obj = adjust(s, obj);
  return s.handler;
}

// The first resolution of a type under `memoized`: walk the ancestors once and publish what
// was found (or the default, or nothing) in the lookup table.
const State::Slot& first_resolution(const State& s, const std::type_info& type, const void* obj,
                                    std::uint64_t& steps) {
  const State::Found f = s.walk(type, steps);
  const detail::ErasedHandler* fallback = s.fallback ? &*s.fallback : nullptr;
  State::Entry e{&type,   f.handler ? f.handler : fallback,
                 State::Via::own, true, f.distance, f.via, nullptr};
  if (!f.handler) e.via = fallback ? State::Via::fallback : State::Via::none;
  std::int32_t offset = 0;
  if (f.via) {
    e.via = State::Via::ancestor;
    e.path = &f.via->path;
    offset = State::kUsePath;
    // The offset to a non-virtual base is the same for every object of the type; without an
    // object to measure it on, the upcasts are kept instead.
    if (f.via->fixed_offset && obj) {
      const std::ptrdiff_t d = static_cast<const char*>(upcast_along(f.via->path, obj)) -
                               static_cast<const char*>(obj);
      if (d > INT32_MIN && d <= INT32_MAX) offset = static_cast<std::int32_t>(d);
    }
  }
  return *s.publish(e, offset);
}

Resolution resolve_slow(const State& s, const std::type_info& type, const void*& obj) {
  std::uint64_t steps = 0;
  const detail::ErasedHandler* fallback = s.fallback ? &*s.fallback : nullptr;
  switch (s.strategy) {
    case LookupStrategy::walk_every_time: {
      std::vector<detail::Upcast> path;
      if (const auto* h = s.walk_fresh(type, steps, path)) {
        obj = upcast_along(path, obj);
        return {h, steps == 0 ? Resolution::exact : Resolution::walk, steps};
      }
      break;
    }
    case LookupStrategy::exact_first: {
      const State::Found f = s.walk(type, steps);
      if (f.handler) {
        if (f.via) obj = upcast_along(f.via->path, obj);
        return {f.handler, Resolution::walk, steps};
      }
      break;
    }
    case LookupStrategy::memoized: {
      const State::Slot& slot = first_resolution(s, type, obj, steps);
      const detail::ErasedHandler* h = take(slot, obj);
      if (slot.entry->via == State::Via::own || slot.entry->via == State::Via::ancestor)
        return {h, Resolution::walk, steps};
      return {h, h ? Resolution::fallback : Resolution::none, steps};
    }
  }
  return {fallback, fallback ? Resolution::fallback : Resolution::none, steps};
}

Resolution resolve_with(const State& s, const std::type_info& type, const void*& obj) {
  if (s.strategy != LookupStrategy::walk_every_time)
    if (const State::Slot* hit = s.probe(type)) {
      const detail::ErasedHandler* h = take(*hit, obj);
      const State::Via via = hit->entry->via;
      if (via == State::Via::fallback || via == State::Via::none)
        return {h, h ? Resolution::fallback : Resolution::none, 0};
      return {h, hit->entry->memo ? Resolution::memo : Resolution::exact, 0};
    }
  return resolve_slow(s, type, obj);
}

}  // namespace

const detail::ErasedHandler* Registry::find(const std::type_info& type, const void*& obj,
                                            LookupProfiler* profiler) const {
  const State& s = *state_;
  if (!profiler) [[likely]] {
    if (s.strategy != LookupStrategy::walk_every_time)
      if (const State::Slot* hit = s.probe(type)) return take(*hit, obj);
    return resolve_slow(s, type, obj).handler;
  }
  const auto start = std::chrono::steady_clock::now();
  const Resolution r = resolve_with(s, type, obj);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  LookupStats& stats = profiler->stats_for(type, type.name());
  stats.time += std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed);
  switch (r.via) {
    case Resolution::exact: ++stats.exact_hits; break;
    case Resolution::memo: ++stats.memo_hits; break;
    case Resolution::walk: ++stats.walks; break;
    case Resolution::fallback:
    case Resolution::none:
      ++stats.default_fallbacks;
      if (r.steps) ++stats.walks;
      break;
  }
  stats.walk_steps += r.steps;
  return r.handler;
}

const detail::ErasedHandler& Registry::resolve(const std::type_info& type, const void*& obj,
                                               LookupProfiler* profiler) const {
  if (const detail::ErasedHandler* h = find(type, obj, profiler)) return *h;
  detail::throw_error(Errc::no_handler, "no write handler for C++ type " +
                                            readable_name(type.name()) + "; " +
                                            state_->tried(type));
}

}  // namespace transit
