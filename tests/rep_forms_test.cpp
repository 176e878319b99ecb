// SPDX-License-Identifier: Apache-2.0
// A handler's tag promises a form (a scalar for a map key written as its rep, an array for a
// set ...); a rep of another form wrote output that no reader reads. The rep's C++ type tells
// its form where it is static: such a handler is written in the form it has (a map keyed by
// it is a cmap) or refused when it is registered. A rep whose type leaves its form open is
// checked once made, before any of it is written.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Error;
using transit::Value;

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

}  // namespace

// At namespace scope, so that an error names them plainly.
struct FormKey {
  int n;
};
struct FormBag {
  std::vector<int> items;
};
struct FormPoint {
  int x, y;
};
struct FormRecord {
  int x, y;
};
struct FormMid {
  int n;
};
struct FormVee {
  int n;
};
struct FormName {
  int n;
};
struct FormOrphan {};
struct FormStray {
  int n;
};

namespace {

bool form_key_less(const FormKey& a, const FormKey& b) { return a.n < b.n; }
using FormKeyed = std::map<FormKey, int, bool (*)(const FormKey&, const FormKey&)>;
const FormKeyed& keyed() {
  static const FormKeyed m({{FormKey{1}, 10}, {FormKey{2}, 20}}, form_key_less);
  return m;
}

template <class T>
transit::Registry registry_of(transit::Handler<T> handler) {
  transit::RegistryBuilder b;
  transit::add(b, std::move(handler));
  transit::add<FormPoint>(b, "point", [](const FormPoint& p) { return std::array{p.x, p.y}; });
  return std::move(b).freeze();
}

template <class T>
std::string written(const T& value, Encoding e, const transit::Registry& registry) {
  transit::WriteOptions options;
  options.registry = &registry;
  return transit::write(value, e, options);
}

// Writes `value` with a Writer that must refuse it with Error(bad_rep) saying `message`,
// leave nothing of it behind and write the next value.
template <class T>
void expect_refused(const T& value, const transit::Registry& registry, const std::string& message) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    std::string out;
    transit::StringSink sink(out);
    transit::WriteOptions options;
    options.registry = &registry;
    transit::Writer writer(sink, e, options);
    try {
      writer.write(value);
      ADD_FAILURE() << "written";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), Errc::bad_rep) << err.what();
      EXPECT_NE(std::string(err.what()).find(message), std::string::npos) << err.what();
    }
    writer.write(std::vector<int>{7});
    writer.flush();
    EXPECT_EQ(out, transit::write(std::vector<int>{7}, e));
  }
}

// ---- map keys written as their reps (_ ? i d s) ----------------------------------------------

