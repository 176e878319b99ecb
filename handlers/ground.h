// SPDX-License-Identifier: Apache-2.0
// Built-in read handlers for the ground and extension tags of the Transit spec.
#pragma once

#include <string_view>

#include "transit/value.h"

namespace transit::detail {

/// Decodes the text of a `~X...` string: `tag` is X, `rest` the text after it. A tag this
/// library does not know gives a tagged value that writes back as the same string. Throws
/// Error(bad_rep) (without a position; the decoder adds it) when the text does not decode.
Value decode_scalar(char tag, std::string_view rest);
/// decode_scalar('b', rest): the bytes of a `~b` string, for a decoder that has found its tag.
Value decode_bytes(std::string_view rest);

/// Decodes a tagged value read as `["~#tag", rep]` or `{"~#tag": rep}`: quote, set, list,
/// cmap (array or map form), link, the ground tags in their tagged forms (`["~#u", [hi, lo]]`,
/// `["~#m", ms]`, `["~#t", "..."]` ...). Unknown tags give a tagged value.
Value decode_tagged(std::string_view tag, Value rep);

}  // namespace transit::detail
