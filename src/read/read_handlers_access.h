// SPDX-License-Identifier: Apache-2.0
// What a Decoder asks of a ReadHandlers that users do not: a handler together with the names
// an error gives it ("read handler for ~#point"). The names are made once, when the handler
// is added, so that a read builds no string for each value a handler decodes (the name is
// longer than std::string's inline capacity: it was a heap allocation a handled value).
#pragma once

#include <string>
#include <string_view>

#include "transit/read_handlers.h"

namespace transit::detail {

/// A handler as the registry keeps it.
struct ReadHandlerEntry {
  ReadHandler handler;
  std::string tagged_name;  // "read handler for ~#tag": for a tagged value `~#tag`
  std::string scalar_name;  // "read handler for ~X": for a `~X` string; empty unless the tag is one char
};

struct ReadHandlersAccess {
  /// The entry for `tag`, or nullptr.
  static const ReadHandlerEntry* find(const ReadHandlers& handlers, std::string_view tag) noexcept;
};

}  // namespace transit::detail