TEST(RepForms, ADirectScalarTagWithACompositeRepKeysACmap) {
  const Value expected = Value::map({{Value::array({1, 1}), 10}, {Value::array({2, 2}), 20}});
  for (const char* tag : {"_", "?", "i", "d", "s"}) {
    SCOPED_TRACE(tag);
    const transit::Registry registry = registry_of(transit::Handler<FormKey>(tag).rep(
        [](const FormKey& k) { return std::vector<int>{k.n, k.n}; }));
    EXPECT_EQ(written(keyed(), Encoding::json, registry), R"(["~#cmap",[[1,1],10,[2,2],20]])");
    EXPECT_EQ(written(keyed(), Encoding::json_verbose, registry), R"({"~#cmap":[[1,1],10,[2,2],20]})");
    for (const Encoding e : kAll) {
      EXPECT_EQ(transit::read(written(keyed(), e, registry), e), expected);
      // A map of Values keyed by such objects too.
      const Value objects = Value::map({{Value::object(FormKey{1}), 10}, {Value::object(FormKey{2}), 20}});
      EXPECT_EQ(transit::read(written(objects, e, registry), e), expected);
    }
    // Alone it is its rep, an array, which needs no quote.
    EXPECT_EQ(written(FormKey{1}, Encoding::json, registry), "[1,1]");
  }
}

TEST(RepForms, EveryCompositeFormOfARepKeysACmap) {
  const auto check = [](auto rep, const Value& key_one) {
    const transit::Registry registry = registry_of(transit::Handler<FormKey>("s").rep(rep));
    const FormKeyed one({{FormKey{1}, 10}}, form_key_less);
    for (const Encoding e : kAll)
      EXPECT_EQ(transit::read(written(one, e, registry), e), Value::map({{key_one, 10}}))
          << transit::encoding_name(e);
  };
  check([](const FormKey& k) { return std::map<std::string, int>{{"n", k.n}}; }, Value::map({{"n", 1}}));
  check([](const FormKey& k) { return std::set<int>{k.n}; }, Value::set({1}));
  check([](const FormKey& k) { return transit::as_list(std::vector<int>{k.n}); }, Value::list({1}));
  check([](const FormKey& k) { return std::tuple<int, std::string>{k.n, "x"}; }, Value::array({1, "x"}));
  check([](const FormKey& k) { return std::variant<std::vector<int>, std::set<int>>(std::set<int>{k.n}); },
        Value::set({1}));
}

TEST(RepForms, OnlyJsonVerboseKeysACmapWhenOnlyTheVerboseRepIsComposite) {
  const transit::Registry registry = registry_of(
      transit::Handler<FormKey>("s")
          .rep([](const FormKey& k) { return std::to_string(k.n); })
          .verbose_rep([](const FormKey& k) { return std::vector<int>{k.n, k.n}; }));
  EXPECT_EQ(written(keyed(), Encoding::json, registry), R"(["^ ","1",10,"2",20])");
  EXPECT_EQ(written(keyed(), Encoding::json_verbose, registry), R"({"~#cmap":[[1,1],10,[2,2],20]})");
}

TEST(RepForms, AMapKeyWhoseRepOnlyItsValueTellsIsCheckedOnceMade) {
  int calls = 0;
  const transit::Registry registry = registry_of(transit::Handler<FormKey>("s").rep([&](const FormKey& k) {
    ++calls;
    return k.n == 1 ? Value("one") : Value::array({k.n, k.n});
  }));
  const FormKeyed one({{FormKey{1}, 10}}, form_key_less);
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(one, e, registry), e), Value::map({{"one", 10}}));
  // Each rep is made once per object written: the check needs no second one.
  calls = 0;
  (void)written(one, Encoding::json, registry);
  EXPECT_EQ(calls, 1);
  const std::string message =
      "the write handler for FormKey writes under the tag \"s\" a rep that is an array, which no "
      "reader reads: a map key must be a scalar";
  expect_refused(keyed(), registry, message);
  expect_refused(Value::map({{Value::object(FormKey{2}), 20}}), registry, message);

  // A variant of a string and an array; a Value holding another user object, written as its own
  // rep or under a tag of its own.
  const transit::Registry variant = registry_of(transit::Handler<FormKey>("s").rep([](const FormKey& k) {
    using Rep = std::variant<std::string, std::vector<int>>;
    return k.n == 1 ? Rep("one") : Rep(std::vector<int>{k.n});
  }));
  EXPECT_EQ(transit::read(written(one, Encoding::json, variant)), Value::map({{"one", 10}}));
  expect_refused(keyed(), variant, message);
  // Null or an array.
  const transit::Registry optional = registry_of(transit::Handler<FormKey>("s").rep([](const FormKey& k) {
    return k.n == 1 ? std::optional<std::vector<int>>() : std::optional<std::vector<int>>(std::vector<int>{k.n});
  }));
  EXPECT_EQ(transit::read(written(one, Encoding::json, optional)), Value::map({{Value(), 10}}));
  expect_refused(keyed(), optional, message);
  const transit::Registry point = registry_of(transit::Handler<FormKey>("s").rep(
      [](const FormKey& k) { return Value::object(FormPoint{k.n, k.n}); }));
  expect_refused(keyed(), point, "a rep that is a tagged value");
}

// ---- set, list, cmap, link ----------------------------------------------------------------------

void expect_registration_refused(transit::Handler<FormBag> handler, const std::string& message) {
  transit::RegistryBuilder b;
  try {
    transit::add(b, std::move(handler));
    ADD_FAILURE() << "registered";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), Errc::invalid_argument) << err.what();
    EXPECT_NE(std::string(err.what()).find(message), std::string::npos) << err.what();
  }
}

TEST(RepForms, ACollectionTagRefusesARepOfAnotherFormWhenRegistered) {
  using H = transit::Handler<FormBag>;
  const auto bag = [](const FormBag& b) { return b.items; };
  const auto count = [](const FormBag& b) { return static_cast<int>(b.items.size()); };
  const auto text = [](const FormBag&) { return std::string("bag"); };
  const auto named = [](const FormBag&) { return std::map<std::string, int>{{"n", 1}}; };
  const std::string set_message =
      "the write handler for FormBag writes under the tag \"set\" a rep that is a scalar, which no "
      "reader reads: its rep must be an array";
  expect_registration_refused(H("set").rep(count), set_message);
  expect_registration_refused(H("set").rep(named), "under the tag \"set\" a rep that is a map,");
  expect_registration_refused(H("set").rep([](const FormBag& b) { return std::set<int>(b.items.begin(), b.items.end()); }),
                                    "under the tag \"set\" a rep that is a tagged value");
  expect_registration_refused(H("list").rep(text), "under the tag \"list\" a rep that is a scalar");
  expect_registration_refused(H("cmap").rep(named), "under the tag \"cmap\" a rep that is a map,");
  expect_registration_refused(H("link").rep(bag), "under the tag \"link\" a rep that is an array");
  expect_registration_refused(
      H("link").rep([](const FormBag&) { return std::map<transit::Keyword, int>{{{"href"}, 1}}; }),
      "under the tag \"link\" a rep that is a map whose keys are not all strings");
  // The verbose rep is held to the tag too.
  expect_registration_refused(H("set").rep(bag).verbose_rep(count), set_message);
  // A Record's rep is a map with keyword keys.
  transit::RegistryBuilder b;
  EXPECT_THROW(b.add(transit::Record<FormBag>("set").field(&FormBag::items, "items")), Error);
  EXPECT_THROW(b.add(transit::Record<FormBag>("link").field(&FormBag::items, "items")), Error);
}

