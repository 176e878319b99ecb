// SPDX-License-Identifier: Apache-2.0
// What Value::tagged refuses: a tagged value no reader reads back (docs/values.md).
#include <algorithm>
#include <string>
#include <string_view>

#include "codec/codec.h"
#include "ground.h"
#include "model/value_internal.h"
#include "transit/error.h"
#include "transit/value.h"

namespace transit::detail {

namespace {
// Whether a tagged value of `tag` is written as ["~#tag", rep] for a reader to decode as one of
// the spec's types, or with a tag every reader refuses: tags whose rep Value::tagged checks.
bool tag_of_a_reader(std::string_view tag, const Value& rep) noexcept {
  if (tag.size() == 1)
    return std::string_view(":$indfbcmtruz?_'").find(tag[0]) != std::string_view::npos ||
           (!detail::is_valid_tag(tag) && !(detail::string_tag_char(tag[0]) && rep.kind() == Kind::string));
  return tag == "set" || tag == "list" || tag == "cmap" || tag == "link" || !detail::is_valid_tag(tag);
}

// A tagged value must read back: refused here, where it is made, when no reader would read what
// it writes. Its written form is decoded as a reader decodes it (detail::decode_tagged).
[[gnu::noinline, gnu::cold]] void check_tagged(std::string_view tag, const Value& rep) {
  const std::string shown = "Value::tagged(\"" + detail::elide_middle(tag, 64) + "\", " +
                            std::string(kind_name(rep.kind())) + " rep)";
  const bool as_text = tag.size() == 1 && detail::string_tag_char(tag[0]) && rep.kind() == Kind::string;
  if (!as_text && !detail::is_valid_tag(tag))
    detail::throw_error(Errc::invalid_argument,
                        shown + ": the tag has whitespace or a control character, which no reader "
                                "reads in [\"~#tag\", rep]; only a string rep of a one-character tag "
                                "(\"~X\" + rep) carries one");
  std::string why;
  if (tag == "set" || tag == "list") {
    if (rep.kind() != Kind::array) why = "its rep must be an array";
  } else if (tag == "cmap") {
    if (rep.kind() != Kind::map && (rep.kind() != Kind::array || rep.size() % 2 != 0))
      why = "its rep must be a map, or an array of keys and values of even length";
  } else if (tag == "link") {
    if (rep.kind() != Kind::map ||
        std::any_of(rep.entries().begin(), rep.entries().end(),
                    [](const Entry& e) { return e.first.kind() != Kind::string; }))
      why = "its rep must be a map whose keys are strings";
  } else {
    try {
      (void)detail::decode_tagged(tag, rep);
    } catch (const Error& e) {
      why = e.detail();
    }
  }
  if (!why.empty())
    detail::throw_error(Errc::invalid_argument,
                        shown + " writes what no reader reads (" + why +
                            "): the tag is the spec's own; make the value it stands for instead");
}
}  // namespace

void check_made_tagged(std::string_view tag, const Value& rep) {
  if (tag_of_a_reader(tag, rep)) [[unlikely]] check_tagged(tag, rep);
}

}  // namespace transit::detail
