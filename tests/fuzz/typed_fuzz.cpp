// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: typed reads (transit/typed.h) over arbitrary bytes. Every input is read as
// each of a few types, from a rich Record that holds every kind of field the binders know to
// simple containers, so that the fuzzer reaches deep in each. Oracles, each an abort:
// - only transit::Error escapes, and its offset is within the input;
// - Reader::next<T>() from memory reads what it reads from a Source handing out a few bytes
//   at a time (with read_fuzz.cpp's one difference by design: see check);
// - small token batches (ReadOptions::typed_batch_tokens) read what one batch reads, to the
//   byte of the error;
// - each value of the stream read with read<T> of its own bytes is the value next<T>() read,
//   and a failure fails the same way at the same place;
// - the typed read against the Value path, from_value<T>(value, &handlers) of the value the
//   untyped reader read: the same T, or both fail (see holds_set for what the two
//   paths may disagree on by design). The untyped read is the same for every T: it is done
//   once an input (read_untyped).
// - reading on after every failure (read_on): with the Records and a default handler that
//   refuses some values, next<Value>() and next<Outer>() go on past a value that does not fit
//   or that user code refused, and an error of the input is thrown again by every later call.
// Every oracle runs on every input, none sampled.
// Built twice: TRANSIT_FUZZ_ENCODING picks JSON or MessagePack, so the corpora, seeds and
// regressions of read_fuzz's two targets serve it as they are, and every input meets every T.
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "support/refusals.h"
#include "support/step_source.h"
#include "transit/transit.h"

namespace fuzz {

enum class Color { red, green, blue };
enum class Level : std::int16_t { low = -1, high = 300 };

struct Base {
  virtual ~Base() = default;
  std::string id;
};
struct Circle : Base {
  std::int64_t radius = 0;
  std::optional<transit::Keyword> unit;
  friend bool operator==(const Circle&, const Circle&);
};
struct Poly : Base {
  std::vector<double> sides;
  std::list<std::int32_t> marks;
  friend bool operator==(const Poly&, const Poly&);
};

struct Inner {
  std::uint8_t small = 0;
  std::int16_t mid = 0;
  std::optional<std::string> note;
  std::vector<std::int64_t> ints;
  bool flag = false;
  friend bool operator==(const Inner&, const Inner&);
};

struct Outer {
  std::string name;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  double real = 0;
  bool on = false;
  Inner inner;
  std::vector<Inner> inners;
  std::unique_ptr<Base> shape;
  std::map<transit::Keyword, std::int64_t> by_keyword;
  std::map<std::vector<std::int64_t>, std::string> by_vector;  // composite keys: a cmap
  std::set<std::string> tags;
  std::unordered_map<std::string, double> weights;
  std::unordered_set<std::int64_t> ids;
  std::optional<Inner> maybe;
  std::variant<std::int64_t, std::string, Inner> either;
  std::tuple<bool, std::string, std::int16_t> triple;
  std::pair<std::uint8_t, transit::Symbol> pair;
  std::array<std::uint16_t, 3> three{};
  std::chrono::system_clock::time_point when;
  transit::Uuid uuid;
  transit::BigInteger big;
  transit::BigDecimal decimal;
  transit::Uri uri;
  transit::Value any;
  Color color = Color::red;
  Level level = Level::low;
  std::vector<std::byte> blob;
  std::optional<std::vector<std::unique_ptr<Base>>> shapes;
  friend bool operator==(const Outer&, const Outer&);
};

}  // namespace fuzz

template <>
struct transit::EnumNames<fuzz::Color> {
  static constexpr std::array names{std::pair{fuzz::Color::red, "red"},
                                    std::pair{fuzz::Color::green, "green"},
                                    std::pair{fuzz::Color::blue, "blue"}};
};

