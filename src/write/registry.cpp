// SPDX-License-Identifier: Apache-2.0
// The write-handler registry: build, freeze, look up, memoize, profile.
#include "transit/registry.h"

#include <algorithm>
#include <bit>
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

#include "codec/codec.h"
#include "transit/write_handlers.h"

namespace transit {

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
        names += detail::type_name(a.name.c_str());
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

namespace detail {
std::string handler_named(const std::type_info* type, bool by_default) {
  if (!by_default) return "the write handler for " + type_name(*type);
  if (!type) return "the default write handler";
  return "the default write handler (for an object of type " + type_name(*type) + ")";
}

std::string tag_of_object(const ErasedHandler& h, const std::type_info& type, const void* obj) {
  std::string tag = h.tag_of(obj);
  if (const char* fault = user_tag_fault(tag)) [[unlikely]]
    throw_error(Errc::invalid_argument,
                "the tag \"" + elide_middle(tag, 64) + "\" that " +
                    (h.type_key ? "the write handler for " + type_name(type) + " gave an object "
                                : "the default write handler gave an object of type " + type_name(type) + " ") +
                    fault);
  return tag;
}

void time_point_out_of_range(const std::type_info& type) {
  throw_error(Errc::invalid_argument,
              "a time point out of range: this " + type_name(type) +
                  " holds no int64 count of milliseconds since 1970, which Transit's instants are");
}

void write_direct_object(ObjectEncoder& e, const ErasedHandler& h, const std::type_info& type, const void* obj,
                         bool as_key, bool verbose, DirectDepth& depth) {
  if (depth.open == depth.max)
    throw_error(Errc::too_deep, "objects whose handler's tag writes the rep as it is (_ ? i d s "
                                "array map) nest more than " + std::to_string(depth.max) +
                                    " deep (WriteOptions::max_depth): does a rep hold its own object?");
  struct Open {
    DirectDepth& depth;
    explicit Open(DirectDepth& d) : depth(d) { ++depth.open; }
    ~Open() { --depth.open; }
  } open(depth);
  if (h.write_typed_rep) return h.write_typed_rep(type, obj, e, as_key);
  (verbose && h.write_verbose_rep ? h.write_verbose_rep : h.write_rep)(obj, e, as_key);
}

namespace {
const char* form_name(RepShape shape, RepCheck check) {
  switch (shape.form) {
    case RepForm::scalar: return "a scalar";
    case RepForm::array: return check == RepCheck::even_array ? "an array of odd length" : "an array";
    case RepForm::string_map: return "a map";
    case RepForm::map: return "a map whose keys are not all strings";
    case RepForm::tagged: return "a tagged value (a set, a list, a cmap, a link ...)";
    case RepForm::composite: return "an array, a map or a tagged value";
    case RepForm::unknown: break;
  }
  return "of a form only its value tells";
}

const char* form_needed(RepCheck check) {
  switch (check) {
    case RepCheck::scalar: return "a map key must be a scalar: return one, or use the tag \"array\" or \"map\", "
                                  "whose objects make a map keyed by them a cmap";
    case RepCheck::array: return "its rep must be an array, the only form every reader reads under it";
    case RepCheck::even_array: return "its rep must be an array of keys and values, of even length";
    case RepCheck::string_map: return "its rep must be a map whose keys are strings, as the spec's link is";
    case RepCheck::none: break;
  }
  return "";
}

[[noreturn]] void wrong_form(Errc code, RepCheck check, RepShape shape, const std::type_info* type,
                             bool by_default, std::string_view tag) {
  throw_error(code, handler_named(type, by_default) + " writes under the tag \"" +
                        elide_middle(tag, 64) + "\" a rep that is " + form_name(shape, check) + ", which no reader reads: " +
                        form_needed(check));
}
}  // namespace

RepCheck rep_check_for(std::string_view tag, RepForm form, const std::type_info* type, bool by_default,
                       Errc code) {
  RepCheck need;
  if (tag == "set" || tag == "list")
    need = RepCheck::array;
  else if (tag == "cmap")
    need = RepCheck::even_array;  // its length is the value's
  else if (tag == "link")
    need = RepCheck::string_map;
  else
    return RepCheck::none;
  if (form == RepForm::unknown || form == RepForm::composite) return need;
  if (form != (need == RepCheck::string_map ? RepForm::string_map : RepForm::array))
    wrong_form(code, need, {form, kNoCount}, type, by_default, tag);
  return need == RepCheck::even_array ? need : RepCheck::none;
}

namespace {
// The form of an object written by `h` under `tag`.
RepForm form_under(const ErasedHandler& h, std::string_view tag, bool verbose) {
  if (is_direct_tag(tag)) return verbose ? h.verbose_rep_form : h.rep_form;
  // "~X" + a string, but for a verbose rep that is not one ({"~#X": verbose rep}).
  if (tag.size() == 1 && string_tag_char(tag[0]) && (h.string_rep || h.typed_string_rep) &&
      (!verbose || !h.write_verbose_rep || h.verbose_string_rep))
    return RepForm::scalar;
  return RepForm::tagged;
}
}  // namespace

RepForm form_of_object(const ErasedHandler& h, const std::type_info& type, const void* obj, bool verbose) {
  return form_under(h, h.tag_of ? tag_of_object(h, type, obj) : h.tag, verbose);
}

void check_rep_shape(RepCheck check, RepShape shape, const std::type_info& type, bool by_default,
                     std::string_view tag) {
  // An object whose form only its rep tells: a key's is checked as that rep is written.
  if (shape.form == RepForm::unknown) return;
  switch (check) {
    case RepCheck::none:
      return;
    case RepCheck::scalar:
      if (shape.form == RepForm::scalar) return;
      break;
    case RepCheck::array:
      if (shape.form == RepForm::array) return;
      break;
    case RepCheck::even_array:
      if (shape.form == RepForm::array && (shape.items == kNoCount || shape.items % 2 == 0)) return;
      break;
    case RepCheck::string_map:
      if (shape.form == RepForm::string_map) return;
      break;
  }
  wrong_form(Errc::bad_rep, check, shape, &type, by_default, tag);
}

void write_verbose_object(ObjectEncoder& e, const ErasedHandler& h, const std::string& tag,
                          const void* obj, bool as_key) {
  if (tag.size() == 1 && string_tag_char(tag[0]) && h.string_rep) {
    // "~X" + a string: a tagged Value of a string rep is written so, as a value or a key.
    if (h.verbose_string_rep) return e.value(Value::tagged(tag, Value(h.verbose_string_rep(obj))), as_key);
    if (as_key) return e.value(Value::tagged(tag, Value(h.string_rep(obj))), as_key);  // a key is a string
  }
  e.tagged_begin(tag);
  h.write_verbose_rep(obj, e, false);
  e.tagged_end();
}

void write_typed_default_object(ObjectEncoder& e, const ErasedHandler& h, const std::type_info& type,
                                const std::string& tag, const void* obj, bool as_key) {
  // "~X" + a string, as a value or a key: what emit_prefixed writes for a handler's string_rep.
  if (tag.size() == 1 && string_tag_char(tag[0]) && h.typed_string_rep)
    return e.value(Value::tagged(tag, Value(h.typed_string_rep(type, obj))), as_key);
  e.tagged_begin(tag);
  h.write_typed_rep(type, obj, e, false);
  e.tagged_end();
}
}  // namespace detail

namespace {

// The rules every handler is held to where it is made, a registered one (`type`) and the
// default one (null) alike. A tag every reader refuses (empty, or with whitespace or a control
// character: see is_valid_tag) would make output that nothing reads back, this library's reader
// included; a one-character tag the spec gives a meaning (`~c` is a character, `~u` a UUID ...)
// would be read back as that type, never as the user's. The ground tags that only say "write
// the rep as it is" (_ ? i d s) stay open, as do one-character tags the spec leaves free. A tag
// decided per object (tag_of) is not known yet: tag_of_object holds it to the same.
void check_tag(const detail::ErasedHandler& handler, const std::type_info* type) {
  if (handler.tag_of && !detail::is_builtin_tag(handler.tag)) return;
  if (const char* fault = detail::user_tag_fault(handler.tag))
    detail::throw_error(Errc::invalid_argument, "the tag \"" + detail::elide_middle(handler.tag, 64) +
                                                    "\" of " + detail::handler_named(type, !type) + " " + fault);
}

// A tag whose rep the spec gives a form (a set's an array ...) with a rep whose C++ type is
// of another would write output that no reader reads; refused here, where it is made. A tag
// decided per object is held to it as the writer asks it (Encoder::arm_tag_check).
void check_rep_form(detail::ErasedHandler& handler, const std::type_info* type) {
  if (handler.tag_of) return;
  handler.rep_check = detail::rep_check_for(handler.tag, handler.rep_form, type, !type, Errc::invalid_argument);
  if (handler.write_verbose_rep)
    handler.verbose_rep_check =
        detail::rep_check_for(handler.tag, handler.verbose_rep_form, type, !type, Errc::invalid_argument);
}

// Without a verbose rep, JSON-Verbose writes the rep: its form is the rep's until freeze()
// resolves a rep that is a user type, whose form may differ in JSON-Verbose.
void same_verbose_form(detail::ErasedHandler& h) {
  if (h.write_verbose_rep) return;
  h.verbose_rep_form = h.rep_form;
  h.verbose_rep_type = h.rep_type;
}

// Fills in the form of each rep that is another user type (ErasedHandler::rep_type) from the
// handler that type resolves to, as the writer would find it, once every handler is known: a
// map keyed by objects written as such reps (Handler<X>("s") returning a Record) is then known
// to be a cmap before any key's rep is made. A rep whose form its handler leaves open (a
// Value, a tag decided per object, a cycle of reps) stays open: checked once made.
class FormResolver {
 public:
  explicit FormResolver(Registry::State& state) : state_(state) {}