TEST(RepForms, ACollectionTagWithARepOfItsFormReadsBackAsItsType) {
  using H = transit::Handler<FormBag>;
  const FormBag bag{{1, 2}};
  const auto items = [](const FormBag& b) { return b.items; };
  const transit::Registry sets = registry_of(H("set").rep(items));
  const transit::Registry lists = registry_of(H("list").rep(items));
  const transit::Registry cmaps = registry_of(H("cmap").rep(items));
  const transit::Registry links = registry_of(H("link").rep(
      [](const FormBag&) { return std::map<std::string, std::string>{{"href", "h"}, {"rel", "r"}}; }));
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    EXPECT_EQ(transit::read(written(bag, e, sets), e), Value::set({1, 2}));
    EXPECT_EQ(transit::read(written(bag, e, lists), e), Value::list({1, 2}));
    EXPECT_EQ(transit::read(written(bag, e, cmaps), e), Value::map({{1, 2}}));
    EXPECT_EQ(transit::read(written(bag, e, links), e), Value::link(Value::map({{"href", "h"}, {"rel", "r"}})));
  }
}

TEST(RepForms, ACollectionTagChecksARepOfOpenFormOnceMade) {
  using H = transit::Handler<FormBag>;
  const auto value = [](const FormBag& b) {
    return b.items.empty() ? Value(5) : Value::array(std::vector<Value>(b.items.begin(), b.items.end()));
  };
  const transit::Registry sets = registry_of(H("set").rep(value));
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormBag{{1}}, e, sets), e), Value::set({1}));
  expect_refused(std::vector<FormBag>{{{1}}, {}}, sets,
                 "the write handler for FormBag writes under the tag \"set\" a rep that is a scalar, "
                 "which no reader reads: its rep must be an array");
  // A cmap's array is of keys and values: its length is even, told when it is made.
  const transit::Registry cmaps = registry_of(H("cmap").rep([](const FormBag& b) { return b.items; }));
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormBag{{1, 2}}, e, cmaps), e), Value::map({{1, 2}}));
  expect_refused(FormBag{{1, 2, 3}}, cmaps, "under the tag \"cmap\" a rep that is an array of odd length");
  // A link's map has string keys.
  const transit::Registry links = registry_of(H("link").rep([](const FormBag& b) {
    return b.items.empty() ? Value::map({{"href", "h"}, {"rel", "r"}}) : Value::map({{transit::kw("href"), "h"}});
  }));
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormBag{}, e, links), e), Value::link(Value::map({{"href", "h"}, {"rel", "r"}})));
  expect_refused(FormBag{{1}}, links, "under the tag \"link\" a rep that is a map whose keys are not all strings");
  // A user object's form is its handler's.
  const transit::Registry points = registry_of(H("list").rep([](const FormBag&) { return FormPoint{1, 2}; }));
  expect_refused(FormBag{}, points, "under the tag \"list\" a rep that is a tagged value");
  // A tag decided per object is held to the rep's type when it is known.
  const transit::Registry per_object = registry_of(
      H("bag").tag([](const FormBag& b) { return b.items.empty() ? "set" : "bag"; }).rep([](const FormBag& b) {
        return static_cast<int>(b.items.size());
      }));
  EXPECT_EQ(written(FormBag{{1}}, Encoding::json, per_object), R"(["~#bag",1])");
  expect_refused(FormBag{}, per_object, "under the tag \"set\" a rep that is a scalar");
}

// ---- Value::tagged of the spec's tags -----------------------------------------------------------

void expect_not_made(std::string_view tag, const Value& rep, const std::string& message) {
  try {
    (void)Value::tagged(tag, rep);
    ADD_FAILURE() << "made: " << tag;
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), Errc::invalid_argument) << err.what();
    EXPECT_NE(std::string(err.what()).find(message), std::string::npos) << err.what();
  }
}

TEST(RepForms, ValueTaggedRefusesWhatNoReaderReads) {
  expect_not_made("i", Value("abc"),
                  "Value::tagged(\"i\", string rep) writes what no reader reads (~i value \"abc\": not an "
                  "integer): the tag is the spec's own; make the value it stands for instead");
  expect_not_made("_", Value(5), "(~#_ with a integer representation)");
  expect_not_made("m", Value::tagged("pt", Value("bad")), "(~#m with a tagged representation)");
  expect_not_made("u", Value::array({1}), "Value::tagged(\"u\", array rep) writes what no reader reads");
  expect_not_made("set", Value(5), "(its rep must be an array)");
  expect_not_made("list", Value::map({{"a", 1}}), "(its rep must be an array)");
  expect_not_made("cmap", Value::array({1}), "of even length");
  expect_not_made("link", Value::map({{transit::kw("href"), "h"}}), "(its rep must be a map whose keys are strings)");
  expect_not_made(" ", Value(5), "Value::tagged(\" \", integer rep): the tag has whitespace or a control character");
  expect_not_made("a b", Value("x"), "the tag has whitespace or a control character");
}

