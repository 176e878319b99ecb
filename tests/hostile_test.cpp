// SPDX-License-Identifier: Apache-2.0
// Hostile input: truncation at every byte, lying length prefixes, 10^6-deep nesting, cache, map
// and tag abuse, bad representations, overlong numbers, invalid UTF-8, NUL bytes and the reader
// limits. Every case asserts the error code and the byte offset, from memory and, where the
// input is read as a stream, from a Source too. Crashes found by the fuzzers end up here.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/exemplars.h"
#include "support/sanitizers.h"
#include "support/step_source.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::Kind;
using transit::ReadOptions;
using transit::Value;

// ---- helpers -------------------------------------------------------------------------------------

// "91 a3 61" -> the three bytes.
std::string hex(std::string_view text) {
  std::string out;
  std::istringstream in{std::string(text)};
  std::string byte;
  while (in >> byte) out.push_back(static_cast<char>(std::stoi(byte, nullptr, 16)));
  return out;
}

// A msgpack str header and its bytes.
std::string mp_str(std::string_view s) {
  std::string out;
  if (s.size() < 32) {
    out.push_back(static_cast<char>(0xa0 | s.size()));
  } else {
    out.push_back(static_cast<char>(0xd9));
    out.push_back(static_cast<char>(s.size()));
  }
  return out.append(s);
}


// `prefix`, then `filler` for ever: what a peer that lies about a length sends. Counts what it
// handed out, so a test can prove the reader stopped early.
class EndlessSource final : public transit::Source {
 public:
  EndlessSource(std::string prefix, std::string filler)
      : prefix_(std::move(prefix)), filler_(std::move(filler)) {}
  std::size_t read(char* buffer, std::size_t size) override {
    for (std::size_t i = 0; i < size; ++i, ++given_)
      buffer[i] = given_ < prefix_.size() ? prefix_[given_]
                                          : filler_[(given_ - prefix_.size()) % filler_.size()];
    return size;
  }
  std::size_t given() const { return given_; }

 private:
  std::string prefix_;
  std::string filler_;
  std::size_t given_ = 0;
};

const char* name(Encoding e) {
  switch (e) {
    case Encoding::json: return "json";
    case Encoding::json_verbose: return "json-verbose";
    case Encoding::msgpack: return "msgpack";
  }
  return "?";
}

Error read_error(std::string_view input, Encoding enc, const ReadOptions& options) {
  try {
    (void)transit::read(input, enc, options);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no transit::Error from memory (" << name(enc) << ")";
  return Error(Errc::io, {}, {}, "none");
}

// The Error the reader's next value throws.
Error next_error(transit::Reader& reader) {
  try {
    (void)reader.next();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return Error(Errc::io, {}, {}, "none");
}

Error stream_error(std::string_view input, Encoding enc, const ReadOptions& options,
                   std::size_t step) {
  transit::test::StepSource source{std::string(input), step};
  transit::Reader reader(source, enc, options);
  try {
    while (reader.next()) {
    }
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no transit::Error from a Source (" << name(enc) << ")";
  return Error(Errc::io, {}, {}, "none");
}

enum class Stream : std::uint8_t { same, skip };

// Reading `input` fails with `code` at `offset`, from memory and (unless skipped) from a Source
// handing out a few bytes at a time. Returns the in-memory error for further checks.
Error expect_error(std::string_view input, Encoding enc, Errc code, std::size_t offset,
                   const ReadOptions& options = {}, Stream stream = Stream::same) {
  SCOPED_TRACE(std::string(name(enc)) + ": " + std::string(input.substr(0, 60)));
  const Error e = read_error(input, enc, options);
  EXPECT_EQ(e.code(), code) << e.what();
  EXPECT_EQ(e.offset(), offset) << e.what();
  if (stream == Stream::same) {
    for (std::size_t step : {1, 7, 4096}) {
      const Error s = stream_error(input, enc, options, step);
      EXPECT_EQ(s.code(), code) << "step " << step << ": " << s.what();
      EXPECT_EQ(s.offset(), offset) << "step " << step << ": " << s.what();
      EXPECT_EQ(std::string(s.what()), std::string(e.what())) << "step " << step;
    }
  }
  return e;
}

Error expect_json_error(std::string_view input, Errc code, std::size_t offset,
                        const ReadOptions& options = {}, Stream stream = Stream::same) {
  return expect_error(input, Encoding::json, code, offset, options, stream);
}

Error expect_mp_error(std::string_view input, Errc code, std::size_t offset,
                      const ReadOptions& options = {}, Stream stream = Stream::same) {
  return expect_error(input, Encoding::msgpack, code, offset, options, stream);
}

// From the folder every exemplar test reads (TRANSIT_EXEMPLARS, else the build's default).
std::string exemplar(const std::string& file) {
  const std::filesystem::path path = transit::test::exemplar_dir() / file;
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "missing exemplar " << path;
  return {std::istreambuf_iterator<char>(in), {}};
}

const char* const kExemplars[] = {
    "map_10_nested",   "set_nested",           "vector_special_numbers", "dates_interesting",
    "uuids",           "map_unrecognized_vals", "strings_tilde",         "cmap_pathological",
    "one_date",        "maps_four_char_keyword_keys",
};

// Every proper prefix of `text` (up to the end of its value) is a truncated value, at the end.
void expect_truncated_at_every_byte(const std::string& text, Encoding enc) {
  const std::size_t end = enc == Encoding::msgpack ? text.size()
                                                   : text.find_last_not_of(" \t\r\n") + 1;
  ASSERT_NO_THROW((void)transit::read(text, enc));
  for (std::size_t n = 0; n < end; ++n) {
    const std::string prefix = text.substr(0, n);
    SCOPED_TRACE("prefix of " + std::to_string(n) + " bytes");
    const Error e = read_error(prefix, enc, {});
    EXPECT_EQ(e.code(), Errc::truncated) << e.what();
    EXPECT_EQ(e.offset(), n) << e.what();
    if (n == 0) continue;  // a Reader over nothing has no value: nullopt, not an error
    const Error s = stream_error(prefix, enc, {}, 3);
    EXPECT_EQ(s.code(), Errc::truncated) << s.what();
    EXPECT_EQ(s.offset(), n) << s.what();
  }
}

// ---- truncation ----------------------------------------------------------------------------------

TEST(Hostile, JsonExemplarsTruncatedAtEveryByte) {
  if (!transit::test::exemplars_present())
    GTEST_SKIP() << "exemplar folder " << transit::test::exemplar_dir().string() << " not found; set TRANSIT_EXEMPLARS";
  for (const char* ex : kExemplars) {
    SCOPED_TRACE(ex);
    expect_truncated_at_every_byte(exemplar(std::string(ex) + ".json"), Encoding::json);
  }
}

TEST(Hostile, JsonVerboseExemplarsTruncatedAtEveryByte) {
  if (!transit::test::exemplars_present())
    GTEST_SKIP() << "exemplar folder " << transit::test::exemplar_dir().string() << " not found; set TRANSIT_EXEMPLARS";
  for (const char* ex : kExemplars) {
    SCOPED_TRACE(ex);
    expect_truncated_at_every_byte(exemplar(std::string(ex) + ".verbose.json"),
                                   Encoding::json_verbose);
  }
}

TEST(Hostile, MsgpackExemplarsTruncatedAtEveryByte) {
  if (!transit::test::exemplars_present())
    GTEST_SKIP() << "exemplar folder " << transit::test::exemplar_dir().string() << " not found; set TRANSIT_EXEMPLARS";
  for (const char* ex : kExemplars) {
    SCOPED_TRACE(ex);
    expect_truncated_at_every_byte(exemplar(std::string(ex) + ".mp"), Encoding::msgpack);
  }
}

TEST(Hostile, JsonTruncatedInsideEscapesAndLiterals) {
  // Escapes, a multi-byte character, literals and numbers, cut at every byte.
  expect_truncated_at_every_byte(
      R"(["a\u00e9\"\\", "é€𝄞", true, false, null, -1.5e-3, 12345678901234567890123])",
      Encoding::json);
}

// ---- lying length prefixes -----------------------------------------------------------------------

TEST(Hostile, MsgpackStr32ClaimingFourGiBFromASourceFailsAtOnce) {
  // In memory the claim is checked against the bytes there; from a stream, against the limit,
  // as soon as the header is in, whatever follows.
  expect_mp_error(hex("db ff ff ff ff 61"), Errc::truncated, 6, {}, Stream::skip);
  EndlessSource source(hex("db ff ff ff ff"), "a");
  transit::Reader reader(source, Encoding::msgpack);
  const Error e = next_error(reader);
  EXPECT_EQ(e.code(), Errc::too_large) << e.what();
  EXPECT_EQ(e.offset(), 0u);
  EXPECT_EQ(e.detail(), "str of 4294967295 bytes is longer than 16777216");
  EXPECT_LE(source.given(), ReadOptions{}.chunk_size);
}

// Any chunk size reads the whole stream. JSON's reader from a Source made its buffer of exactly
// `chunk_size` bytes: with 0 it asked the Source for nothing, took the 0 bytes it got for the
// end of the input, and returned no value (MessagePack's reads at least 16 bytes a time).
TEST(Hostile, EveryChunkSizeReadsTheWholeStream) {
  const std::vector<Value> values{Value::map({{transit::kw("a"), 1}}), Value::array({1, 2, "x"}),
                                  Value::symbol("s")};
  for (const Encoding encoding : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    std::string stream;
    for (const Value& v : values) stream += transit::write(v, encoding) + (encoding == Encoding::msgpack ? "" : " ");
    for (const std::size_t chunk : {0, 1, 2, 3, 15, 16, 64}) {
      SCOPED_TRACE(std::string(transit::encoding_name(encoding)) + ", chunk " + std::to_string(chunk));
      transit::test::StepSource source(stream, 1000);
      ReadOptions options;
      options.chunk_size = chunk;
      transit::Reader reader(source, encoding, options);
      for (const Value& expected : values) EXPECT_EQ(reader.next(), expected);
      EXPECT_EQ(reader.next(), std::nullopt);
    }
  }
}

// A Source that gives `honest_reads` full reads of its text, then says it gave one byte more
// than it was asked for (it writes only what fits).
class OverclaimingSource final : public transit::Source {
 public:
  OverclaimingSource(std::string text, int honest_reads)
      : text_(std::move(text)), honest_reads_(honest_reads) {}
  std::size_t read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min(size, text_.size() - at_);
    std::memcpy(buffer, text_.data() + at_, n);
    at_ += n;
    return honest_reads_-- > 0 ? n : size + 1;
  }

 private:
  std::string text_;
  std::size_t at_ = 0;
  int honest_reads_;
};

