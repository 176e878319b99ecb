// SPDX-License-Identifier: Apache-2.0
#include "transit/reader.h"

#include <algorithm>
#include <atomic>
#include <string_view>
#include <type_traits>

#include "backend.h"
#include "testing.h"
#include "transit/typed.h"

namespace transit {
namespace {

// Where `offset` is in `input`, with the line and column JSON errors carry everywhere else.
Location locate(std::string_view input, std::size_t offset, Encoding encoding) {
  Location where{offset, 0, 0};
  if (encoding == Encoding::msgpack) return where;
  const std::string_view before = input.substr(0, offset);
  where.line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n');
  where.column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return where;
}

void check_options(const ReadOptions& options) {
  if (options.max_depth > ReadOptions::kMaxDepthLimit)
    detail::throw_error(Errc::invalid_argument,
                        "max_depth " + std::to_string(options.max_depth) + " is above the limit of " +
                            std::to_string(ReadOptions::kMaxDepthLimit));
}

// The batch ReadOptions::kLibraryDefault stands for (see testing.h).
std::atomic<std::size_t> default_batch_tokens{256};
thread_local std::size_t whole_reread_count = 0;
thread_local std::size_t refill_count = 0;
thread_local std::size_t json_buffered_read_count = 0;
thread_local std::size_t json_value_alone_count = 0;
thread_local std::size_t json_value_streamed_count = 0;
thread_local std::size_t json_whole_refusal_count = 0;
thread_local std::size_t json_stream_batch_bytes = std::size_t{16} << 10;
thread_local bool json_in_place_on = true;
thread_local bool json_simdjson_on = true;

// Checks the options and makes their defaults the library's.
void settle_options(ReadOptions& options) {
  check_options(options);
  if (options.typed_batch_tokens == ReadOptions::kLibraryDefault)
    options.typed_batch_tokens = default_batch_tokens.load(std::memory_order_relaxed);
}

}  // namespace

void detail::testing::set_default_typed_batch_tokens(std::size_t tokens) noexcept {
  default_batch_tokens.store(tokens, std::memory_order_relaxed);
}
std::size_t detail::testing::default_typed_batch_tokens() noexcept {
  return default_batch_tokens.load(std::memory_order_relaxed);
}
std::size_t detail::testing::whole_rereads() noexcept { return whole_reread_count; }
std::size_t detail::testing::refills() noexcept { return refill_count; }
void detail::testing::count_whole_reread() noexcept { ++whole_reread_count; }
void detail::testing::count_refill() noexcept { ++refill_count; }
std::size_t detail::testing::json_buffered_reads() noexcept { return json_buffered_read_count; }
void detail::testing::count_json_buffered_read() noexcept { ++json_buffered_read_count; }
std::size_t detail::testing::json_values_alone() noexcept { return json_value_alone_count; }
std::size_t detail::testing::json_values_streamed() noexcept { return json_value_streamed_count; }
void detail::testing::count_json_value_alone(bool streamed) noexcept {
  ++json_value_alone_count;
  if (streamed) ++json_value_streamed_count;
}
std::size_t detail::testing::json_whole_refusals() noexcept { return json_whole_refusal_count; }
void detail::testing::count_json_whole_refusal() noexcept { ++json_whole_refusal_count; }
void detail::testing::set_json_stream_batch(std::size_t bytes) noexcept { json_stream_batch_bytes = bytes; }
std::size_t detail::testing::json_stream_batch() noexcept { return json_stream_batch_bytes; }
void detail::testing::set_json_in_place(bool on) noexcept { json_in_place_on = on; }
bool detail::testing::json_in_place() noexcept { return json_in_place_on; }
void detail::testing::set_json_simdjson(bool on) noexcept { json_simdjson_on = on; }
bool detail::testing::json_simdjson() noexcept { return json_simdjson_on; }

namespace {
// The backend for `encoding`, reading `input` (text in memory or a Source).
template <class Input>
std::unique_ptr<Reader::Impl> make_reader(Input& input, Encoding encoding,
                                          const ReadOptions& options) {
  switch (encoding) {
    case Encoding::json:
    case Encoding::json_verbose:
      if constexpr (std::is_same_v<Input, std::string_view>) {
        const bool use_simdjson = detail::testing::json_simdjson();
        if (auto kept = detail::take_json_reader(input, options, use_simdjson)) return kept;
        return detail::make_json_reader(input, options, use_simdjson);
      } else
        return detail::make_json_reader(input, options);
    case Encoding::msgpack:
      return detail::make_msgpack_reader(input, options);
  }
  return nullptr;
}
}  // namespace

Reader::Reader(std::string_view input, Encoding encoding, ReadOptions options)
    : handlers_(options.handlers) {
  settle_options(options);
  impl_ = make_reader(input, encoding, options);
}

Reader::Reader(Source& source, Encoding encoding, ReadOptions options)
    : handlers_(options.handlers) {
  settle_options(options);
  impl_ = make_reader(source, encoding, options);
}

namespace {
// One tape per thread outlives its reader, so a run of one-shot typed reads (read<T>) does not
// grow a tape from nothing each time. Only a tape of modest size is kept.
thread_local std::unique_ptr<detail::Tape> spare_tape;
constexpr std::size_t kSpareTapeTokens = std::size_t{1} << 20;
}  // namespace

Reader::~Reader() {
  // A reader that read no tape may be kept by its backend for the next one on this thread.
  if (impl_ && !tape_) impl_->retire(impl_);
  if (tape_ && !spare_tape && tape_->tokens.capacity() <= kSpareTapeTokens) {
    tape_->clear();
    spare_tape = std::move(tape_);
  }
}

std::optional<Value> Reader::next() { return impl_->next(); }
std::size_t Reader::offset() const noexcept { return impl_->offset(); }

bool Reader::next_tape() {
  if (!tape_) tape_ = spare_tape ? std::move(spare_tape) : std::make_unique<detail::Tape>();
  if (!tape_->key_memo) tape_->key_memo = std::make_unique<decltype(tape_->key_memo)::element_type>();
  return impl_->next_tape(*tape_);
}

void Reader::retape() {
  detail::testing::count_whole_reread();
  impl_->retape(*tape_);
}

void Reader::fail_bind(const detail::BindFailure& failure) const {
  impl_->remark(*tape_);
  const auto& tokens = tape_->tokens;
  const std::size_t i = std::min(failure.token, tokens.empty() ? 0 : tokens.size() - 1);
  const Location where = tokens.empty() ? Location{} : impl_->locate_mark(tape_->mark_of(i));
  detail::throw_error(failure.code, failure.detail, where, detail::tape_path(*tape_, i));
}

void detail::check_one_value(std::string_view input, Encoding encoding, bool got,
                             std::size_t offset) {
  if (!got)
    detail::throw_error(Errc::truncated, "no value in the input", locate(input, offset, encoding),
                        {});
  // Checked on the bytes, so what follows is reported as trailing whatever it is.
  const std::size_t rest = encoding == Encoding::msgpack
                               ? (offset < input.size() ? offset : input.npos)
                               : input.find_first_not_of(" \t\r\n", offset);
  if (rest != input.npos)
    detail::throw_error(Errc::trailing_data, "more input after the value",
                        locate(input, rest, encoding), {});
}

Value read(std::string_view input, Encoding encoding, ReadOptions options) {
  Reader reader(input, encoding, options);
  std::optional<Value> v = reader.next();
  detail::check_one_value(input, encoding, v.has_value(), reader.offset());
  return std::move(*v);
}

std::vector<Value> read_all(std::string_view input, Encoding encoding, ReadOptions options) {
  Reader reader(input, encoding, options);
  std::vector<Value> values;
  while (auto v = reader.next()) values.push_back(std::move(*v));
  return values;
}

}  // namespace transit
