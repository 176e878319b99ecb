// SPDX-License-Identifier: Apache-2.0
// An error inside a map key says so in its path: `$["a"]<key>` is in a key of the map at
// `$["a"]`, `$<#cmap>[0]<key>[1]` in the first key of a cmap, at its item 1. Every case in
// JSON, JSON-Verbose and MessagePack, for Value reads and typed reads.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::ReadOptions;
using transit::Value;

// MessagePack pieces: a string, and the headers of a fixarray and a fixmap.
std::string str(std::string_view s) {
  std::string out(1, static_cast<char>(0xa0 | s.size()));
  return out.append(s);
}
std::string arr(int n) { return std::string(1, static_cast<char>(0x90 | n)); }
std::string map(int n) { return std::string(1, static_cast<char>(0x80 | n)); }

// One input in each encoding.
struct Inputs {
  std::string json, verbose, msgpack;
};

std::vector<std::pair<Encoding, std::string>> each(const Inputs& in) {
  return {{Encoding::json, in.json},
          {Encoding::json_verbose, in.verbose},
          {Encoding::msgpack, in.msgpack}};
}

const char* name(Encoding e) {
  return e == Encoding::json ? "json" : e == Encoding::json_verbose ? "json-verbose" : "msgpack";
}

Error value_error(std::string_view input, Encoding e, ReadOptions options = {}) {
  try {
    (void)transit::read(input, e, options);
  } catch (const Error& err) {
    return err;
  }
  ADD_FAILURE() << "read";
  return Error(Errc::syntax, {}, "", "none");
}

template <class T>
Error typed_error(std::string_view input, Encoding e, ReadOptions options = {}) {
  try {
    (void)transit::read<T>(input, e, options);
  } catch (const Error& err) {
    return err;
  }
  ADD_FAILURE() << "read";
  return Error(Errc::syntax, {}, "", "none");
}

using Nested = std::map<std::string, std::map<std::int64_t, int>>;
using NestedText = std::map<std::string, std::map<std::string, int>>;

// {"a": {<bad key>: 1}}
Inputs in_inner_key(std::string_view json_key, std::string_view msgpack_key) {
  return {R"(["^ ","a",["^ ",)" + std::string(json_key) + ",1]]",
          R"({"a":{)" + std::string(json_key) + ":1}}",
          map(1) + str("a") + map(1) + std::string(msgpack_key) + "\x01"};
}

TEST(KeyPath, BadIntegerKey) {
  const Inputs in = in_inner_key(R"("~ixyz")", str("~ixyz"));
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    const Error v = value_error(input, e);
    EXPECT_EQ(v.code(), Errc::bad_rep) << v.what();
    EXPECT_EQ(v.path(), R"($["a"]<key>)");
    const Error t = typed_error<Nested>(input, e);
    EXPECT_EQ(t.code(), Errc::bad_rep) << t.what();
    EXPECT_EQ(t.path(), R"($["a"]<key>)");
  }
  // The whole message, once.
  EXPECT_EQ(std::string(value_error(in.verbose, Encoding::json_verbose).what()),
            R"(transit: bad_rep at byte 6 (line 1, column 7) in $["a"]<key>: )" +
                value_error(in.verbose, Encoding::json_verbose).detail());
}

TEST(KeyPath, TagWhereAKeyGoes) {
  // A second key "~#foo" is a tag where only a map key can be.
  const Inputs in{R"(["^ ","a",["^ ","x",1,"~#foo",2]])", R"({"a":{"x":1,"~#foo":2}})",
                  map(1) + str("a") + map(2) + str("x") + "\x01" + str("~#foo") + "\x02"};
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    const Error v = value_error(input, e);
    EXPECT_EQ(v.code(), Errc::bad_tagged_value) << v.what();
    EXPECT_EQ(v.path(), R"($["a"]<key>)");
    const Error t = typed_error<NestedText>(input, e);
    EXPECT_EQ(t.code(), Errc::bad_tagged_value) << t.what();
    EXPECT_EQ(t.path(), R"($["a"]<key>)");
  }
}

