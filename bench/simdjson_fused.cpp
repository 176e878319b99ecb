// SPDX-License-Identifier: Apache-2.0
// transit-simdjson-walk's modes `stage1`, `stage1-fused` and `stage1-fused-nocount`
// (docs/performance-log.md, "JSON read, round twenty"): simdjson's stage 1 through the public
// virtuals of its compiled kernel (simdjson::get_active_implementation(), the CPU's best), then
// a stage 2 of our own: one loop over the structural index that hands every token to the Sink
// as it meets it, with no tape and no string buffer. Strings with no backslash are viewed in the
// text in place, escaped ones are unescaped by the kernel's parse_string into a scratch buffer;
// numbers are parsed where they are (integers here, doubles by std::from_chars, exact). It
// checks the grammar the tape's stage 2 checks and says "not read" on anything else.
// First, before <simdjson.h>: this file does not want the header's On-Demand walk.
#include "simdjson_walk.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace walk {

namespace {

constexpr std::uint32_t kObject = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kCountMask = simdjson::internal::JSON_COUNT_MASK;  // the tape's saturation

inline bool is_space(std::uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool is_digit(std::uint8_t c) { return static_cast<unsigned>(c - '0') < 10; }

// A scalar token ends at `end`: the next structural character, or whitespace. Anything else
// (`truex`, `12a`) is not a token (stage 1 marks a scalar start only after whitespace or an
// operator, so such a tail is not a token of its own).
inline bool ends_here(const std::uint8_t* end, const std::uint8_t* next) {
  return end == next || is_space(*end);
}

}  // namespace

struct Fused::State {
  std::unique_ptr<simdjson::internal::dom_parser_implementation> impl;
  std::unique_ptr<std::uint8_t[]> scratch;  // unescaped strings: at most the text's length
  std::vector<std::uint32_t> counts;        // each array's item count, in the order they open
  std::vector<std::uint32_t> open;          // count_arrays' stack: an array's slot, or kObject
  std::vector<std::uint8_t> scopes;         // walk's stack: 1 in an array, 0 in an object
  std::size_t max_depth = simdjson::DEFAULT_MAX_DEPTH;