// Every tag a reader gives a meaning, with a rep of every kind: what Value::tagged makes is
// written in each encoding, alone and as a map key, and reads back alike in all three.
TEST(RepForms, EveryTaggedValueOfTheSpecsTagsThatIsMadeReadsBack) {
  const char* const tags[] = {"_", "s", "?", "i", "d", "b", "'", "u", "r", "m", "t", "n", "f", "c", "z",
                              "$", ":", " ", "#", "~", "^", "`", "set", "list", "cmap", "link", "array", "map"};
  const Value reps[] = {Value(5), Value("abc"), Value(), Value(true), Value(1.5), Value("t"),
                        Value("NaN"), Value("2020-01-02T03:04:05.006Z"),
                        Value("5a2cbea3-e8c6-428b-b525-21239370dd55"), Value::array({1, 2}), Value::array({1}),
                        Value::map({{"href", "h"}, {"rel", "r"}}), Value::map({{transit::kw("a"), 1}}),
                        Value::set({1}), Value::tagged("x", Value(1)), Value::bytes("ab")};
  int made = 0;
  for (const char* tag : tags) {
    for (const Value& rep : reps) {
      Value v;
      try {
        v = Value::tagged(tag, rep);
      } catch (const Error& err) {
        EXPECT_EQ(err.code(), Errc::invalid_argument);
        continue;
      }
      ++made;
      SCOPED_TRACE(std::string(tag) + " " + transit::to_edn(rep));
      for (const Value& written : {Value::array({v}), Value::map({{v, 1}})}) {
        std::vector<Value> back;
        for (const Encoding e : kAll) {
          try {
            back.push_back(transit::read(transit::write(written, e), e));
          } catch (const Error& err) {
            ADD_FAILURE() << transit::encoding_name(e) << ": " << err.what();
          }
        }
        if (back.size() == 3) {
          EXPECT_EQ(back[0], back[1]);
          EXPECT_EQ(back[0], back[2]);
        }
      }
    }
  }
  EXPECT_GT(made, 100);
  // What they read back as: the spec's values, or the tagged value itself for a tag it leaves free.
  EXPECT_EQ(transit::read(transit::write(Value::tagged("i", 5))), Value(5));
  EXPECT_EQ(transit::read(transit::write(Value::tagged("set", Value::array({1})))), Value::set({1}));
  EXPECT_EQ(transit::read(transit::write(Value::tagged("u", Value::array({1, 2})))), Value::uuid({1, 2}));
  EXPECT_EQ(transit::read(transit::write(Value::tagged(" ", Value("abc")))), Value::tagged(" ", Value("abc")));
}

// A typed map decides its form as the writer writes its keys: a tagged value that is written as
// ["~#tag", rep] is no scalar, even around a string.
TEST(RepForms, ATypedMapKeyedByATaggedValueWrittenAsAnArrayIsACmap) {
  for (const char* tag : {"#", "~", "^", "`"}) {
    const Value key = Value::tagged(tag, Value("x"));
    const auto m = transit::as_map(std::vector<std::pair<Value, int>>{{key, 1}});
    for (const Encoding e : kAll)
      EXPECT_EQ(transit::read(transit::write(m, e), e), Value::map({{key, 1}})) << tag << " " << transit::encoding_name(e);
  }
}

// ---- reps that are other user types -------------------------------------------------------------

// A map keyed by FormKey, written by `registry`, reads back as `expected` in every encoding.
void expect_keys_read_back(const transit::Registry& registry, const Value& expected) {
  for (const Encoding e : kAll) {
    SCOPED_TRACE(std::string(transit::encoding_name(e)));
    EXPECT_EQ(transit::read(written(keyed(), e, registry), e), expected);
    const Value objects = Value::map({{Value::object(FormKey{1}), 10}, {Value::object(FormKey{2}), 20}});
    EXPECT_EQ(transit::read(written(objects, e, registry), e), expected);
  }
}