  void resolve(detail::ErasedHandler& h) {
    if (!open_.insert(&h).second) return;  // done, or being resolved (a cycle)
    if (h.rep_type && h.rep_form == detail::RepForm::unknown) h.rep_form = form_of(*h.rep_type, false);
    if (h.verbose_rep_type && h.verbose_rep_form == detail::RepForm::unknown)
      h.verbose_rep_form = form_of(*h.verbose_rep_type, true);
  }

 private:
  detail::RepForm form_of(const std::type_info& type, bool verbose) {
    std::uint64_t steps = 0;
    const detail::ErasedHandler* found = state_.walk(std::type_index(type), steps).handler;
    if (!found && state_.fallback) found = &*state_.fallback;
    if (!found || found->tag_of) return detail::RepForm::unknown;
    // Every handler is the registry's own, not yet shared: filled in here, before any lookup.
    resolve(const_cast<detail::ErasedHandler&>(*found));
    return detail::form_under(*found, found->tag, verbose);
  }

  Registry::State& state_;
  std::unordered_set<const detail::ErasedHandler*> open_;
};

}  // namespace

RegistryBuilder& RegistryBuilder::add_erased(const std::type_info& type,
                                             detail::ErasedHandler handler) {
  check_tag(handler, &type);
  check_rep_form(handler, &type);
  same_verbose_form(handler);
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
  check_tag(handler, nullptr);
  check_rep_form(handler, nullptr);
  same_verbose_form(handler);
  handler.type_key = nullptr;  // how the writer's messages tell it from a registered handler
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
                "ambiguous handler for " + detail::type_name(entry.first.c_str()) + ": " +
                    detail::type_name(found->c_str()) + " and " + detail::type_name(a.name.c_str()) +
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

  FormResolver forms(*state);
  for (detail::ErasedHandler& handler : state->handlers) forms.resolve(handler);
  if (state->fallback) forms.resolve(*state->fallback);

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

// What one lookup did, for the profiler.
struct Outcome {
  const detail::ErasedHandler* handler;
  enum Via { exact, memo, walk, fallback, none } via;
  std::uint64_t steps;
  const State::Slot* slot;  // the table entry used or published; null when none was
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

Outcome::Via via_of_hit(const State::Slot& slot) {
  switch (slot.entry->via) {
    case State::Via::fallback: return Outcome::fallback;
    case State::Via::none: return Outcome::none;
    default: return slot.entry->memo ? Outcome::memo : Outcome::exact;
  }
}

Outcome resolve_with(const State& s, const std::type_info& type, const void*& obj) {
  std::uint64_t steps = 0;
  const detail::ErasedHandler* fallback = s.fallback ? &*s.fallback : nullptr;
  switch (s.strategy) {
    case LookupStrategy::walk_every_time: {
      std::vector<detail::Upcast> path;
      if (const auto* h = s.walk_fresh(type, steps, path)) {
        obj = upcast_along(path, obj);
        return {h, steps == 0 ? Outcome::exact : Outcome::walk, steps, nullptr};
      }
      break;
    }
    case LookupStrategy::exact_first: {
      if (const State::Slot* hit = s.probe(type)) return {take(*hit, obj), Outcome::exact, 0, hit};
      const State::Found f = s.walk(type, steps);
      if (f.handler) {
        if (f.via) obj = upcast_along(f.via->path, obj);
        return {f.handler, Outcome::walk, steps, nullptr};
      }
      break;
    }
    case LookupStrategy::memoized: {
      if (const State::Slot* hit = s.probe(type)) return {take(*hit, obj), via_of_hit(*hit), 0, hit};
      const State::Slot& slot = first_resolution(s, type, obj, steps);
      return {take(slot, obj), Outcome::walk, steps, &slot};
    }
  }
  return {fallback, Outcome::walk, steps, nullptr};
}

}  // namespace

// ---- profiler --------------------------------------------------------------------------------------

struct LookupProfiler::Impl {
  // Counters for one entry of the bound registry's lookup table.
  struct Counter {
    std::uint64_t hits = 0;
    std::uint64_t walks = 0;
    std::uint64_t steps = 0;
    std::uint64_t timed_hits = 0;
    std::uint64_t timed_hit_ns = 0;
    std::uint64_t walk_ns = 0;
  };

  explicit Impl(std::uint32_t every) : sample_every(std::bit_ceil(std::max<std::uint32_t>(every, 1))) {
    sample_mask = sample_every - 1;
    // The cost of reading the clock twice, taken off every timed lookup.
    std::chrono::nanoseconds least = std::chrono::nanoseconds::max();
    for (int i = 0; i < 64; ++i) {
      const auto a = std::chrono::steady_clock::now();
      const auto b = std::chrono::steady_clock::now();
      least = std::min(least, std::chrono::duration_cast<std::chrono::nanoseconds>(b - a));
    }
    clock_cost = least;
  }

  Counter& counter(std::uint32_t id) {
    if (id >= by_id.size()) [[unlikely]]
      by_id.resize(std::max<std::size_t>(id + 1, 2 * by_id.size()));
    return by_id[id];
  }

  // Counters for the entries of another registry are kept per type; then this one is bound.
  void bind(const std::shared_ptr<const Registry::State>& state) {
    fold();
    bound = state;
  }

  void fold() {
    if (!bound) return;
    const std::vector<LookupStats> rows = rows_of_bound();
    for (std::size_t i = 0; i < rows.size(); ++i) merge(other[std::type_index(*row_types[i])], rows[i]);
    by_id.clear();
    row_types.clear();
  }

  std::uint64_t mean_hit_ns() const noexcept {
    std::uint64_t n = 0, ns = 0;
    for (const Counter& c : by_id) {
      n += c.timed_hits;
      ns += c.timed_hit_ns;
    }
    return n ? ns / n : 0;
  }

  // The rows of the bound registry's entries that were looked up. Fills `row_types` alike.
  std::vector<LookupStats> rows_of_bound() {
    std::vector<LookupStats> rows;
    row_types.clear();
    if (!bound) return rows;
    const std::uint64_t fallback_ns = mean_hit_ns();
    std::lock_guard<std::mutex> lock(bound->mutex);  // entries may be appended meanwhile
    for (std::size_t id = 0; id < by_id.size() && id < bound->entries.size(); ++id) {
      const Counter& c = by_id[id];
      if (c.hits + c.walks == 0) continue;
      const Registry::State::Entry& e = bound->entries[id];
      LookupStats s;
      s.type_name = detail::type_name(*e.type);
      switch (e.via) {
        case Registry::State::Via::own:
          s.resolution = Resolution::own;
          s.handler_type = s.type_name;
          break;
        case Registry::State::Via::ancestor:
          s.resolution = Resolution::ancestor;
          s.handler_type = detail::type_name(e.ancestor->name.c_str());
          s.distance = e.distance;
          break;
        case Registry::State::Via::fallback:
          s.resolution = Resolution::fallback;
          s.default_fallbacks = c.hits + c.walks;
          break;
        case Registry::State::Via::none:
          s.resolution = Resolution::failure;
          s.failures = c.hits + c.walks;
          break;
      }
      (e.memo ? s.memo_hits : s.exact_hits) = c.hits;
      s.walks = c.walks;
      s.walk_steps = c.steps;
      s.timed = c.timed_hits + c.walks;
      const std::uint64_t per_hit = c.timed_hits ? c.timed_hit_ns / c.timed_hits : fallback_ns;
      s.time = std::chrono::nanoseconds(c.walk_ns + per_hit * c.hits);
      rows.push_back(std::move(s));
      row_types.push_back(e.type);
    }
    return rows;
  }

  static void merge(LookupStats& into, const LookupStats& row) {
    if (into.lookups() == 0 && into.type_name.empty()) {
      into = row;
      return;
    }
    into.exact_hits += row.exact_hits;
    into.memo_hits += row.memo_hits;
    into.walks += row.walks;
    into.walk_steps += row.walk_steps;
    into.default_fallbacks += row.default_fallbacks;
    into.failures += row.failures;
    into.time += row.time;
    into.timed += row.timed;
  }

  // A lookup that is timed: a sampled hit (the type's first, then one in `sample_every`), a
  // first resolution, or any lookup of the strategies that do not memoize.
  const detail::ErasedHandler* timed(const Registry::State& s, const std::type_info& type,
                                     const void*& obj, bool sampled) {
    const auto start = std::chrono::steady_clock::now();
    const Outcome r = resolve_with(s, type, obj);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    const auto ns = static_cast<std::uint64_t>(
        std::max(std::chrono::nanoseconds(0),
                 std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed) - clock_cost)
            .count());
    if (r.slot && (r.via != Outcome::walk || s.strategy == LookupStrategy::memoized)) {
      Counter& c = counter(r.slot->id);
      if (r.via == Outcome::walk) {
        ++c.walks;
        c.steps += r.steps;
        c.walk_ns += ns;
      } else {
        ++c.hits;
        if (sampled) {
          ++c.timed_hits;
          c.timed_hit_ns += ns;
        }
      }
      return r.handler;
    }
    // Not in the table: counted per type (exact_first's and walk_every_time's walks).
    LookupStats& st = other[std::type_index(type)];
    if (st.type_name.empty()) st.type_name = detail::type_name(type.name());
    if (r.via == Outcome::exact) {
      ++st.exact_hits;
      st.handler_type = st.type_name;
    } else {
      ++st.walks;
      st.walk_steps += r.steps;
      if (!r.handler) {
        st.resolution = Resolution::failure;
        ++st.failures;
      } else if (s.fallback && r.handler == &*s.fallback) {
        st.resolution = Resolution::fallback;
        ++st.default_fallbacks;
      } else if (r.steps > 0) {
        st.resolution = Resolution::ancestor;
      }
    }
    st.time += std::chrono::nanoseconds(ns);
    ++st.timed;
    return r.handler;
  }

  std::uint32_t sample_every;  // a power of two
  std::uint32_t sample_mask;
  std::chrono::nanoseconds clock_cost{0};
  std::chrono::nanoseconds writer{0};
  std::vector<Counter> by_id;
  std::shared_ptr<const Registry::State> bound;
  std::vector<const std::type_info*> row_types;
  std::unordered_map<std::type_index, LookupStats> other;
};

LookupProfiler::LookupProfiler(std::uint32_t sample_every)
    : impl_(std::make_unique<Impl>(sample_every)) {}
LookupProfiler::~LookupProfiler() = default;

void LookupProfiler::clear() {
  const std::uint32_t every = impl_->sample_every;
  impl_ = std::make_unique<Impl>(every);
}

void LookupProfiler::add_writer_time(std::chrono::nanoseconds t) noexcept { impl_->writer += t; }
std::chrono::nanoseconds LookupProfiler::writer_time() const noexcept { return impl_->writer; }

std::vector<LookupStats> LookupProfiler::report() const {
  std::unordered_map<std::type_index, LookupStats> by_type = impl_->other;
  std::vector<LookupStats> rows = impl_->rows_of_bound();
  for (std::size_t i = 0; i < rows.size(); ++i)
    Impl::merge(by_type[std::type_index(*impl_->row_types[i])], rows[i]);
  std::vector<LookupStats> out;
  out.reserve(by_type.size());
  for (auto& [type, stats] : by_type) out.push_back(std::move(stats));
  std::sort(out.begin(), out.end(), [](const LookupStats& a, const LookupStats& b) {
    return a.time != b.time ? a.time > b.time : a.type_name < b.type_name;
  });
  return out;
}

std::chrono::nanoseconds LookupProfiler::lookup_time() const {
  std::chrono::nanoseconds total{0};
  for (const LookupStats& r : report()) total += r.time;
  return total;
}

namespace {

std::string resolved_by(const LookupStats& r) {
  switch (r.resolution) {
    case Resolution::own: return "own";
    case Resolution::ancestor:
      return r.handler_type.empty() ? "ancestor"
                                    : r.handler_type + " @" + std::to_string(r.distance);
    case Resolution::fallback: return "default";
    case Resolution::failure: return "none";
  }
  return "";
}

const char* resolution_name(Resolution r) {
  switch (r) {
    case Resolution::own: return "own";
    case Resolution::ancestor: return "ancestor";
    case Resolution::fallback: return "fallback";
    case Resolution::failure: return "failure";
  }
  return "";
}

void json_string(std::ostringstream& out, std::string_view s) {
  out << '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out << "\\u00" << "0123456789abcdef"[(c >> 4) & 0xf] << "0123456789abcdef"[c & 0xf];
    } else {
      out << c;
    }
  }
  out << '"';
}