// A Source claiming more bytes than the reader's buffer holds is an Error(io), not a read past
// the buffer: at the first read (JSON, MessagePack) and at a read ahead (JSON's in-place read
// of a value longer than a chunk, after a full first read).
TEST(Hostile, SourceClaimingMoreThanItWasAskedIsAnIoError) {
  std::string array = "[";
  for (int i = 0; i < 100; ++i) array += (i ? "," : "") + std::to_string(i);
  array += "]";
  for (const Encoding encoding : {Encoding::json, Encoding::msgpack}) {
    const std::string text = encoding == Encoding::json ? array : transit::write(transit::read(array), encoding);
    for (const int honest : {0, 1}) {
      SCOPED_TRACE(std::string(transit::encoding_name(encoding)) + ", honest reads " + std::to_string(honest));
      OverclaimingSource source(text, honest);
      ReadOptions options;
      options.chunk_size = 64;
      transit::Reader reader(source, encoding, options);
      const Error e = next_error(reader);
      EXPECT_EQ(e.code(), Errc::io) << e.what();
      EXPECT_EQ(e.detail(), "Source::read returned 65 bytes for a buffer of 64") << e.what();
    }
  }
}

TEST(Hostile, MsgpackBin32AndExtClaimsFromASourceFailAtOnce) {
  for (const char* header : {"c6 ff ff ff ff", "c9 ff ff ff ff 01", "91 c6 01 00 00 01"}) {
    SCOPED_TRACE(header);
    EndlessSource source(hex(header), std::string(1, '\0'));
    ReadOptions options;
    options.max_string_length = 1 << 16;
    transit::Reader reader(source, Encoding::msgpack, options);
    const Error e = next_error(reader);
    EXPECT_EQ(e.code(), Errc::too_large) << e.what();
    EXPECT_EQ(e.offset(), header[0] == '9' ? 1u : 0u) << e.what();
    EXPECT_LE(source.given(), options.chunk_size);
  }
}

TEST(Hostile, MsgpackArrayAndMapCountsBeyondTheLimit) {
  // 2^32-1 items: in memory there are not the bytes (truncated at the end); from a stream the
  // count is over max_collection_length (too_large at the header).
  expect_mp_error(hex("dd ff ff ff ff"), Errc::truncated, 5, {}, Stream::skip);
  expect_mp_error(hex("df ff ff ff ff"), Errc::truncated, 5, {}, Stream::skip);
  for (const char* header : {"dd ff ff ff ff", "df ff ff ff ff", "92 01 dd 01 00 00 01"}) {
    SCOPED_TRACE(header);
    EndlessSource source(hex(header), std::string(1, '\x01'));
    transit::Reader reader(source, Encoding::msgpack);
    const Error e = next_error(reader);
    EXPECT_EQ(e.code(), Errc::too_large) << e.what();
    EXPECT_EQ(e.offset(), header[0] == '9' ? 2u : 0u) << e.what();
    EXPECT_LE(source.given(), ReadOptions{}.chunk_size);
  }
}

TEST(Hostile, MsgpackCollectionLimitInMemoryAndStream) {
  ReadOptions options;
  options.max_collection_length = 3;
  EXPECT_EQ(transit::read(hex("93 01 02 03"), Encoding::msgpack, options),
            Value::array({1, 2, 3}));
  expect_mp_error(hex("94 01 02 03 04"), Errc::too_large, 0, options);
  expect_mp_error(hex("91 84 01 01 02 02 03 03 04 04"), Errc::too_large, 1, options);
}