namespace fuzz {
namespace {

constexpr transit::Encoding kEncoding = transit::Encoding::TRANSIT_FUZZ_ENCODING;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "typed_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// The Records, for the read side and (for the seeds) the write side.
template <class Add>
void add_records(Add&& add) {
  using transit::Record;
  add(Record<Circle>("circle")
          .field(&Circle::id, "id")
          .field(&Circle::radius, "radius")
          .field(&Circle::unit, "unit")
          .derives<Base>());
  add(Record<Poly>("poly").field(&Poly::id, "id").field(&Poly::sides, "sides").field(&Poly::marks, "marks").derives<Base>());
  add(Record<Inner>("inner")
          .field(&Inner::small, "small")
          .field(&Inner::mid, "mid")
          .field(&Inner::note, "note")
          .field(&Inner::ints, "ints")
          .field(&Inner::flag, "flag"));
  add(Record<Outer>("outer")
          .field(&Outer::name, "name")
          .field(&Outer::i64, "i64")
          .field(&Outer::u64, "u64")
          .field(&Outer::real, "real")
          .field(&Outer::on, "on")
          .field(&Outer::inner, "inner")
          .field(&Outer::inners, "inners")
          .field(&Outer::shape, "shape")
          .field(&Outer::by_keyword, "by-keyword")
          .field(&Outer::by_vector, "by-vector")
          .field(&Outer::tags, "tags")
          .field(&Outer::weights, "weights")
          .field(&Outer::ids, "ids")
          .field(&Outer::maybe, "maybe")
          .field(&Outer::either, "either")
          .field(&Outer::triple, "triple")
          .field(&Outer::pair, "pair")
          .field(&Outer::three, "three")
          .field(&Outer::when, "when")
          .field(&Outer::uuid, "uuid")
          .field(&Outer::big, "big")
          .field(&Outer::decimal, "decimal")
          .field(&Outer::uri, "uri")
          .field(&Outer::any, "any")
          .field(&Outer::color, "color")
          .field(&Outer::level, "level")
          .field(&Outer::blob, "blob")
          .field(&Outer::shapes, "shapes"));
}

const transit::ReadHandlers& handlers() {
  static const transit::ReadHandlers h = [] {
    transit::ReadHandlers r;
    add_records([&](const auto& record) { r.add(record); });
    return r;
  }();
  return h;
}

// ---- equality: exact, doubles by their bits (NaN read twice is the same NaN) ----------------

bool same(const Base& a, const Base& b);
bool same(const Inner& a, const Inner& b);
bool same(const Outer& a, const Outer& b);

template <class T>
bool same(const T& a, const T& b);

template <class T>
bool same_items(const T& a, const T& b) {
  auto i = a.begin();
  auto j = b.begin();
  for (; i != a.end() && j != b.end(); ++i, ++j)
    if (!same(*i, *j)) return false;
  return i == a.end() && j == b.end();
}

template <class T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof a) == 0;
  } else if constexpr (transit::detail::is_specialization_v<T, std::optional>) {
    return a.has_value() == b.has_value() && (!a || same(*a, *b));
  } else if constexpr (transit::detail::is_specialization_v<T, std::unique_ptr>) {
    return (a == nullptr) == (b == nullptr) && (!a || same(*a, *b));
  } else if constexpr (transit::detail::is_specialization_v<T, std::variant>) {
    return a.index() == b.index() &&
           std::visit([&](const auto& x) { return same(x, std::get<std::decay_t<decltype(x)>>(b)); }, a);
  } else if constexpr (transit::detail::is_specialization_v<T, std::pair>) {
    return same(a.first, b.first) && same(a.second, b.second);
  } else if constexpr (transit::detail::is_specialization_v<T, std::tuple>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (same(std::get<I>(a), std::get<I>(b)) && ...);
    }(std::make_index_sequence<std::tuple_size_v<T>>());
  } else if constexpr (transit::detail::is_specialization_v<T, std::unordered_map>) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a) {
      const auto it = b.find(k);
      if (it == b.end() || !same(v, it->second)) return false;
    }
    return true;
  } else if constexpr (transit::detail::is_specialization_v<T, std::unordered_set>) {
    return a == b;
  } else if constexpr (std::ranges::range<T> && !std::is_same_v<T, std::string> &&
                       !std::is_same_v<T, std::filesystem::path>) {  // a range of paths
    return same_items(a, b);
  } else {
    return a == b;
  }
}