TEST(RepForms, ADirectTagWhoseRepIsARecordKeysACmap) {
  int calls = 0;
  const auto record = transit::Record<FormRecord>("rec").field(&FormRecord::x, "x").field(&FormRecord::y, "y");
  transit::RegistryBuilder b;
  b.add(record);
  b.add(transit::Handler<FormKey>("s").rep([&](const FormKey& k) {
    ++calls;
    return FormRecord{k.n, -k.n};
  }));
  const transit::Registry registry = std::move(b).freeze();
  const auto rec = [](int x, int y) {
    return Value::tagged("rec", Value::map({{transit::kw("x"), x}, {transit::kw("y"), y}}));
  };
  expect_keys_read_back(registry, Value::map({{rec(1, -1), 10}, {rec(2, -2), 20}}));
  EXPECT_EQ(written(keyed(), Encoding::json_verbose, registry).rfind(R"({"~#cmap":[{"~#rec":{"~:x":1,"~:y":-1}},10,)", 0), 0u)
      << written(keyed(), Encoding::json_verbose, registry);
  // Read with the Record's read handler, the keys are FormRecords again.
  transit::ReadHandlers read;
  read.add(record);
  for (const Encoding e : kAll) {
    const Value back = transit::read(written(keyed(), e, registry), e, {.handlers = &read});
    std::vector<std::pair<int, int>> keys;
    for (const auto& entry : back.entries()) keys.emplace_back(entry.first.as<FormRecord>().x, entry.first.as<FormRecord>().y);
    EXPECT_EQ(keys, (std::vector<std::pair<int, int>>{{1, -1}, {2, -2}})) << transit::encoding_name(e);
  }
  // The map's form is known before any key's rep is made: each is made once.
  calls = 0;
  (void)written(keyed(), Encoding::json, registry);
  EXPECT_EQ(calls, 2);
}

TEST(RepForms, ADirectTagWhoseRepIsAUserTypeTakesTheFormItsHandlerGivesIt) {
  const auto point = [](int n) { return Value::tagged("point", Value::array({n, n})); };
  // Through another object written as its rep, to a tagged value: a cmap.
  transit::RegistryBuilder chain;
  chain.add(transit::Handler<FormKey>("s").rep([](const FormKey& k) { return FormMid{k.n}; }));
  chain.add(transit::Handler<FormMid>("s").rep([](const FormMid& m) { return FormPoint{m.n, m.n}; }));
  chain.add<FormPoint>("point", [](const FormPoint& p) { return std::array{p.x, p.y}; });
  const transit::Registry chained = std::move(chain).freeze();
  EXPECT_EQ(written(keyed(), Encoding::json, chained).rfind(R"(["~#cmap",[["~#point",[1,1]],10,)", 0), 0u)
      << written(keyed(), Encoding::json, chained);
  expect_keys_read_back(chained, Value::map({{point(1), 10}, {point(2), 20}}));

  // To an object that is a "~x" string: a map, as before.
  transit::RegistryBuilder named;
  named.add(transit::Handler<FormKey>("s").rep([](const FormKey& k) { return FormName{k.n}; }));
  named.add(transit::Handler<FormName>("x").rep([](const FormName& n) { return std::to_string(n.n); }));
  const transit::Registry names = std::move(named).freeze();
  EXPECT_EQ(written(keyed(), Encoding::json, names), R"(["^ ","~x1",10,"~x2",20])");
  EXPECT_EQ(written(keyed(), Encoding::json_verbose, names), R"({"~x1":10,"~x2":20})");

  // To an object whose verbose rep alone is composite: a cmap in JSON-Verbose only.
  transit::RegistryBuilder vee;
  vee.add(transit::Handler<FormKey>("s").rep([](const FormKey& k) { return FormVee{k.n}; }));
  vee.add(transit::Handler<FormVee>("s")
              .rep([](const FormVee& v) { return std::to_string(v.n); })
              .verbose_rep([](const FormVee& v) { return std::vector<int>{v.n, v.n}; }));
  const transit::Registry vees = std::move(vee).freeze();
  EXPECT_EQ(written(keyed(), Encoding::json, vees), R"(["^ ","1",10,"2",20])");
  EXPECT_EQ(written(keyed(), Encoding::json_verbose, vees), R"({"~#cmap":[[1,1],10,[2,2],20]})");

  // To a type with no handler of its own: the default handler's tagged value, a cmap.
  transit::RegistryBuilder fallback;
  fallback.add(transit::Handler<FormKey>("s").rep([](const FormKey&) { return FormOrphan{}; }));
  fallback.set_default("unknown", [](const transit::ObjectInfo& o) { return std::string(o.type_name); });
  const transit::Registry orphans = std::move(fallback).freeze();
  const FormKeyed one({{FormKey{1}, 10}}, form_key_less);
  EXPECT_EQ(written(one, Encoding::json, orphans), R"(["~#cmap",[["~#unknown","FormOrphan"],10]])");
}

// ---- a Value rep holding an object written as its own rep ---------------------------------------

TEST(RepForms, ACollectionTagChecksTheRepOfAnObjectItsValueRepHolds) {
  // FormBag's rep is a Value holding a FormKey, which is written as its own rep, another Value:
  // only that rep, once made, tells the set's form.
  const auto registry_for = [](const char* tag, auto key_rep) {
    transit::RegistryBuilder b;
    b.add(transit::Handler<FormBag>(tag).rep(
        [](const FormBag& bag) { return Value::object(FormKey{static_cast<int>(bag.items.size())}); }));
    b.add(transit::Handler<FormKey>("s").rep(key_rep));
    return std::move(b).freeze();
  };
  const transit::Registry sets = registry_for("set", [](const FormKey& k) {
    return k.n == 0 ? Value(5) : Value::array({k.n});
  });
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormBag{{7}}, e, sets), e), Value::set({1}));
  expect_refused(FormBag{}, sets,
                 "the write handler for FormBag writes under the tag \"set\" a rep that is a scalar, "
                 "which no reader reads: its rep must be an array");
  const transit::Registry cmaps = registry_for("cmap", [](const FormKey& k) {
    return k.n == 2 ? Value::array({1, 2}) : Value::array({1, 2, 3});
  });
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormBag{{7, 8}}, e, cmaps), e), Value::map({{1, 2}}));
  expect_refused(FormBag{{7}}, cmaps, "under the tag \"cmap\" a rep that is an array of odd length");
  const transit::Registry links = registry_for("link", [](const FormKey& k) {
    return k.n == 0 ? Value::map({{"href", "h"}, {"rel", "r"}}) : Value::map({{transit::kw("href"), "h"}});
  });
  for (const Encoding e : kAll)
    EXPECT_EQ(transit::read(written(FormBag{}, e, links), e), Value::link(Value::map({{"href", "h"}, {"rel", "r"}})));
  expect_refused(FormBag{{7}}, links, "under the tag \"link\" a rep that is a map whose keys are not all strings");
  // A rep whose type says only that it is composite (an array or a map) is told by its value too.
  const transit::Registry composite = registry_for("set", [](const FormKey& k) {
    using Rep = std::variant<std::vector<int>, std::map<std::string, int>>;
    return k.n == 0 ? Rep(std::map<std::string, int>{{"n", 0}}) : Rep(std::vector<int>{k.n});
  });
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormBag{{7}}, e, composite), e), Value::set({1}));
  expect_refused(FormBag{}, composite, "under the tag \"set\" a rep that is a map,");
}

