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

std::size_t pointer_hash(const void* p) noexcept {
  auto x = reinterpret_cast<std::uintptr_t>(p);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<std::size_t>(x);
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
  struct MemoEntry {
    const std::type_info* type;
    const detail::ErasedHandler* handler;  // null: nothing resolves and there is no default
    bool is_default;
    // How to get from the most-derived object to the handler's type: a constant offset when
    // no virtual base is on the way, else the upcasts themselves.
    bool fixed_offset;
    std::ptrdiff_t offset;
    const std::vector<detail::Upcast>* path;
  };

  LookupStrategy strategy = LookupStrategy::memoized;
  std::deque<detail::ErasedHandler> handlers;  // stable addresses
  std::unordered_map<std::type_index, const detail::ErasedHandler*> exact;
  // Declared direct bases, and their breadth-first linearization (nearest first).
  std::unordered_map<std::type_index, std::vector<detail::BaseDecl>> bases;
  std::unordered_map<std::type_index, std::vector<Ancestor>> ancestors;
  std::optional<detail::ErasedHandler> fallback;

  // Exact hits by type_info address: pointer hashing, no name hashing on the hot path. A type
  // whose type_info lives elsewhere (another shared library) misses here and is found by
  // name in the walk, then memoized.
  static constexpr std::size_t kSlots = 1024;  // a power of two; half full at most
  std::vector<const detail::ErasedHandler*> exact_by_address;
  std::vector<const std::type_info*> exact_keys;

  // The memo: insert-only, lock-free. A slot goes from null to an entry once and never back.
  mutable std::unique_ptr<std::atomic<const MemoEntry*>[]> memo =
      std::make_unique<std::atomic<const MemoEntry*>[]>(kSlots);
  mutable std::atomic<std::size_t> memo_size{0};

  ~State() {
    for (std::size_t i = 0; i < kSlots; ++i) delete memo[i].load(std::memory_order_relaxed);
  }

  const detail::ErasedHandler* probe_exact(const std::type_info& type) const noexcept {
    if (exact_keys.empty()) return nullptr;
    for (std::size_t i = pointer_hash(&type) & (kSlots - 1);; i = (i + 1) & (kSlots - 1)) {
      if (exact_keys[i] == &type) return exact_by_address[i];
      if (!exact_keys[i]) return nullptr;
    }
  }

  const MemoEntry* probe_memo(const std::type_info& type) const noexcept {
    for (std::size_t i = pointer_hash(&type) & (kSlots - 1), n = 0; n < kSlots;
         i = (i + 1) & (kSlots - 1), ++n) {
      const MemoEntry* e = memo[i].load(std::memory_order_acquire);
      if (!e) return nullptr;
      if (e->type == &type) return e;
    }
    return nullptr;
  }

  void memoize(const MemoEntry& resolved) const {
    // Keep the table at most half full so probes stay short; beyond that, resolve by walking.
    if (memo_size.load(std::memory_order_relaxed) >= kSlots / 2) return;
    const std::type_info& type = *resolved.type;
    auto entry = std::make_unique<MemoEntry>(resolved);
    for (std::size_t i = pointer_hash(&type) & (kSlots - 1);; i = (i + 1) & (kSlots - 1)) {
      const MemoEntry* expected = nullptr;
      if (memo[i].compare_exchange_strong(expected, entry.get(), std::memory_order_acq_rel)) {
        entry.release();
        memo_size.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      if (expected->type == &type) return;  // another thread got there first
    }
  }

  struct Found {
    const detail::ErasedHandler* handler = nullptr;
    const Ancestor* via = nullptr;  // null: the type's own handler
  };

  // Walks the precomputed ancestor list: the first with a handler wins (freeze() has ruled out
  // ties). `steps` counts the ancestors probed.
  Found walk(std::type_index type, std::uint64_t& steps) const {
    if (auto own = exact.find(type); own != exact.end()) {
      ++steps;
      return {own->second, nullptr};  // found by name: the type_info lives in another library
    }
    auto it = ancestors.find(type);
    if (it == ancestors.end()) return {};
    for (const Ancestor& a : it->second) {
      ++steps;
      if (auto h = exact.find(a.type); h != exact.end()) return {h->second, &a};
    }
    return {};
  }

  // transit-ruby's way: build the ancestor list (the type first) afresh for every value, then
  // probe each. `path` receives the upcasts to the one found.
  const detail::ErasedHandler* walk_fresh(std::type_index type, std::uint64_t& steps,
                                          std::vector<detail::Upcast>& path) const {
    std::vector<Ancestor> chain{{type, {}, {}, true}};
    std::unordered_set<std::type_index> seen{type};
    for (std::size_t i = 0; i < chain.size(); ++i) {
      ++steps;
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

  if (!state->handlers.empty()) {
    if (state->handlers.size() > Registry::State::kSlots / 2)
      detail::throw_error(Errc::invalid_argument, "more than 512 handlers in one registry");
    state->exact_keys.assign(Registry::State::kSlots, nullptr);
    state->exact_by_address.assign(Registry::State::kSlots, nullptr);
    // type_index does not expose its type_info, so the address table is keyed by the
    // type_info each handler was registered with, kept in the handler's type_key.
    for (auto& [type, handler] : state->exact) {
      const std::type_info* key = handler->type_key;
      for (std::size_t i = pointer_hash(key) & (Registry::State::kSlots - 1);;
           i = (i + 1) & (Registry::State::kSlots - 1)) {
        if (!state->exact_keys[i]) {
          state->exact_keys[i] = key;
          state->exact_by_address[i] = handler;
          break;
        }
      }
    }
  }
  impl_ = std::make_unique<Impl>();
  return Registry(std::move(state));
}

// ---- lookup ----------------------------------------------------------------------------------------

Registry::Registry() : state_(std::make_shared<State>()) {}
Registry::Registry(std::shared_ptr<const State> state) : state_(std::move(state)) {}

LookupStrategy Registry::strategy() const noexcept { return state_->strategy; }

bool Registry::empty() const noexcept { return state_->handlers.empty() && !state_->fallback; }

namespace {

struct Resolution {
  const detail::ErasedHandler* handler;
  enum Via { exact, memo, walk, fallback, none } via;
  std::uint64_t steps;
};

const void* upcast_along(const std::vector<detail::Upcast>& path, const void* obj) {
  for (detail::Upcast up : path) obj = up(obj);
  return obj;
}

Resolution resolve_with(const Registry::State& s, const std::type_info& type, const void*& obj) {
  using State = Registry::State;
  std::uint64_t steps = 0;
  const detail::ErasedHandler* fallback = s.fallback ? &*s.fallback : nullptr;
  switch (s.strategy) {
    case LookupStrategy::walk_every_time: {
      std::vector<detail::Upcast> path;
      if (const auto* h = s.walk_fresh(type, steps, path)) {
        obj = upcast_along(path, obj);
        return {h, steps == 1 ? Resolution::exact : Resolution::walk, steps};
      }
      break;
    }
    case LookupStrategy::exact_first: {
      if (const auto* h = s.probe_exact(type)) return {h, Resolution::exact, 0};
      const State::Found f = s.walk(type, steps);
      if (f.handler) {
        if (f.via) obj = upcast_along(f.via->path, obj);
        return {f.handler, Resolution::walk, steps};
      }
      break;
    }
    case LookupStrategy::memoized: {
      if (const auto* h = s.probe_exact(type)) return {h, Resolution::exact, 0};
      if (const State::MemoEntry* e = s.probe_memo(type)) {
        if (e->fixed_offset)
          obj = static_cast<const char*>(obj) + e->offset;
        else
          obj = upcast_along(*e->path, obj);
        return {e->handler, e->is_default ? Resolution::fallback : Resolution::memo, 0};
      }
      const State::Found f = s.walk(type, steps);
      State::MemoEntry entry{&type, f.handler ? f.handler : fallback, !f.handler, true, 0, nullptr};
      if (f.via) {
        const void* adjusted = upcast_along(f.via->path, obj);
        entry.fixed_offset = f.via->fixed_offset;
        entry.offset = static_cast<const char*>(adjusted) - static_cast<const char*>(obj);
        entry.path = &f.via->path;
        obj = adjusted;
      }
      s.memoize(entry);
      if (f.handler) return {f.handler, Resolution::walk, steps};
      return {fallback, fallback ? Resolution::fallback : Resolution::none, steps};
    }
  }
  return {fallback, fallback ? Resolution::fallback : Resolution::none, steps};
}

}  // namespace

const detail::ErasedHandler* Registry::find(const std::type_info& type, const void*& obj,
                                            LookupProfiler* profiler) const {
  if (!profiler) return resolve_with(*state_, type, obj).handler;
  const auto start = std::chrono::steady_clock::now();
  const Resolution r = resolve_with(*state_, type, obj);
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