TEST(KeyPath, UnassignedCacheCodeAsKey) {
  const Inputs in = in_inner_key(R"("^5")", str("^5"));
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    const Error v = value_error(input, e);
    EXPECT_EQ(v.code(), Errc::bad_cache_code) << v.what();
    EXPECT_EQ(v.path(), R"($["a"]<key>)");
    const Error t = typed_error<Nested>(input, e);
    EXPECT_EQ(t.path(), R"($["a"]<key>)");
  }
}

TEST(KeyPath, KeyOfTheWrongType) {
  // Typed reads: the key "x" is not an int64.
  const Inputs in = in_inner_key(R"("x")", str("x"));
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    const Error t = typed_error<Nested>(input, e);
    EXPECT_EQ(t.code(), Errc::type_mismatch) << t.what();
    EXPECT_EQ(t.path(), R"($["a"]<key>)");
  }
}

TEST(KeyPath, CompositeKeyTooDeep) {
  // {"a": {[[1]]: 1}}: JSON writes the composite key as a cmap.
  const Inputs in{R"(["^ ","a",["~#cmap",[[[1]],1]]])", R"({"a":{"~#cmap":[[[1]],1]}})",
                  map(1) + str("a") + map(1) + arr(1) + arr(1) + "\x01\x01"};
  ReadOptions options;
  options.max_depth = 3;
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    // The cmap and its rep are two levels, so a JSON key is at the fourth, a MessagePack one
    // at the third.
    const std::string expected =
        e == Encoding::msgpack ? R"($["a"]<key>[0])" : R"($["a"]<#cmap>[0]<key>)";
    const Error v = value_error(input, e, options);
    EXPECT_EQ(v.code(), Errc::too_deep) << v.what();
    EXPECT_EQ(v.path(), expected);
    using DeepKeys = std::map<std::string, std::map<std::vector<std::vector<int>>, int>>;
    const Error t = typed_error<DeepKeys>(input, e, options);
    EXPECT_EQ(t.code(), Errc::too_deep) << t.what();
    EXPECT_EQ(t.path(), expected);
  }
}

TEST(KeyPath, CompositeKeyOfACmapFails) {
  // A cmap whose second key is a UUID with a bad representation, and one whose key does not
  // fit the typed key.
  const Inputs bad_uuid{R"(["~#cmap",[[1],1,["~#u","bad"],2]])",
                        R"({"~#cmap":[[1],1,{"~#u":"bad"},2]})",
                        arr(2) + str("~#cmap") + arr(4) + arr(1) + "\x01\x01" + arr(2) +
                            str("~#u") + str("bad") + "\x02"};
  for (const auto& [e, input] : each(bad_uuid)) {
    SCOPED_TRACE(name(e));
    const Error v = value_error(input, e);
    EXPECT_EQ(v.code(), Errc::bad_rep) << v.what();
    EXPECT_EQ(v.path(), "$<#cmap>[2]<key>");
  }
  const Inputs bad_item{R"(["~#cmap",[[1,2],1,[3,"x"],2]])", R"({"~#cmap":[[1,2],1,[3,"x"],2]})",
                        arr(2) + str("~#cmap") + arr(4) + arr(2) + "\x01\x02\x01" + arr(2) +
                            "\x03" + str("x") + "\x02"};
  for (const auto& [e, input] : each(bad_item)) {
    SCOPED_TRACE(name(e));
    const Error t = typed_error<std::map<std::vector<int>, int>>(input, e);
    EXPECT_EQ(t.code(), Errc::type_mismatch) << t.what();
    EXPECT_EQ(t.path(), "$<#cmap>[2]<key>[1]");
  }
}

