// SPDX-License-Identifier: Apache-2.0
// What a Decoder asks of a ReadHandlers that users do not: a handler together with the names
// an error gives it ("read handler for ~#point"). The names are made once, when the handler
// is added, so that a read builds no string for each value a handler decodes (the name is
// longer than std::string's inline capacity: it was a heap allocation a handled value).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "transit/read_handlers.h"

namespace transit::detail {

/// What every error of a tagged value's read handler is named by, before its tag: the
/// decoder's and the typed binder's alike, and ReadHandlerEntry::tagged_name, which
/// Decoder::bind_record_rep reads the tag back from.
/// (A literal: `.data()` is null-terminated, for `kTaggedHandlerName.data() + tag`.)
inline constexpr std::string_view kTaggedHandlerName = "read handler for ~#";

/// A handler as the registry keeps it.
struct ReadHandlerEntry {
  ReadHandler handler;
  std::string tagged_name;  // "read handler for ~#tag": for a tagged value `~#tag`
  std::string scalar_name;  // "read handler for ~X": for a `~X` string; empty unless the tag is one char
  // A Record's (add(Record)): reads into Value bind its rep by structure through it, with the
  // reader's handlers, rather than call `handler` with a rep built as a Value (whose maps and
  // arrays the builders would have made what its C++ fields cannot bind).
  const TypedReader* record = nullptr;
};

/// The Value::object a Record's typed reader `r` makes of `rep`, a Value holding the rep as a
/// read without handlers makes it (no builder run, no tag but the ground ones decoded): bound
/// as from_value binds it, so with `handlers` its Value fields are built and decoded as
/// read<T> builds them. A bind failure is an Error with its code and detail.
Value bind_record(const TypedReader& r, const Value& rep, const ReadHandlers* handlers);

/// The path of bind_record's failure `path` in the rep (`$[:xs][1]`) below the Record's tag
/// (`<#tag>[:xs][1]`), which the reader puts after its own path.
std::string path_below_record(std::string_view tag, std::string_view path);

/// The conversions of an object's pointer to a base's, applied in order: a Record's declared
/// base, or a chain of them through the bases' own Records (a Refund to its Cancelled to
/// Cancelled's Event).
struct Upcasts {
  static constexpr std::size_t kMost = 8;  // Record declarations up a hierarchy
  std::array<void* (*)(void*), kMost> fns{};
  std::size_t n = 0;
  void* operator()(void* p) const {
    for (std::size_t i = 0; i < n; ++i) p = fns[i](p);
    return p;
  }
};

/// How the declarations of a Record and of its bases' Records lead from its type to `base`:
/// the nearest chain (the first in breadth-first order, declarations in the order made), and
/// every other chain found. The others give the same object as the nearest for a virtual
/// base, and another one for a base the type holds twice (a diamond without `virtual`), which
/// no read may pick between, as C++ refuses to convert to such a base.
struct UpcastChain {
  std::type_index base;
  Upcasts nearest;
  std::vector<Upcasts> others;
};

struct ReadHandlersAccess {
  /// The entry for `tag`, or nullptr.
  static const ReadHandlerEntry* find(const ReadHandlers& handlers, std::string_view tag) noexcept;
  /// Every base the declarations reach from `r`'s type, with the chains there: worked out for
  /// every Record of `handlers` when a read first needs one (a breadth-first walk, once, not
  /// per value), and again after a Record is added. Safe from many threads at once, as
  /// readers share a ReadHandlers.
  static std::span<const UpcastChain> chains(const ReadHandlers& handlers, const TypedReader& r);
};

}  // namespace transit::detail
