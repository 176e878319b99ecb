// SPDX-License-Identifier: Apache-2.0
// Writing C++ object graphs directly, user handlers through the registry, read handlers that
// build user objects, and one frozen registry shared by many writer threads.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

// ---- standard types --------------------------------------------------------------------------------

// A C++ value written directly must give the very bytes of its Value counterpart.
template <class T>
void expect_same_as_value(const T& direct, const Value& as_value) {
  for (Encoding e : kAll)
    EXPECT_EQ(transit::write(direct, e), transit::write(as_value, e))
        << transit::encoding_name(e) << ": " << transit::to_edn(as_value);
}

TEST(WriteDirect, Scalars) {
  expect_same_as_value(true, Value(true));
  expect_same_as_value(42, Value(42));
  expect_same_as_value(std::int8_t{-3}, Value(-3));
  expect_same_as_value(std::uint16_t{65535}, Value(65535));
  expect_same_as_value(std::int64_t{1} << 60, Value(std::int64_t{1} << 60));
  expect_same_as_value(2.5, Value(2.5));
  expect_same_as_value(1.5f, Value(1.5));
  expect_same_as_value(std::string("~tilde"), Value("~tilde"));
  expect_same_as_value(std::string_view("plain"), Value("plain"));
  expect_same_as_value("literal", Value("literal"));
  expect_same_as_value(nullptr, Value());
  expect_same_as_value(transit::as_keyword("kw"), transit::kw("kw"));
  expect_same_as_value(transit::as_symbol("sym"), transit::sym("sym"));
}