  bool count_arrays(const std::uint8_t* buf, const std::uint32_t* idx, std::uint32_t n);
  bool scalar(const std::uint8_t* p, const std::uint8_t* next, std::uint8_t*& cursor, Sink& d);
  bool string(const std::uint8_t* p, const std::uint8_t* next, std::uint8_t*& cursor, Sink& d);
  bool walk(const std::uint8_t* buf, std::size_t length, bool with_counts, Sink& d);
};

Fused::Fused(std::size_t capacity) : state_(std::make_unique<State>()) {
  if (simdjson::get_active_implementation()->create_dom_parser_implementation(
          capacity, state_->max_depth, state_->impl) != simdjson::SUCCESS)
    state_->impl.reset();
  state_->scratch = std::make_unique<std::uint8_t[]>(capacity + simdjson::SIMDJSON_PADDING);
  state_->scopes.resize(state_->max_depth);
}

Fused::~Fused() = default;

bool Fused::stage1(const char* padded, std::size_t length, Sink& d) {
  if (!state_->impl) return false;
  if (state_->impl->stage1(reinterpret_cast<const std::uint8_t*>(padded), length,
                           simdjson::stage1_mode::regular) != simdjson::SUCCESS)
    return false;
  d.uinteger(state_->impl->n_structural_indexes);
  return true;
}

bool Fused::read(const char* padded, std::size_t length, bool with_counts, Sink& d) {
  if (!state_->impl) return false;
  const auto* buf = reinterpret_cast<const std::uint8_t*>(padded);
  if (state_->impl->stage1(buf, length, simdjson::stage1_mode::regular) != simdjson::SUCCESS)
    return false;
  return state_->walk(buf, length, with_counts, d);
}

// What the tape has and the index has not: an array's item count, which the tape's stage 2
// writes into the array's opening word when the array closes. Here one pass over the index
// before the walk: commas at each array's own level, plus one unless it is empty. It trusts
// the grammar (the walk checks it); on unbalanced brackets it says no.
bool Fused::State::count_arrays(const std::uint8_t* buf, const std::uint32_t* idx,
                                std::uint32_t n) {
  counts.clear();
  open.clear();
  for (std::uint32_t k = 0; k < n; ++k) {
    switch (buf[idx[k]]) {
      case '[':
        open.push_back(static_cast<std::uint32_t>(counts.size()));
        counts.push_back(buf[idx[k + 1]] == ']' ? 0 : 1);  // idx[n] is the length: a 0 byte
        break;
      case '{': open.push_back(kObject); break;
      case ',':
        if (!open.empty() && open.back() != kObject) ++counts[open.back()];
        break;
      case ']':
      case '}':
        if (open.empty()) return false;
        open.pop_back();
        break;
      default: break;
    }
  }
  return true;
}

// A string token at p (its opening quote); `next` is the next token. Between the closing quote
// and the next token there is only whitespace (stage 1 marks any other character after a
// quote as a token), so the closing quote is the last non-space byte before `next`: the tape's
// length, found without a scan of the string. With no backslash in it the string is viewed in
// place; with one, the kernel unescapes it (and checks the escapes) into the scratch buffer.
bool Fused::State::string(const std::uint8_t* p, const std::uint8_t* next, std::uint8_t*& cursor,
                          Sink& d) {
  const std::uint8_t* q = next - 1;
  while (q > p && is_space(*q)) --q;
  if (q == p || *q != '"') return false;
  const std::size_t size = static_cast<std::size_t>(q - p - 1);
  if (std::memchr(p + 1, '\\', size) == nullptr) {
    d.string({reinterpret_cast<const char*>(p + 1), size});
    return true;
  }
  std::uint8_t* const end = impl->parse_string(p + 1, cursor);
  if (end == nullptr) return false;
  d.string({reinterpret_cast<const char*>(cursor), static_cast<std::size_t>(end - cursor)});
  cursor = end;
  return true;
}

// Every token that is not a container. Numbers as the tape's stage 2 takes them (its
// parse_number): JSON's grammar; an integer in int64 as signed, above it to UINT64_MAX as
// unsigned, beyond that refused; with a fraction or exponent a double, correctly rounded
// (std::from_chars; where it reports out of range, an underflow is a signed 0 and an overflow
// refused, as simdjson has them).
bool Fused::State::scalar(const std::uint8_t* p, const std::uint8_t* next, std::uint8_t*& cursor,
                          Sink& d) {
  switch (*p) {
    case '"': return string(p, next, cursor, d);
    case 't':
      if (std::memcmp(p, "true", 4) != 0 || !ends_here(p + 4, next)) return false;
      d.boolean(true);
      return true;
    case 'f':
      if (std::memcmp(p, "false", 5) != 0 || !ends_here(p + 5, next)) return false;
      d.boolean(false);
      return true;
    case 'n':
      if (std::memcmp(p, "null", 4) != 0 || !ends_here(p + 4, next)) return false;
      d.null();
      return true;
    default: break;
  }
  const bool negative = *p == '-';
  const std::uint8_t* s = p + negative;
  const std::uint8_t* const digits = s;
  std::uint64_t v = 0;
  while (is_digit(*s)) v = v * 10 + static_cast<std::uint64_t>(*s++ - '0');
  const std::size_t count = static_cast<std::size_t>(s - digits);
  if (count == 0 || (*digits == '0' && count > 1)) return false;
  bool is_float = false;
  if (*s == '.') {
    const std::uint8_t* const fraction = ++s;
    while (is_digit(*s)) ++s;
    if (s == fraction) return false;
    is_float = true;
  }
  if (*s == 'e' || *s == 'E') {
    ++s;
    if (*s == '+' || *s == '-') ++s;
    const std::uint8_t* const exponent = s;
    while (is_digit(*s)) ++s;
    if (s == exponent) return false;
    is_float = true;
  }
  if (!ends_here(s, next)) return false;
  if (is_float) {
    double x;
    const auto [ptr, ec] = std::from_chars(reinterpret_cast<const char*>(p),
                                           reinterpret_cast<const char*>(s), x);
    if (ec == std::errc::result_out_of_range) {  // simdjson reads an underflow as a signed 0
      const std::string token(reinterpret_cast<const char*>(p), static_cast<std::size_t>(s - p));
      if (std::fabs(std::strtod(token.c_str(), nullptr)) >= 1) return false;  // an overflow
      d.floating(negative ? -0.0 : 0.0);
      return true;
    }
    if (ec != std::errc() || ptr != reinterpret_cast<const char*>(s)) return false;
    d.floating(x);
    return true;
  }
  constexpr auto kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {  // up to 19 digits cannot wrap
    if (count > 19 || v > kInt64Max + 1) return false;
    d.integer(static_cast<std::int64_t>(~v + 1));
    return true;
  }
  // 20 digits fit only from 10^19 to UINT64_MAX: a wrapped value is below 10^19 (simdjson's test)
  if (count > 20 || (count == 20 && (*digits != '1' || v <= kInt64Max))) return false;
  if (v > kInt64Max)
    d.uinteger(v);
  else
    d.integer(static_cast<std::int64_t>(v));
  return true;
}

// The tape's stage 2 (simdjson's json_iterator::walk_document) without the tape: the same
// states (object_begin, object_field, object_continue, array_begin, array_value,
// array_continue, scope_end, document_end) and the same checks, delivering to the Sink.
// idx[n] is the text's length, where the padded copy holds a 0 byte: no token, so reading one
// past the last token fails the grammar there, never reads beyond.
bool Fused::State::walk(const std::uint8_t* buf, std::size_t length, bool with_counts, Sink& d) {
  const std::uint32_t* const idx = impl->structural_indexes.get();
  const std::uint32_t n = impl->n_structural_indexes;
  if (n == 0 || buf[length] != 0) return false;
  if (with_counts && !count_arrays(buf, idx, n)) return false;
  std::uint8_t* cursor = scratch.get();
  std::uint32_t i = 0;
  std::size_t depth = 0;
  std::size_t array = 0;
  // A value at p: a container's opening token (say which), or a scalar, read here.
  enum { kReadScalar, kOpensObject, kOpensArray, kWrong };
  const auto value = [&](const std::uint8_t* at) {
    if (*at == '{') return kOpensObject;
    if (*at == '[') return kOpensArray;
    return scalar(at, buf + idx[i], cursor, d) ? kReadScalar : kWrong;
  };
  const std::uint8_t* p = buf + idx[i++];
  switch (value(p)) {
    case kOpensObject: goto object_begin;
    case kOpensArray: goto array_begin;
    case kReadScalar: goto document_end;
    default: return false;
  }

object_begin:
  if (depth >= max_depth) return false;
  scopes[depth++] = 0;
  d.map_begin();
  p = buf + idx[i++];
  if (*p == '}') goto object_end;
object_field:
  if (*p != '"' || !string(p, buf + idx[i], cursor, d)) return false;
  if (buf[idx[i++]] != ':') return false;
  p = buf + idx[i++];
  switch (value(p)) {
    case kOpensObject: goto object_begin;
    case kOpensArray: goto array_begin;
    case kReadScalar: break;
    default: return false;
  }
object_continue:
  p = buf + idx[i++];
  if (*p == ',') {
    p = buf + idx[i++];
    goto object_field;
  }
  if (*p != '}') return false;
object_end:
  d.map_end();
  goto scope_end;

array_begin:
  if (depth >= max_depth) return false;
  scopes[depth++] = 1;
  d.array_begin(with_counts ? std::min(counts[array++], kCountMask) : 0);
  p = buf + idx[i++];
  if (*p == ']') goto array_end;
array_value:
  switch (value(p)) {
    case kOpensObject: goto object_begin;
    case kOpensArray: goto array_begin;
    case kReadScalar: break;
    default: return false;
  }
array_continue:
  if (buf[idx[i]] == ',') {
    p = buf + idx[i + 1];
    i += 2;
    goto array_value;
  }
  if (buf[idx[i++]] != ']') return false;
array_end:
  d.array_end();
  goto scope_end;

scope_end:
  if (--depth == 0) goto document_end;
  if (scopes[depth - 1] != 0) goto array_continue;
  goto object_continue;

document_end:
  return i == n;  // nothing after the root
}

}  // namespace walk
