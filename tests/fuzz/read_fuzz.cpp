// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the reader over arbitrary bytes, from memory and from a Source handing them
// out a few at a time. Every failure must be a transit::Error that says where (a byte offset
// within the input), and both paths must agree on the values and on the error. Then, with
// handlers that refuse some values, next() is called again after every error: a refusal must
// fail its call alone and an error of the input every later call (read_on). Built twice:
// TRANSIT_FUZZ_ENCODING picks JSON or MessagePack.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "codec/codec.h"
#include "codec/cpu.h"
#include "codec/utf8_simd.h"
#include "support/refusals.h"
#include "support/step_source.h"
#include "testing.h"
#include "transit/transit.h"

namespace {

constexpr transit::Encoding kEncoding = transit::Encoding::TRANSIT_FUZZ_ENCODING;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "read_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}


// The vector UTF-8 check must decide the input's bytes, and every tail of them, as the scalar
// loop does (codec/utf8_simd.h): the reads below meet it only on strings of 32 bytes or more.
void check_utf8_kernel(std::string_view input) {
#if defined(__x86_64__)
  if (!transit::detail::cpu_has_avx2()) return;
  for (std::size_t from = 0; from + 32 <= input.size(); from += 1 + from / 4) {
    const std::string_view text = input.substr(from);
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    if (transit::detail::utf8_valid_avx2(bytes, text.size()) !=
        transit::detail::is_valid_utf8_scalar(text))
      fail("UTF-8 kernel and scalar check differ", std::to_string(from));
  }
#else
  (void)input;
#endif
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

// ---- Reading on past values that user code refuses (docs/errors.md, "A Reader that has
// thrown") ----

using transit::test::refused_by_handler;
using transit::test::Refuse;

// User code that refuses some values, each kind of refusal a reader must go on past: the
// default handler (every tag no handler takes; support/refusals.h) and the builders of a map of
// three entries and an array of five items.
const transit::ReadHandlers& refusing_handlers() {
  static const transit::ReadHandlers handlers = [] {
    transit::ReadHandlers h;
    h.set_default(transit::test::refuse_some);
    h.set_map_builder([](std::span<transit::Value> flat) {
      if (flat.size() == 6) throw std::runtime_error(std::string(transit::test::kRefusalMark));
      std::vector<transit::Entry> entries;
      for (std::size_t i = 0; i + 1 < flat.size(); i += 2) entries.emplace_back(flat[i], flat[i + 1]);
      return transit::Value::map(std::move(entries));
    });
    h.set_array_builder([](std::span<transit::Value> items) {
      if (items.size() == 5) throw std::runtime_error(std::string(transit::test::kRefusalMark));
      return transit::Value::array(std::vector<transit::Value>(items.begin(), items.end()));
    });
    return h;
  }();
  return handlers;
}

// Calls next() until the input ends or fails, going on after every refusal; per call, what it
// gave. A refusal fails its call alone: the reader has gone past the value, or the value
// holds an error of the input, which the next call throws. An error of the input is thrown
// again by every later call. No more calls than the input has bytes.
std::vector<std::string> read_on(transit::Reader& reader, std::size_t size) {
  std::vector<std::string> out;
  bool input_error_next = false;  // a refusal that did not move the reader
  for (std::size_t calls = 0;; ++calls) {
    if (calls > size + 1) fail("read on: more calls than the input has bytes", std::to_string(calls));
    const std::size_t before = reader.offset();
    std::string refused;
    try {
      const std::optional<transit::Value> v = reader.next();
      if (input_error_next) fail("read on: a refusal that did not move the reader, then no error", "");
      if (!v) {
        out.emplace_back("end");
        return out;
      }
      out.push_back(transit::to_edn(*v));
      continue;
    } catch (const transit::Error& e) {
      if (!refused_by_handler(e)) {
        if (e.offset() > size) fail("read on: error placed past the input", e.what());
        try {
          (void)reader.next();
          fail("read on: an error of the input not thrown again", e.what());
        } catch (const transit::Error& again) {
          if (std::string_view(again.what()) != e.what())
            fail("read on: an error of the input thrown again differently", std::string(e.what()) + " | " + again.what());
        }
        out.push_back(std::string("error ") + e.what());
        return out;
      }
      if (input_error_next) fail("read on: a refusal that did not move the reader, then another", e.what());
      refused = std::string("refused ") + e.what();
    } catch (const Refuse&) {
      if (input_error_next) fail("read on: a refusal that did not move the reader, then another", "Refuse");
      refused = "refused Refuse";
    }
    input_error_next = reader.offset() == before;
    out.push_back(std::move(refused));
  }
}

// The largest input read on past refusals.
constexpr std::size_t kReadOnMost = 2048;

int finish(const Outcome& memory) {
  // Printing every value exercises every accessor on whatever was read.
  for (const transit::Value& v : memory.values) (void)transit::to_edn(v);
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_utf8_kernel(input);
  // A JSON text of many values in memory goes through simdjson's stream (ValueStream) in
  // batches: the library's 16 KiB is one batch for most inputs here, so a quarter of them
  // each take batches from simdjson's least up, whose ends fall inside values.
  constexpr std::size_t kStreamBatches[] = {32, 100, 1000, std::size_t{16} << 10};
  transit::detail::testing::set_json_stream_batch(kStreamBatches[size % std::size(kStreamBatches)]);
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
  // Refusals are a matter of control flow, which small inputs show: larger ones are read on
  // past refusals no more (with builders run on every container, that read costs three times
  // the rest of this target).
  if (size > kReadOnMost) return finish(memory);

  // Reading on past refused values, from memory and a few bytes at a time: the same calls give
  // the same, but for the input's error, whose place may differ as above (read_on_difference).
  transit::ReadOptions refusing = options();
  refusing.handlers = &refusing_handlers();
  transit::Reader memory_on_reader(input, kEncoding, refusing);
  const std::vector<std::string> memory_on = read_on(memory_on_reader, size);
  transit::test::StepSource on_source(std::string(input), 1 + size % 5);
  transit::Reader stream_on_reader(on_source, kEncoding, refusing);
  const std::vector<std::string> stream_on = read_on(stream_on_reader, size);
  // A syntax error is in the bytes, whatever code reads them: one that a read without handlers
  // did not meet is where a refusal left the reader (inside the refused value).
  if (!memory.error && memory_on.back().starts_with("error transit: syntax"))
    fail("read on: a syntax error that a read without handlers does not meet", memory_on.back());
  if (const std::string d = transit::test::read_on_difference(memory_on, stream_on, "refused "); !d.empty())
    fail("read on: memory and stream differ", d);

  return finish(memory);
}
