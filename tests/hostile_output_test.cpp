// SPDX-License-Identifier: Apache-2.0
// Hostile input against what the library produces from it (issue 12, items 5, 6 and 9): error
// messages stay a few KB whatever the keys on the path, EDN printing costs memory linear in its
// output, and what a writer emits its reader accepts. Inputs are built in the tests; the
// assertions are sizes, not times.
#include <malloc.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/edn.h"
#include "transit/transit.h"
#include "support/sanitizers.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::Value;

constexpr std::size_t kMaxMessage = 8 * 1024;

Error read_error(std::string_view input, Encoding enc = Encoding::json) {
  try {
    (void)transit::read(input, enc);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no transit::Error";
  return Error(Errc::io, {}, {}, "none");
}

// ---- error messages ---------------------------------------------------------------------------

TEST(HostileMessages, PathThroughMapsKeyedByAOneMegabyteKey) {
  // 400 maps, each keyed by "^0": the 1 MB key. The path once printed the key in full at every
  // level: a 401 MB message.
  const std::string key(1 << 20, 'k');
  std::string json = "[\"^ \",\"" + key + "\",";
  for (int i = 1; i < 400; ++i) json += "[\"^ \",\"^0\",";
  const std::size_t bad = json.size();
  json += "\"^9\"";  // an unassigned cache code
  for (int i = 0; i < 400; ++i) json += "]";
  const Error e = read_error(json);
  EXPECT_EQ(e.code(), Errc::bad_cache_code);
  EXPECT_EQ(e.offset(), bad);
  EXPECT_LT(std::string_view(e.what()).size(), kMaxMessage);
  EXPECT_LT(e.path().size(), 4200u);
  // Each key shows its start and its size.
  const std::string level = "[\"" + key.substr(0, 64) + "\xE2\x80\xA6\" (1048576 bytes)]";
  EXPECT_EQ(e.path().substr(0, 1 + 2 * level.size()), "$" + level + level);
  EXPECT_NE(std::string_view(e.what()).find("bad_cache_code at byte " + std::to_string(bad)),
            std::string_view::npos);
}

TEST(HostileMessages, PathThroughMapsKeyedByASixteenMegabyteKeyKeepsCodeAndOffset) {
  // With a 16 MB key the message once could not be allocated at all (std::bad_alloc).
  const std::string key((std::size_t{16} << 20) - 16, 'k');
  std::string json = "[\"^ \",\"" + key + "\",";
  for (int i = 1; i < 400; ++i) json += "[\"^ \",\"^0\",";
  const std::size_t bad = json.size();
  json += "\"^9\"";
  const Error e = read_error(json);
  EXPECT_EQ(e.code(), Errc::bad_cache_code);
  EXPECT_EQ(e.offset(), bad);
  EXPECT_LT(std::string_view(e.what()).size(), kMaxMessage);
}

TEST(HostileMessages, NonStringKeysOnThePathAreCut) {
  // A MessagePack map keyed by an array of 100,000 integers, with a bad value under it.
  std::vector<Value> ints(100000, Value(7));
  const std::string key = transit::write(Value::array(ints), Encoding::msgpack);
  // fixmap of 1: the key, then a never-used byte 0xc1 as its value.
  const std::string msgpack = "\x81" + key + "\xc1";
  const Error e = read_error(msgpack, Encoding::msgpack);
  EXPECT_EQ(e.code(), Errc::syntax);
  EXPECT_EQ(e.offset(), 1 + key.size());
  std::string shown = "$[[7";  // 64 bytes of the key's EDN, then an ellipsis
  for (int i = 0; i < 31; ++i) shown += " 7";
  EXPECT_EQ(e.path(), shown + "\xE2\x80\xA6]");
}

TEST(HostileMessages, ErrorCutsPathAndDetailInTheMiddle) {
  const std::string path = "$" + std::string(100000, 'p') + "END";
  const std::string detail = "START" + std::string(100000, 'd') + "END";
  const Error e(Errc::syntax, {12, 3, 4}, path, detail);
  EXPECT_EQ(e.code(), Errc::syntax);
  EXPECT_EQ(e.offset(), 12u);
  EXPECT_EQ(e.line(), 3u);
  EXPECT_LT(std::string_view(e.what()).size(), kMaxMessage);
  EXPECT_EQ(e.detail().substr(0, 5), "START");
  EXPECT_EQ(e.detail().substr(e.detail().size() - 3), "END");
  EXPECT_NE(e.detail().find("[98984 bytes]"), std::string::npos) << e.detail();
  EXPECT_EQ(e.path().substr(e.path().size() - 3), "END");
  EXPECT_NE(std::string_view(e.what()).find("syntax at byte 12 (line 3, column 4) in $ppp"),
            std::string_view::npos);
  // Short ones are untouched.
  EXPECT_EQ(std::string(Error(Errc::io, {}, "$[1]", "gone").what()), "transit: io in $[1]: gone");
}

TEST(HostileMessages, CutsNeverSplitACharacter) {
  std::string detail;
  for (int i = 0; i < 1000; ++i) detail += "\xE2\x82\xAC";  // 3000 bytes of euro signs
  const Error e(Errc::syntax, {}, "", detail);
  std::string_view d = e.detail();
  const std::size_t cut = d.find("\xE2\x80\xA6[");
  ASSERT_NE(cut, std::string_view::npos);
  EXPECT_EQ(cut % 3, 0u);
  EXPECT_EQ((d.size() - d.rfind("\xE2\x80\xA6") - 3) % 3, 0u);
}

// ---- bounded EDN -------------------------------------------------------------------------------

TEST(HostileEdn, BoundedPrintingStopsAtItsLimit) {
  std::string out = "x=";
  EXPECT_TRUE(transit::detail::append_edn(Value::array({1, 2, 3}), out, 7));
  EXPECT_EQ(out, "x=[1 2 3]");
  out.clear();
  EXPECT_FALSE(transit::detail::append_edn(Value::array({1, 2, 3}), out, 6));
  EXPECT_EQ(out, "[1 2 3\xE2\x80\xA6");
  // A 16 MB string under 500 levels: printing 40 bytes of it touches 40 bytes, not 16 MB.
  Value v(std::string(std::size_t{16} << 20, 's'));
  for (int i = 0; i < 500; ++i) v = Value::array({v});
  out.clear();
  EXPECT_FALSE(transit::detail::append_edn(v, out, 40));
  EXPECT_EQ(out, std::string(40, '[').append("\xE2\x80\xA6"));
  out.clear();
  EXPECT_FALSE(transit::detail::append_edn(v, out, 510));
  EXPECT_EQ(out, std::string(500, '[') + "\"sssssssss\xE2\x80\xA6");
  EXPECT_EQ(transit::to_edn(v).size(), 500 + 2 + (std::size_t{16} << 20) + 500);
}

// ---- what is written can be read back ---------------------------------------------------------

// MessagePack maps keyed by maps, `depth` deep: {{{... 1} 2} ...}. Native MessagePack maps take
// one level each; written, each is a cmap of two levels.
std::string msgpack_composite_keys(int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += "\x81";  // fixmap of 1, its key comes next
  out += "\x01";                                   // the innermost key: 1
  for (int i = 0; i < depth; ++i) out += "\x02";  // every map's value: 2
  return out;
}

TEST(HostileWriteDepth, WhatAWriterEmitsItsReaderAccepts) {
  // 257 levels read fine, but as 514 levels of cmaps they would be rejected on the way back:
  // the writer refuses instead, in every encoding, and leaves nothing of the value.
  const Value v = transit::read(msgpack_composite_keys(257), Encoding::msgpack);
  for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, e);
    writer.write(Value::array({1, 2}));
    try {
      writer.write(v);
      ADD_FAILURE() << "written";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), Errc::too_deep) << err.what();
    }
    writer.flush();
    EXPECT_EQ(transit::read_all(out, e), std::vector<Value>{Value::array({1, 2})});
  }
  // 255 levels write as 510 and read back equal.
  const Value ok = transit::read(msgpack_composite_keys(255), Encoding::msgpack);
  for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack})
    EXPECT_EQ(transit::read(transit::write(ok, e), e), ok);
}