TEST(KeyPath, ValuesAndWholeMapsKeepTheirPaths) {
  // An error in a value names its key; one in building the map is the map's, not a key's.
  const Inputs in{R"(["^ ","a",["^ ","k","~ixyz"]])", R"({"a":{"k":"~ixyz"}})",
                  map(1) + str("a") + map(1) + str("k") + str("~ixyz")};
  transit::ReadHandlers handlers;
  handlers.set_map_builder([](std::span<Value> kv) -> Value {
    if (kv.size() == 2 && kv[0] == Value("k")) throw std::runtime_error("no k");
    return Value::map({});
  });
  ReadOptions with_builder;
  with_builder.handlers = &handlers;
  const Inputs ok = in_inner_key(R"("k")", str("k"));
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    EXPECT_EQ(value_error(input, e).path(), R"($["a"]["k"])");
    EXPECT_EQ(typed_error<NestedText>(input, e).path(), R"($["a"]["k"])");
  }
  for (const auto& [e, input] : each(ok)) {
    SCOPED_TRACE(name(e));
    const Error b = value_error(input, e, with_builder);
    EXPECT_EQ(b.code(), Errc::bad_rep) << b.what();
    EXPECT_EQ(b.path(), R"($["a"])");
  }
}

TEST(KeyPath, TypedPathsThroughNestedContainers) {
  // A typed read counts an item of a container when it starts: the path to an error below it
  // names that item, not the next one, and the key whose value it is.
  const Inputs in{R"([[1],["^ ","k",["~ixyz"]]])", R"([[1],{"k":["~ixyz"]}])",
                  arr(2) + arr(1) + "\x01" + map(1) + str("k") + arr(1) + str("~ixyz")};
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    EXPECT_EQ(value_error(input, e).path(), R"($[1]["k"][0])");
    using Shape = std::tuple<std::vector<int>, std::map<std::string, std::vector<std::int64_t>>>;
    EXPECT_EQ(typed_error<Shape>(input, e).path(), R"($[1]["k"][0])");
  }
}

// A MessagePack str 32 of any length.
std::string str32(std::string_view s) {
  std::string out = "\xdb";
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((s.size() >> shift) & 0xff);
  return out.append(s);
}

TEST(KeyPath, TypedPathsCutLongKeys) {
  // A bind that fails below maps keyed by a 1 MB string shows each key's first 64 bytes and
  // its length, as a Value read's path does (see HostileMessages): not the whole key.
  const std::string key(std::size_t{1} << 20, 'k');
  const Inputs in{R"(["^ ",")" + key + R"(",["^ ","^0","x"]])",
                  R"({")" + key + R"(":{")" + key + R"(":"x"}})",
                  map(1) + str32(key) + map(1) + str32(key) + str("x")};
  const std::string level = "[\"" + key.substr(0, 64) + "\xE2\x80\xA6\" (1048576 bytes)]";
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    const Error t = typed_error<NestedText>(input, e);
    EXPECT_EQ(t.code(), Errc::type_mismatch) << t.what();
    EXPECT_EQ(t.path(), "$" + level + level);
  }
}

TEST(KeyPath, TypedPathsCutLongNonStringKeys) {
  // A keyword key of 100,000 bytes: its EDN to 64 bytes, then an ellipsis. As the value that
  // fails, the message shows its first 36 bytes.
  const std::string kw(100000, 'k');
  const Inputs in{R"(["^ ","~:)" + kw + R"(","x"])", R"({"~:)" + kw + R"(":"x"})",
                  map(1) + str32("~:" + kw) + str("x")};
  for (const auto& [e, input] : each(in)) {
    SCOPED_TRACE(name(e));
    const Error t = typed_error<std::map<transit::Keyword, int>>(input, e);
    EXPECT_EQ(t.code(), Errc::type_mismatch) << t.what();
    EXPECT_EQ(t.path(), "$[:" + kw.substr(0, 63) + "\xE2\x80\xA6]");
    const Error k = typed_error<std::map<std::int64_t, int>>(input, e);
    EXPECT_EQ(k.code(), Errc::type_mismatch) << k.what();
    EXPECT_EQ(k.path(), "$<key>");
    EXPECT_NE(k.detail().find("got keyword :" + kw.substr(0, 36) + "..."), std::string::npos)
        << k.detail();
    EXPECT_LT(k.detail().size(), 200u);
  }
}

}  // namespace
