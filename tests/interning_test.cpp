// SPDX-License-Identifier: Apache-2.0
// "Keywords and symbols are interned" (DESIGN.md), as this library does it (docs/design.md,
// "Keywords and symbols"): a short one is its own 16 bytes, so equal ones are identical with no
// table; a long one read from a document is one node however many cache codes refer to it, and
// the writer finds that node again by identity.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

#include "transit/reader.h"
#include "transit/value.h"
#include "transit/writer.h"
#include "model/value_internal.h"

namespace {

using transit::Encoding;
using transit::Value;
using transit::ValueAccess;

std::array<unsigned char, sizeof(Value)> bytes_of(const Value& v) {
  std::array<unsigned char, sizeof(Value)> out;
  std::memcpy(out.data(), static_cast<const void*>(&v), sizeof(Value));
  return out;
}

TEST(Interning, AShortKeywordOrSymbolIsItsOwnIdentity) {
  // Up to 13 bytes: no node, no table; every way of making one gives the same 16 bytes.
  const Value made = transit::kw("user/id");
  const Value read = transit::read(R"(["~#'","~:user/id"])");
  const Value read_msgpack = transit::read(transit::write(made, Encoding::msgpack), Encoding::msgpack);
  EXPECT_EQ(ValueAccess::node_of(made), nullptr);
  EXPECT_EQ(bytes_of(made), bytes_of(read));
  EXPECT_EQ(bytes_of(made), bytes_of(read_msgpack));
  EXPECT_EQ(bytes_of(transit::sym("thirteen-byte")), bytes_of(Value::symbol("thirteen-byte")));
  EXPECT_NE(bytes_of(transit::kw("a")), bytes_of(transit::sym("a")));  // the kind is in the bytes
}

TEST(Interning, ALongKeywordIsOneNodePerDocumentWhateverRefersToIt) {
  const std::string name = "a/keyword-well-over-thirteen-bytes";
  const Value original =
      Value::array({transit::kw(name), Value::map({{transit::kw(name), transit::kw(name)}}),
                    Value::set({transit::kw(name)}), transit::sym(name)});
  for (Encoding encoding : {Encoding::json, Encoding::msgpack}) {
    SCOPED_TRACE(std::string(transit::encoding_name(encoding)));
    const std::string wire = transit::write(original, encoding);
    // Written once, then referred to by cache code: the keyword's text is once on the wire.
    const std::string text = "~:" + name;
    EXPECT_EQ(wire.find(text), wire.rfind(text)) << wire;
    EXPECT_NE(wire.find(text), std::string::npos) << wire;
    const Value doc = transit::read(wire, encoding);
    ASSERT_EQ(doc, original);
    const void* node = ValueAccess::node_of(doc[0]);
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(ValueAccess::node_of(doc[1].entries()[0].first), node);
    EXPECT_EQ(ValueAccess::node_of(doc[1].entries()[0].second), node);
    EXPECT_EQ(ValueAccess::node_of(doc[2].items()[0]), node);
    // The symbol of the same text is another value, and another node.
    EXPECT_NE(ValueAccess::node_of(doc[3]), node);
    // Writing the document back finds the keyword by its node: the same bytes.
    EXPECT_EQ(transit::write(doc, encoding), wire);
  }
}

}  // namespace