double share(std::chrono::nanoseconds part, std::chrono::nanoseconds whole) {
  return whole.count() > 0 ? static_cast<double>(part.count()) / static_cast<double>(whole.count())
                           : 0.0;
}

}  // namespace

std::string LookupProfiler::table() const {
  const auto rows = report();
  const std::chrono::nanoseconds writer = impl_->writer;
  LookupStats total;
  total.type_name = "total";
  std::size_t width = 5, via_width = 11;
  for (const auto& r : rows) {
    width = std::max(width, r.type_name.size());
    via_width = std::max(via_width, resolved_by(r).size());
    Impl::merge(total, r);
  }
  total.type_name = "total";
  std::ostringstream out;
  auto line = [&](const LookupStats& r, const std::string& via) {
    const double ns = static_cast<double>(r.time.count());
    const double per = r.lookups() ? ns / static_cast<double>(r.lookups()) : 0.0;
    out << std::left << std::setw(static_cast<int>(width)) << r.type_name << "  "
        << std::setw(static_cast<int>(via_width)) << via << std::right << std::setw(10)
        << r.lookups() << std::setw(10) << r.exact_hits << std::setw(10) << r.memo_hits
        << std::setw(7) << r.walks << std::setw(7) << r.walk_steps << std::setw(8)
        << r.default_fallbacks << std::setw(7) << r.failures << std::setw(12) << std::fixed
        << std::setprecision(0) << ns << std::setw(9) << std::setprecision(1) << per
        << std::setw(8) << 100.0 * share(r.time, total.time) << "%" << std::setw(8)
        << 100.0 * share(r.time, writer) << "%\n";
  };
  out << std::left << std::setw(static_cast<int>(width)) << "type" << "  "
      << std::setw(static_cast<int>(via_width)) << "resolved by" << std::right << std::setw(10)
      << "lookups" << std::setw(10) << "exact" << std::setw(10) << "memo" << std::setw(7)
      << "walks" << std::setw(7) << "steps" << std::setw(8) << "default" << std::setw(7)
      << "failed" << std::setw(12) << "time ns" << std::setw(9) << "ns/look" << std::setw(9)
      << "%lookup" << std::setw(9) << "%write" << "\n";
  for (const auto& r : rows) line(r, resolved_by(r));
  line(total, "");
  out << "lookup time is " << std::fixed << std::setprecision(1) << 100.0 * share(total.time, writer)
      << "% of " << writer.count() << " ns spent writing; hits timed 1 in ~" << impl_->sample_every
      << ", every walk timed\n";
  return out.str();
}