TEST(Hostile, MsgpackValueBytesLimitFromAnEndlessStream) {
  // An array of 2^24-1 ones that never ends: the reader gives up at the item that crosses the
  // limit, having buffered no more than the limit and a chunk or two.
  ReadOptions options;
  options.max_value_bytes = 1 << 20;
  EndlessSource source(hex("dd 00 ff ff ff"), std::string(1, '\x01'));
  transit::Reader reader(source, Encoding::msgpack, options);
  const Error e = next_error(reader);
  EXPECT_EQ(e.code(), Errc::too_large) << e.what();
  EXPECT_EQ(e.offset(), std::size_t{1} << 20);
  EXPECT_EQ(e.detail(), "value is longer than 1048576 bytes");
  EXPECT_LE(source.given(), (std::size_t{1} << 20) + 2 * options.chunk_size);
}

TEST(Hostile, MsgpackValueBytesLimitInMemory) {
  ReadOptions options;
  options.max_value_bytes = 4;
  EXPECT_EQ(transit::read(hex("93 01 02 03"), Encoding::msgpack, options),
            Value::array({1, 2, 3}));
  // The fifth byte, the fourth item, crosses the limit.
  expect_mp_error(hex("94 01 02 03 04"), Errc::too_large, 4, options);
  expect_mp_error(hex("91 a5 61 62 63 64 65"), Errc::too_large, 1, options);
}

TEST(Hostile, MsgpackStringLimitInMemoryAndStream) {
  ReadOptions options;
  options.max_string_length = 4;
  EXPECT_EQ(transit::read(hex("91") + mp_str("abcd"), Encoding::msgpack, options),
            Value::array({"abcd"}));
  expect_mp_error(hex("91") + mp_str("abcde"), Errc::too_large, 1, options);
  expect_mp_error(hex("92 01 c4 05 00 00 00 00 00"), Errc::too_large, 2, options);
}

TEST(Hostile, JsonValueBytesLimitFromAnEndlessStream) {
  ReadOptions options;
  options.max_value_bytes = 1 << 20;
  EndlessSource source("[1", ",1");
  transit::Reader reader(source, Encoding::json, options);
  const Error e = next_error(reader);
  EXPECT_EQ(e.code(), Errc::too_large) << e.what();
  // Ones sit at odd offsets; the first that ends past the limit starts just after it.
  EXPECT_EQ(e.offset(), (std::size_t{1} << 20) + 1);
  EXPECT_EQ(e.detail(), "value is longer than 1048576 bytes");
  EXPECT_LE(source.given(), (std::size_t{1} << 20) + 2 * options.chunk_size);
}

TEST(Hostile, JsonStringThatNeverEndsFromAStream) {
  // A string is buffered by the parser; the value limit stops it, and the error names the
  // string's start, whose chunk is long gone.
  ReadOptions options;
  options.max_value_bytes = 1 << 20;
  EndlessSource source("\n [\"", "a");
  transit::Reader reader(source, Encoding::json, options);
  const Error e = next_error(reader);
  EXPECT_EQ(e.code(), Errc::too_large) << e.what();
  EXPECT_EQ(e.offset(), 3u);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 3u);
  EXPECT_LE(source.given(), (std::size_t{1} << 20) + 2 * options.chunk_size);
}

TEST(Hostile, JsonValueBytesLimitInMemory) {
  ReadOptions options;
  options.max_value_bytes = 8;
  EXPECT_EQ(transit::read("[1,2,33]", Encoding::json, options), Value::array({1, 2, 33}));
  // "333" ends at the limit; the ']' after it is the ninth byte.
  expect_json_error("[1,2,333]", Errc::too_large, 8, options);
  expect_json_error("[1,2,3333]", Errc::too_large, 5, options);
  expect_json_error(R"(["abcdefgh"])", Errc::too_large, 1, options);
  // The limit is per value: a second value starts afresh.
  EXPECT_EQ(transit::read_all("[1,2,33] [1,2,33]", Encoding::json, options).size(), 2u);
}

TEST(Hostile, JsonValueBytesLimitCountsAStringsRawBytes) {
  // max_value_bytes counts bytes on the wire: a string's quotes and escapes, not its length
  // unescaped (which let a string 6 times the limit through, or placed the error after it).
  ReadOptions options;
  options.max_value_bytes = 10;
  EXPECT_EQ(transit::read(R"("abcdefgh")", Encoding::json, options), Value("abcdefgh"));
  EXPECT_EQ(transit::read(R"("\u0041AB")", Encoding::json, options), Value("AAB"));
  expect_json_error(R"("abcdefghi")", Errc::too_large, 0, options);    // 11 bytes, 9 unescaped
  expect_json_error(R"("\u0041\u0041")", Errc::too_large, 0, options);  // 14 bytes, 2 unescaped
  expect_json_error(R"("\uD83D\uDE00")", Errc::too_large, 0, options);  // 14 bytes, 4 unescaped
  // At the string, not at the bracket after it; a key alike.
  expect_json_error(R"(["\u0041\u0041"])", Errc::too_large, 1, options);
  expect_json_error(R"({"\u0041\u0041":1})", Errc::too_large, 1, options);
  expect_json_error(R"(["a\"\\\"bcdef"])", Errc::too_large, 1, options);  // escaped quotes
  EXPECT_EQ(transit::read(R"(["\"\\\""])", Encoding::json, options), Value::array({"\"\\\""}));
}

TEST(Hostile, JsonStringAndNumberLimits) {
  ReadOptions options;
  options.max_string_length = 4;
  EXPECT_EQ(transit::read(R"(["abcd",1234])", Encoding::json, options), Value::array({"abcd", 1234}));
  expect_json_error(R"(["abcde"])", Errc::too_large, 1, options);
  expect_json_error(R"({"abcde":1})", Errc::too_large, 1, options);
  expect_json_error(R"([1, 12345])", Errc::too_large, 4, options);
  expect_json_error(R"([1, -1.2e5])", Errc::too_large, 4, options);
}

TEST(Hostile, JsonCollectionLimit) {
  ReadOptions options;
  options.max_collection_length = 3;
  EXPECT_EQ(transit::read("[1,2,3]", Encoding::json, options), Value::array({1, 2, 3}));
  expect_json_error("[1,2,3,4]", Errc::too_large, 7, options);
  expect_json_error(R"(["^ ","a",1,"b",2,"c",3,"d",4])", Errc::too_large, 24, options);
  expect_json_error(R"({"a":1,"b":2,"c":3,"d":4})", Errc::too_large, 19, options);
}