TEST(HostileWriteDepth, DocSampleRaisesBothLimitsTogether) {
  // doc-sample begin
  transit::ReadOptions read_options;
  read_options.max_depth = 1000;
  transit::WriteOptions write_options;
  write_options.max_depth = read_options.max_depth;  // write nothing this reader rejects
  // doc-sample end
  const Value v = transit::read(msgpack_composite_keys(400), Encoding::msgpack, read_options);
  EXPECT_EQ(transit::read(transit::write(v, Encoding::json, write_options), Encoding::json,
                          read_options),
            v);
}

TEST(HostileWriteDepth, MsgpackDatesAndUuidsCountTheirArrays) {
  // A date 512 arrays deep is a scalar in JSON but ["~#m", ms] in MessagePack: one level more.
  Value date = Value::instant(0);
  for (int i = 0; i < 512; ++i) date = Value::array({date});
  const std::string json = transit::write(date);
  EXPECT_EQ(transit::read(json), date);
  try {
    (void)transit::write(date, Encoding::msgpack);
    ADD_FAILURE() << "written";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), Errc::too_deep);
  }
  // The limit can be raised to what a reader is set to accept.
  transit::WriteOptions options;
  options.max_depth = 513;
  transit::ReadOptions read_options;
  read_options.max_depth = 513;
  EXPECT_EQ(transit::read(transit::write(date, Encoding::msgpack, options), Encoding::msgpack,
                          read_options),
            date);
}