bool same(const Base& a, const Base& b) {
  if (typeid(a) != typeid(b) || a.id != b.id) return false;
  if (const auto* c = dynamic_cast<const Circle*>(&a)) {
    const auto& d = static_cast<const Circle&>(b);
    return c->radius == d.radius && c->unit == d.unit;
  }
  if (const auto* p = dynamic_cast<const Poly*>(&a)) {
    const auto& q = static_cast<const Poly&>(b);
    return same(p->sides, q.sides) && p->marks == q.marks;
  }
  return true;
}

bool same(const Inner& a, const Inner& b) {
  return a.small == b.small && a.mid == b.mid && a.note == b.note && a.ints == b.ints &&
         a.flag == b.flag;
}

bool same(const Outer& a, const Outer& b) {
  return a.name == b.name && a.i64 == b.i64 && a.u64 == b.u64 && same(a.real, b.real) &&
         a.on == b.on && same(a.inner, b.inner) && same(a.inners, b.inners) &&
         same(a.shape, b.shape) && a.by_keyword == b.by_keyword && a.by_vector == b.by_vector &&
         a.tags == b.tags && same(a.weights, b.weights) && a.ids == b.ids &&
         same(a.maybe, b.maybe) && same(a.either, b.either) && a.triple == b.triple &&
         a.pair == b.pair && a.three == b.three && a.when == b.when && a.uuid == b.uuid &&
         a.big == b.big && a.decimal == b.decimal && a.uri == b.uri && a.any == b.any &&
         a.color == b.color && a.level == b.level && a.blob == b.blob && same(a.shapes, b.shapes);
}

// ---- reading ----------------------------------------------------------------------------------

transit::ReadOptions options(std::size_t batch = transit::ReadOptions::kLibraryDefault) {
  transit::ReadOptions o;
  o.max_depth = 64;  // deep enough for every shape, shallow enough to stay fast
  o.chunk_size = 16;
  o.handlers = &handlers();
  o.typed_batch_tokens = batch;
  return o;
}

template <class T>
struct Outcome {
  std::vector<T> values;
  std::vector<std::size_t> ends;  // the reader's offset after each value
  std::optional<transit::Error> error;
};

std::string describe(const std::optional<transit::Error>& e) { return e ? e->what() : "no error"; }

template <class T, class Next>
Outcome<T> read_stream(transit::Reader& reader, std::size_t size, const char* how, Next next) {
  Outcome<T> out;
  try {
    while (auto v = next(reader)) {
      out.values.push_back(std::move(*v));
      out.ends.push_back(reader.offset());
    }
  } catch (const transit::Error& e) {
    if (e.offset() > size) fail("error placed past the input", std::string(how) + ": " + e.what());
    out.error = e;
  } catch (const std::exception& e) {
    fail("an exception other than transit::Error", std::string(how) + ": " + e.what());
  } catch (...) {
    fail("an exception other than transit::Error", how);
  }
  return out;
}

template <class T>
Outcome<T> read_typed(transit::Reader& reader, std::size_t size, const char* how) {
  return read_stream<T>(reader, size, how, [](transit::Reader& r) { return r.template next<T>(); });
}

template <class T>
void expect_same_values(const Outcome<T>& a, const Outcome<T>& b, const char* what) {
  if (a.values.size() != b.values.size())
    fail(what, "read " + std::to_string(a.values.size()) + " and " + std::to_string(b.values.size()) +
                   " values: " + describe(a.error) + " | " + describe(b.error));
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (!same(a.values[i], b.values[i])) fail(what, "value " + std::to_string(i) + " differs");
}