// The decoder places most items inline, below limits it works out once per container: the
// collection limit, and for a JSON array the 65,536 items at which it moves off the value
// stack into slots of its own (which then grow). Items on either side of each boundary land
// in order, in every encoding, and the limit is found at the item that crosses it.
TEST(Hostile, ItemsOnEitherSideOfEveryPlacementBoundary) {
  for (const std::size_t n : {65'535u, 65'536u, 65'537u, 131'072u, 131'073u, 200'000u}) {
    std::vector<Value> items;
    for (std::size_t i = 0; i < n; ++i) items.emplace_back(static_cast<std::int64_t>(i) * 3);
    const Value array = Value::array(items);
    for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
      SCOPED_TRACE(std::to_string(n) + " items, " + std::string(transit::encoding_name(e)));
      const std::string bytes = transit::write(array, e);
      const Value back = transit::read(bytes, e);
      ASSERT_EQ(back.size(), n);
      for (const std::size_t i : {std::size_t{0}, n / 2, n - 2, n - 1})
        EXPECT_EQ(back[i].as_int(), static_cast<std::int64_t>(i) * 3);
      EXPECT_EQ(back, array);
      ReadOptions at_limit;
      at_limit.max_collection_length = n;
      EXPECT_EQ(transit::read(bytes, e, at_limit).size(), n);
      ReadOptions below;
      below.max_collection_length = n - 1;
      try {
        (void)transit::read(bytes, e, below);
        ADD_FAILURE() << "no error";
      } catch (const Error& err) {
        EXPECT_EQ(err.code(), Errc::too_large) << err.what();
      }
    }
  }
  // Maps count entries: 2 limits a map to 2 entries, wherever its keys and values go.
  ReadOptions two;
  two.max_collection_length = 2;
  EXPECT_EQ(transit::read(R"(["^ ","a",1,"b",2])", Encoding::json, two).size(), 2u);
  EXPECT_EQ(transit::read(R"({"a":[1,2],"b":{"c":3,"d":4}})", Encoding::json, two).size(), 2u);
  expect_json_error(R"(["^ ","a",[1,2],"b",2,"c",3])", Errc::too_large, 22, two);
}

// ---- depth ---------------------------------------------------------------------------------------

TEST(Hostile, MillionDeepJsonArrays) {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  const Error e = expect_json_error(deep, Errc::too_deep, 512, {}, Stream::skip);
  EXPECT_EQ(e.path().size(), 1 + 512 * 3u);  // $ then [0] per level
  EXPECT_EQ(stream_error(deep, Encoding::json, {}, 65536).offset(), 512u);
}