std::string LookupProfiler::json() const {
  const auto rows = report();
  const std::chrono::nanoseconds writer = impl_->writer;
  std::chrono::nanoseconds lookup{0};
  for (const auto& r : rows) lookup += r.time;
  std::ostringstream out;
  out << "{\"writer_ns\":" << writer.count() << ",\"lookup_ns\":" << lookup.count()
      << ",\"lookup_share\":" << share(lookup, writer) << ",\"sample_every\":"
      << impl_->sample_every << ",\"types\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LookupStats& r = rows[i];
    out << (i ? "," : "") << "{\"type\":";
    json_string(out, r.type_name);
    out << ",\"resolution\":\"" << resolution_name(r.resolution) << "\",\"handler_type\":";
    json_string(out, r.handler_type);
    out << ",\"distance\":" << r.distance << ",\"lookups\":" << r.lookups()
        << ",\"exact_hits\":" << r.exact_hits << ",\"memo_hits\":" << r.memo_hits
        << ",\"walks\":" << r.walks << ",\"walk_steps\":" << r.walk_steps
        << ",\"default_fallbacks\":" << r.default_fallbacks << ",\"failures\":" << r.failures
        << ",\"time_ns\":" << r.time.count() << ",\"timed\":" << r.timed
        << ",\"writer_share\":" << share(r.time, writer) << "}";
  }
  out << "]}";
  return out.str();
}