// An object whose handler's tag says "write the rep as it is" (_ ? i d s array map) puts no
// array or map around its rep, so a rep that is the object again nested where max_depth counts
// nothing: writing it, or printing it with to_edn(v, registry), overflowed the stack.
struct Countdown {
  int n;
};

TEST(HostileWriteDepth, ObjectsWrittenAsTheirRepsCannotNestWithoutEnd) {
  for (const char* tag : {"s", "i", "_", "array", "map"}) {
    SCOPED_TRACE(tag);
    for (const bool verbose_rep : {false, true}) {
      transit::RegistryBuilder b;
      auto rep = [](const Countdown& c) { return c; };
      if (verbose_rep)
        transit::add(b, transit::Handler<Countdown>(tag).rep(rep).verbose_rep(rep));
      else
        transit::add<Countdown>(b, tag, rep);
      const transit::Registry registry = std::move(b).freeze();
      transit::WriteOptions options;
      options.registry = &registry;
      for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
        try {
          (void)transit::write(Countdown{1}, e, options);
          ADD_FAILURE() << "written";
        } catch (const Error& err) {
          EXPECT_EQ(err.code(), Errc::too_deep) << err.what();
        }
      }
      EXPECT_THROW((void)transit::to_edn(Value::object(Countdown{1}), registry), Error);
    }
  }
  // A chain that ends is written as its last rep, up to max_depth objects deep.
  transit::RegistryBuilder b;
  transit::add<Countdown>(b, "s", [](const Countdown& c) {
    return c.n == 0 ? Value("liftoff") : Value::object(Countdown{c.n - 1});
  });
  const transit::Registry registry = std::move(b).freeze();
  transit::WriteOptions options;
  options.registry = &registry;
  EXPECT_EQ(transit::write(Countdown{511}, Encoding::json, options), R"(["~#'","liftoff"])");
  EXPECT_THROW((void)transit::write(Countdown{512}, Encoding::json, options), Error);
  options.max_depth = 600;
  EXPECT_EQ(transit::write(Countdown{512}, Encoding::json, options), R"(["~#'","liftoff"])");
}

// ---- memory per value ---------------------------------------------------------------------------

using transit::test::kAsan;

// Heap bytes a value read from `input` keeps once the reader is gone. A first read lets the
// reader's per-thread buffers (simdjson's parser, the arena's block pool) reach their size.
std::size_t retained_bytes(const std::string& input, Encoding enc, Value& keep) {
  (void)transit::read(input, enc);
  const std::size_t before = mallinfo2().uordblks;
  keep = transit::read(input, enc);
  return mallinfo2().uordblks - before;
}

TEST(HostileMemory, EmptyContainersCostTheirHandleOnly) {
  if (kAsan) GTEST_SKIP() << "AddressSanitizer's allocator keeps its own books";
  // One byte of MessagePack each: a million empty arrays, maps, and nils for comparison. A
  // node per empty container cost 24 bytes more than the 16-byte handle.
  constexpr std::size_t n = 1'000'000;
  const std::string header("\xdd\x00\x0f\x42\x40", 5);  // array 32 of 1,000,000
  for (const char item : {'\x90', '\x80', '\xc0'}) {
    Value v;
    const std::size_t bytes = retained_bytes(header + std::string(n, item), Encoding::msgpack, v);
    ASSERT_EQ(v.size(), n);
    EXPECT_LE(bytes, 17 * n) << "item byte " << static_cast<int>(static_cast<unsigned char>(item));
  }
  std::string json = "[[]";
  for (std::size_t i = 1; i < n; ++i) json += ",[]";
  json += "]";
  Value v;
  EXPECT_LE(retained_bytes(json, Encoding::json, v), 17 * n);
  EXPECT_EQ(v[5], Value::array({}));
  EXPECT_EQ(v[5].items().size(), 0u);
  EXPECT_EQ(transit::write(v), json);
}

TEST(HostileMemory, EmptyContainersBehaveAsAnyOther) {
  for (const Value& e : {Value::array({}), Value::list({}), Value::set({}), Value::map({})}) {
    EXPECT_EQ(e.size(), 0u);
    EXPECT_EQ(e, e);
    const Value copy = e;
    EXPECT_EQ(copy.hash(), e.hash());
    for (const Encoding enc : {Encoding::json, Encoding::json_verbose, Encoding::msgpack})
      EXPECT_EQ(transit::read(transit::write(e, enc), enc), e);
  }
  EXPECT_TRUE(Value::map({}).entries().empty());
  EXPECT_NE(Value::array({}), Value::list({}));
  EXPECT_NE(Value::array({}), Value::array({1}));
  EXPECT_NE(Value::map({}), Value::map({{1, 2}}));
  EXPECT_EQ(transit::to_edn(Value::array({Value::set({}), Value::map({})})), "[#{} {}]");
}

// ---- user objects in EDN (issue 14) ------------------------------------------------------------

struct Money {
  long cents;
};
struct Unregistered {
  int x;
};

TEST(ToEdnWithRegistry, AnObjectPrintsAsItsHandlerWritesIt) {
  transit::RegistryBuilder b;
  transit::add<Money>(b, "money", [](const Money& m) {
    return std::to_string(m.cents / 100) + "." + (m.cents % 100 < 10 ? "0" : "") +
           std::to_string(m.cents % 100);
  });
  const transit::Registry registry = std::move(b).freeze();
  const Value price = Value::object(Money{950});
  EXPECT_EQ(transit::to_edn(price, registry), "#money \"9.50\"");
  EXPECT_EQ(transit::to_edn(price), "#object[(anonymous namespace)::Money]");
  // Inside other values, and beside an object the registry has no handler for.
  EXPECT_EQ(transit::to_edn(Value::map({{transit::kw("price"), price},
                                        {transit::kw("other"), Value::object(Unregistered{1})}}),
                            registry),
            "{:price #money \"9.50\", :other #object[(anonymous namespace)::Unregistered]}");
}

}  // namespace