// The same values, the same error to the byte.
template <class T>
void expect_same(const Outcome<T>& a, const Outcome<T>& b, const char* what) {
  expect_same_values(a, b, what);
  if (a.error.has_value() != b.error.has_value() ||
      (a.error && std::string_view(a.error->what()) != b.error->what()))
    fail(what, describe(a.error) + " | " + describe(b.error));
}

// Where the Value path may differ by design: a set. A ~#set reads into a std::vector (and so
// into a tuple, an array, a Record's vector field) with its items as the wire has them, while
// a Value's set holds each item once (docs/typed-data.md: "a ~#set ... reads into a
// std::vector"; docs/values.md). A set with duplicate items then reads as more items typed than
// from_value binds from the Value, or fails typed (a tuple's count) where from_value does not.
// The bytes no longer tell whether a set had duplicates, so a value holding a set is not
// compared on the Value path (every other oracle still reads it).
bool holds_set(const transit::Value& v) {
  switch (v.kind()) {
    case transit::Kind::set:
      return true;
    case transit::Kind::array:
    case transit::Kind::list:
      for (const transit::Value& item : v.items())
        if (holds_set(item)) return true;
      return false;
    case transit::Kind::map:
    case transit::Kind::link:
      for (const auto& [key, value] : v.entries())
        if (holds_set(key) || holds_set(value)) return true;
      return false;
    case transit::Kind::tagged:
      return holds_set(v.rep());
    default:
      return false;
  }
}

// The Value path's side, which is the same for every T: the values the untyped reader read,
// and which of them hold a set. Read once an input, not once a type.
struct Untyped {
  Outcome<transit::Value> values;
  std::vector<bool> has_set;
};

Untyped read_untyped(std::string_view input) {
  // No handlers on the read, so a Record's tag stays a TaggedValue that from_value binds
  // through the Record's typed reader.
  transit::ReadOptions untyped = options();
  untyped.handlers = nullptr;
  transit::Reader value_reader(input, kEncoding, untyped);
  Untyped out{read_stream<transit::Value>(value_reader, input.size(), "values",
                                          [](transit::Reader& r) { return r.next(); }),
              {}};
  for (const transit::Value& v : out.values.values) out.has_set.push_back(holds_set(v));
  return out;
}

// Whether a read into Values with the handlers refuses the input's value `n` too. The Value
// path reads without them, and a map's later entry replaces an earlier one of an equal key
// (the last value wins), so an earlier value whose handler fails (["~#inner", 95]) is gone
// before from_value could run it, where a read with the handlers, typed or not, runs it and
// fails (the 77-byte MessagePack input of round twenty-eight's fuzzers). Only then may
// from_value take what the typed read refused. Read only in that case, which is rare.
bool refused_with_handlers(std::string_view input, std::size_t n) {
  transit::Reader reader(input, kEncoding, options());
  const Outcome<transit::Value> values = read_stream<transit::Value>(
      reader, input.size(), "values with handlers", [](transit::Reader& r) { return r.next(); });
  return values.values.size() <= n;
}

