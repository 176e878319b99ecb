// SPDX-License-Identifier: Apache-2.0
// EDN printing into a caller's string, with an optional bound: for error paths that must stay
// short whatever the value, and for the CLI's pretty-printer, which asks "does this fit in the
// line?" without printing a whole subtree to find out.
#pragma once

#include <cstdint>
#include <string>

#include "transit/registry.h"
#include "transit/value.h"

namespace transit::detail {

/// Appends the EDN of `v` to `out` (as to_edn does). With a `limit`, the output stops soon
/// after `limit` bytes: then `out` has grown by at most `limit` bytes plus an ellipsis (U+2026,
/// 3 bytes) and the result is false; true when the whole EDN was at most `limit` bytes. Work
/// and memory are O(limit), not O(size of v). With a registry, user objects print as their
/// write handlers write them.
bool append_edn(const Value& v, std::string& out, std::size_t limit = SIZE_MAX,
                const Registry* registry = nullptr);

}  // namespace transit::detail