// ---- the default handler ------------------------------------------------------------------------
// set_default, typed (ObjectInfo) or erased, is held to the rules add() holds a handler to: a
// default handler's output is read by the same readers. No handler is registered for FormStray.

// A FormStray handler as the erased set_default takes it.
transit::detail::ErasedHandler erased(transit::Handler<FormStray> handler) { return std::move(handler).erase(); }

// Sets the default handler for writing FormStrays through the typed overload or the erased one
// (an ErasedHandler made as a Handler makes it), with the rep `rep(const FormStray&)`.
template <class F>
void set_stray_default(transit::RegistryBuilder& b, bool typed, std::string tag, F rep) {
  if (typed)
    b.set_default(std::move(tag), [rep](const transit::ObjectInfo& o) { return rep(*static_cast<const FormStray*>(o.address)); });
  else
    b.set_default(erased(transit::Handler<FormStray>(std::move(tag)).rep(rep)));
}

template <class F>
void expect_default_refused(const std::string& tag, F rep, const std::string& message) {
  for (const bool typed : {true, false}) {
    SCOPED_TRACE(typed ? "typed" : "erased");
    transit::RegistryBuilder b;
    try {
      set_stray_default(b, typed, tag, rep);
      ADD_FAILURE() << "set: " << tag;
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), Errc::invalid_argument) << err.what();
      EXPECT_NE(std::string(err.what()).find(message), std::string::npos) << err.what();
    }
  }
}

template <class F>
void expect_default_reads_back(const std::string& tag, F rep, const Value& expected) {
  for (const bool typed : {true, false}) {
    SCOPED_TRACE(typed ? "typed" : "erased");
    transit::RegistryBuilder b;
    set_stray_default(b, typed, tag, rep);
    const transit::Registry registry = std::move(b).freeze();
    for (const Encoding e : kAll) {
      SCOPED_TRACE(std::string(transit::encoding_name(e)));
      EXPECT_EQ(transit::read(written(FormStray{1}, e, registry), e), expected) << tag;
      EXPECT_EQ(transit::read(written(std::vector<FormStray>{{1}}, e, registry), e), Value::array({expected})) << tag;
    }
  }
}

TEST(RepForms, TheDefaultHandlerRefusesTheOneCharacterTagsOfTheSpec) {
  const auto text = [](const FormStray& s) { return std::to_string(s.n); };
  for (const char c : std::string_view(":$mturcfnzb'~^#`")) {
    const std::string tag(1, c);
    SCOPED_TRACE(tag);
    const std::string fault = " is a built-in Transit tag; a user type needs a tag of its own";
    for (const bool typed : {true, false}) {
      transit::RegistryBuilder b;
      try {
        set_stray_default(b, typed, tag, text);
        ADD_FAILURE() << "set";
      } catch (const Error& err) {
        EXPECT_EQ(err.code(), Errc::invalid_argument);
        EXPECT_EQ(err.detail(), "the tag \"" + tag + "\" of the default write handler" + fault);
      }
    }
    // As add() refuses it, and a tag function's fixed tag too.
    transit::RegistryBuilder b;
    try {
      b.add<FormStray>(tag, text);
      ADD_FAILURE() << "added";
    } catch (const Error& err) {
      EXPECT_EQ(err.detail(), "the tag \"" + tag + "\" of the write handler for FormStray" + fault);
    }
    EXPECT_THROW(b.set_default(erased(transit::Handler<FormStray>(tag).tag(text).rep(text))), Error);
  }
}

TEST(RepForms, TheDefaultHandlerRefusesARepOfAnotherFormUnderACollectionTag) {
  const auto count = [](const FormStray& s) { return s.n; };
  const auto named = [](const FormStray& s) { return std::map<std::string, int>{{"n", s.n}}; };
  const auto items = [](const FormStray& s) { return std::vector<int>{s.n}; };
  expect_default_refused("set", count,
                         "transit: invalid_argument: the default write handler writes under the tag \"set\" a rep "
                         "that is a scalar, which no reader reads: its rep must be an array");
  expect_default_refused("set", named, "the default write handler writes under the tag \"set\" a rep that is a map,");
  expect_default_refused("set", [](const FormStray& s) { return std::set<int>{s.n}; },
                         "the default write handler writes under the tag \"set\" a rep that is a tagged value");
  expect_default_refused("list", [](const FormStray&) { return std::string("stray"); },
                         "the default write handler writes under the tag \"list\" a rep that is a scalar");
  expect_default_refused("cmap", named, "the default write handler writes under the tag \"cmap\" a rep that is a map,");
  expect_default_refused("link", items, "the default write handler writes under the tag \"link\" a rep that is an array");
  expect_default_refused(
      "link", [](const FormStray&) { return std::map<transit::Keyword, int>{{{"href"}, 1}}; },
      "the default write handler writes under the tag \"link\" a rep that is a map whose keys are not all strings");
  // The erased overload holds a verbose rep to the tag too.
  transit::RegistryBuilder b;
  EXPECT_THROW(b.set_default(erased(transit::Handler<FormStray>("set").rep(items).verbose_rep(count))), Error);
}

