// SPDX-License-Identifier: Apache-2.0
// transit-cpp: read handlers, keyed by tag, that turn representations into values, often
// user objects (Value::object), plus builders that read maps and arrays into user types.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "transit/value.h"

namespace transit {

template <class T>
class Record;

namespace detail {
class Cursor;
struct ReadHandlersAccess;

/// How typed reads build a user type from its tagged representation: what a Record<T> (see
/// typed.h) compiles down to on the read side.
struct TypedReader {
  /// The C++ type it reads.
  const std::type_info* type = nullptr;
  /// What the two functions below read by (a Record's fields), kept alive with the reader.
  /// Plain function pointers rather than std::function: a read calls one per object.
  std::shared_ptr<const void> context;
  /// Reads the rep at the cursor into `out`, which points at a T.
  void (*read_into)(const void* context, Cursor&, void* out) = nullptr;
  /// Reads the rep at the cursor into a new T (for polymorphic reads).
  void* (*create)(const void* context, Cursor&) = nullptr;
  void (*destroy)(void*) noexcept = nullptr;
  /// Copies a T that a Value holds (a read into Value made it) into `out`, which points at a
  /// T; null when T cannot be copy-assigned. from_value binds such a Value through it.
  void (*copy_into)(const void* held, void* out) = nullptr;
  /// A new T copied from one a Value holds (polymorphic binds of such a Value); null when T
  /// cannot be copy-constructed.
  void* (*clone)(const void* held) = nullptr;
  /// Pointer conversions from T* to each declared base, keyed by the base.
  std::vector<std::pair<std::type_index, void* (*)(void*)>> upcasts;
  /// A Value::object<T> of the T `created` (by create), which it takes over and frees: what a
  /// read into Value makes of the Record's tag, bound from the rep as read<T> binds it.
  Value (*take_value)(void* created) = nullptr;
};
}  // namespace detail

/// Decodes the representation of a tagged value.
using ReadHandler = std::function<Value(const Value& rep)>;
/// Decodes a tag no handler knows (instead of keeping it as a tagged value).
using DefaultReadHandler = std::function<Value(std::string_view tag, const Value& rep)>;
/// Builds a map from its keys and values, interleaved: k0, v0, k1, v1, ... The items may be
/// moved from.
using MapBuilder = std::function<Value(std::span<Value> keys_and_values)>;
/// Builds an array from its items (which may be moved from).
using ArrayBuilder = std::function<Value(std::span<Value> items)>;

/// Read handlers for a Reader (ReadOptions::handlers). Build, then share: a ReadHandlers is
/// read-only while readers use it.
class ReadHandlers {
 public:
  ReadHandlers();
  ~ReadHandlers();
  ReadHandlers(ReadHandlers&&) noexcept;
  ReadHandlers& operator=(ReadHandlers&&) noexcept;

  /// Adds or replaces the handler for `tag`: an extension tag of the spec (`set`, `:`, `u`,
  /// ...) or any user tag. Throws Error(invalid_argument) for the ground tags (`_ s ? i d b
  /// ' array map`), whose meaning every Transit reader must share, and for an empty tag.
  ReadHandlers& add(std::string tag, ReadHandler handler);
  /// Adds a handler whose result is a user object of type T: `decode(rep)` returns a T.
  template <class T, class F>
  ReadHandlers& add_object(std::string tag, F decode) {
    return add(std::move(tag),
               [decode = std::move(decode)](const Value& rep) { return Value::object<T>(decode(rep)); });
  }
  /// Reads `tag` as the user type a Record describes, in typed reads (read<T>) and in reads
  /// into Value (as Value::object<T>, bound as read<T> binds it: its C++ fields from the wire's
  /// maps and arrays, its Value fields built by the builders). Defined in transit/typed.h.
  template <class T>
  ReadHandlers& add(const Record<T>& record);
  /// What add(Record) registers: the typed reader for `tag`, for the reader's type, and as the
  /// tag's handler in reads into Value (replaced by a later add(tag, handler) there only).
  ReadHandlers& add_typed(std::string tag, std::shared_ptr<const detail::TypedReader> reader);
  ReadHandlers& set_default(DefaultReadHandler handler);
  /// Builds every map the input carries as a map (not a cmap, which the `cmap` handler takes)
  /// and every array, except a tagged value's rep, at any depth, wherever a read makes a
  /// Value: read, read<Value>, a Value in a typed read, from_value (docs/custom-types.md,
  /// "Map and array builders"). Once per map or array; what it throws fails the read.
  ReadHandlers& set_map_builder(MapBuilder builder);
  /// As set_map_builder, for arrays.
  ReadHandlers& set_array_builder(ArrayBuilder builder);

  /// The handler for `tag`, or nullptr.
  const ReadHandler* find(std::string_view tag) const noexcept;
  /// The typed reader for `tag`, or nullptr.
  const detail::TypedReader* find_typed(std::string_view tag) const noexcept;
  /// The typed reader for a C++ type, and its tag; nullptr when the type has none.
  const detail::TypedReader* typed_for(std::type_index type, std::string_view* tag) const noexcept;
  /// True when a one-character tag such as ':' has a handler (a fast check for `~X` strings).
  bool has_char(char tag) const noexcept;
  const DefaultReadHandler* default_handler() const noexcept;
  const MapBuilder* map_builder() const noexcept;
  const ArrayBuilder* array_builder() const noexcept;

  /// Whether `tag` is a ground tag that no handler may replace.
  static bool is_ground(std::string_view tag) noexcept;

 private:
  friend struct detail::ReadHandlersAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace transit
