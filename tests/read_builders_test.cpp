// SPDX-License-Identifier: Apache-2.0
// Map and array builders (ReadHandlers::set_map_builder, set_array_builder) apply the same way
// on every entry point that reads into a Value: a map builder builds every map, and an array
// builder every array, that the input carries as a map or array and that is not the rep of a
// tagged value, at any depth including the top; a cmap is a tagged value (its handler builds
// the map, the map builder never sees it); a quote is no tagged value to its rep. Each entry
// point gives what read() gives, its builders called as read() calls them (once per map or
// array, with the same items), and a builder's failure as read() fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "support/step_source.h"
#include "transit/transit.h"
#include "transit/typed.h"

namespace {

using transit::Encoding;
using transit::Error;
using transit::ReadHandlers;
using transit::ReadOptions;
using transit::Value;

// A Value field of a Record, read from a plain map `{"v": ...}`.
struct Holder {
  Value v;
};

// Builders that log each call (what they were given, as EDN) and wrap what they build in a
// tag, so a result shows which containers were built; a `pt` handler that shows its rep; the
// builders throw when `fail` says so.
struct Logged {
  std::vector<std::string> log;
  enum Fail { none, std_exception, transit_error } fail = none;
  ReadHandlers handlers;

  // With `cmap_handler`, a `cmap` read handler that logs its rep too.
  explicit Logged(bool cmap_handler = false) {
    if (cmap_handler)
      handlers.add("cmap", [this](const Value& rep) {
        log.push_back("cmap " + transit::to_edn(rep));
        return Value::list({Value::keyword("cmap"), rep});
      });
    handlers.set_map_builder([this](std::span<Value> flat) {
      log.push_back("map " + transit::to_edn(Value::array(std::vector<Value>(flat.begin(), flat.end()))));
      if (fail == std_exception) throw std::runtime_error("no map");
      if (fail == transit_error) throw Error(transit::Errc::invalid_argument, {}, {}, "mine, no map");
      std::vector<transit::Entry> entries;
      for (std::size_t i = 0; i + 1 < flat.size(); i += 2) entries.emplace_back(flat[i], flat[i + 1]);
      return Value::tagged("built-map", Value::map(std::move(entries)));
    });
    handlers.set_array_builder([this](std::span<Value> items) {
      log.push_back("array " + transit::to_edn(Value::array(std::vector<Value>(items.begin(), items.end()))));
      if (fail == std_exception) throw std::runtime_error("no array");
      if (fail == transit_error) throw Error(transit::Errc::invalid_argument, {}, {}, "mine, no array");
      return Value::tagged("built-array", Value::array(std::vector<Value>(items.begin(), items.end())));
    });
    handlers.add("pt", [](const Value& rep) { return Value::list({Value::keyword("pt"), rep}); });
    handlers.add(transit::Record<Holder>("holder").field(&Holder::v, "v"));
  }
  ReadOptions options(std::size_t batch = ReadOptions::kLibraryDefault) const {
    ReadOptions o;
    o.handlers = &handlers;
    o.typed_batch_tokens = batch;
    return o;
  }
};

// What one entry point gave: the value (as EDN) or the error, and the builders' calls.
struct Outcome {
  std::string value;
  std::string detail;
  transit::Errc code{};
  std::string path;
  std::size_t offset = 0;  // of the error in the bytes
  std::vector<std::string> log;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend std::ostream& operator<<(std::ostream& out, const Outcome& o) {
    out << (o.detail.empty() ? o.value : "error " + o.detail + " in " + o.path) << " calls:";
    for (const std::string& c : o.log) out << " {" << c << "}";
    return out;
  }
};

// `wrapped`: what was read is in an array or map that read() built last, a call dropped.
Outcome outcome_of(Logged::Fail fail, const std::function<Value(const Logged&)>& read, bool cmap_handler = false,
                   bool wrapped = false) {
  Logged l(cmap_handler);
  l.fail = fail;
  Outcome o;
  try {
    o.value = transit::to_edn(read(l));
  } catch (const Error& e) {
    o.detail = e.detail();
    o.code = e.code();
    o.path = e.path();
    o.offset = e.offset();
  }
  // In call order but for one thing: a typed read (and from_value) runs the read handlers
  // of the tags the decoder decodes (a user's tag: `pt`) as it tapes the value, and the
  // builders and the handlers of tags taped by structure (`set`, `cmap`) as the binder
  // meets them, after. The calls themselves are the same.
  o.log = l.log;
  if (wrapped && o.detail.empty()) o.log.pop_back();
  std::sort(o.log.begin(), o.log.end());
  return o;
}

// One input in one encoding, and the forms that hold it: in an array, and under "v" in a map.
struct Form {
  Encoding encoding;
  std::string bytes, in_array, in_map;
  Value plain;  // read without the handlers
};

Form form_of(std::string_view json, Encoding e) {
  const Value plain = transit::read(json, Encoding::json);
  Form f{e, {}, {}, {}, plain};
  if (e == Encoding::msgpack) {
    f.bytes = transit::write(plain, e);
    f.in_array = transit::write(Value::array({plain}), e);
    f.in_map = transit::write(Value::map({{Value("v"), plain}}), e);
  } else {
    // As written by hand: a JSON object, a "^ " map, a cmap stay what they are inside.
    f.bytes = e == Encoding::json ? std::string(json) : transit::write(plain, e);
    f.in_array = "[" + f.bytes + "]";
    f.in_map = "{\"v\":" + f.bytes + "}";
  }
  f.plain = transit::read(f.bytes, e);
  return f;
}

struct EntryPoint {
  const char* name;
  // Whether it reads the input inside an array or a map (its reference reads the same).
  enum { alone, in_array, in_map } where;
  std::function<Value(const Form&, const Logged&)> read;
};

const std::vector<EntryPoint>& entry_points() {
  static const std::vector<EntryPoint> points = {
      {"Reader::next()", EntryPoint::alone,
       [](const Form& f, const Logged& l) {
         transit::Reader r(f.bytes, f.encoding, l.options());
         return *r.next();
       }},
      {"Reader::next() from a Source a byte at a time", EntryPoint::alone,
       [](const Form& f, const Logged& l) {
         transit::test::StepSource source(f.bytes, 1);
         transit::Reader r(source, f.encoding, l.options());
         return *r.next();
       }},
      {"read<Value>", EntryPoint::alone,
       [](const Form& f, const Logged& l) { return transit::read<Value>(f.bytes, f.encoding, l.options()); }},
      {"read<Value> in batches of 3 tokens", EntryPoint::alone,
       [](const Form& f, const Logged& l) { return transit::read<Value>(f.bytes, f.encoding, l.options(3)); }},
      {"Reader::next<Value>() from a Source a byte at a time", EntryPoint::alone,
       [](const Form& f, const Logged& l) {
         transit::test::StepSource source(f.bytes, 1);
         transit::Reader r(source, f.encoding, l.options());
         return *r.next<Value>();
       }},
      {"read<std::vector<Value>>", EntryPoint::in_array,
       [](const Form& f, const Logged& l) {
         return transit::read<std::vector<Value>>(f.in_array, f.encoding, l.options()).at(0);
       }},
      {"read<std::map<std::string, Value>>", EntryPoint::in_map,
       [](const Form& f, const Logged& l) {
         return transit::read<std::map<std::string, Value>>(f.in_map, f.encoding, l.options()).at("v");
       }},
      {"read<Holder> (a Record's Value field)", EntryPoint::in_map,
       [](const Form& f, const Logged& l) { return transit::read<Holder>(f.in_map, f.encoding, l.options()).v; }},
      {"from_value<Value>", EntryPoint::alone,
       [](const Form& f, const Logged& l) { return transit::from_value<Value>(f.plain, &l.handlers); }},
      {"from_value<std::vector<Value>>", EntryPoint::in_array,
       [](const Form& f, const Logged& l) {
         return transit::from_value<std::vector<Value>>(Value::array({f.plain}), &l.handlers).at(0);
       }},
      {"from_value<Holder>", EntryPoint::in_map,
       [](const Form& f, const Logged& l) {
         return transit::from_value<Holder>(Value::map({{Value("v"), f.plain}}), &l.handlers).v;
       }},
  };
  return points;
}

// What read() gives for `f` (alone or in its array or map, as `p` reads it) and what `p` gives.
std::pair<Outcome, Outcome> both(const Form& f, const EntryPoint& p, Logged::Fail fail,
                                 bool cmap_handler = false) {
  const std::string& bytes = p.where == EntryPoint::in_array ? f.in_array
                             : p.where == EntryPoint::in_map ? f.in_map
                                                             : f.bytes;
  Outcome want = outcome_of(fail, [&](const Logged& l) {
    const Value v = transit::read(bytes, f.encoding, l.options());
    if (p.where == EntryPoint::alone) return v;
    // The container read into C++ binds structure: read() built it (its rep is what was
    // read), which its log drops.
    const Value& read = v.rep();
    return p.where == EntryPoint::in_array ? read[0] : read.entries()[0].second;
  }, cmap_handler, p.where != EntryPoint::alone);
  Outcome got = outcome_of(fail, [&](const Logged& l) { return p.read(f, l); }, cmap_handler);
  // from_value has no bytes: its errors say no offset.
  if (std::string_view(p.name).starts_with("from_value") && got.offset == transit::Location{}.offset)
    got.offset = want.offset;
  return {want, got};
}

constexpr const char* kInputs[] = {
    R"({"a":1})",
    R"(["^ ","a",1])",
    R"([1,2])",
    R"([[1,2],{"a":1}])",
    R"(["~#cmap",[[1],2]])",
    R"({"a":[1,2]})",
    R"([{"a":[{"b":[]}]},["^ ","c",[[]]],{"~:k":["^ "]}])",
    R"(1)",
    R"("s")",
    R"({})",
    R"(["^ "])",
    R"([])",
    R"(["~#pt",[1,2]])",
    R"(["~#pt",[[1,2],{"a":[3]}]])",
    R"(["~#set",[[1]]])",
    R"(["~#list",[[1],{"a":1}]])",
    R"(["~#cmap",[{"a":1},[2],[3],{"b":[4]}]])",
    R"(["~#zz",[[1],{"a":2}]])",
    R"(["~#'",[1,2]])",
    R"([["~#pt",[[1]]],["~#set",[{"a":1}]],["~#cmap",[["~#pt",[1]],[2]]]])",
};

constexpr Encoding kEncodings[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

TEST(ReadBuilders, EveryEntryPointBuildsAsReadDoes) {
  for (const char* input : kInputs)
    for (const Encoding e : kEncodings) {
      const Form f = form_of(input, e);
      for (const EntryPoint& p : entry_points()) {
        SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
        const auto [want, got] = both(f, p, Logged::none);
        ASSERT_TRUE(want.detail.empty()) << want;
        EXPECT_EQ(got, want);
      }
    }
}

// A cmap is a tagged value: a `cmap` read handler takes it (its rep plain, the keys and
// values in it built), on every entry point; from_value takes a map with a composite key for
// the cmap a writer writes.
TEST(ReadBuilders, ACmapHandlerTakesEveryCmap) {
  for (const char* input : {R"(["~#cmap",[[1],2]])", R"(["~#cmap",[{"a":1},[2],[3],{"b":[4]}]])",
                            R"([{"a":["~#cmap",[[1],2]]},["~#pt",[["~#cmap",[[1],[2]]]]]])",
                            R"(["~#set",[["~#cmap",[[1],2]]]])", R"({"a":[1]})"})
    for (const Encoding e : kEncodings) {
      const Form f = form_of(input, e);
      for (const EntryPoint& p : entry_points()) {
        SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
        const auto [want, got] = both(f, p, Logged::none, true);
        ASSERT_TRUE(want.detail.empty()) << want;
        EXPECT_EQ(got, want);
      }
    }
}

// The matrix is not empty: read() builds what the rule says it builds.
TEST(ReadBuilders, ReadBuildsEveryMapAndArrayButARep) {
  const auto read = [](std::string_view text) {
    Logged l;
    return transit::to_edn(transit::read(text, Encoding::json, l.options()));
  };
  EXPECT_EQ(read(R"([[1,2],{"a":1}])"), R"(#built-array [#built-array [1 2] #built-map {"a" 1}])");
  EXPECT_EQ(read(R"(["~#pt",[[1,2],{"a":[3]}]])"),
            R"((:pt [#built-array [1 2] #built-map {"a" #built-array [3]}]))");
  EXPECT_EQ(read(R"(["~#cmap",[[1],2]])"), R"({#built-array [1] 2})");
  EXPECT_EQ(read(R"(["~#set",[[1]]])"), R"(#{#built-array [1]})");
  // A quote is no tagged value to its rep (its tag has no handler to give it to).
  EXPECT_EQ(read(R"(["~#'",[1,2]])"), R"(#built-array [1 2])");
  EXPECT_EQ(read("1"), "1");
}

TEST(ReadBuilders, AFailingBuilderFailsAlikeOnEveryEntryPoint) {
  for (const Logged::Fail fail : {Logged::std_exception, Logged::transit_error})
    for (const char* input : {R"({"a":1})", R"([1,2])", R"([0,[1,2]])", R"({"a":[1,2]})",
                              R"(["^ ","b",{"a":1}])", R"(["~#set",[[1]]])", R"(["~#pt",[0,[1]]])"})
      for (const Encoding e : kEncodings) {
        const Form f = form_of(input, e);
        for (const EntryPoint& p : entry_points()) {
          SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
          const auto [want, got] = both(f, p, fail);
          ASSERT_FALSE(want.detail.empty()) << want;
          EXPECT_EQ(want.code, fail == Logged::std_exception ? transit::Errc::bad_rep : transit::Errc::invalid_argument);
          // A builder inside a tagged value that from_value decodes first fails at that value.
          if (std::string_view(input).starts_with(R"(["~#pt")") && std::string_view(p.name).starts_with("from_value"))
            EXPECT_EQ(std::tie(got.code, got.detail, got.log), std::tie(want.code, want.detail, want.log)) << got;
          else
            EXPECT_EQ(got, want);
        }
      }
}

// A bind tried again (a std::variant's next alternative) takes what each builder returned.
TEST(ReadBuilders, AVariantRunsEachBuilderOnce) {
  for (const char* input : {R"([[1,2],"x"])", R"([[1],{"a":[2]}])"})
    for (const Encoding e : kEncodings) {
      const Form f = form_of(input, e);
      SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)));
      const Outcome want = outcome_of(Logged::none, [&](const Logged& l) { return transit::read(f.bytes, e, l.options()); });
      using Tried = std::variant<std::tuple<Value, int>, std::vector<int>, Value>;
      const auto as_value = [](const Tried& t) { return std::get<Value>(t); };
      EXPECT_EQ(outcome_of(Logged::none, [&](const Logged& l) { return as_value(transit::read<Tried>(f.bytes, e, l.options())); }),
                want);
      EXPECT_EQ(outcome_of(Logged::none, [&](const Logged& l) { return as_value(transit::read<Tried>(f.bytes, e, l.options(3))); }),
                want)
          << "in batches";
      EXPECT_EQ(outcome_of(Logged::none, [&](const Logged& l) { return as_value(transit::from_value<Tried>(f.plain, &l.handlers)); }),
                want)
          << "from_value";
    }
}

// A typed read that fails to bind (and reads its value again to place the error) has run each
// builder it met once.
TEST(ReadBuilders, ABindErrorRunsEachBuilderOnce) {
  for (const Encoding e : kEncodings) {
    const Form f = form_of(R"([[1,2],{"a":[3]},"x"])", e);
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    using Bound = std::tuple<Value, Value, int>;
    for (const std::size_t batch : {ReadOptions::kLibraryDefault, std::size_t{3}}) {
      const Outcome got = outcome_of(Logged::none, [&](const Logged& l) {
        (void)transit::read<Bound>(f.bytes, e, l.options(batch));
        return Value();
      });
      EXPECT_EQ(got.code, transit::Errc::type_mismatch) << got;
      EXPECT_EQ(got.path, "$[2]");
      EXPECT_EQ(got.log, (std::vector<std::string>{"array [1 2]", "array [3]", R"(map ["a" #built-array [3]])"}));
    }
    const Outcome from = outcome_of(Logged::none, [&](const Logged& l) {
      (void)transit::from_value<Bound>(f.plain, &l.handlers);
      return Value();
    });
    EXPECT_EQ(from.path, "$[2]");
    EXPECT_EQ(from.log, (std::vector<std::string>{"array [1 2]", "array [3]", R"(map ["a" #built-array [3]])"}));
  }
}

// A C++ container binds the structure: no builder runs for it, only for the Values in it.
TEST(ReadBuilders, ACppContainerIsBoundNotBuilt) {
  Logged l;
  const auto got = transit::read<std::map<std::string, std::vector<Value>>>(
      R"({"a":[[1],{"b":2}]})", Encoding::json, l.options());
  EXPECT_EQ(transit::to_edn(got.at("a").at(0)), "#built-array [1]");
  EXPECT_EQ(transit::to_edn(got.at("a").at(1)), R"(#built-map {"b" 2})");
  EXPECT_EQ(l.log, (std::vector<std::string>{"array [1]", R"(map ["b" 2])"}));
}

// docs/custom-types.md, "Map and array builders".
TEST(ReadBuilders, DocSample) {
  // doc-sample begin
  transit::ReadHandlers lists;
  lists.set_array_builder([](std::span<transit::Value> items) {
    return transit::Value::list(std::vector<transit::Value>(items.begin(), items.end()));
  });
  const std::string_view text = R"([[1,2],["~#point",[3,4]]])";
  transit::Value all = transit::read(text, transit::Encoding::json, {.handlers = &lists});
  // ((1 2) #point [3 4]): every array a list but the rep of the tagged value
  auto items = transit::read<std::vector<transit::Value>>(text, transit::Encoding::json, {.handlers = &lists});
  // items[0] is the list (1 2) too; the std::vector itself is bound, not built
  // doc-sample end
  EXPECT_EQ(transit::to_edn(all), "((1 2) #point [3 4])");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(transit::to_edn(items[0]), "(1 2)");
  EXPECT_EQ(items[1], all[1]);
}

}  // namespace