TEST(RepForms, TheDefaultHandlerWritesWhatAHandlerWritesUnderItsTag) {
  // The ground tags write the rep as it is (a quoted scalar at the top).
  expect_default_reads_back("_", [](const FormStray&) { return std::optional<int>(); }, Value());
  expect_default_reads_back("?", [](const FormStray& s) { return s.n == 1; }, Value(true));
  expect_default_reads_back("i", [](const FormStray& s) { return s.n; }, Value(1));
  expect_default_reads_back("d", [](const FormStray& s) { return s.n + 0.5; }, Value(1.5));
  expect_default_reads_back("s", [](const FormStray& s) { return std::to_string(s.n); }, Value("1"));
  expect_default_reads_back("array", [](const FormStray& s) { return std::vector<int>{s.n, 2}; }, Value::array({1, 2}));
  expect_default_reads_back("map", [](const FormStray& s) { return std::map<std::string, int>{{"n", s.n}}; },
                            Value::map({{"n", 1}}));
  // A one-character tag the spec leaves free, and one of more characters.
  expect_default_reads_back("x", [](const FormStray& s) { return std::to_string(s.n); }, Value::tagged("x", Value("1")));
  expect_default_reads_back("stray", [](const FormStray& s) { return s.n; }, Value::tagged("stray", Value(1)));
  // The spec's collection tags with a rep of their form.
  const auto items = [](const FormStray& s) { return std::vector<int>{s.n, 2}; };
  expect_default_reads_back("set", items, Value::set({1, 2}));
  expect_default_reads_back("list", items, Value::list({1, 2}));
  expect_default_reads_back("cmap", items, Value::map({{1, 2}}));
  expect_default_reads_back(
      "link", [](const FormStray&) { return std::map<std::string, std::string>{{"href", "h"}, {"rel", "r"}}; },
      Value::link(Value::map({{"href", "h"}, {"rel", "r"}})));
}

// Under a one-character tag the spec leaves free, a string rep is `"~x" + rep`, as a value and
// as a map key (the map stays a plain one): the typed default writes what a handler writes, byte
// for byte, though only it is told the object's type.
TEST(RepForms, TheTypedDefaultHandlerWritesAStringRepAsAHandlerDoes) {
  const auto name = [](const FormStray& s) { return "n" + std::to_string(s.n); };
  transit::RegistryBuilder typed_builder, erased_builder;
  set_stray_default(typed_builder, true, "x", name);
  set_stray_default(erased_builder, false, "x", name);
  const transit::Registry typed = std::move(typed_builder).freeze();
  const transit::Registry erased = std::move(erased_builder).freeze();
  using Strays = std::map<FormStray, int, bool (*)(const FormStray&, const FormStray&)>;
  const Strays keyed_by_strays({{FormStray{1}, 10}, {FormStray{2}, 20}},
                               [](const FormStray& a, const FormStray& b) { return a.n < b.n; });
  EXPECT_EQ(written(FormStray{7}, Encoding::json, typed), R"(["~#'","~xn7"])");
  EXPECT_EQ(written(keyed_by_strays, Encoding::json, typed), R"(["^ ","~xn1",10,"~xn2",20])");
  for (const Encoding e : kAll) {
    SCOPED_TRACE(static_cast<int>(e));
    EXPECT_EQ(written(FormStray{7}, e, typed), written(FormStray{7}, e, erased));
    EXPECT_EQ(written(keyed_by_strays, e, typed), written(keyed_by_strays, e, erased));
    EXPECT_EQ(transit::read(written(keyed_by_strays, e, typed), e),
              Value::map({{Value::tagged("x", Value("n1")), 10}, {Value::tagged("x", Value("n2")), 20}}));
  }
}

TEST(RepForms, TheDefaultHandlerChecksARepOfOpenFormOnceMade) {
  const auto value = [](const FormStray& s) { return s.n == 0 ? Value(5) : Value::array({s.n}); };
  const auto odd = [](const FormStray& s) { return std::vector<int>(static_cast<std::size_t>(s.n), 7); };
  for (const bool typed : {true, false}) {
    SCOPED_TRACE(typed ? "typed" : "erased");
    transit::RegistryBuilder sets;
    set_stray_default(sets, typed, "set", value);
    const transit::Registry set_registry = std::move(sets).freeze();
    for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormStray{1}, e, set_registry), e), Value::set({1}));
    expect_refused(std::vector<FormStray>{{1}, {0}}, set_registry,
                   "the default write handler (for an object of type FormStray) writes under the "
                   "tag \"set\" a rep that is a scalar, which no reader reads: its rep must be an array");
    transit::RegistryBuilder cmaps;
    set_stray_default(cmaps, typed, "cmap", odd);
    const transit::Registry cmap_registry = std::move(cmaps).freeze();
    for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormStray{2}, e, cmap_registry), e), Value::map({{7, 7}}));
    expect_refused(FormStray{3}, cmap_registry,
                   "the default write handler (for an object of type FormStray) writes under the tag \"cmap\" a rep "
                   "that is an array of odd length");
  }
}