template <class T>
void check(std::string_view input, const Untyped& untyped) {
  const std::size_t size = input.size();
  // In memory, with the library's batches (256 tokens), a batch of a few tokens, and the whole
  // value taped at once (batches are a JSON-in-memory matter: MessagePack ignores them).
  transit::Reader memory_reader(input, kEncoding, options());
  const Outcome<T> memory = read_typed<T>(memory_reader, size, "memory");
  if constexpr (kEncoding == transit::Encoding::json) {
    transit::Reader small_reader(input, kEncoding, options(1 + size % 4));
    expect_same(memory, read_typed<T>(small_reader, size, "small batches"),
                "default and small token batches");
    transit::Reader whole_reader(input, kEncoding, options(0));
    expect_same(memory, read_typed<T>(whole_reader, size, "one batch"), "default batches and one batch");
  }

  // From a Source a few bytes at a time.
  transit::test::StepSource source{std::string(input), 1 + size % 7};
  transit::Reader stream_reader(source, kEncoding, options());
  const Outcome<T> stream = read_typed<T>(stream_reader, size, "stream");
  expect_same_values(memory, stream, "memory and stream");
  if (memory.error.has_value() != stream.error.has_value())
    fail("only one of memory and stream failed", describe(memory.error) + " | " + describe(stream.error));
  // read_fuzz's one difference by design: in memory a length beyond the input is truncated at
  // once, while a Source cannot know the input is short: it fails on a limit as soon as a
  // header claims too much, or on whatever error comes before that header.
  const bool claim_beyond_input = memory.error && memory.error->code() == transit::Errc::truncated &&
                                  stream.error->offset() <= memory.error->offset();
  if (memory.error && !claim_beyond_input &&
      std::string_view(memory.error->what()) != stream.error->what())
    fail("memory and stream errors differ", describe(memory.error) + " | " + describe(stream.error));

  // read<T> of each value's own bytes reads what next<T>() read; of the bytes from the value
  // that failed on, it fails the same way at the same place.
  std::size_t start = 0;
  for (std::size_t i = 0; i <= memory.values.size(); ++i) {
    const bool failed_here = i == memory.values.size();
    if (failed_here && !memory.error) break;
    const std::size_t end = failed_here ? size : memory.ends[i];
    const std::string_view one = input.substr(start, end - start);
    try {
      T v = transit::read<T>(one, kEncoding, options());
      if (failed_here) fail("read<T> took the value next<T>() failed on", describe(memory.error));
      if (!same(v, memory.values[i])) fail("read<T> and next<T>() read different values", std::to_string(i));
    } catch (const transit::Error& e) {
      if (!failed_here) {
        // A JSON value next<T>() read may be followed by more that is not whitespace in its
        // slice: never, as the slice ends where the reader stopped.
        fail("read<T> failed on a value next<T>() read", e.what());
      }
      // An empty rest (the stream ended inside the value's whitespace) cannot be: the memory
      // read failed, so there are bytes. The same code at the same place from the slice's start.
      if (e.code() != memory.error->code() || start + e.offset() != memory.error->offset())
        fail("read<T> and next<T>() fail differently", std::string(e.what()) + " | " + describe(memory.error));
    }
    start = end;
  }

  // The Value path: the untyped reader's values (read_untyped), then from_value<T>.
  const Outcome<transit::Value>& values = untyped.values;
  const std::size_t n = std::min(values.values.size(), memory.values.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (untyped.has_set[i]) continue;
    try {
      const T v = transit::from_value<T>(values.values[i], &handlers());
      if (!same(v, memory.values[i])) fail("from_value and the typed read differ", std::to_string(i));
    } catch (const transit::Error& e) {
      fail("from_value refused a value the typed read took", e.what());
    }
  }
  if (memory.values.size() > values.values.size())
    fail("the typed read took a value the untyped reader refused", describe(values.error));
  if (memory.values.size() < values.values.size() && !untyped.has_set[n]) {
    // The typed read failed on a value the untyped reader read: from_value must fail too.
    try {
      (void)transit::from_value<T>(values.values[n], &handlers());
      if (!refused_with_handlers(input, n))
        fail("from_value took a value the typed read refused", describe(memory.error));
    } catch (const transit::Error&) {
    }
  }
}

// ---- reading on after every failure (docs/errors.md, "A Reader that has thrown") ------------

using transit::test::refused_by_handler;
using transit::test::Refuse;

// The Records, and a default handler (every tag no Record takes) that refuses some values
// (support/refusals.h): read_fuzz.cpp's, without its builders, which a typed read runs apart
// from the decoder.
const transit::ReadHandlers& refusing_handlers() {
  static const transit::ReadHandlers h = [] {
    transit::ReadHandlers r;
    add_records([&](const auto& record) { r.add(record); });
    r.set_default(transit::test::refuse_some);
    return r;
  }();
  return h;
}

// What one call of next<T>() gave: a value, the end, or what it threw (the Error's message, or
// "Refuse"), with whether that is a failure of one value by its kind (a type_mismatch, a
// refusal of the handler), and the reader's offset after it.
struct Call {
  std::string gave;
  bool end = false;
  bool error = false;
  bool one_value = false;
  std::size_t after = 0;
};

