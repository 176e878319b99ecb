// SPDX-License-Identifier: Apache-2.0
// transit-cpp: the write-handler registry. Handlers are found by C++ type: the exact type
// first, then the type's declared ancestors nearest-first, and every resolution is memoized.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "transit/error.h"

namespace transit {

namespace detail {
class ObjectEncoder;

/// The form a rep is written in, as far as its C++ type tells (Handler::rep), so that what a
/// handler's tag promises can be held to it without writing the rep first.
enum class RepForm : std::uint8_t {
  unknown,     ///< told per object: a Value, a std::variant of scalars and containers, a user type
  scalar,      ///< one string or scalar
  array,       ///< an array
  string_map,  ///< a map whose keys are strings
  map,         ///< a map whose keys are other scalars
  tagged,      ///< under a tag of its own: a set, a list, a cmap (a map with a composite key)
  composite,   ///< one of the above but a scalar: which, only the value tells
};
/// What the writer checks of a rep, once made, whose form its C++ type leaves open.
enum class RepCheck : std::uint8_t {
  none,
  scalar,      ///< a map key written as its rep (tags _ ? i d s array map)
  array,       ///< `set` and `list`
  even_array,  ///< `cmap`: an array of keys and values
  string_map,  ///< `link`
};
/// A rep as made: its form and, for an array, its items (kNoCount when not counted).
struct RepShape {
  RepForm form;
  std::size_t items;
};
inline constexpr std::size_t kNoCount = static_cast<std::size_t>(-1);

/// A handler with its C++ type erased: what every registration compiles down to.
struct ErasedHandler {
  /// The tag, or empty when `tag_of` decides per object.
  std::string tag;
  std::function<std::string(const void*)> tag_of;
  /// Writes the representation through the writer, so nested user types resolve too. The
  /// flag says the object is a map key (only for handlers of scalar types).
  std::function<void(const void*, ObjectEncoder&, bool)> write_rep;
  /// The representation in JSON-Verbose, when it differs.
  std::function<void(const void*, ObjectEncoder&, bool)> write_verbose_rep;
  /// write_verbose_rep's string, when it returns one: what a one-character tag writes after
  /// `~X` in JSON-Verbose, as a value and as a map key.
  std::function<std::string(const void*)> verbose_string_rep;
  /// The string form, for map keys and one-character tags; empty when the type has none.
  std::function<std::string(const void*)> string_rep;
  /// The type the handler was registered for; null for the registry's default handler.
  const std::type_info* type_key = nullptr;
  /// A typed default handler's rep: receives the object's dynamic type too (the flag says the
  /// object is a map key). When set, it is used instead of write_rep, under the same tag rules.
  std::function<void(const std::type_info&, const void*, ObjectEncoder&, bool)> write_typed_rep;
  /// A typed default handler's string form, when its rep is a string: as string_rep, told the
  /// object's dynamic type, so that under a one-character tag it writes `"~X" + rep` as a
  /// handler does (as a value and as a map key, which keeps the map a plain one).
  std::function<std::string(const std::type_info&, const void*)> typed_string_rep;
  /// The forms of write_rep's rep and of what JSON-Verbose writes (write_verbose_rep's rep, else
  /// write_rep's), from their C++ types; RegistryBuilder::add_erased makes verbose_rep_form the
  /// rep's when there is no verbose rep, and freeze() resolves a rep that is another user type.
  RepForm rep_form = RepForm::unknown;
  RepForm verbose_rep_form = RepForm::unknown;
  /// What the writer checks of each rep once made (set by RegistryBuilder::add_erased for a
  /// fixed tag; a tag_of handler's is decided per object).
  RepCheck rep_check = RepCheck::none;
  RepCheck verbose_rep_check = RepCheck::none;
  /// The user type that write_rep's (write_verbose_rep's) rep is, when that type's handler
  /// decides the rep's form; null when the rep's C++ type tells it, or leaves it to the value.
  /// freeze() looks that handler up and fills rep_form (verbose_rep_form) with its form.
  const std::type_info* rep_type = nullptr;
  const std::type_info* verbose_rep_type = nullptr;
};

/// Converts a pointer to a derived object into a pointer to one of its direct bases.
using Upcast = const void* (*)(const void*);

/// One declared direct base.
struct BaseDecl {
  std::type_index type;
  std::string name;
  Upcast upcast;
  /// True when the base is not virtual, so the upcast is a fixed offset for every object of
  /// a given dynamic type and can be memoized as one.
  bool fixed_offset;
};
}  // namespace detail

/// How a frozen registry resolves a type that has no handler of its own. Only `memoized`
/// is meant for production; the others exist so the benchmarks and the profiler can show
/// what memoizing saves.
enum class LookupStrategy : std::uint8_t {
  memoized,         ///< exact hit, else a memo hit, else walk the ancestors once and memoize
  exact_first,      ///< exact hit, else walk the ancestors every time
  walk_every_time,  ///< build the ancestor list and walk it for every value, as transit-ruby did
};

/// How a type's lookups resolve.
enum class Resolution : std::uint8_t {
  own,       ///< a handler registered for the type itself
  ancestor,  ///< the handler of a declared ancestor (LookupStats::handler_type, at `distance`)
  fallback,  ///< nothing resolves: the registry's default handler
  failure,   ///< nothing resolves and there is no default handler (the write fails)
};

/// Lookup counters for one C++ type. Every lookup is exactly one of an exact hit, a memo hit or
/// a walk; `default_fallbacks` and `failures` count how many of them ended at the default
/// handler or found nothing.
struct LookupStats {
  std::string type_name;
  Resolution resolution = Resolution::own;
  /// The type whose handler serves this one (itself, or the ancestor); empty when none does.
  std::string handler_type;
  std::uint32_t distance = 0;  ///< steps from the type up to `handler_type`
  std::uint64_t exact_hits = 0;
  std::uint64_t memo_hits = 0;
  std::uint64_t walks = 0;
  std::uint64_t walk_steps = 0;  ///< ancestors probed, summed over all walks
  std::uint64_t default_fallbacks = 0;
  std::uint64_t failures = 0;
  /// Spent in lookup for this type: every walk is timed; of the hits, the first and then one in
  /// LookupProfiler's `sample_every` are, and their mean is scaled to all hits.
  std::chrono::nanoseconds time{0};
  std::uint64_t timed = 0;  ///< lookups actually timed
  std::uint64_t lookups() const noexcept { return exact_hits + memo_hits + walks; }
};

/// Collects lookup statistics while it is attached to a writer (WriteOptions::profiler). Off by
/// default; when no profiler is attached the lookup path does no counting and reads no clock.
/// Attached, a hit increments one counter kept by the entry's index in the registry's lookup
/// table; the clock is read only for walks, for a type's first hit and then one hit in
/// `sample_every` (rounded up to a power of two) of each type, so it costs little enough to
/// leave on. A profiler is for one writer at a time (it is not synchronised).
class LookupProfiler {
 public:
  explicit LookupProfiler(std::uint32_t sample_every = 64);
  ~LookupProfiler();
  LookupProfiler(const LookupProfiler&) = delete;
  LookupProfiler& operator=(const LookupProfiler&) = delete;