// ---- find ------------------------------------------------------------------------------------------

const detail::ErasedHandler* Registry::find(const std::type_info& type, const void*& obj,
                                            LookupProfiler* profiler) const {
  const State& s = *state_;
  if (!profiler) [[likely]] {
    if (s.strategy != LookupStrategy::walk_every_time)
      if (const State::Slot* hit = s.probe(type)) return take(*hit, obj);
    return resolve_with(s, type, obj).handler;
  }
  // Profiled: a hit costs one counter increment more, and the first hit of a type and every
  // `sample_every`-th after it are timed.
  LookupProfiler::Impl& p = *profiler->impl_;
  if (p.bound.get() != &s) [[unlikely]]
    p.bind(state_);
  if (s.strategy != LookupStrategy::walk_every_time) [[likely]]
    if (const State::Slot* hit = s.probe(type)) {
      LookupProfiler::Impl::Counter& c = p.counter(hit->id);
      if ((c.hits++ & p.sample_mask) != 0) [[likely]]
        return take(*hit, obj);
      --c.hits;  // counted again below, timed
      return p.timed(s, type, obj, true);
    }
  return p.timed(s, type, obj, false);
}

const detail::ErasedHandler& Registry::resolve(const std::type_info& type, const void*& obj,
                                               LookupProfiler* profiler) const {
  if (const detail::ErasedHandler* h = find(type, obj, profiler)) return *h;
  detail::throw_error(Errc::no_handler, "no write handler for C++ type " +
                                            detail::type_name(type.name()) + "; " +
                                            state_->tried(type));
}

}  // namespace transit
