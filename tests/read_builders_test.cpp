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
#include "model/value_internal.h"

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

// Records read into a Value: C++ containers bound by structure, Values built, a Record nested.
struct Inner31 {
  std::vector<int> ys;
  Value w;
};
struct Rec31 {
  std::vector<int> xs;
  Value extra;
  std::map<std::string, int> m;
  std::vector<Value> vs;
  std::optional<Inner31> inner;
};

// Builders that log each call (what they were given, as EDN) and wrap what they build in a
// tag, so a result shows which containers were built; a `pt` handler that shows its rep; the
// builders throw when `fail` says so.
struct Logged {
  std::vector<std::string> log;
  enum Fail { none, std_exception, transit_error } fail = none;
  ReadHandlers handlers;

  // With `cmap_handler`, a `cmap` read handler that logs its rep too. With `records`, the
  // Records of this file: a read() with a Record is read<Value> (Reader::next), so read() is
  // the reference of the matrix without them, the decoder's own way of building Values.
  explicit Logged(bool cmap_handler = false, bool records = true) {
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
    if (!records) return;
    handlers.add(transit::Record<Holder>("holder").field(&Holder::v, "v"));
    handlers.add(transit::Record<Inner31>("inner31").field(&Inner31::ys, "ys").field(&Inner31::w, "w"));
    handlers.add(transit::Record<Rec31>("rec31")
                     .field(&Rec31::xs, "xs")
                     .field(&Rec31::extra, "extra")
                     .field(&Rec31::m, "m")
                     .field(&Rec31::vs, "vs")
                     .field(&Rec31::inner, "inner"));
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

// What `read` gave with `l`'s handlers (as the caller shows it) or its error, and the
// builders' calls. `wrapped`: what was read is in an array or map that read() built last, a
// call dropped.
Outcome outcome_with(Logged& l, const std::function<std::string(const Logged&)>& read, bool wrapped) {
  Outcome o;
  try {
    o.value = read(l);
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

Outcome outcome_of(Logged::Fail fail, const std::function<Value(const Logged&)>& read, bool cmap_handler = false,
                   bool wrapped = false, bool records = true) {
  Logged l(cmap_handler, records);
  l.fail = fail;
  return outcome_with(l, [&](const Logged& with) { return transit::to_edn(read(with)); }, wrapped);
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
  }, cmap_handler, p.where != EntryPoint::alone, false);
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
                              R"(["^ ","b",{"a":1}])", R"(["~#set",[[1]]])", R"(["~#pt",[0,[1]]])",
                              R"(["~#pt",[0,{"a":[1]}]])", R"(["~#pt",["~#set",[0,{"b":1}]]])"})
      for (const Encoding e : kEncodings) {
        const Form f = form_of(input, e);
        for (const EntryPoint& p : entry_points()) {
          SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
          const auto [want, got] = both(f, p, fail);
          ASSERT_FALSE(want.detail.empty()) << want;
          EXPECT_EQ(want.code, fail == Logged::std_exception ? transit::Errc::bad_rep : transit::Errc::invalid_argument);
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

// A Value as EDN, but for the Records of this file, shown field by field (EDN shows an object
// by its type alone).
std::string show(const Value& v);
std::string show(const Inner31& r) {
  return "Inner31{ys=" + transit::to_edn(Value::array(std::vector<Value>(r.ys.begin(), r.ys.end()))) +
         " w=" + show(r.w) + "}";
}
std::string show(const Rec31& r) {
  std::string s = "Rec31{xs=" + transit::to_edn(Value::array(std::vector<Value>(r.xs.begin(), r.xs.end())));
  s += " extra=" + show(r.extra) + " m=";
  for (const auto& [k, n] : r.m) s += k + ":" + std::to_string(n) + ",";
  s += " vs=";
  for (const Value& x : r.vs) s += show(x) + ",";
  s += " inner=" + (r.inner ? show(*r.inner) : std::string("none"));
  return s + "}";
}
std::string show(const Value& v) {
  switch (v.kind()) {
    case transit::Kind::object:
      if (const Rec31* r = v.get_if<Rec31>()) return show(*r);
      if (const Inner31* r = v.get_if<Inner31>()) return show(*r);
      return transit::to_edn(v);
    case transit::Kind::array:
    case transit::Kind::list:
    case transit::Kind::set: {
      const bool array = v.kind() == transit::Kind::array, list = v.kind() == transit::Kind::list;
      std::string s = array ? "[" : list ? "(" : "#{";
      for (const Value& x : v.items()) s += show(x) + " ";
      return s + (array ? "]" : list ? ")" : "}");
    }
    case transit::Kind::map: {
      std::string s = "{";
      for (const transit::Entry& e : v.entries()) s += show(e.first) + " " + show(e.second) + ", ";
      return s + "}";
    }
    case transit::Kind::tagged:
      return "#" + std::string(v.tag()) + " " + show(v.rep());
    default:
      return transit::to_edn(v);
  }
}

// What `read` gave, shown by show(), or its error, and the builders' calls.
Outcome shown_outcome(const std::function<std::string(const Logged&)>& read) {
  Logged l;
  return outcome_with(l, read, false);
}

constexpr const char* kRecordInputs[] = {
    // C++ containers, Value fields (a std::vector<Value>'s items too), a nested Record.
    R"(["~#rec31",["^ ","~:xs",[1,2],"~:extra",[3,{"a":[4]}],"~:m",{"a":1},"~:vs",[[5],{"b":6}],)"
    R"("~:inner",["~#inner31",["^ ","~:ys",[7],"~:w",{"c":[8]}]]]])",
    // The rep as a JSON object; an empty map and array; the optional Record missing.
    R"(["~#rec31",{"~:xs":[],"~:extra":{"k":[1]},"~:m":{},"~:vs":[]}])",
    // Value fields holding tagged values: a set, a user's tag, a cmap, a Record.
    R"(["~#rec31",["^ ","~:xs",[1],"~:extra",["~#set",[[1]]],"~:m",["^ ","b",2],)"
    R"("~:vs",[["~#pt",[[1],{"a":[2]}]],["~#cmap",[[1],[2]]],["~#inner31",["^ ","~:ys",[3],"~:w",[4]]]]]])",
};

// A Record read into a Value on any entry point (read(), next(), read<Value>, a Value in a
// typed read, from_value) binds as read<Rec> binds it: its C++ fields from the wire's maps and
// arrays, its Value fields built, the builders called as read<Rec> calls them.
TEST(ReadBuilders, ARecordReadIntoAValueBindsAsReadTDoes) {
  for (const char* input : kRecordInputs)
    for (const Encoding e : kEncodings) {
      const Form f = form_of(input, e);
      const Outcome want = shown_outcome(
          [&](const Logged& l) { return show(transit::read<Rec31>(f.bytes, e, l.options())); });
      ASSERT_TRUE(want.detail.empty()) << want;
      const Outcome read = shown_outcome(
          [&](const Logged& l) { return show(transit::read(f.bytes, e, l.options())); });
      EXPECT_EQ(read, want) << input << " as " << transit::encoding_name(e) << ", read()";
      for (const EntryPoint& p : entry_points()) {
        SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
        EXPECT_EQ(shown_outcome([&](const Logged& l) { return show(p.read(f, l)); }), want);
      }
    }
}

// A bad field fails alike on every entry point: read<Rec>'s code, detail, path and builder
// calls, and its byte but in read() and Reader::next(). Those build the Value in the decoder,
// which binds a Record's rep at its end (no token of the rep kept, so that reads without a
// Record's error pay nothing for one): the error is placed at a byte at or past the field's.
void expect_placed_at_the_record(Outcome got, const Outcome& want, const std::string& where) {
  EXPECT_GE(got.offset, want.offset) << where;
  got.offset = want.offset;
  EXPECT_EQ(got, want) << where;
}

TEST(ReadBuilders, ARecordsBadFieldFailsAsInReadT) {
  for (const char* input : {R"(["~#rec31",["^ ","~:xs",[1,"x"],"~:extra",[1],"~:m",{},"~:vs",[]]])",
                            R"(["~#rec31",["^ ","~:xs",[],"~:extra",{"a":[1]},"~:m",{"a":[1]},"~:vs",[]]])",
                            R"(["~#rec31",["^ ","~:xs",[],"~:extra",1,"~:m",{},"~:vs",[[1]],)"
                            R"("~:inner",["~#inner31",["^ ","~:ys",{"a":1},"~:w",[2]]]]])"})
    for (const Encoding e : kEncodings) {
      const Form f = form_of(input, e);
      const Outcome alone = shown_outcome(
          [&](const Logged& l) { return show(transit::read<Rec31>(f.bytes, e, l.options())); });
      const Outcome in_array = shown_outcome([&](const Logged& l) {
        return show(transit::read<std::vector<Rec31>>(f.in_array, e, l.options()).at(0));
      });
      const Outcome in_map = shown_outcome([&](const Logged& l) {
        return show(transit::read<std::map<std::string, Rec31>>(f.in_map, e, l.options()).at("v"));
      });
      ASSERT_EQ(alone.code, transit::Errc::type_mismatch) << alone;
      expect_placed_at_the_record(
          shown_outcome([&](const Logged& l) { return show(transit::read(f.bytes, e, l.options())); }), alone,
          std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", read()");
      // In a container, the path goes through it: `$[0]<#rec31>[:xs][1]`.
      expect_placed_at_the_record(
          shown_outcome([&](const Logged& l) { return show(transit::read(f.in_array, e, l.options())[0]); }),
          in_array, std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", read() in an array");
      expect_placed_at_the_record(
          shown_outcome([&](const Logged& l) { return show(*transit::read(f.in_map, e, l.options()).find(Value("v"))); }),
          in_map, std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", read() in a map");
      for (const EntryPoint& p : entry_points()) {
        SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
        Outcome want = p.where == EntryPoint::alone ? alone : p.where == EntryPoint::in_array ? in_array : in_map;
        Outcome got = shown_outcome([&](const Logged& l) { return show(p.read(f, l)); });
        if (std::string_view(p.name).starts_with("from_value")) got.offset = want.offset;  // no bytes
        if (std::string_view(p.name).starts_with("Reader::next()"))
          expect_placed_at_the_record(got, want, p.name);
        else
          EXPECT_EQ(got, want);
      }
    }
}

// A Record in the rep of a tag a read handler decodes (`pt`, whose rep it gets as a Value):
// its bad field fails at one path on every entry point, read()'s, below that tag and through
// whatever holds the Record in the rep (`$<#pt>[0]<#inner31>[:ys]`). from_value, which decodes
// the tag before it binds, said only the tag (`$`).
TEST(ReadBuilders, ARecordsBadFieldInARepFailsAtItsPath) {
  const char* const inputs[][2] = {
      {R"(["~#pt",[["~#inner31",["^ ","~:ys",{"a":1},"~:w",[2]]],[3]]])", "$<#pt>[0]<#inner31>[:ys]"},
      {R"(["~#pt",[0,{"k":["~#inner31",["^ ","~:ys",[1,"x"],"~:w",2]]}]])",
       R"($<#pt>[1]["k"]<#inner31>[:ys][1])"},
      {R"(["~#pt",["~#pt",[["~#set",[["~#inner31",["^ ","~:ys",[1,"x"],"~:w",2]]]]]]])",
       "$<#pt><#pt>[0]<#set>[0]<#inner31>[:ys][1]"},
      {R"(["~#pt",["~#cmap",[[1],["~#inner31",["^ ","~:ys",["x"],"~:w",2]]]]])",
       "$<#pt><#cmap>[1]<#inner31>[:ys][0]"},
      {R"(["~#pt",["~#cmap",[["~#inner31",["^ ","~:ys",["x"],"~:w",2]],[1]]]])",
       "$<#pt><#cmap>[0]<key><#inner31>[:ys][0]"},
      {R"(["~#pt",[["~#rec31",["^ ","~:xs",[],"~:extra",1,"~:m",{},"~:vs",[],)"
       R"("~:inner",["~#inner31",["^ ","~:ys",[1,"x"],"~:w",2]]]]]])",
       "$<#pt>[0]<#rec31>[:inner]<#inner31>[:ys][1]"},
      {R"(["~#rec31",["^ ","~:xs",[],"~:extra",1,"~:m",{},)"
       R"("~:vs",[["~#pt",[["~#inner31",["^ ","~:ys",[1,"x"],"~:w",2]]]]]]])",
       "$<#rec31>[:vs][0]<#pt>[0]<#inner31>[:ys][1]"},
  };
  for (const auto& [input, path] : inputs)
    for (const Encoding e : kEncodings) {
      const Form f = form_of(input, e);
      const auto read = [&](const std::string& bytes, auto part) {
        return shown_outcome([&](const Logged& l) { return show(part(transit::read(bytes, e, l.options()))); });
      };
      const Outcome alone = read(f.bytes, [](const Value& v) { return v; });
      const Outcome in_array = read(f.in_array, [](const Value& v) { return v[0]; });
      const Outcome in_map = read(f.in_map, [](const Value& v) { return *v.find(Value("v")); });
      EXPECT_EQ(alone.code, transit::Errc::type_mismatch) << alone;
      EXPECT_EQ(alone.path, path) << input << " as " << transit::encoding_name(e);
      EXPECT_EQ(in_array.path, "$[0]" + std::string(path).substr(1));
      EXPECT_EQ(in_map.path, R"($["v"])" + std::string(path).substr(1));
      for (const EntryPoint& p : entry_points()) {
        SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
        const Outcome& want = p.where == EntryPoint::alone ? alone : p.where == EntryPoint::in_array ? in_array : in_map;
        Outcome got = shown_outcome([&](const Logged& l) { return show(p.read(f, l)); });
        // from_value has no bytes; read() places a Record it binds (rec31) at its rep's end, the
        // typed entry points at the field's byte.
        if (!std::string_view(p.name).starts_with("from_value")) {
          EXPECT_LE(got.offset, want.offset);
        }
        got.offset = want.offset;
        EXPECT_EQ(got, want);
      }
    }
}

// A read handler that fails in the rep of a tag that from_value decodes first fails at the
// tagged value, as read() places it, not at the outer tag.
TEST(ReadBuilders, AHandlerFailingInARepFailsAtItsTaggedValue) {
  ReadHandlers h;
  h.add("pt", [](const Value& rep) { return Value::list({Value::keyword("pt"), rep}); });
  h.add("bad", [](const Value&) -> Value { throw std::runtime_error("no"); });
  h.add("set", [](const Value&) -> Value { throw std::runtime_error("no set"); });
  h.add("cmap", [](const Value&) -> Value { throw std::runtime_error("no cmap"); });
  const char* const inputs[][2] = {
      {R"([0,["~#pt",[1,["~#bad",[1]]]]])", "$[1]<#pt>[1]"},
      {R"([0,["~#pt",[1,["~#set",[1]]]]])", "$[1]<#pt>[1]"},
      {R"([0,["~#pt",[1,["~#cmap",[[1],2]]]]])", "$[1]<#pt>[1]"},
      {R"([0,["~#pt",{"a":["~#pt",["~#bad",1]]}]])", R"($[1]<#pt>["a"]<#pt>)"},
  };
  for (const auto& row : inputs) {
    const char* const input = row[0];  // not a structured binding: clang 14 captures none
    const std::string_view path = row[1];
    SCOPED_TRACE(input);
    const auto failure = [](const auto& read) {
      try {
        (void)read();
      } catch (const Error& e) {
        return e.path() + ": " + e.detail();
      }
      return std::string("no error");
    };
    const std::string want = failure([&] { return transit::read(input, Encoding::json, {.handlers = &h}); });
    EXPECT_TRUE(want.starts_with(std::string(path) + ": read handler for ~#")) << want;
    EXPECT_EQ(failure([&] { return transit::from_value<Value>(transit::read(input), &h); }), want);
  }
}

// Inside a tagged value a read handler decodes (whose rep it gets as a Value, built), and as a
// cmap's key, a Record binds by structure too: read() makes it as read<Value> and from_value do.
TEST(ReadBuilders, ARecordInARepOrACmapKeyBindsByStructure) {
  const char* const inputs[][2] = {
      {R"(["~#pt",[["~#inner31",["^ ","~:ys",[1],"~:w",[2]]],[3]]])",
       "(:pt [Inner31{ys=[1] w=#built-array [2 ]} #built-array [3 ] ] )"},
      {R"(["~#cmap",[["~#inner31",["^ ","~:ys",[1],"~:w",{"a":2}]],[3]]])",
       "{Inner31{ys=[1] w=#built-map {\"a\" 2, }} #built-array [3 ], }"},
  };
  for (const auto& [input, shown] : inputs)
    for (const Encoding e : kEncodings) {
      const Form f = form_of(input, e);
      const Outcome want = shown_outcome(
          [&](const Logged& l) { return show(transit::read(f.bytes, e, l.options())); });
      EXPECT_EQ(want.value, shown) << want;
      for (const EntryPoint& p : entry_points()) {
        SCOPED_TRACE(std::string(input) + " as " + std::string(transit::encoding_name(e)) + ", " + p.name);
        EXPECT_EQ(shown_outcome([&](const Logged& l) { return show(p.read(f, l)); }), want);
      }
    }
}

// User code that throws what is no std::exception (which no one converts) runs once too: a read
// in batches that binds its value again whole takes what it threw the first time.
TEST(ReadBuilders, UserCodeThatThrowsNoStdExceptionRunsOnce) {
  struct Thrown {};
  for (const Encoding e : kEncodings) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    for (const bool builder : {false, true}) {
      int calls = 0;
      ReadHandlers h;
      if (builder)
        h.set_array_builder([&](std::span<Value>) -> Value {
          ++calls;
          throw Thrown{};
        });
      else
        h.add("set", [&](const Value&) -> Value {
          ++calls;
          throw Thrown{};
        });
      const Form f = form_of(R"([0,["~#set",[1]],[1],2,3,4,5])", e);
      for (const std::size_t batch : {ReadOptions::kLibraryDefault, std::size_t{3}}) {
        calls = 0;
        ReadOptions o;
        o.handlers = &h;
        o.typed_batch_tokens = batch;
        EXPECT_THROW((void)transit::read<std::vector<Value>>(f.bytes, e, o), Thrown);
        EXPECT_EQ(calls, 1) << (builder ? "array builder" : "set handler") << ", batch " << batch;
      }
    }
  }
}

// A tagged value the binder decodes with no handler (a set with no handler, a bad rep) fails
// alike on every bind of it: a std::variant's next alternative, a read in batches.
TEST(ReadBuilders, ADecodeErrorOfATaggedValueIsTheSameOnEveryBind) {
  for (const Encoding e : kEncodings) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    // Written from a Value: a read decodes the cmap as it meets it, and fails.
    const std::string bytes = transit::write(
        Value::array({transit::ValueAccess::tagged(  // an odd cmap, which Value::tagged refuses
                          Value("cmap"), Value::array({Value::array({Value(1)}), Value(2), Value(3)})),
                      Value(1)}),
        e);
    std::vector<std::string> errors;
    for (const std::size_t batch : {ReadOptions::kLibraryDefault, std::size_t{3}}) {
      Logged l;
      try {
        (void)transit::read<std::vector<std::variant<Value, int>>>(bytes, e, l.options(batch));
      } catch (const Error& err) {
        errors.push_back(err.what());
      }
      try {
        (void)transit::read<std::vector<Value>>(bytes, e, l.options(batch));
      } catch (const Error& err) {
        errors.push_back(err.what());
      }
      // The cmap's key, built where the binder reads the cmap (JSON-Verbose's map form: the
      // others fail as the decoder tapes it), once a read, the variant's second try included.
      EXPECT_LE(l.log.size(), 2u);
      for (const std::string& call : l.log) EXPECT_EQ(call, "array [1]");
    }
    ASSERT_EQ(errors.size(), 4u);
    EXPECT_EQ(errors[0], errors[2]) << "std::variant<Value, int>, in batches";
    EXPECT_EQ(errors[1], errors[3]) << "Value, in batches";
  }
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