template <class T>
Call call_next(transit::Reader& reader, std::size_t size, const char* how) {
  Call c;
  try {
    const std::optional<T> v = reader.next<T>();
    c.gave = v ? "value" : "end";
    c.end = !v;
  } catch (const transit::Error& e) {
    c.one_value = e.code() == transit::Errc::type_mismatch || refused_by_handler(e);
    if (!c.one_value && e.offset() > size) fail("read on: error placed past the input", e.what());
    c.gave = std::string("error ") + e.what();
    c.error = true;
  } catch (const Refuse&) {
    c.gave = "error Refuse";
    c.error = c.one_value = true;
  } catch (const std::exception& e) {
    fail("read on: an exception other than transit::Error", std::string(how) + ": " + e.what());
  }
  c.after = reader.offset();
  return c;
}

// Calls next<T>() until the input ends or an error is thrown again, going on after every error
// that is not; per call, what it gave. A failure of one value (by its kind) is never thrown
// again by a reader that has not moved: that reader reads the same value for ever. Other
// errors are the input's when thrown again (a typed read fails one value, and goes on, for
// some errors the untyped reader takes for the input's: a ~#set's rep that is no array). No
// more calls than the input has bytes.
template <class T>
std::vector<std::string> read_on(transit::Reader& reader, std::size_t size, const char* how) {
  std::vector<std::string> out;
  Call c = call_next<T>(reader, size, how);
  for (std::size_t calls = 0;; ++calls) {
    if (calls > size + 1) fail("read on: more calls than the input has bytes", how);
    out.push_back(c.gave);
    if (c.end) return out;
    Call next = call_next<T>(reader, size, how);
    if (c.error && next.gave == c.gave && next.after == c.after) {
      if (c.one_value) fail("read on: a value's failure thrown again, the reader unmoved", c.gave);
      return out;
    }
    c = std::move(next);
  }
}

// The largest input read on past failures: they are a matter of control flow, which small
// inputs show.
constexpr std::size_t kReadOnMost = 2048;

// read_on from memory and from a Source a few bytes at a time: the same calls give the same,
// but for the input's error, whose place may differ as check's comparison allows
// (read_on_difference).
template <class T>
void check_read_on(std::string_view input) {
  const std::size_t size = input.size();
  if (size > kReadOnMost) return;
  transit::ReadOptions o = options();
  o.handlers = &refusing_handlers();
  transit::Reader memory_reader(input, kEncoding, o);
  const std::vector<std::string> memory = read_on<T>(memory_reader, size, "memory");
  transit::test::StepSource source{std::string(input), 1 + size % 5};
  transit::Reader stream_reader(source, kEncoding, o);
  const std::vector<std::string> stream = read_on<T>(stream_reader, size, "stream");
  if (const std::string d = transit::test::read_on_difference(memory, stream, "error "); !d.empty())
    fail("read on: memory and stream differ", d);
}

using Variants = std::vector<std::variant<std::int64_t, std::string, Inner, transit::Value>>;
using Tuple = std::tuple<transit::Uuid, std::chrono::system_clock::time_point, transit::BigDecimal,
                         std::vector<std::int64_t>, std::uint64_t>;
// The std:: types of round twenty-nine: strings decoded from UTF-8 into UTF-16 and UTF-32, a
// path, a multimap's map of arrays, a multiset, monostate, bytes into a fixed array.
using StdTypes = std::tuple<std::u16string, std::u32string, std::filesystem::path,
                            std::multimap<std::string, std::int64_t>, std::multiset<std::int64_t>,
                            std::variant<std::monostate, std::int64_t>, std::array<std::byte, 2>>;

}  // namespace