TEST(WriteDirect, UnsignedAboveInt64MaxIsABigInteger) {
  const std::uint64_t big = 18446744073709551615ULL;
  expect_same_as_value(big, Value::big_integer("18446744073709551615"));
  EXPECT_EQ(transit::write(big), R"(["~#'","~n18446744073709551615"])");
  EXPECT_EQ(transit::read(transit::write(big, Encoding::msgpack), Encoding::msgpack),
            Value::big_integer("18446744073709551615"));
}

TEST(WriteDirect, Sequences) {
  const Value v = Value::array({1, 2, 3});
  expect_same_as_value(std::vector<int>{1, 2, 3}, v);
  expect_same_as_value(std::deque<long>{1, 2, 3}, v);
  expect_same_as_value(std::array<short, 3>{1, 2, 3}, v);
  expect_same_as_value(std::pair<int, std::string>{1, "a"}, Value::array({1, "a"}));
  expect_same_as_value(std::tuple<int, double, bool>{1, 2.5, true}, Value::array({1, 2.5, true}));
  expect_same_as_value(std::list<int>{1, 2, 3}, Value::list({1, 2, 3}));
  expect_same_as_value(std::forward_list<int>{1, 2, 3}, Value::list({1, 2, 3}));
  expect_same_as_value(std::set<int>{1, 2, 3}, Value::set({1, 2, 3}));
  expect_same_as_value(transit::as_list(std::vector<int>{4}), Value::list({4}));
  expect_same_as_value(transit::as_set(std::vector<int>{4}), Value::set({4}));
  const std::unordered_set<int> us{7};
  expect_same_as_value(us, Value::set({7}));
}

TEST(WriteDirect, MapsAndCmaps) {
  expect_same_as_value(std::map<std::string, int>{{"a", 1}, {"b", 2}},
                       Value::map({{"a", 1}, {"b", 2}}));
  expect_same_as_value(std::map<int, std::string>{{1, "one"}}, Value::map({{1, "one"}}));
  // Array keys are not scalars: a cmap.
  expect_same_as_value(std::map<std::vector<int>, int>{{{1, 2}, 3}},
                       Value::map({{Value::array({1, 2}), 3}}));
  const std::vector<std::pair<std::string, int>> pairs{{"x", 1}};
  expect_same_as_value(transit::as_map(pairs), Value::map({{"x", 1}}));
  const std::unordered_map<std::string, std::vector<int>> um{{"k", {1}}};
  expect_same_as_value(um, Value::map({{"k", Value::array({1})}}));
  // Map keys are cached as in any map.
  const std::vector<std::map<std::string, int>> rows{{{"name", 1}}, {{"name", 2}}};
  EXPECT_EQ(transit::write(rows), R"([["^ ","name",1],["^ ","^0",2]])");
}

TEST(WriteDirect, OptionalVariantTimeBytesPointers) {
  expect_same_as_value(std::optional<int>{}, Value());
  expect_same_as_value(std::optional<int>{5}, Value(5));
  expect_same_as_value(std::variant<int, std::string>{std::string("v")}, Value("v"));
  const std::chrono::system_clock::time_point t{std::chrono::milliseconds(1396909037000)};
  expect_same_as_value(t, Value::instant(1396909037000));
  const std::vector<std::byte> bytes{std::byte{1}, std::byte{2}, std::byte{255}};
  expect_same_as_value(bytes, Value::bytes(bytes));
  expect_same_as_value(std::span<const std::byte>(bytes), Value::bytes(bytes));
  const int n = 9;
  expect_same_as_value(&n, Value(9));
  expect_same_as_value(static_cast<const int*>(nullptr), Value());
  expect_same_as_value(std::make_unique<int>(3), Value(3));
  expect_same_as_value(std::shared_ptr<std::string>(), Value());
  expect_same_as_value(Value::uuid({1, 2}), Value::uuid({1, 2}));
}

// ---- user types ----------------------------------------------------------------------------------------

struct Point {
  int x = 0, y = 0;
  bool operator==(const Point&) const = default;
};

struct Shape {
  virtual ~Shape() = default;
  std::string name;
  bool operator==(const Shape&) const = default;
};
struct Circle : Shape {
  Point center;
  double radius = 0;
  bool operator==(const Circle&) const = default;
};
struct Polygon : Shape {
  std::vector<Point> points;
  bool operator==(const Polygon&) const = default;
};
struct Square : Polygon {};  // no handler of its own: written as its base Polygon

// One-character tag with a string rep: written as "~T<text>", usable as a map key.
struct Celsius {
  double degrees = 0;
  bool operator==(const Celsius&) const = default;
};

transit::Registry shapes_registry(transit::LookupStrategy strategy = transit::LookupStrategy::memoized) {
  transit::RegistryBuilder b;
  transit::add<Point>(b, "point", [](const Point& p) { return std::array{p.x, p.y}; });
  transit::add(b, transit::Handler<Circle>("circle").rep([](const Circle& c) {
    return std::tuple{std::string_view(c.name), c.center, c.radius};
  }));
  transit::add(b, transit::Handler<Polygon>("polygon").rep([](const Polygon& p) {
    return std::pair<std::string_view, const std::vector<Point>&>{p.name, p.points};
  }));
  transit::add<Celsius>(b, "T", [](const Celsius& c) { return std::to_string(c.degrees); });
  b.derives<Circle, Shape>().derives<Polygon, Shape>().derives<Square, Polygon>();
  return std::move(b).freeze(strategy);
}

transit::ReadHandlers shapes_read_handlers() {
  transit::ReadHandlers h;
  auto point = [](const Value& rep) { return Point{int(rep[0].as_int()), int(rep[1].as_int())}; };
  h.add_object<Point>("point", point);
  h.add_object<Circle>("circle", [](const Value& rep) {
    Circle c;
    c.name = rep[0].as_string();
    c.center = rep[1].as<Point>();
    c.radius = rep[2].as_double();
    return c;
  });
  h.add_object<Polygon>("polygon", [](const Value& rep) {
    Polygon p;
    p.name = rep[0].as_string();
    for (const Value& pt : rep[1].items()) p.points.push_back(pt.as<Point>());
    return p;
  });
  h.add_object<Celsius>("T", [](const Value& rep) { return Celsius{std::stod(std::string(rep.as_string()))}; });
  return h;
}

std::vector<std::unique_ptr<Shape>> sample_shapes() {
  std::vector<std::unique_ptr<Shape>> shapes;
  auto c = std::make_unique<Circle>();
  c->name = "sun";
  c->center = {3, 4};
  c->radius = 1.5;
  shapes.push_back(std::move(c));
  auto p = std::make_unique<Polygon>();
  p->name = "triangle";
  p->points = {{0, 0}, {4, 0}, {0, 3}};
  shapes.push_back(std::move(p));
  auto s = std::make_unique<Square>();
  s->name = "square";
  s->points = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  shapes.push_back(std::move(s));
  return shapes;
}

TEST(UserTypes, HierarchyWrittenByDynamicTypeWithNestedHandlers) {
  const transit::Registry registry = shapes_registry();
  transit::WriteOptions options;
  options.registry = &registry;
  EXPECT_EQ(transit::write(sample_shapes(), Encoding::json, options),
            R"([["~#circle",["sun",["~#point",[3,4]],1.5]],)"
            R"(["~#polygon",["triangle",[["^1",[0,0]],["^1",[4,0]],["^1",[0,3]]]]],)"
            R"(["^2",["square",[["^1",[0,0]],["^1",[1,0]],["^1",[1,1]],["^1",[0,1]]]]]])");
  EXPECT_EQ(transit::write(sample_shapes(), Encoding::json_verbose, options),
            R"([{"~#circle":["sun",{"~#point":[3,4]},1.5]},)"
            R"({"~#polygon":["triangle",[{"~#point":[0,0]},{"~#point":[4,0]},{"~#point":[0,3]}]]},)"
            R"({"~#polygon":["square",[{"~#point":[0,0]},{"~#point":[1,0]},{"~#point":[1,1]},)"
            R"({"~#point":[0,1]}]]}])");
}

TEST(UserTypes, HierarchyRoundTripsInEveryEncoding) {
  const transit::Registry registry = shapes_registry();
  transit::WriteOptions write_options;
  write_options.registry = &registry;
  const transit::ReadHandlers handlers = shapes_read_handlers();
  transit::ReadOptions read_options;
  read_options.handlers = &handlers;
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    const std::string bytes = transit::write(sample_shapes(), e, write_options);
    const Value back = transit::read(bytes, e == Encoding::msgpack ? e : Encoding::json, read_options);
    ASSERT_EQ(back.size(), 3u);
    const Circle& sun = back[0].as<Circle>();
    EXPECT_EQ(sun.name, "sun");
    EXPECT_EQ(sun.center, (Point{3, 4}));
    EXPECT_EQ(sun.radius, 1.5);
    EXPECT_EQ(back[1].as<Polygon>().points.size(), 3u);
    // A Square has no tag of its own: it comes back as the Polygon it was written as.
    EXPECT_EQ(back[2].as<Polygon>().name, "square");
    EXPECT_EQ(back[2].get_if<Square>(), nullptr);
    // Values holding user objects are written back through the same handlers, byte for byte.
    EXPECT_EQ(transit::write(back, e, write_options), bytes);
  }
}

TEST(UserTypes, OneCharacterTagIsAScalarAndAMapKey) {
  const transit::Registry registry = shapes_registry();
  transit::WriteOptions options;
  options.registry = &registry;
  EXPECT_EQ(transit::write(Celsius{21.5}, Encoding::json, options), R"(["~#'","~T21.500000"])");
  const std::vector<std::pair<Celsius, std::string>> readings{{Celsius{4}, "cold"}};
  EXPECT_EQ(transit::write(transit::as_map(readings), Encoding::json, options),
            R"(["^ ","~T4.000000","cold"])");
  // A point key is not a scalar: the map becomes a cmap.
  const std::vector<std::pair<Point, int>> grid{{Point{1, 2}, 3}};
  EXPECT_EQ(transit::write(transit::as_map(grid), Encoding::json, options),
            R"(["~#cmap",[["~#point",[1,2]],3]])");
  const transit::ReadHandlers handlers = shapes_read_handlers();
  transit::ReadOptions read_options;
  read_options.handlers = &handlers;
  const Value back = transit::read(R"(["^ ","~T4.000000","cold"])", Encoding::json, read_options);
  EXPECT_EQ(back.entries()[0].first.as<Celsius>(), Celsius{4});
}

TEST(UserTypes, MissingHandlerNamesTheTypeAndLeavesNoPartialOutput) {
  const transit::Registry registry = shapes_registry();
  transit::WriteOptions options;
  options.registry = &registry;
  struct Unregistered {};
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::json, options);
  writer.write(Value::array({1}));
  try {
    writer.write(std::vector<std::variant<int, Unregistered>>{1, Unregistered{}});
    FAIL() << "expected no_handler";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::no_handler);
    EXPECT_NE(std::string(e.what()).find("Unregistered; no ancestors are declared"),
              std::string::npos)
        << e.what();
  }
  writer.write(Value::array({2}));
  writer.flush();
  EXPECT_EQ(out, "[1][2]");
}

TEST(UserTypes, WithoutRegistryUserObjectsAreAClearError) {
  try {
    transit::write(Value::object(Point{1, 2}));
    FAIL();
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::no_handler);
    // The type named as the registry names it, not by its mangled name ("N12_GLOBAL__N_15PointE").
    EXPECT_STREQ(e.what(),
                 "transit: no_handler: no write handler for C++ type (anonymous namespace)::Point: "
                 "the writer has no registry (WriteOptions::registry)");
  }
}