  /// Per-type statistics, most time first.
  std::vector<LookupStats> report() const;
  /// The report as an aligned hot-spot table: per type how it resolved, its lookups by kind,
  /// its time and its share of the writers' time; then the totals.
  std::string table() const;
  /// The same as one JSON object, for tools: {"writer_ns", "lookup_ns", "lookup_share",
  /// "sample_every", "types": [{"type", "resolution", "handler_type", "distance", "lookups",
  /// "exact_hits", "memo_hits", "walks", "walk_steps", "default_fallbacks", "failures",
  /// "time_ns", "timed", "writer_share"}, ...]}.
  std::string json() const;
  /// Time spent in lookup (estimated as in LookupStats::time), summed over the types.
  std::chrono::nanoseconds lookup_time() const;
  /// Time the writers it was attached to spent writing values, lookups included.
  std::chrono::nanoseconds writer_time() const noexcept;
  void clear();

  /// Internal: the writer adds the time it spent on one top-level value.
  void add_writer_time(std::chrono::nanoseconds t) noexcept;

  struct Impl;

 private:
  friend class Registry;
  std::unique_ptr<Impl> impl_;
};

class Registry;
template <class T>
class Handler;
template <class T>
class Record;

/// What a typed default write handler learns about an object no handler resolves.
struct ObjectInfo {
  const std::type_info& type;
  std::string_view type_name;  ///< readable, e.g. `shop::Basket`
  const void* address;         ///< the object (most-derived when its type is polymorphic)
};

/// Builds a registry: register handlers and declare ancestry, then freeze(). Not thread-safe;
/// the frozen Registry is.
class RegistryBuilder {
 public:
  RegistryBuilder();
  ~RegistryBuilder();
  RegistryBuilder(RegistryBuilder&&) noexcept;
  RegistryBuilder& operator=(RegistryBuilder&&) noexcept;