// A Value read with the Records' handlers holds their objects, which compare by these (an
// object with no == compares by address).
bool operator==(const Circle& a, const Circle& b) { return same(static_cast<const Base&>(a), b); }
bool operator==(const Poly& a, const Poly& b) { return same(static_cast<const Base&>(a), b); }
bool operator==(const Inner& a, const Inner& b) { return same(a, b); }
bool operator==(const Outer& a, const Outer& b) { return same(a, b); }

namespace {

// ---- seeds ------------------------------------------------------------------------------------

Outer sample(int n) {
  Outer o;
  o.name = "order-" + std::to_string(n);
  o.i64 = -(std::int64_t{1} << 60) + n;
  o.u64 = ~std::uint64_t{0} - static_cast<std::uint64_t>(n);  // above INT64_MAX: a ~n
  o.real = n == 0 ? 0.1 : -1e300;
  o.on = n % 2 == 0;
  o.inner = Inner{255, -32768, std::nullopt, {1, 2, 3}, true};
  o.inners = {Inner{1, 2, "note", {}, false}, Inner{3, 4, std::nullopt, {-1}, true}};
  if (n == 0) {
    auto c = std::make_unique<Circle>();
    c->id = "c";
    c->radius = 7;
    c->unit = transit::Keyword{"cm"};
    o.shape = std::move(c);
  } else {
    auto p = std::make_unique<Poly>();
    p->id = "p";
    p->sides = {1.5, 2.5};
    p->marks = {1, -1};
    o.shape = std::move(p);
  }
  o.by_keyword = {{transit::Keyword{"a"}, 1}, {transit::Keyword{"bcde"}, 2}};
  o.by_vector = {{{1, 2}, "x"}, {{}, "empty"}};
  o.tags = {"t1", "t2", "~tilde", "^ "};
  o.weights = {{"w", 0.5}, {"^caret", -2.0}};
  o.ids = {1, 2, 3};
  if (n == 0) o.maybe = Inner{9, 9, "m", {}, false};
  if (n == 0)
    o.either = std::string("text");
  else
    o.either = Inner{};
  o.triple = {true, "s", -7};
  o.pair = {200, transit::Symbol{"sym"}};
  o.three = {1, 2, 65535};
  o.when = std::chrono::system_clock::time_point(std::chrono::milliseconds(1482000000000));
  o.uuid = transit::Uuid{0x5a2cbea3e8c64b5bULL, 0x8f1b2a4e6c7d9e0fULL};
  o.big = transit::BigInteger{"123456789012345678901234567890"};
  o.decimal = transit::BigDecimal{"3.14"};
  o.uri = transit::Uri{"https://example.com/x?y=1"};
  o.any = transit::read(R"(["^ ","~:k",["~#set",[1,"~i2"]],"~$s",["~#list",[null,true]]])");
  o.color = n == 0 ? Color::green : Color::blue;
  o.level = Level::high;
  o.blob = {std::byte{0}, std::byte{255}, std::byte{'a'}};
  if (n == 0) {
    o.shapes.emplace();
    o.shapes->push_back(nullptr);
    o.shapes->push_back(std::make_unique<Circle>());
  }
  return o;
}

// Writes the typed seeds into `dir`, each value of each T in every encoding `kEncoding` reads
// (JSON reads JSON-Verbose too): run.sh seeds the corpora with them.
void write_seeds(const std::string& dir) {
  transit::RegistryBuilder b;
  add_records([&](const auto& record) { b.add(record); });
  const transit::Registry registry = std::move(b).freeze();
  const transit::WriteOptions w{.registry = &registry};
  std::vector<transit::Encoding> encodings{kEncoding};
  if (kEncoding == transit::Encoding::json) encodings.push_back(transit::Encoding::json_verbose);
  int count = 0;
  auto put = [&](const std::string& name, const std::string& bytes) {
    const std::string path = dir + "/typed-" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
      fail("cannot write a seed", path);
    ++count;
  };
  for (transit::Encoding e : encodings) {
    const std::string suffix = e == transit::Encoding::json_verbose ? ".verbose" : "";
    put("outer" + suffix, transit::write(sample(0), e, w));
    put("outers" + suffix, transit::write(sample(0), e, w) + transit::write(sample(1), e, w));
    std::vector<Outer> outers;
    outers.push_back(sample(1));
    outers.push_back(sample(0));
    put("outer-vector" + suffix, transit::write(outers, e, w));
    put("shapes" + suffix, transit::write(*sample(0).shapes, e, w) + transit::write(outers[0].shape, e, w));
    put("optional-doubles" + suffix,
        transit::write(std::map<std::string, std::optional<double>>{{"a", 1.5}, {"b", std::nullopt}}, e, w));
    Variants variants{std::int64_t{1}, std::string("two"), Inner{}, transit::Value(std::int64_t{4})};
    put("variants" + suffix, transit::write(variants, e, w));
    put("tuple" + suffix, transit::write(Tuple{sample(0).uuid, sample(0).when, {"1.0"}, {1, 2}, 7}, e, w));
    put("std-types" + suffix,
        transit::write(StdTypes{u"h\u00e9\U0001F600", U"~x", "/a/b", {{"k", 1}, {"k", 2}, {"j", 3}},
                                {1, 1, 2}, std::monostate{}, {std::byte{1}, std::byte{2}}},
                       e, w));
    put("keyword-sets" + suffix,
        transit::write(std::vector<std::set<transit::Keyword>>{{{"a"}, {"b"}}, {}}, e, w));
    // More distinct keywords than the cache's 1,936 slots ("~:ab" takes one), then the last two
    // (cached after the wrap) again, as codes: the cache wraps within run.sh's -max_len for
    // these targets (16 KB), which the exemplars that wrap it (63 KB) no longer fit.
    constexpr std::string_view kChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    auto keyword = [&](std::size_t i) { return transit::Keyword{std::string{kChars[i / 62], kChars[i % 62]}}; };
    std::vector<std::set<transit::Keyword>> many(2);
    for (std::size_t i = 0; i < 1960; ++i) many[0].insert(keyword(i));
    many[1] = {*std::prev(many[0].end()), *std::prev(many[0].end(), 2)};
    put("cache-wrap" + suffix, transit::write(many, e, w));
  }
  std::fprintf(stderr, "typed_fuzz: %d seeds written to %s\n", count, dir.c_str());
}

}  // namespace
}  // namespace fuzz