TEST(Hostile, MillionDeepJsonVerboseMaps) {
  std::string deep;
  for (int i = 0; i < 1'000'000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(1'000'000, '}');
  expect_error(deep, Encoding::json_verbose, Errc::too_deep, 512 * 5, {}, Stream::skip);
  EXPECT_EQ(stream_error(deep, Encoding::json_verbose, {}, 65536).offset(), 512u * 5);
}

TEST(Hostile, MillionDeepTaggedValues) {
  std::string deep;
  for (int i = 0; i < 1'000'000; ++i) deep += "[\"~#'\",";
  deep += "1" + std::string(1'000'000, ']');
  expect_json_error(deep, Errc::too_deep, 512 * 7, {}, Stream::skip);
}

TEST(Hostile, MillionDeepMsgpackArraysAndMaps) {
  expect_mp_error(std::string(1'000'000, '\x91') + '\x01', Errc::too_deep, 512, {},
                  Stream::skip);
  EXPECT_EQ(stream_error(std::string(1'000'000, '\x91') + '\x01', Encoding::msgpack, {}, 65536)
                .code(),
            Errc::too_deep);
  // {"a": {"a": ...}}: each level is a map header and a two-byte key.
  std::string maps;
  for (int i = 0; i < 1'000'000; ++i) maps += hex("81") + mp_str("a");
  maps += '\x01';
  expect_mp_error(maps, Errc::too_deep, 512 * 3, {}, Stream::skip);
}

TEST(Hostile, MaxDepthIsCappedAndTheCapIsSafe) {
  ReadOptions too_much;
  too_much.max_depth = ReadOptions::kMaxDepthLimit + 1;
  try {
    transit::Reader reader("[]", Encoding::json, too_much);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_EQ(e.offset(), transit::Location::npos);
  }
  // At the cap, reading, writing, comparing and destroying a value that deep all work.
  ReadOptions deepest;
  deepest.max_depth = ReadOptions::kMaxDepthLimit;
  const std::size_t n = ReadOptions::kMaxDepthLimit;
  const Value v = transit::read(std::string(n, '[') + std::string(n, ']'), Encoding::json, deepest);
  transit::WriteOptions deepest_write;  // a writer's limit matches its reader's
  deepest_write.max_depth = ReadOptions::kMaxDepthLimit;
  for (Encoding enc : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    SCOPED_TRACE(name(enc));
    EXPECT_EQ(transit::read(transit::write(v, enc, deepest_write), enc, deepest), v);
  }
  expect_json_error(std::string(n + 1, '[') + std::string(n + 1, ']'), Errc::too_deep, n,
                    deepest, Stream::skip);
}

// ---- cache codes and "^ " -----------------------------------------------------------------------

TEST(Hostile, CacheCodesMalformedOrUnassigned) {
  expect_json_error(R"(["^"])", Errc::bad_cache_code, 1);
  expect_json_error(R"(["~:abcd", "^~"])", Errc::bad_cache_code, 11);
  expect_json_error(R"(["~:abcd", "^0 "])", Errc::bad_cache_code, 11);
  expect_json_error(R"(["~:abcd", "^1"])", Errc::bad_cache_code, 11);
  expect_json_error(R"({"^0":1})", Errc::bad_cache_code, 1);
  expect_mp_error(hex("92") + mp_str("~:abcd") + mp_str("^[["), Errc::bad_cache_code, 8);
}

TEST(Hostile, CachedTagUsedAsAValue) {
  // "^0" names the tag ~#point; a tag is only ever the first item of an array or object.
  expect_json_error(R"([["~#point",[1,2]],"^0"])", Errc::bad_tagged_value, 19);
  // As the first item it is a tag again.
  EXPECT_EQ(transit::read(R"([["~#point",[1,2]],["^0",[3,4]]])"),
            Value::array({Value::tagged("point", Value::array({1, 2})),
                          Value::tagged("point", Value::array({3, 4}))}));
}

TEST(Hostile, MapMarkerAbuse) {
  // Odd counts, the marker in a map, and the marker where no map can start.
  expect_json_error(R"(["^ ","a"])", Errc::odd_map, 9);
  expect_json_error(R"(["^ ","^0",1])", Errc::bad_cache_code, 6);
  expect_json_error(R"(["^ ",["^ ","a"],1])", Errc::odd_map, 15);
  // Elsewhere "^ " is a plain string, as transit-java reads it; writers escape it as "~^ ".
  EXPECT_EQ(transit::read(R"([1,"^ "])"), Value::array({1, "^ "}));
  EXPECT_EQ(transit::read(R"(["^ ","^ ",1])"), Value::map({{"^ ", 1}}));
  EXPECT_EQ(transit::read(R"(["^ "])"), Value::map({}));
  expect_mp_error(hex("93") + mp_str("^ ") + mp_str("a") + hex("01") + hex("00"),
                  Errc::trailing_data, 7, {}, Stream::skip);
  // A container's error is placed just after its last item.
  expect_mp_error(hex("92") + mp_str("^ ") + mp_str("a"), Errc::odd_map, 6);
}

// ---- tags ----------------------------------------------------------------------------------------

TEST(Hostile, TagWithoutRep) {
  expect_json_error(R"(["~#set"])", Errc::bad_tagged_value, 8);
  expect_json_error(R"([["~#set"],1])", Errc::bad_tagged_value, 9);
  expect_mp_error(hex("91") + mp_str("~#set"), Errc::bad_tagged_value, 7);
}

TEST(Hostile, OddCmapArray) {
  expect_json_error(R"(["~#cmap",[1,2,3]])", Errc::odd_map, 17);
  expect_json_error(R"(["~#cmap",1])", Errc::bad_rep, 11);
  expect_mp_error(hex("92") + mp_str("~#cmap") + hex("93 01 02 03"), Errc::odd_map, 12);
}

TEST(Hostile, TaggedObjectWithTwoKeys) {
  expect_json_error(R"({"~#a": 1, "b": 2})", Errc::bad_tagged_value, 11);
  expect_json_error(R"({"~#a": 1, "~#b": 2})", Errc::bad_tagged_value, 11);
  expect_mp_error(hex("82") + mp_str("~#a") + hex("01") + mp_str("b") + hex("02"),
                  Errc::bad_tagged_value, 6);
}

TEST(Hostile, TagsOutOfPlace) {
  expect_json_error(R"([1,"~#set",[1]])", Errc::bad_tagged_value, 3);
  expect_json_error(R"(["^ ","~#set",[1]])", Errc::bad_tagged_value, 6);
  expect_json_error(R"({"a":"~#set"})", Errc::bad_tagged_value, 5);
  expect_json_error(R"("~#set")", Errc::bad_tagged_value, 0);
  expect_json_error(R"(["~#set",[1],[2]])", Errc::bad_tagged_value, 13);
}

TEST(Hostile, InvalidTagNames) {
  expect_json_error(R"(["~#",1])", Errc::bad_tagged_value, 1);
  expect_json_error(R"(["~#a b",1])", Errc::bad_tagged_value, 1);
  expect_json_error(R"(["~#a\tb",1])", Errc::bad_tagged_value, 1);
  expect_json_error(R"(["~#a\u0000",1])", Errc::bad_tagged_value, 1);
  expect_json_error("[\"~#\x7f\",1]", Errc::bad_tagged_value, 1);
  expect_mp_error(hex("92") + mp_str("~#") + hex("01"), Errc::bad_tagged_value, 1);
  // Any other character is a tag's to use, as in the reference implementations.
  EXPECT_EQ(transit::read(R"(["~#com.example/pöint",1])"),
            Value::tagged("com.example/pöint", 1));
}

// ---- representations -----------------------------------------------------------------------------

TEST(Hostile, BadSpecialNumbers) {
  for (const char* rep : {R"(["~z"])", R"(["~zinf"])", R"(["~zNaN "])", R"(["~z+INF"])"})
    expect_json_error(rep, Errc::bad_rep, 1);
  // The spec's scalar tags keep their meaning in the ["~#z", rep] form.
  expect_json_error(R"(["~#z",1])", Errc::bad_rep, 8);
  expect_json_error(R"(["~#?","t",1])", Errc::bad_tagged_value, 11);
}

TEST(Hostile, BadInstants) {
  for (const char* rep : {R"(["~t"])", R"(["~t2020-02-30T00:00:00Z"])",
                          R"(["~t2020-01-01T25:00:00Z"])", R"(["~t2020-01-01T00:00:00"])",
                          R"(["~t9999999999-01-01T00:00:00Z"])", R"(["~m"])", R"(["~m1e3"])",
                          R"(["~m9223372036854775808"])", R"(["~m-"])", R"(["~m 1"])"})
    expect_json_error(rep, Errc::bad_rep, 1);
  expect_json_error(R"(["~#m","x"])", Errc::bad_rep, 10);
  expect_json_error(R"(["~#t",1])", Errc::bad_rep, 8);
}

TEST(Hostile, BadUuids) {
  for (const char* rep : {R"(["~u"])", R"(["~u5a2cbea3e8c6428bb52521239370dd55"])",
                          R"(["~u5a2cbea3-e8c6-428b-b525-21239370dd5"])",
                          R"(["~u5a2cbea3-e8c6-428b-b525-21239370dd555"])",
                          R"(["~u5a2cbea3_e8c6_428b_b525_21239370dd55"])",
                          R"(["~u{5a2cbea3-e8c6-428b-b525-21239370dd5}"])"})
    expect_json_error(rep, Errc::bad_rep, 1);
  expect_json_error(R"(["~#u",[1,2,3]])", Errc::bad_rep, 14);
  expect_json_error(R"(["~#u",["a","b"]])", Errc::bad_rep, 16);
  expect_json_error(R"(["~#u",1.5])", Errc::bad_rep, 10);
}

TEST(Hostile, BadBase64) {
  for (const char* rep : {R"(["~bA"])", R"(["~bYQ=x"])", R"(["~bYQ==="])", R"(["~b=YQ="])",
                          R"(["~bYQ-_"])"})
    expect_json_error(rep, Errc::bad_rep, 1);
  // Whitespace (wrapped lines) is allowed, and so is missing padding at the very end.
  EXPECT_EQ(transit::read(R"(["~bYW Jj\nZA"])"), Value::array({Value::bytes("abcd")}));
}

// A `~b` text of 64 chars or more is decoded into room for no padding and shortened after
// (handlers/ground.cpp): every length around that bound and past a vector block, padded and
// not, read from JSON, JSON-Verbose and MessagePack, is the value Value::bytes makes (equal,
// the same hash, one item in a set with its padded form), and a bad char or bad padding in its last group is
// still bad base64.
TEST(Hostile, LongBase64IsTheBytesItEncodes) {
  std::mt19937 rng(64);
  for (std::size_t len = 40; len <= 110; ++len) {
    std::string data(len, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    const Value expected = Value::bytes(data);
    const std::string array = transit::write(Value::array({expected}));  // ["~b..."]
    const std::string text = array.substr(2, array.size() - 4);           // ~b...
    ASSERT_EQ(text.substr(0, 2), "~b");
    const std::string unpadded = text.substr(0, text.find('='));
    for (const std::string& t : {text, unpadded}) {
      SCOPED_TRACE(t);
      const std::string json = "[\"" + t + "\"]";
      EXPECT_EQ(transit::read(json), Value::array({expected}));
      EXPECT_EQ(transit::read(json, Encoding::json_verbose), Value::array({expected}));
      const Value mp = transit::read(hex("91") + mp_str(t), Encoding::msgpack);
      EXPECT_EQ(mp, Value::array({expected}));
      EXPECT_EQ(std::hash<Value>{}(mp[0]), std::hash<Value>{}(expected));
      EXPECT_EQ(mp[0].as_bytes().size(), len);
      const Value set = transit::read("[\"~#set\",[\"" + t + "\",\"" + text + "\"]]");
      EXPECT_EQ(set.size(), 1u);
      const std::string chars = t.substr(2);
      if (chars.size() < 64) continue;
      // The last group broken: a bad char, padding where it cannot be, one char too many.
      std::string bad = t;
      bad[bad.size() - 1 - (bad.back() == '=' ? 2 : 0)] = '-';
      expect_json_error("[\"" + bad + "\"]", Errc::bad_rep, 1);
      expect_mp_error(hex("91") + mp_str(bad), Errc::bad_rep, 1);
      const std::string whole = "~b" + chars.substr(0, chars.size() - chars.size() % 4);
      expect_json_error("[\"" + whole + "A===\"]", Errc::bad_rep, 1);
      expect_json_error("[\"" + whole + "A\"]", Errc::bad_rep, 1);
    }
  }
}

TEST(Hostile, BadScalarRepsInMsgpack) {
  expect_mp_error(hex("92 01") + mp_str("~zinf"), Errc::bad_rep, 2);
  expect_mp_error(hex("91") + mp_str("~tyesterday"), Errc::bad_rep, 1);
  expect_mp_error(hex("91") + mp_str("~uxyz"), Errc::bad_rep, 1);
  expect_mp_error(hex("91") + mp_str("~m1.5"), Errc::bad_rep, 1);
  // ~#m with a float rep: placed at the end of the tagged array.
  expect_mp_error(hex("92") + mp_str("~#m") + hex("cb 3f f8 00 00 00 00 00 00"), Errc::bad_rep,
                  14);
}

// ---- numbers -------------------------------------------------------------------------------------

TEST(Hostile, OverlongIntegersBecomeBigIntegers) {
  const std::string digits(300, '9');
  EXPECT_EQ(transit::read("[" + digits + "]"), Value::array({Value::big_integer(digits)}));
  // RapidJSON checks a number's range even when it hands over the text.
  expect_json_error("[1, " + std::string(400, '9') + "]", Errc::too_large, 4);
  const std::string long_digits(1000, '9');
  EXPECT_EQ(transit::read("[\"~i" + long_digits + "\"]"),
            Value::array({Value::big_integer(long_digits)}));
  EXPECT_EQ(transit::read("[-9223372036854775809]"),
            Value::array({Value::big_integer("-9223372036854775809")}));
  EXPECT_EQ(transit::read(hex("91 cf ff ff ff ff ff ff ff ff"), Encoding::msgpack),
            Value::array({Value::big_integer("18446744073709551615")}));
  // Over the string limit, digits are too_large like any text.
  ReadOptions options;
  options.max_string_length = 299;
  expect_json_error("[1, " + digits + "]", Errc::too_large, 4, options);
  expect_json_error("[1, \"~n" + digits + "\"]", Errc::too_large, 4, options);
}

TEST(Hostile, FloatsOutOfRange) {
  // Beyond double range a JSON number is too_large; below it, zero.
  expect_json_error("[1e400]", Errc::too_large, 1);
  expect_json_error("[0, -1e400]", Errc::too_large, 4);
  expect_json_error("[0.1e99999999999999999999]", Errc::too_large, 1);
  EXPECT_EQ(transit::read("[1e-400, -1e-99999]"), Value::array({0.0, -0.0}));
  // As ~d text the codec's own parser reads overflow as infinity, written back as ~zINF.
  const Value v = transit::read(R"(["~d1e400", "~d-1e400"])");
  EXPECT_EQ(v[0].as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(v[1].as_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(transit::read(transit::write(v)), v);
  expect_json_error(R"(["~d1e", 1])", Errc::bad_rep, 1);
  expect_json_error("[1.]", Errc::syntax, 3);
  expect_json_error("[01]", Errc::syntax, 2);
  expect_json_error("[-]", Errc::syntax, 2);
}

// ---- UTF-8 ---------------------------------------------------------------------------------------

TEST(Hostile, InvalidUtf8InJson) {
  expect_json_error("[\"\xff\"]", Errc::invalid_utf8, 1);
  expect_json_error("[1, \"a\xc3\"]", Errc::invalid_utf8, 4);            // cut short
  expect_json_error("[\"\xe0\x80\xaf\"]", Errc::invalid_utf8, 1);        // overlong
  expect_json_error("[\"\xf4\x90\x80\x80\"]", Errc::invalid_utf8, 1);    // above U+10FFFF
  expect_json_error("[\"~:\xed\xb0\x80\"]", Errc::invalid_utf8, 1);      // lone surrogate
  expect_json_error("{\"\x80\":1}", Errc::invalid_utf8, 1);              // in a key
  expect_json_error(R"(["\udc00"])", Errc::invalid_utf8, 1);             // escaped lone low half
}

// A `~b` string is not checked for UTF-8 before its base64 is decoded (which takes ASCII
// only; `b` is a ground tag, which no read handler replaces): invalid UTF-8 there is bad
// base64, in the plain form and in the one with whitespace.
TEST(Hostile, InvalidUtf8InMsgpackBase64) {
  const std::string bad = hex("91 b2 7e 62") + std::string(8, 'Q') + "\xff\xfe" + std::string(6, 'Q');
  expect_mp_error(bad, Errc::bad_rep, 1);
  expect_mp_error(hex("91 a4 7e 62 c3 28"), Errc::bad_rep, 1);
  expect_mp_error(hex("91 a7 7e 62 59 57 20 c3 28"), Errc::bad_rep, 1);
  EXPECT_EQ(transit::read(hex("91 a6 7e 62 59 57 4a 6a"), Encoding::msgpack),
            Value::array({Value::bytes("abc")}));
  EXPECT_EQ(transit::read(hex("91 a7 7e 62 59 57 20 4a 6a"), Encoding::msgpack),
            Value::array({Value::bytes("abc")}));
}

TEST(Hostile, InvalidUtf8InMsgpack) {
  expect_mp_error(hex("91 a1 ff"), Errc::invalid_utf8, 1);
  expect_mp_error(hex("92 01 a2 c3 28"), Errc::invalid_utf8, 2);
  expect_mp_error(hex("91 a3 ed a0 80"), Errc::invalid_utf8, 1);
  expect_mp_error(hex("81 a1 80 01"), Errc::invalid_utf8, 1);  // a map key
  // A bin is bytes, not text: anything goes.
  EXPECT_EQ(transit::read(hex("91 c4 01 ff"), Encoding::msgpack),
            Value::array({Value::bytes("\xff")}));
}

// ---- NUL bytes -----------------------------------------------------------------------------------

TEST(Hostile, NulBytes) {
  using namespace std::string_literals;
  // Escaped, NUL is a character like any other; raw, it is not JSON.
  EXPECT_EQ(transit::read(R"(["a\u0000b"])"), Value::array({"a\0b"s}));
  expect_json_error("[\"a\0b\"]"s, Errc::syntax, 3);
  expect_json_error("[1,\0 2]"s, Errc::syntax, 3);
  expect_json_error("\0[1]"s, Errc::syntax, 0);
  expect_json_error("[1]\0"s, Errc::trailing_data, 3, {}, Stream::skip);
  // In MessagePack a NUL byte is the integer 0 or part of a string.
  EXPECT_EQ(transit::read(hex("92 00 a3 61 00 62"), Encoding::msgpack), Value::array({0, "a\0b"s}));
}

// ---- found by fuzzing ----------------------------------------------------------------------------

TEST(Hostile, RawControlCharactersInStringsAtEveryAlignment) {
  // fuzz_json: RapidJSON's SSE2 scan in situ compares with 0x19, so raw 0x1A-0x1F went through
  // from memory while a Source (read byte by byte) rejected them.
  for (char c = 0x01; c < 0x20; ++c) {
    for (std::size_t pad = 0; pad < 40; pad += 3) {
      const std::string text = "[\"" + std::string(pad, 'a') + c + "b\"]";
      SCOPED_TRACE(static_cast<int>(c));
      expect_json_error(text, Errc::syntax, 2 + pad);
    }
  }
  // And when a control character the scan does catch follows one it does not, or outside
  // strings, where the parser sees the raw byte.
  expect_json_error("[\"0123456789abcdefghijklmn\x1e:\x0f\"]", Errc::syntax, 26);
  expect_json_error("[1,\x1e 2]", Errc::syntax, 3);
  // Escaped, they are characters like any other.
  EXPECT_EQ(transit::read(R"(["aaaaaaaaaaaaaaaaaaaa\u001a"])"),
            Value::array({"aaaaaaaaaaaaaaaaaaaa\x1a"}));
}

TEST(Hostile, StringsOfEveryLengthInMemory) {
  // fuzz_json under ASan: the SSE2 scanners load whole 16-byte blocks, past the end of an
  // unpadded copy of the input. Every length and alignment of the last string is read here.
  for (std::size_t n = 0; n < 64; ++n) {
    const std::string s(n, 'x');
    EXPECT_EQ(transit::read("[\"" + s + "\"]"), Value::array({s}));
    EXPECT_EQ(transit::read("\"~~" + s + "\""), Value("~" + s));
  }
}

TEST(Hostile, ParseErrorsBehindTheChunkKeepTheirLine) {
  // fuzz_json: RapidJSON places a bad surrogate pair at its first escape, which a Source may
  // already have dropped with its chunk; the error lost its line and column.
  const Error e = expect_json_error("\n  [\"abc\\ud800\\u0041\"]", Errc::invalid_utf8, 8);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 8u);
}

TEST(Hostile, MsgpackClaimsAtTheEndOfAStreamAreJudgedAsInMemory) {
  // fuzz_msgpack: from memory "94" failed on its claim of 4 items in 1 byte, from a Source
  // (which knows its size once it has ended) as a plain truncation with another path.
  const Error e = expect_mp_error(hex("94"), Errc::truncated, 1);
  EXPECT_EQ(e.detail(), "array of 4 items cannot fit in the 1 bytes of input");
  EXPECT_EQ(e.path(), "$");
  expect_mp_error(hex("92 01 82 a1 61"), Errc::truncated, 5);
  // fuzz_msgpack: the scan stopped at 0xc1, so from a Source the claim of 10 items was judged
  // on the 6 bytes before it (truncated), while memory reached the 0xc1 (syntax).
  expect_mp_error(hex("9a 00 01 00 03 c1 01 02 03 04 05"), Errc::syntax, 5);
  expect_mp_error(hex("9a 00 c1"), Errc::truncated, 3);
}

// ---- syntax --------------------------------------------------------------------------------------

TEST(Hostile, SyntaxErrorsInLaterValuesAreAtTheirByte) {
  transit::Reader reader("[1] [1,]");
  EXPECT_EQ(reader.next(), Value::array({1}));
  const Error e = next_error(reader);
  EXPECT_EQ(e.code(), Errc::syntax);
  EXPECT_EQ(e.offset(), 7u);
  EXPECT_EQ(e.column(), 8u);
  const Error s = stream_error("[1]\n[1,]", Encoding::json, {}, 2);
  EXPECT_EQ(s.code(), Errc::syntax);
  EXPECT_EQ(s.offset(), 7u);
  EXPECT_EQ(s.line(), 2u);
}

TEST(Hostile, MsgpackNeverUsedByteAndExtTypes) {
  expect_mp_error(hex("c1"), Errc::syntax, 0);
  expect_mp_error(hex("92 01 c1"), Errc::syntax, 2);
  expect_mp_error(hex("91 d8 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"), Errc::bad_rep, 1);
}

// ---- memory per value (issue 12, item 8) ----------------------------------------------------------

// The peak resident memory, in bytes, of a child process that runs `read` and exits; minus
// that of a child that reads nothing, so only what reading added counts. 0 when the child
// failed (the test then fails on its exit status).
template <class F>
std::size_t peak_rss_of(F read, int* status) {
  const auto child_peak = [](auto body, int* st) -> std::size_t {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        body();
      } catch (...) {
        code = 3;
      }
      ::_exit(code);
    }
    int s = 0;
    struct rusage usage {};
    ::wait4(pid, &s, 0, &usage);
    if (st) *st = s;
    return static_cast<std::size_t>(usage.ru_maxrss) * 1024;
  };
  const std::size_t baseline = child_peak([] {}, nullptr);
  const std::size_t peak = child_peak(read, status);
  return peak > baseline ? peak - baseline : 0;
}

// MessagePack: 4M nils in one array, 4 MB. Each item became a Value on the decoder's stack
// (grown by doubling: 64 MB, 96 MB while it moved) and was then copied into the array's node
// (64 MB more): 32x the input. The count is announced, so the items now go straight into the
// node: its 16 bytes per item, plus the input itself.
TEST(HostileMemory, AnnouncedArrayIsBuiltInPlace) {
  if (transit::test::kAsan) GTEST_SKIP() << "AddressSanitizer's shadow memory distorts RSS";
  constexpr std::size_t n = std::size_t{4} << 20;
  const std::string input = hex("dd 00 40 00 00") + std::string(n, '\xc0');
  int status = -1;
  const std::size_t peak = peak_rss_of([&] {
    const Value v = transit::read(input, Encoding::msgpack);
    if (v.size() != n || v[n - 1] != Value()) ::_exit(4);
  }, &status);
  EXPECT_EQ(status, 0);
  EXPECT_LE(peak, 18 * n) << peak / n << " bytes per input byte";
  // The same from a stream, whose buffer holds the value's bytes once more. Measured at
  // 19.2-19.3x on main after the merges (about 2 MB more than the 19x first chosen here, which
  // failed in the CI rehearsal): 20x keeps a margin and still fails the 32x of before.
  const std::size_t streamed = peak_rss_of([&] {
    transit::test::StepSource source(input, 1 << 16);
    transit::Reader reader(source, Encoding::msgpack);
    if (reader.next()->size() != n) ::_exit(4);
  }, &status);
  EXPECT_EQ(status, 0);
  EXPECT_LE(streamed, 20 * n) << streamed / n << " bytes per input byte";
}

// A set checks its items for duplicates with a table that once had 2 to 4 slots of 16 bytes
// for every item given: 4M nils in a set (4 MB) took 64 MB of items and 128 MB of table for
// a set of one. The table now grows with the distinct items found.
TEST(HostileMemory, SetOfDuplicatesCostsItsItemsOnly) {
  if (transit::test::kAsan) GTEST_SKIP() << "AddressSanitizer's shadow memory distorts RSS";
  constexpr std::size_t n = std::size_t{4} << 20;
  const std::string input = hex("92 a5 7e 23 73 65 74 dd 00 40 00 00") + std::string(n, '\xc0');
  int status = -1;
  const std::size_t peak = peak_rss_of([&] {
    const Value v = transit::read(input, Encoding::msgpack);
    if (v.kind() != Kind::set || v.size() != 1) ::_exit(4);
  }, &status);
  EXPECT_EQ(status, 0);
  EXPECT_LE(peak, 18 * n) << peak / n << " bytes per input byte";
}

// MessagePack: a map of 2M entries, all nil to nil, 4 MB. Its keys and values waited on the
// decoder's stack (reserved at once for the count: 64 MB) and were then moved into the map's
// node (64 MB more), for a map of one entry: 32x the input. They now go straight into the
// node, which the duplicates are removed in: its 32 bytes an entry, plus the input itself.
TEST(HostileMemory, AnnouncedMapIsBuiltInPlace) {
  if (transit::test::kAsan) GTEST_SKIP() << "AddressSanitizer's shadow memory distorts RSS";
  constexpr std::size_t n = std::size_t{2} << 20;
  const std::string input = hex("df 00 20 00 00") + std::string(2 * n, '\xc0');
  int status = -1;
  const std::size_t peak = peak_rss_of([&] {
    const Value v = transit::read(input, Encoding::msgpack);
    if (v.kind() != Kind::map || v.size() != 1) ::_exit(4);
  }, &status);
  EXPECT_EQ(status, 0);
  EXPECT_LE(peak, 18 * input.size()) << peak / input.size() << " bytes per input byte";
}

// JSON does not announce counts: items wait on the stack until their array ends, and past 64K
// items move to slots of their own, so 4M `[]` (12 MB) hold 64 MB of Values at the end. In
// memory the text is parsed by simdjson, whose tape and structural index take about 10x the
// text while the document is walked: measured 15.8x here and 16.3x in a clean-clone CI run,
// so the bound is 17x; before, the stack's copy (grown by doubling) came on top.
TEST(HostileMemory, JsonArrayStaysWithinSeventeenTimesItsBytes) {
  if (transit::test::kAsan) GTEST_SKIP() << "AddressSanitizer's shadow memory distorts RSS";
  constexpr std::size_t n = std::size_t{4} << 20;
  std::string input = "[[]";
  for (std::size_t i = 1; i < n; ++i) input += ",[]";
  input += "]";
  int status = -1;
  const std::size_t peak = peak_rss_of([&] {
    if (transit::read(input).size() != n) ::_exit(4);
  }, &status);
  EXPECT_EQ(status, 0);
  EXPECT_LE(peak, 17 * input.size()) << peak / input.size() << " bytes per input byte";
}

// A text in memory of a million small values (6 MB): simdjson reads them one at a time, with
// buffers sized to a value, and RapidJSON never copies the text. Before, the text was handed to
// simdjson whole (its structural index alone took 4 bytes a byte of it), which refused it, and
// RapidJSON then read it all from a copy of its own.
TEST(HostileMemory, ManySmallJsonValuesInMemoryTakeNoBuffersSizedToTheText) {
  if (transit::test::kAsan) GTEST_SKIP() << "AddressSanitizer's shadow memory distorts RSS";
  constexpr std::size_t n = 1'000'000;
  std::string input;
  input.reserve(6 * n);
  for (std::size_t i = 0; i < n; ++i) input += "[1,2]\n";
  int status = -1;
  const std::size_t peak = peak_rss_of([&] {
    transit::Reader reader(input);
    std::size_t read = 0;
    while (reader.next()) ++read;
    if (read != n) ::_exit(4);
  }, &status);
  EXPECT_EQ(status, 0);
  // Measured 2.2 MB (1.2 MB in a program of its own); 20.6 MB (3.5x) before.
  EXPECT_LE(peak, input.size()) << peak << " bytes for a text of " << input.size();
}

// A count is taken at its word only while every item announced and not yet seen fits in the
// bytes left. 40 nested arrays, each announcing a million items and holding a nil before the
// next, then a million nils and the end of the input: 1 MB that once claimed room for 40
// arrays of a million (640 MB). The reader has 128 MB of address space more than it started
// with: reserving for every claim fails with bad_alloc, reserving for the first only reads on
// to the truncation.
TEST(HostileMemory, LyingCountsReserveNothing) {
  if (transit::test::kAsan) GTEST_SKIP() << "an address-space limit means nothing under AddressSanitizer";
  std::string input;
  for (int level = 0; level < 40; ++level) input += hex("dd 00 0f 42 40 c0");
  input += std::string(1'000'000, '\xc0');
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    statm >> pages;
    const rlim_t limit = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{128} << 20);
    const rlimit as{limit, limit};
    ::setrlimit(RLIMIT_AS, &as);
    for (const bool stream : {false, true}) {
      try {
        if (stream) {
          transit::test::StepSource source(input, 4096);
          transit::Reader(source, Encoding::msgpack).next();
        } else {
          (void)transit::read(input, Encoding::msgpack);
        }
        ::_exit(1);
      } catch (const Error& e) {
        if (e.code() != Errc::truncated) ::_exit(2);
      } catch (const std::bad_alloc&) {
        ::_exit(3);
      }
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: read, 2: not truncated, 3: bad_alloc";
}

// A value that failed half-way gives back what its open arrays held (ASan's leak check and
// use-after-free detection watch this), in memory, from a stream, and with a read handler set
// (which builds on the heap rather than in an arena).
TEST(HostileMemory, FailedValueDropsItsOpenArrays) {
  const std::string item = mp_str(std::string(40, 's'));
  // [[s, s, [s, s, <truncated>
  const std::string input = hex("92 93") + item + item + hex("94") + item + item;
  transit::ReadOptions with_handler;
  transit::ReadHandlers handlers;
  handlers.add("point", [](const Value& rep) { return rep; });
  with_handler.handlers = &handlers;
  for (const ReadOptions& options : {ReadOptions{}, with_handler}) {
    try {
      (void)transit::read(input, Encoding::msgpack, options);
      ADD_FAILURE() << "read a truncated value";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::truncated);
    }
    transit::test::StepSource source(input + hex("c0"), 3);
    transit::Reader reader(source, Encoding::msgpack, options);
    EXPECT_THROW(reader.next(), Error);
  }
  // The same arrays, complete, read as ever.
  const Value v = transit::read(hex("92 93") + item + item + hex("c0 94") + item + item +
                                    hex("c0 c0"), Encoding::msgpack);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].size(), 3u);
  EXPECT_EQ(v[1].size(), 4u);
  EXPECT_EQ(v[0][1].as_string(), std::string(40, 's'));
}

// After a large value, the decoder's stack gives its room back rather than holding it for the
// rest of the stream. A map's entries wait on the stack until it ends: 2M of them (16 MB of
// JSON, all one key) took 64 MB of stack, held while the next value, `[1]`, was read.
TEST(HostileMemory, ValueStackShrinksAfterALargeValue) {
  if (transit::test::kAsan) GTEST_SKIP() << "AddressSanitizer's allocator keeps its own books";
  constexpr std::size_t n = std::size_t{2} << 20;
  std::string input = R"({"a":0)";
  for (std::size_t i = 1; i < n; ++i) input += R"(,"a":1)";
  input += "} [1]";
  transit::test::StepSource source(input, 1 << 20);
  transit::Reader reader(source);
  const auto heap_in_use = [] {
    const struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
  };
  const std::size_t before = heap_in_use();
  EXPECT_EQ(reader.next()->find(Value("a"))->as_int(), 1);
  EXPECT_EQ(reader.next()->size(), 1u);
  const std::size_t after = heap_in_use();
  // The reader's buffer holds the 16 MB input until the stream ends.
  EXPECT_LE(after, before + (std::size_t{24} << 20)) << (after - before) / 1024 << " KiB";
}

}  // namespace
