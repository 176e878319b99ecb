// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the reader over arbitrary bytes, from memory and from a Source handing them
// out a few at a time. Every failure must be a transit::Error that says where (a byte offset
// within the input), and both paths must agree on the values and on the error. Built twice:
// TRANSIT_FUZZ_ENCODING picks JSON or MessagePack.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/step_source.h"
#include "testing.h"
#include "transit/transit.h"

namespace {

constexpr transit::Encoding kEncoding = transit::Encoding::TRANSIT_FUZZ_ENCODING;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "read_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}


struct Outcome {
  std::vector<transit::Value> values;
  std::optional<transit::Error> error;
};

Outcome read_everything(transit::Reader& reader, std::size_t size) {
  Outcome out;
  try {
    while (auto v = reader.next()) out.values.push_back(std::move(*v));
  } catch (const transit::Error& e) {
    if (e.offset() > size) fail("error placed past the input", e.what());
    out.error = e;
  }
  return out;
}

// Two reads of the same input give the same values and the same error message.
void expect_same(const Outcome& a, const Outcome& b, const char* what) {
  if (a.values != b.values) fail(what, "different values");
  if (a.error.has_value() != b.error.has_value() ||
      (a.error && std::string_view(a.error->what()) != b.error->what()))
    fail(what, std::string(a.error ? a.error->what() : "no error") + " | " +
                   (b.error ? b.error->what() : "no error"));
}

transit::ReadOptions options() {
  transit::ReadOptions o;
  o.max_depth = 64;  // deep enough for every shape, shallow enough to stay fast
  o.chunk_size = 16;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  transit::Reader memory_reader(input, kEncoding, options());
  const Outcome memory = read_everything(memory_reader, size);

  transit::test::StepSource source(std::string(input), 1 + size % 7);
  transit::Reader stream_reader(source, kEncoding, options());
  const Outcome stream = read_everything(stream_reader, size);

  // And all at once in one chunk: a JSON reader reads each array or object whole in it in
  // place (simdjson), the rest a byte at a time; it must read what the few-bytes Source reads.
  transit::test::StepSource whole_source(std::string(input), size + 1);
  transit::ReadOptions whole_options = options();
  whole_options.chunk_size = size + 1;
  transit::Reader whole_reader(whole_source, kEncoding, whole_options);
  const Outcome whole = read_everything(whole_reader, size);
  expect_same(whole, stream, "one chunk and a few bytes at a time");

  // And in chunks the Source fills (JSON reads ahead to read a value in place), against the
  // same chunks read a byte at a time by RapidJSON: the same values and the same error, to the
  // byte (where a too-large value fails depends on the chunks).
  const std::size_t chunk = 4 + size % 29;
  transit::ReadOptions chunk_options = options();
  chunk_options.chunk_size = chunk;
  transit::test::StepSource ahead_source(std::string(input), chunk);
  transit::Reader ahead_reader(ahead_source, kEncoding, chunk_options);
  const Outcome ahead = read_everything(ahead_reader, size);
  transit::detail::testing::set_json_in_place(false);
  transit::test::StepSource plain_source(std::string(input), chunk);
  transit::Reader plain_reader(plain_source, kEncoding, chunk_options);
  const Outcome plain = read_everything(plain_reader, size);
  transit::detail::testing::set_json_in_place(true);
  expect_same(ahead, plain, "in place and byte at a time");

  if (memory.values != stream.values) fail("memory and stream read different values", "");
  if (memory.error.has_value() != stream.error.has_value())
    fail("only one of memory and stream failed",
         memory.error ? memory.error->what() : stream.error->what());
  // One difference is by design: in memory a length beyond the input is truncated at once,
  // while a Source cannot know the input is short: it fails on a limit as soon as a header
  // claims too much, or on whatever error comes before that header.
  const bool claim_beyond_input = memory.error &&
                                  memory.error->code() == transit::Errc::truncated &&
                                  stream.error->offset() <= memory.error->offset();
  if (memory.error && !claim_beyond_input &&
      std::string_view(memory.error->what()) != stream.error->what())
    fail("memory and stream errors differ",
         std::string(memory.error->what()) + " | " + stream.error->what());
  // Printing every value exercises every accessor on whatever was read.
  for (const transit::Value& v : memory.values) (void)transit::to_edn(v);
  return 0;
}