// A tag that the handler's `tag` function gives an object is held to the registry's rules for a
// fixed tag (RegistryBuilder::add_erased): one no reader reads, or a built-in one, is refused
// when the object is written, as a value and as a map key, rather than written as output that
// reads back as something else or not at all.
TEST(UserTypes, DynamicTagsNoReaderReadsAsTheTypeAreRefused) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"", "is not a valid tag: empty, or has whitespace or a control character"},
      {"a b", "is not a valid tag: empty, or has whitespace or a control character"},
      {"tab\there", "is not a valid tag: empty, or has whitespace or a control character"},
      {"u", "is a built-in Transit tag; a user type needs a tag of its own"},
      {":", "is a built-in Transit tag; a user type needs a tag of its own"},
      {"#", "is a built-in Transit tag; a user type needs a tag of its own"},
  };
  // Not a structured binding: clang 14 cannot capture one in the lambda below.
  for (const auto& entry : refused) {
    const std::string& tag = entry.first;
    const std::string& why = entry.second;
    transit::RegistryBuilder b;
    transit::add(b, transit::Handler<Point>("point")
                        .rep([](const Point& p) { return std::array{p.x, p.y}; })
                        .string_rep([](const Point& p) { return std::to_string(p.x); })
                        .tag([t = tag](const Point& p) { return p.x == p.y ? t : std::string("point"); }));
    const transit::Registry registry = std::move(b).freeze();
    transit::WriteOptions options;
    options.registry = &registry;
    for (const Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
      SCOPED_TRACE("tag \"" + tag + "\", " + std::string(transit::encoding_name(e)));
      // Objects the function gives a good tag are written as before.
      EXPECT_NO_THROW(transit::write(std::vector<Point>{{1, 2}}, e, options));
      const auto expect_refused = [&](auto&& value) {
        try {
          transit::write(value, e, options);
          ADD_FAILURE() << "written";
        } catch (const transit::Error& err) {
          EXPECT_EQ(err.code(), transit::Errc::invalid_argument);
          EXPECT_EQ(std::string(err.what()),
                    "transit: invalid_argument: the tag \"" + tag +
                        "\" that the write handler for (anonymous namespace)::Point gave an object " + why);
        }
      };
      expect_refused(std::vector<Point>{{1, 2}, {3, 3}});
      expect_refused(Point{3, 3});
      expect_refused(std::map<Point, int, bool (*)(const Point&, const Point&)>(
          {{Point{3, 3}, 1}}, [](const Point& a, const Point& b) { return a.x < b.x; }));
    }
  }
}