  /// Registers (or replaces) the handler for exactly `type`.
  RegistryBuilder& add_erased(const std::type_info& type, detail::ErasedHandler handler);
  /// Declares that `derived` has the direct bases `bases` (walked in this order; see derives).
  RegistryBuilder& add_bases(std::type_index derived, std::string_view derived_name,
                             std::vector<detail::BaseDecl> bases);
  /// The handler for objects of types that resolve to nothing. Held to the rules add_erased
  /// holds a handler to: throws Error(invalid_argument), naming the default handler, for a tag
  /// no reader reads or a one-character tag the spec gives a meaning (`u`, `c` ...), and for a
  /// rep whose C++ type is not of the form `set`, `list`, `cmap` or `link` needs; a tag decided
  /// per object (`tag_of`) is held to the same when the writer asks it (Error(invalid_argument),
  /// Error(bad_rep)).
  RegistryBuilder& set_default(detail::ErasedHandler handler);
  /// A typed default handler: an object no handler resolves is written under `tag` as a
  /// handler's object is, `["~#tag", rep]` (the rep as it is under `_ ? i d s array map`),
  /// `rep(const ObjectInfo&)` returning anything writable (its type name, a map of what the
  /// program knows about it ...). Refused as the overload above refuses. Defined in
  /// write_handlers.h.
  template <class F>
  RegistryBuilder& set_default(std::string tag, F rep);

  /// Registers the handler for exactly T (as the free transit::add does).
  template <class T>
  RegistryBuilder& add(Handler<T> handler);
  /// The one-line tier: "write T as `tag` with this representation".
  template <class T, class F>
  RegistryBuilder& add(std::string tag, F rep);
  /// Registers the write side of a Record (see transit/typed.h).
  template <class T>
  RegistryBuilder& add(const Record<T>& record);

  /// Declares `Derived`'s direct bases. Objects of type `Derived` with no handler of their
  /// own use the nearest ancestor's handler; the order given is the order of the walk, not a
  /// preference: two ancestors with handlers at the same distance make freeze() throw.
  template <class Derived, class... Bases>
  RegistryBuilder& derives() {
    static_assert(sizeof...(Bases) > 0, "derives<Derived, Base...> needs at least one base");
    static_assert((std::is_base_of_v<Bases, Derived> && ...),
                  "derives<Derived, Base...>: every Base must be a base class of Derived");
    return add_bases(
        typeid(Derived), typeid(Derived).name(),
        {detail::BaseDecl{typeid(Bases), typeid(Bases).name(),
                          [](const void* p) -> const void* {
                            return static_cast<const Bases*>(static_cast<const Derived*>(p));
                          },
                          // A static downcast compiles exactly when the base is not virtual.
                          requires(const Bases* b) { static_cast<const Derived*>(b); }}...});
  }

  /// Validates and freezes. Throws Error(invalid_argument) when a declared type has two
  /// handlers at the same distance through different bases (naming both). A rep that is another
  /// user type (Handler<X>("s") returning a Record) takes here the form that type's handler
  /// writes it in, so that a map keyed by X is known to be a cmap before any rep is made.
  Registry freeze(LookupStrategy strategy = LookupStrategy::memoized) &&;

 private:
  friend class Registry;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A frozen registry: immutable, shared by any number of threads; lookups take no lock. Exact
/// types and memoized derived types share one open-addressing table, so after its first
/// resolution every type costs one probe; the table has no size limit and grows by publishing a
/// larger copy (old copies live as long as the registry). Cheap to copy (shared state).
class Registry {
 public:
  /// An empty registry: only the built-in types can be written.
  Registry();

  /// The handler for an object of dynamic type `type` at `obj` (the most-derived object), or
  /// the default handler, or nullptr. When the handler belongs to an ancestor, `obj` is
  /// converted to point at that base. `profiler` may be null.
  const detail::ErasedHandler* find(const std::type_info& type, const void*& obj,
                                    LookupProfiler* profiler) const;
  /// As find(), but throws Error(no_handler) naming the type and the ancestors tried.
  const detail::ErasedHandler& resolve(const std::type_info& type, const void*& obj,
                                       LookupProfiler* profiler) const;
  /// True when nothing is registered and there is no default handler.
  bool empty() const noexcept;

  LookupStrategy strategy() const noexcept;

  struct State;

 private:
  friend class RegistryBuilder;
  explicit Registry(std::shared_ptr<const State> state);
  std::shared_ptr<const State> state_;
};

}  // namespace transit
