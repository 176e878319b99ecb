// SPDX-License-Identifier: Apache-2.0
// A small EDN reader for checking exemplars: the `.edn` file of each exemplar is the value the
// reference implementation wrote, in Clojure's printed form.
#pragma once

#include <optional>
#include <string_view>

#include "transit/value.h"

namespace transit::test {

/// Reads one EDN value: nil, true, false, integers (with N for big integers; integers beyond
/// int64 become big integers), doubles (`2.0`, `4.0E11`, `##NaN`, `##Inf`, `##-Inf`), decimals
/// with M, strings, characters (`\a`, `\newline`, `\u00e9`), keywords, symbols, vectors,
/// lists, sets, maps, `#inst "..."`, `#uuid "..."`, and `#object[java.net.URI 0x... "..."]`
/// (a URI). Commas are whitespace. Returns nullopt for what it cannot represent, such as
/// `#object[...TaggedValueImpl ...]`; throws std::runtime_error on malformed text.
std::optional<Value> parse_edn(std::string_view text);

}  // namespace transit::test