// TRANSIT_TYPED_SEEDS=DIR: write the typed seeds into DIR and exit (run.sh's fuzz stage).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TRANSIT_TYPED_SEEDS")) {
    fuzz::write_seeds(dir);
    std::exit(0);
  }
  // libFuzzer (-detect_leaks, as run.sh runs it) runs an input again whenever it malloc'd more
  // than it freed, and looks for a leak if the second run does too. The library keeps up to 32
  // freed arena blocks on the thread for the next documents (value.cpp's BlockPool): while
  // that pool fills, a run that leaves a block in it looked like a leak and ran twice (a fifth
  // of fuzz_typed_json's time, perf). Filled here first, the pool leaves the test to leaks.
  {
    std::vector<transit::Value> held;
    for (int i = 0; i < 64; ++i) held.push_back(transit::read(R"([["x"]])"));
  }
  (void)fuzz::handlers();  // built once, not in the first input's run
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const fuzz::Untyped untyped = fuzz::read_untyped(input);
  fuzz::check<fuzz::Outer>(input, untyped);
  fuzz::check<std::vector<fuzz::Outer>>(input, untyped);
  fuzz::check<std::vector<std::unique_ptr<fuzz::Base>>>(input, untyped);
  fuzz::check<std::map<std::string, std::optional<double>>>(input, untyped);
  fuzz::check<fuzz::Variants>(input, untyped);
  fuzz::check<fuzz::Tuple>(input, untyped);
  fuzz::check<std::vector<std::set<transit::Keyword>>>(input, untyped);
  fuzz::check<fuzz::StdTypes>(input, untyped);
  fuzz::check_read_on<transit::Value>(input);
  fuzz::check_read_on<fuzz::Outer>(input);
  return 0;
}