TEST(UserTypes, VerboseRepAndDynamicTag) {
  transit::RegistryBuilder b;
  transit::add(b, transit::Handler<Point>("point")
                      .rep([](const Point& p) { return std::array{p.x, p.y}; })
                      .verbose_rep([](const Point& p) {
                        return std::map<std::string, int>{{"x", p.x}, {"y", p.y}};
                      })
                      .tag([](const Point& p) { return p.x == p.y ? "diag" : "point"; }));
  const transit::Registry registry = std::move(b).freeze();
  transit::WriteOptions options;
  options.registry = &registry;
  EXPECT_EQ(transit::write(std::vector<Point>{{1, 2}, {3, 3}}, Encoding::json, options),
            R"([["~#point",[1,2]],["~#diag",[3,3]]])");
  EXPECT_EQ(transit::write(Point{1, 2}, Encoding::json_verbose, options),
            R"({"~#point":{"x":1,"y":2}})");
}

// A verbose rep is JSON-Verbose's rep wherever the rep would be written, as transit-java's
// verbose handlers are: for a one-character tag written as a "~X" string, a string verbose rep
// takes the string's place (value and key); any other is written as {"~#X": verbose rep}, and
// a key, which must be a string, keeps the string rep. It was ignored for one-character tags
// and for the direct tags ("map", "array", "s" ...): JSON-Verbose wrote what JSON writes.
struct Reading {
  int tenths;
};
bool reading_less(const Reading& a, const Reading& b) { return a.tenths < b.tenths; }
using ReadingKeyed = std::map<Reading, int, bool (*)(const Reading&, const Reading&)>;

TEST(UserTypes, VerboseRepOfAOneCharacterTag) {
  const auto text = [](const Reading& c) { return std::to_string(c.tenths); };
  const auto words = [](const Reading& c) { return std::to_string(c.tenths) + " tenths C"; };
  const auto fields = [](const Reading& c) { return std::map<std::string, int>{{"tenths", c.tenths}}; };
  const auto written = [](transit::Handler<Reading> handler, const auto& value, Encoding e) {
    transit::RegistryBuilder b;
    transit::add(b, std::move(handler));
    const transit::Registry registry = std::move(b).freeze();
    transit::WriteOptions options;
    options.registry = &registry;
    return transit::write(value, e, options);
  };
  const Reading warm{215};
  const std::vector<Reading> list{warm};
  const ReadingKeyed keyed({{warm, 1}}, reading_less);

  // A string verbose rep: "~X" + it, as a value and as a key; JSON and MessagePack keep the rep.
  const auto stringly = transit::Handler<Reading>("T").rep(text).verbose_rep(words);
  EXPECT_EQ(written(stringly, list, Encoding::json_verbose), R"(["~T215 tenths C"])");
  EXPECT_EQ(written(stringly, keyed, Encoding::json_verbose), R"({"~T215 tenths C":1})");
  EXPECT_EQ(written(stringly, list, Encoding::json), R"(["~T215"])");
  EXPECT_EQ(written(stringly, keyed, Encoding::json), R"(["^ ","~T215",1])");
  EXPECT_EQ(transit::read(written(stringly, warm, Encoding::msgpack), Encoding::msgpack),
            transit::read(R"(["~#'","~T215"])"));

  // Any other verbose rep: {"~#X": it} as a value; a key keeps the string rep.
  const auto mapped = transit::Handler<Reading>("T").rep(text).verbose_rep(fields);
  EXPECT_EQ(written(mapped, list, Encoding::json_verbose), R"([{"~#T":{"tenths":215}}])");
  // Alone, it is quoted as a one-character tag's scalar is (so transit-java writes it too).
  EXPECT_EQ(written(mapped, warm, Encoding::json_verbose), R"({"~#'":{"~#T":{"tenths":215}}})");
  EXPECT_EQ(written(mapped, keyed, Encoding::json_verbose), R"({"~T215":1})");
  EXPECT_EQ(written(mapped, list, Encoding::json), R"(["~T215"])");

  // A verbose rep given, then replaced by one that is not a string: the string form goes too.
  const auto replaced = transit::Handler<Reading>("T").rep(text).verbose_rep(words).verbose_rep(fields);
  EXPECT_EQ(written(replaced, list, Encoding::json_verbose), R"([{"~#T":{"tenths":215}}])");

  // Both verbose forms read back as the tag's value with the verbose rep.
  const Value as_string = transit::read(written(stringly, warm, Encoding::json_verbose));
  ASSERT_EQ(as_string.kind(), transit::Kind::tagged);
  EXPECT_EQ(as_string.tag(), "T");
  EXPECT_EQ(as_string.rep(), Value("215 tenths C"));
  const Value as_map = transit::read(written(mapped, warm, Encoding::json_verbose));
  ASSERT_EQ(as_map.kind(), transit::Kind::tagged);
  EXPECT_EQ(as_map.tag(), "T");
  EXPECT_EQ(as_map.rep(), transit::read(R"({"tenths":215})"));
}

// docs/custom-types.md's sample, verbatim, and what its comment says it writes.
TEST(UserTypes, VerboseRepDocSample) {
  transit::RegistryBuilder b;
  // doc-sample begin
  struct Reading { int tenths; };
  transit::add(b, transit::Handler<Reading>("T")
                      .rep([](const Reading& r) { return std::to_string(r.tenths); })
                      .verbose_rep([](const Reading& r) { return std::to_string(r.tenths) + " tenths C"; }));
  // JSON: ["~T215"]   JSON-Verbose: ["~T215 tenths C"], and as a map key {"~T215 tenths C":1}
  // doc-sample end
  const transit::Registry registry = std::move(b).freeze();
  transit::WriteOptions options;
  options.registry = &registry;
  const std::vector<Reading> list{{215}};
  const std::map<Reading, int, bool (*)(const Reading&, const Reading&)> keyed(
      {{Reading{215}, 1}}, [](const Reading& x, const Reading& y) { return x.tenths < y.tenths; });
  EXPECT_EQ(transit::write(list, Encoding::json, options), R"(["~T215"])");
  EXPECT_EQ(transit::write(list, Encoding::json_verbose, options), R"(["~T215 tenths C"])");
  EXPECT_EQ(transit::write(keyed, Encoding::json_verbose, options), R"({"~T215 tenths C":1})");
}

TEST(UserTypes, VerboseRepOfADirectTag) {
  transit::RegistryBuilder b;
  transit::add(b, transit::Handler<Reading>("map")
                      .rep([](const Reading& c) { return std::map<std::string, int>{{"t", c.tenths}}; })
                      .verbose_rep([](const Reading& c) {
                        return std::map<std::string, int>{{"tenths", c.tenths}};
                      }));
  const transit::Registry registry = std::move(b).freeze();
  transit::WriteOptions options;
  options.registry = &registry;
  EXPECT_EQ(transit::write(Reading{215}, Encoding::json_verbose, options), R"({"tenths":215})");
  EXPECT_EQ(transit::write(Reading{215}, Encoding::json, options), R"(["^ ","t",215])");
}

TEST(UserTypes, ProfilerCountsLookupsOfTheObjectGraph) {
  const transit::Registry registry = shapes_registry();
  transit::LookupProfiler profiler;
  transit::WriteOptions options;
  options.registry = &registry;
  options.profiler = &profiler;
  transit::write(sample_shapes(), Encoding::json, options);
  transit::write(sample_shapes(), Encoding::json, options);
  std::uint64_t square_walks = 0, square_memo = 0, point_exact = 0;
  for (const auto& s : profiler.report()) {
    if (s.type_name.find("Square") != std::string::npos) {
      square_walks = s.walks;
      square_memo = s.memo_hits;
    }
    if (s.type_name.find("Point") != std::string::npos) point_exact = s.exact_hits;
  }
  EXPECT_EQ(square_walks, 1u);  // the first Square walks to Polygon ...
  EXPECT_EQ(square_memo, 1u);   // ... the second is a memo hit
  EXPECT_EQ(point_exact, 2u * (1 + 3 + 4));
}

// A map with no user-object keys claims nothing; written inside a map whose keys are user
// objects, it must not take its parent's claims: the same object as a key of the outer map and
// as a value inside the inner one is looked up once for each place it is written.
TEST(UserTypes, MapsWithoutObjectKeysLeaveTheirParentsClaimsAlone) {
  const transit::Registry registry = shapes_registry();
  transit::LookupProfiler profiler;
  transit::WriteOptions options;
  options.registry = &registry;
  options.profiler = &profiler;
  const Value c1 = Value::object(Celsius{1}), c2 = Value::object(Celsius{2});
  const Value v = Value::map({{c1, Value::map({{Value("k"), c2}, {Value("long key"), Value::map({})}})},
                              {c2, Value::map({{Value("k"), c1}})}});
  EXPECT_EQ(transit::write(v, Encoding::json, options),
            R"(["^ ","~T1.000000",["^ ","k","~T2.000000","long key",["^ "]],"~T2.000000",["^ ","k","~T1.000000"]])");
  std::uint64_t celsius = 0;
  for (const auto& s : profiler.report())
    if (s.type_name.find("Celsius") != std::string::npos) celsius = s.lookups();
  EXPECT_EQ(celsius, 4u);  // two keys, resolved once before the outer map, and two values
}

// Every object written is looked up exactly once, including user-type map keys (checked for
// being scalars before the map is written) and top-level objects, at any nesting.
TEST(UserTypes, ProfilerCountsOneLookupPerObjectWritten) {
  const transit::Registry registry = shapes_registry();
  transit::LookupProfiler profiler;
  transit::WriteOptions options;
  options.registry = &registry;
  options.profiler = &profiler;
  using Keys = std::vector<std::pair<Celsius, int>>;
  std::vector<std::pair<Celsius, transit::MapView<Keys>>> nested;
  nested.emplace_back(Celsius{1}, transit::as_map(Keys{{Celsius{2}, 2}, {Celsius{3}, 3}}));
  nested.emplace_back(Celsius{4}, transit::as_map(Keys{{Celsius{5}, 5}}));
  std::string out;
  transit::StringSink sink(out);
  transit::Writer writer(sink, Encoding::json, options);
  writer.write(Celsius{0});                                                   // Celsius 1
  writer.write(transit::as_map(std::vector<std::pair<Celsius, Point>>{
      {Celsius{6}, {1, 1}}, {Celsius{7}, {2, 2}}, {Celsius{8}, {3, 3}}}));    // Celsius 3, Point 3
  writer.write(transit::as_map(nested));                                      // Celsius 5
  writer.write(Value::map({{Value::object(Celsius{9}), Value::object(Point{4, 4})}}));  // 1, 1
  writer.write(sample_shapes());  // Circle 1, Polygon 1, Square 1, Point 1 + 3 + 4
  writer.flush();
  EXPECT_EQ(out,
            R"(["~#'","~T0.000000"])"
            R"(["^ ","~T6.000000",["~#point",[1,1]],"~T7.000000",["^1",[2,2]],"~T8.000000",["^1",[3,3]]])"
            R"(["^ ","~T1.000000",["^ ","~T2.000000",2,"~T3.000000",3],"~T4.000000",["^ ","~T5.000000",5]])"
            R"(["^ ","~T9.000000",["~#point",[4,4]]])"
            R"([["~#circle",["sun",["~#point",[3,4]],1.5]],["~#polygon",["triangle",[["^1",[0,0]],["^1",[4,0]],["^1",[0,3]]]]],["^2",["square",[["^1",[0,0]],["^1",[1,0]],["^1",[1,1]],["^1",[0,1]]]]]])");
  std::map<std::string, std::uint64_t> lookups;
  for (const auto& s : profiler.report()) {
    lookups[s.type_name.substr(s.type_name.rfind(':') + 1)] = s.lookups();
    EXPECT_EQ(s.failures + s.default_fallbacks, 0u);
  }
  EXPECT_EQ(lookups, (std::map<std::string, std::uint64_t>{
                         {"Celsius", 1 + 3 + 5 + 1}, {"Point", 3 + 1 + 1 + 3 + 4}, {"Circle", 1},
                         {"Polygon", 1}, {"Square", 1}}));
}

TEST(UserTypes, ProfilerSampleOfTheDocs) {
  const transit::Registry registry = shapes_registry();
  const auto objects = sample_shapes();
  // doc-sample begin
  transit::LookupProfiler profiler;          // times one hit in 64 of each type, every walk
  transit::WriteOptions options;
  options.registry = &registry;
  options.profiler = &profiler;              // attach it to a writer
  transit::write(objects, transit::Encoding::json, options);
  const std::string table = profiler.table();  // the hot-spot table
  const std::string json = profiler.json();    // the same, for tools
  // doc-sample end
  EXPECT_NE(table.find("Polygon @1"), std::string::npos) << table;
  EXPECT_NE(json.find(R"("resolution":"ancestor")"), std::string::npos) << json;
  EXPECT_GT(profiler.writer_time().count(), 0);
}

// ---- read handlers -----------------------------------------------------------------------------------

TEST(ReadHandlers, GroundTagsCannotBeOverridden) {
  transit::ReadHandlers h;
  for (const char* tag : {"_", "s", "?", "i", "d", "b", "'", "array", "map"}) {
    try {
      h.add(tag, [](const Value& v) { return v; });
      FAIL() << tag;
    } catch (const transit::Error& e) {
      EXPECT_EQ(e.code(), transit::Errc::invalid_argument);
    }
  }
  // Extension tags can be: here sets are read as arrays.
  h.add("set", [](const Value& rep) { return rep; });
  transit::ReadOptions o;
  o.handlers = &h;
  EXPECT_EQ(transit::read(R"(["~#set",[1,2]])", Encoding::json, o), Value::array({1, 2}));
}

TEST(ReadHandlers, DefaultHandlerSeesUnknownTags) {
  transit::ReadHandlers h;
  h.set_default([](std::string_view tag, const Value& rep) {
    return Value::array({Value(tag), rep});
  });
  transit::ReadOptions o;
  o.handlers = &h;
  EXPECT_EQ(transit::read(R"(["~#unknown",5])", Encoding::json, o), Value::array({"unknown", 5}));
  EXPECT_EQ(transit::read(R"(["~Xabc"])", Encoding::json, o),
            Value::array({Value::array({"X", "abc"})}));
  // Known tags are not the default handler's business.
  EXPECT_EQ(transit::read(R"(["~#set",[1]])", Encoding::json, o), Value::set({1}));
}

TEST(ReadHandlers, BuildersReadIntoUserContainers) {
  using Dict = std::map<std::string, std::int64_t>;
  transit::ReadHandlers h;
  h.set_map_builder([](std::span<Value> kv) {
    Dict d;
    for (std::size_t i = 0; i < kv.size(); i += 2) d[std::string(kv[i].as_string())] = kv[i + 1].as_int();
    return Value::object(std::move(d));
  });
  h.set_array_builder([](std::span<Value> items) { return Value(static_cast<std::int64_t>(items.size())); });
  transit::ReadOptions o;
  o.handlers = &h;
  const Value v = transit::read(R"(["^ ","a",1,"b",2])", Encoding::json, o);
  EXPECT_EQ(v.as<Dict>(), (Dict{{"a", 1}, {"b", 2}}));
  EXPECT_EQ(transit::read(R"([[1,2,3],[4]])", Encoding::json, o), Value(2));
  // The rep of a tagged value stays an array: the set handler gets what it expects.
  EXPECT_EQ(transit::read(R"(["~#set",[1,2]])", Encoding::json, o), Value::set({1, 2}));
}

TEST(ReadHandlers, ExceptionsFromHandlersCarryThePosition) {
  transit::ReadHandlers h;
  h.add("point", [](const Value& rep) -> Value {
    if (rep.size() != 2) throw std::runtime_error("a point has two coordinates");
    return rep;
  });
  transit::ReadOptions o;
  o.handlers = &h;
  try {
    transit::read(R"([1,["~#point",[1]]])", Encoding::json, o);
    FAIL();
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::bad_rep);
    EXPECT_NE(std::string(e.what()).find("read handler for ~#point failed: a point has two coordinates"),
              std::string::npos)
        << e.what();
    EXPECT_NE(e.offset(), transit::Location::npos);
  }
}

// ---- threads --------------------------------------------------------------------------------------------

TEST(WriterThreads, ManyThreadsShareOneFrozenRegistry) {
  const auto shapes = sample_shapes();
  std::vector<std::string> expected;
  {
    const transit::Registry warm = shapes_registry();
    transit::WriteOptions o;
    o.registry = &warm;
    for (Encoding e : kAll) expected.push_back(transit::write(shapes, e, o));
  }
  // A fresh registry, so the threads race to fill its memo.
  const transit::Registry registry = shapes_registry();
  transit::WriteOptions options;
  options.registry = &registry;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const Encoding e = kAll[t % 3];
      for (int i = 0; i < 300; ++i)
        if (transit::write(shapes, e, options) != expected[t % 3]) ++mismatches;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