TEST(RepForms, TheDefaultHandlersTagChosenPerObjectIsHeldToTheSameRules) {
  transit::RegistryBuilder b;
  b.set_default(erased(transit::Handler<FormStray>("stray")
                           .tag([](const FormStray& s) { return s.n == 0 ? "u" : s.n == 1 ? "set" : "stray"; })
                           .rep([](const FormStray& s) { return s.n; })));
  const transit::Registry registry = std::move(b).freeze();
  for (const Encoding e : kAll)
    EXPECT_EQ(transit::read(written(FormStray{2}, e, registry), e), Value::tagged("stray", Value(2)));
  try {
    (void)written(FormStray{0}, Encoding::json, registry);
    ADD_FAILURE() << "written";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), Errc::invalid_argument);
    EXPECT_EQ(err.detail(), "the tag \"u\" that the default write handler gave an object of type FormStray is a "
                            "built-in Transit tag; a user type needs a tag of its own");
  }
  expect_refused(FormStray{1}, registry,
                 "the default write handler (for an object of type FormStray) writes under the tag "
                 "\"set\" a rep that is a scalar, which no reader reads: its rep must be an array");
}

TEST(RepForms, TheDefaultHandlersRepTakesTheFormItsTypeGivesIt) {
  const auto key_n = [](const transit::ObjectInfo& o) { return static_cast<const FormKey*>(o.address)->n; };
  // No handler for FormKey: the default writes each key. As a string it keys a map ...
  transit::RegistryBuilder strings;
  strings.set_default("s", [&](const transit::ObjectInfo& o) { return std::to_string(key_n(o)); });
  const transit::Registry string_keys = std::move(strings).freeze();
  EXPECT_EQ(written(keyed(), Encoding::json, string_keys), R"(["^ ","1",10,"2",20])");
  expect_keys_read_back(string_keys, Value::map({{"1", 10}, {"2", 20}}));
  // ... as an array a cmap, and as another user type the form its handler gives it, known
  // when the registry is frozen.
  transit::RegistryBuilder arrays;
  arrays.set_default("s", [&](const transit::ObjectInfo& o) { return std::vector<int>{key_n(o), key_n(o)}; });
  const transit::Registry array_keys = std::move(arrays).freeze();
  EXPECT_EQ(written(keyed(), Encoding::json, array_keys), R"(["~#cmap",[[1,1],10,[2,2],20]])");
  expect_keys_read_back(array_keys, Value::map({{Value::array({1, 1}), 10}, {Value::array({2, 2}), 20}}));
  transit::RegistryBuilder points;
  points.set_default("s", [&](const transit::ObjectInfo& o) { return FormPoint{key_n(o), key_n(o)}; });
  points.add<FormPoint>("point", [](const FormPoint& p) { return std::array{p.x, p.y}; });
  const transit::Registry point_keys = std::move(points).freeze();
  EXPECT_EQ(written(keyed(), Encoding::json, point_keys).rfind(R"(["~#cmap",[["~#point",[1,1]],10,)", 0), 0u)
      << written(keyed(), Encoding::json, point_keys);
  const auto point = [](int n) { return Value::tagged("point", Value::array({n, n})); };
  expect_keys_read_back(point_keys, Value::map({{point(1), 10}, {point(2), 20}}));
  // A registered handler's rep written by the default handler has the default's form.
  transit::RegistryBuilder chain;
  chain.add(transit::Handler<FormKey>("s").rep([](const FormKey& k) { return FormStray{k.n}; }));
  chain.set_default("s", [](const transit::ObjectInfo& o) {
    const int n = static_cast<const FormStray*>(o.address)->n;
    return std::vector<int>{n, n};
  });
  const transit::Registry chained = std::move(chain).freeze();
  EXPECT_EQ(written(keyed(), Encoding::json, chained), R"(["~#cmap",[[1,1],10,[2,2],20]])");
  // Under `set`, a rep that is another user type is checked once made: one written as an array
  // is a set, one written as a tagged value is refused.
  transit::RegistryBuilder record_sets;
  record_sets.set_default("set", [](const transit::ObjectInfo& o) {
    const int n = static_cast<const FormStray*>(o.address)->n;
    return FormRecord{n, n + 1};
  });
  record_sets.add(transit::Handler<FormRecord>("array").rep([](const FormRecord& r) { return std::vector<int>{r.x, r.y}; }));
  const transit::Registry records = std::move(record_sets).freeze();
  for (const Encoding e : kAll) EXPECT_EQ(transit::read(written(FormStray{1}, e, records), e), Value::set({1, 2}));
  transit::RegistryBuilder point_sets;
  point_sets.set_default("set", [](const transit::ObjectInfo&) { return FormPoint{1, 2}; });
  point_sets.add<FormPoint>("point", [](const FormPoint& p) { return std::array{p.x, p.y}; });
  const transit::Registry tagged_points = std::move(point_sets).freeze();
  expect_refused(FormStray{1}, tagged_points,
                 "the default write handler (for an object of type FormStray) writes under the tag \"set\" a rep "
                 "that is a tagged value");
}

}  // namespace
