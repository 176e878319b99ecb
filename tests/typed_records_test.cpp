// SPDX-License-Identifier: Apache-2.0
// Record<T>: one description of a user type for both directions; polymorphic reads and
// writes; enums, the library's own types, and the rest of the registration surface.
#include <gtest/gtest.h>

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Errc;
using transit::Record;
using transit::Value;

constexpr Encoding kAll[] = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

struct Money {
  transit::BigDecimal amount;
  std::string currency;
  bool operator==(const Money&) const = default;
};

struct Line {
  std::string sku;
  int quantity = 0;
  std::optional<Money> discount;
  bool operator==(const Line&) const = default;
};

struct Event {
  virtual ~Event() = default;
  std::string id;
};
struct Placed : Event {
  std::vector<Line> lines;
};
struct Cancelled : Event {
  std::string reason;
};

enum class Status { open, shipped };
enum class Priority : std::uint8_t { low = 1, high = 9 };

}  // namespace

template <>
struct transit::EnumNames<Status> {
  static constexpr std::array names{std::pair{Status::open, "open"},
                                    std::pair{Status::shipped, "shipped"}};
};

namespace {

struct Handlers {
  transit::Registry registry;
  transit::ReadHandlers read;
};

Handlers make_handlers() {
  auto money = Record<Money>("money").field(&Money::amount, "amount").field(&Money::currency, "currency");
  auto line = Record<Line>("line")
                  .field(&Line::sku, "sku")
                  .field(&Line::quantity, "quantity")
                  .field(&Line::discount, "discount");
  auto placed = Record<Placed>("placed").field(&Placed::id, "id").field(&Placed::lines, "lines").derives<Event>();
  auto cancelled =
      Record<Cancelled>("cancelled").field(&Cancelled::id, "id").field(&Cancelled::reason, "reason").derives<Event>();
  transit::RegistryBuilder b;
  b.add(money).add(line).add(placed).add(cancelled);
  Handlers h{std::move(b).freeze(), {}};
  h.read.add(money).add(line).add(placed).add(cancelled);
  return h;
}

template <class T>
std::string error_of(std::string_view text, const transit::ReadHandlers& h,
                     Encoding e = Encoding::json) {
  try {
    (void)transit::read<T>(text, e, {.handlers = &h});
  } catch (const transit::Error& err) {
    return err.what();
  }
  ADD_FAILURE() << "no error reading " << text;
  return {};
}

TEST(Record, OneDescriptionWritesAndReadsInEveryEncoding) {
  const Handlers h = make_handlers();
  const Line line{"A-1", 3, Money{{"12.50"}, "EUR"}};
  EXPECT_EQ(transit::write(line, Encoding::json, {.registry = &h.registry}),
            R"(["~#line",["^ ","~:sku","A-1","~:quantity",3,"~:discount",["~#money",)"
            R"(["^ ","~:amount","~f12.50","~:currency","EUR"]]]])");
  for (Encoding e : kAll) {
    const std::string bytes = transit::write(line, e, {.registry = &h.registry});
    EXPECT_EQ(transit::read<Line>(bytes, e, {.handlers = &h.read}), line) << bytes;
    // Reading into Value gives the object, from the same description.
    EXPECT_EQ(transit::read(bytes, e, {.handlers = &h.read}).as<Line>(), line);
    // Rewriting what was read gives the same bytes.
    const Line back = transit::read<Line>(bytes, e, {.handlers = &h.read});
    EXPECT_EQ(transit::write(back, e, {.registry = &h.registry}), bytes);
  }
}

TEST(Record, MissingOptionalFieldsAreEmptyUnknownFieldsAreSkipped) {
  const Handlers h = make_handlers();
  const Line l = transit::read<Line>(
      R"(["~#line",["^ ","~:sku","B","~:added-later",[1,{"x":2}],"~:quantity",2]])", Encoding::json,
      {.handlers = &h.read});
  EXPECT_EQ(l, (Line{"B", 2, std::nullopt}));
  // A record's map read plain, as peers that do not tag it write it, with string keys too.
  EXPECT_EQ(transit::read<Line>(R"({"sku":"C","quantity":1})", Encoding::json, {.handlers = &h.read}),
            (Line{"C", 1, std::nullopt}));
}

// Records remember which field a cached key named (its text on the tape is the same each
// time): a nested record with many keys of its own, read between a key and the outer
// record's bookkeeping, must not change which field the outer one read.
struct Leaf {
  int value = 0;
  friend bool operator==(const Leaf&, const Leaf&) = default;
};
struct Branch {
  Leaf leaf;
  int weight = 0;
  friend bool operator==(const Branch&, const Branch&) = default;
};

TEST(Record, KeysRememberedAcrossNestedRecords) {
  transit::ReadHandlers h;
  h.add(Record<Leaf>("leaf").field(&Leaf::value, "value"));
  h.add(Record<Branch>("branch").field(&Branch::leaf, "leaf").field(&Branch::weight, "weight"));
  // Plain maps, as a peer that does not tag them writes them; the leaf's unknown keys fill the
  // records' memory of keys, where the branch's "leaf" is remembered.
  std::string json = "[";
  std::vector<Branch> want;
  for (int b = 0; b < 6; ++b) {
    json += std::string(b ? "," : "") + R"({"leaf":{"value":)" + std::to_string(b);
    // Keys new to each leaf (within the cache's 1,936): the leaf records them as it reads.
    for (int i = 0; i < 300; ++i)
      json += ",\"extra" + std::to_string(b) + "_" + std::to_string(i) + "\":0";
    json += R"(},"weight":)" + std::to_string(10 + b) + "}";
    want.push_back({{b}, 10 + b});
  }
  json += "]";
  const Value tree = transit::read(json, Encoding::json_verbose);
  for (Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
    const std::string bytes = transit::write(tree, e);
    EXPECT_EQ(transit::read<std::vector<Branch>>(bytes, e, {.handlers = &h}), want)
        << transit::encoding_name(e);
  }
}

// The items of a sequence of records are read in place (one lookup of the record's reader per
// sequence): each form an item may take reads as it does alone, and an item's error is its own.
TEST(Record, ItemsOfASequenceReadInEveryForm) {
  const Handlers h = make_handlers();
  const std::string json = R"([{"sku":"A","quantity":1},)"
                           R"(["~#line",["^ ","~:sku","B","~:quantity",2]],)"
                           R"({"quantity":3,"sku":"C","discount":["~#money",)"
                           R"(["^ ","~:amount","~f1.5","~:currency","EUR"]]}])";
  const std::vector<Line> want{{"A", 1, std::nullopt},
                               {"B", 2, std::nullopt},
                               {"C", 3, Money{{"1.5"}, "EUR"}}};
  EXPECT_EQ(transit::read<std::vector<Line>>(json, Encoding::json, {.handlers = &h.read}), want);
  const std::string msgpack = transit::write(transit::read(json, Encoding::json), Encoding::msgpack);
  EXPECT_EQ(transit::read<std::list<Line>>(msgpack, Encoding::msgpack, {.handlers = &h.read}),
            (std::list<Line>(want.begin(), want.end())));
  // Objects that a Value read handler made for the items' tag.
  transit::ReadHandlers objects;
  objects.add_object<Line>("line", [](const Value& rep) {
    return Line{std::string(rep.find(Value::keyword("sku"))->as_string()), 7, std::nullopt};
  });
  EXPECT_EQ(transit::read<std::vector<Line>>(R"([["~#line",["^ ","~:sku","D"]]])", Encoding::json,
                                             {.handlers = &objects}),
            (std::vector<Line>{{"D", 7, std::nullopt}}));
  EXPECT_EQ(error_of<std::vector<Line>>(R"([{"sku":"A","quantity":1},{"sku":"B"}])", h.read),
            "transit: type_mismatch at byte 26 (line 1, column 27) in $[1]: missing field "
            ":quantity of (anonymous namespace)::Line");
  EXPECT_EQ(error_of<std::vector<Line>>(R"([{"sku":"A","quantity":1},[]])", h.read),
            "transit: type_mismatch at byte 26 (line 1, column 27) in $[1]: expected (anonymous "
            "namespace)::Line, got an array");
}

// Keys in any order: a Record tries the field after the last one read first (a guess checked
// by an exact compare of the name), then looks the key up. Every order, unknown keys between,
// duplicates (the last wins) and missing fields read as they would with no guess at all, in
// every encoding and in one read where each record's keys come in another order than the one
// before (so a guess from the previous record is wrong as often as right). The fields cover
// the binders read inline (int64, bool, string, optional string), one from a base, one from a
// virtual base (read by its call), and others.
struct WideBase {
  std::int64_t serial = 0;
};
struct WideVirtualBase {
  std::int64_t origin = 0;  // trivially assignable: a virtual base's own assignment is not
};
struct Wide : WideBase, virtual WideVirtualBase {
  std::int64_t id = 0;
  bool flag = false;
  std::string name;
  std::optional<std::string> note;
  int small = 0;
  std::vector<std::int64_t> list;
  std::string a_name_longer_than_16;  // the name itself: compared by memcmp
  std::int64_t xy = 0;                 // a name under 4 bytes: compared bytewise
  bool operator==(const Wide& o) const {
    return serial == o.serial && origin == o.origin && id == o.id && flag == o.flag &&
           name == o.name && note == o.note && small == o.small && list == o.list &&
           a_name_longer_than_16 == o.a_name_longer_than_16 && xy == o.xy;
  }
};

transit::ReadHandlers wide_handlers() {
  transit::ReadHandlers h;
  h.add(Record<Wide>("wide")
            .field(&Wide::serial, "serial")
            .field(&Wide::origin, "origin")
            .field(&Wide::id, "id")
            .field(&Wide::flag, "flag")
            .field(&Wide::name, "name")
            .field(&Wide::note, "note")
            .field(&Wide::small, "small")
            .field(&Wide::list, "list")
            .field(&Wide::a_name_longer_than_16, "a-name-longer-than-16")
            .field(&Wide::xy, "xy"));
  return h;
}

// A record as a JSON object with `keys` (name and JSON value) in that order.
std::string object_of(const std::vector<std::pair<std::string, std::string>>& keys) {
  std::string json = "{";
  for (const auto& [k, v] : keys) json += (json.size() > 1 ? "," : "") + ("\"" + k + "\":" + v);
  return json + "}";
}

TEST(Record, KeysInAnyOrderUnknownKeysAndDuplicatesReadAsWithoutAGuess) {
  const transit::ReadHandlers h = wide_handlers();
  const std::vector<std::pair<std::string, std::string>> declared{
      {"serial", "7"},     {"origin", "5"},      {"id", "1"},
      {"flag", "true"},    {"name", "\"n\""},        {"note", "\"a note\""},
      {"small", "-3"},     {"list", "[1,2]"},        {"a-name-longer-than-16", "\"long\""},
      {"xy", "42"}};
  Wide full;
  full.serial = 7;
  full.origin = 5;
  full.id = 1;
  full.flag = true;
  full.name = "n";
  full.note = "a note";
  full.small = -3;
  full.list = {1, 2};
  full.a_name_longer_than_16 = "long";
  full.xy = 42;

  std::vector<std::vector<std::pair<std::string, std::string>>> orders;
  std::vector<Wide> want;
  orders.push_back(declared);
  want.push_back(full);
  orders.emplace_back(declared.rbegin(), declared.rend());  // reversed
  want.push_back(full);
  // Shuffled, by a fixed permutation, and again by another.
  for (std::size_t step : {3u, 7u}) {
    std::vector<std::pair<std::string, std::string>> shuffled;
    for (std::size_t i = 0; i < declared.size(); ++i)
      shuffled.push_back(declared[(i * step + 1) % declared.size()]);
    orders.push_back(shuffled);
    want.push_back(full);
  }
  // Unknown keys between every two, one of them named like a field with a byte changed and
  // one a prefix of a field's name.
  {
    std::vector<std::pair<std::string, std::string>> with_unknown;
    const char* unknown[] = {"nam3", "serial_", "a-name-longer-than-17", "x", "idd", "{}"};
    for (std::size_t i = 0; i < declared.size(); ++i) {
      with_unknown.push_back(declared[i]);
      with_unknown.push_back({unknown[i % 6], i % 2 ? "{\"name\":\"inner\"}" : "[\"name\",1]"});
    }
    orders.push_back(with_unknown);
    want.push_back(full);
  }
  // Duplicates: the last value wins, the optional one back to empty by a later null.
  {
    auto dup = declared;
    dup.push_back({"id", "2"});
    dup.push_back({"name", "\"second\""});
    dup.push_back({"note", "null"});
    dup.insert(dup.begin(), {"flag", "false"});
    orders.push_back(dup);
    Wide w = full;
    w.id = 2;
    w.name = "second";
    w.note = std::nullopt;
    want.push_back(w);
  }
  // Missing optional field: empty.
  {
    auto missing = declared;
    missing.erase(missing.begin() + 5);  // note
    orders.push_back(missing);
    Wide w = full;
    w.note = std::nullopt;
    want.push_back(w);
  }
  // Each order again after every other, so that each guess follows another record's order.
  std::string json = "[";
  std::vector<Wide> want_all;
  for (int round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < orders.size(); ++i) {
      const std::size_t o = (i * (round + 1) + round) % orders.size();
      json += (json.size() > 1 ? "," : "") + object_of(orders[o]);
      want_all.push_back(want[o]);
    }
  json += "]";
  const Value tree = transit::read(json, Encoding::json_verbose);
  for (Encoding e : kAll) {
    const std::string bytes = transit::write(tree, e);
    // Twice through one reader of a stream: the records' memory of keys is kept between them.
    const std::string stream = bytes + (e == Encoding::msgpack ? "" : "\n") + bytes;
    transit::Reader reader(stream, e, {.handlers = &h});
    for (int pass = 0; pass < 2; ++pass) {
      const auto got = reader.next<std::vector<Wide>>();
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, want_all) << transit::encoding_name(e) << " pass " << pass;
    }
    // Each record alone, as a tagged value.
    for (std::size_t o = 0; o < orders.size(); ++o) {
      const Value one = transit::Value::tagged("wide", transit::read(object_of(orders[o]),
                                                                     Encoding::json_verbose));
      EXPECT_EQ(transit::read<Wide>(transit::write(one, e), e, {.handlers = &h}), want[o])
          << transit::encoding_name(e) << " order " << o;
    }
  }
}

TEST(Record, MissingRequiredFieldsAndWrongShapesWhereTheGuessWouldGo) {
  const transit::ReadHandlers h = wide_handlers();
  const std::string ok_tail = R"("origin":5,"flag":true,"name":"n","small":1,"list":[],)"
                              R"("a-name-longer-than-16":"","xy":1)";
  for (Encoding e : kAll) {
    auto read_json = [&](const std::string& json) {
      return transit::write(transit::read(json, Encoding::json_verbose), e);
    };
    // `id` missing, in the place the guess expects it after `serial`.
    try {
      (void)transit::read<Wide>(read_json(R"({"serial":1,)" + ok_tail + "}"), e, {.handlers = &h});
      ADD_FAILURE() << "no error";
    } catch (const transit::Error& err) {
      EXPECT_NE(std::string(err.what()).find("missing field :id of (anonymous namespace)::Wide"),
                std::string::npos)
          << err.what();
    }
    // A wrong shape in each field read inline goes to its binder's error, with the path.
    const std::pair<std::string, std::string> wrong[] = {
        {R"("id":"one")", "[\"id\"]: expected long, got string \"one\""},
        {R"("flag":1)", "[\"flag\"]: expected bool, got integer 1"},
        {R"("name":2)", "[\"name\"]: expected std::string, got integer 2"},
        {R"("note":false)", "[\"note\"]: expected std::string, got boolean false"},
        {R"("serial":1.5)", "[\"serial\"]: expected long, got floating 1.5"},
        {R"("list":[1,"x"])", "[\"list\"][1]: expected long, got string \"x\""},
    };
    for (const auto& [field, message] : wrong) {
      const std::string json = R"({"serial":1,"id":1,"note":null,)" + ok_tail + "," + field + "}";
      try {
        (void)transit::read<Wide>(read_json(json), e, {.handlers = &h});
        ADD_FAILURE() << "no error for " << field;
      } catch (const transit::Error& err) {
        EXPECT_NE(std::string(err.what()).find(message), std::string::npos)
            << transit::encoding_name(e) << ": " << err.what();
      }
    }
  }
  // A `~~` string (decoded, not text on the tape), a `~#list` and `~:` keyword keys read as
  // before.
  Wide w = transit::read<Wide>(
      R"(["~#wide",["^ ","~:serial",1,"~:origin",5,"~:id",1,"~:flag",false,"~:name","~~x",)"
      R"("~:note","~~y","~:small",0,"~:list",["~#list",[3,4]],"~:a-name-longer-than-16","","~:xy",0]])",
      Encoding::json, {.handlers = &h});
  EXPECT_EQ(w.name, "~x");
  EXPECT_EQ(w.note, "~y");
  EXPECT_EQ(w.list, (std::vector<std::int64_t>{3, 4}));
}

TEST(Record, WrongShapesNameTheFieldAndType) {
  const Handlers h = make_handlers();
  EXPECT_EQ(error_of<Line>(R"(["~#line",["^ ","~:sku","B"]])", h.read),
            "transit: type_mismatch at byte 10 (line 1, column 11) in $<#line>: missing field "
            ":quantity of (anonymous namespace)::Line");
  // The first required field missing is named, whichever fields came.
  EXPECT_EQ(error_of<Line>(R"({"discount":null})", h.read),
            "transit: type_mismatch at byte 0 (line 1, column 1) in $: missing field :sku of "
            "(anonymous namespace)::Line");
  EXPECT_EQ(error_of<Line>(R"(["~#line",["^ ","~:sku","B","~:quantity","two"]])", h.read),
            "transit: type_mismatch at byte 41 (line 1, column 42) in $<#line>[:quantity]: "
            "expected int, got string \"two\"");
  EXPECT_EQ(error_of<Line>(R"(["~#money",["^ "]])", h.read),
            "transit: type_mismatch at byte 0 (line 1, column 1) in $: expected (anonymous "
            "namespace)::Line, got a tagged value ~#money (~#money reads (anonymous "
            "namespace)::Money)");
  EXPECT_EQ(error_of<Line>(R"([1])", h.read),
            "transit: type_mismatch at byte 0 (line 1, column 1) in $: expected (anonymous "
            "namespace)::Line, got an array");
}

/// A Placed (one line, with `discount`) and a Cancelled, and both as events.
struct TwoEvents {
  Placed p;
  Cancelled c;
  std::vector<std::unique_ptr<Event>> events;
};

TwoEvents two_events(std::optional<Money> discount) {
  TwoEvents t;
  t.p.id = "o-1";
  t.p.lines = {Line{"A", 1, std::move(discount)}};
  t.c.id = "o-2";
  t.c.reason = "late";
  t.events.push_back(std::make_unique<Placed>(t.p));
  t.events.push_back(std::make_unique<Cancelled>(t.c));
  return t;
}

TEST(Record, PolymorphicReadsChooseTheTypeByTag) {
  const Handlers h = make_handlers();
  const auto [p, c, events] = two_events(std::nullopt);
  for (Encoding e : kAll) {
    const std::string bytes = transit::write(events, e, {.registry = &h.registry});
    const auto back =
        transit::read<std::vector<std::shared_ptr<Event>>>(bytes, e, {.handlers = &h.read});
    ASSERT_EQ(back.size(), 2u);
    const auto* placed = dynamic_cast<const Placed*>(back[0].get());
    ASSERT_NE(placed, nullptr);
    EXPECT_EQ(placed->lines, p.lines);
    EXPECT_EQ(dynamic_cast<const Cancelled&>(*back[1]).reason, "late");
    // Through a reference to the base, the dynamic type is written, as through a pointer.
    const Event& base = *events[1];
    EXPECT_EQ(transit::write(base, e, {.registry = &h.registry}),
              transit::write(c, e, {.registry = &h.registry}));
  }
  // A tag whose type does not derive from the base asked for.
  EXPECT_EQ(error_of<std::unique_ptr<Event>>(R"(["~#line",["^ ","~:sku","B","~:quantity",1]])", h.read),
            "transit: type_mismatch at byte 0 (line 1, column 1) in $: expected "
            "std::unique_ptr<(anonymous namespace)::Event>, got a tagged value ~#line (~#line "
            "reads (anonymous "
            "namespace)::Line, which its Record does not declare to derive from (anonymous "
            "namespace)::Event)");
}

struct Refund : Cancelled {
  double amount = 0;
};

// A Record declares its direct base; the base's Record declares its own. A read into a pointer
// to the base's base (a Refund into std::unique_ptr<Event>) was refused ("which its Record does
// not declare to derive from Event"), though Refund derives from Event and the write side
// walks the same declarations up the chain.
TEST(Record, PolymorphicReadsFollowTheBasesRecordsDeclare) {
  auto cancelled =
      Record<Cancelled>("cancelled").field(&Cancelled::id, "id").field(&Cancelled::reason, "reason").derives<Event>();
  auto refund = Record<Refund>("refund")
                    .field(&Refund::id, "id")
                    .field(&Refund::reason, "reason")
                    .field(&Refund::amount, "amount")
                    .derives<Cancelled>();
  transit::RegistryBuilder b;
  b.add(cancelled).add(refund);
  const transit::Registry registry = std::move(b).freeze();
  transit::ReadHandlers read;
  read.add(cancelled).add(refund);
  std::vector<std::unique_ptr<Event>> events;
  auto r = std::make_unique<Refund>();
  r->id = "r1", r->reason = "broken", r->amount = 9.5;
  events.push_back(std::move(r));
  events.push_back(std::make_unique<Cancelled>());
  for (Encoding e : kAll) {
    const std::string bytes = transit::write(events, e, {.registry = &registry});
    const auto back = transit::read<std::vector<std::unique_ptr<Event>>>(bytes, e, {.handlers = &read});
    ASSERT_EQ(back.size(), 2u);
    const auto* refunded = dynamic_cast<const Refund*>(back[0].get());
    ASSERT_NE(refunded, nullptr);
    EXPECT_EQ(refunded->id, "r1");
    EXPECT_EQ(refunded->reason, "broken");
    EXPECT_EQ(refunded->amount, 9.5);
    EXPECT_NE(dynamic_cast<const Cancelled*>(back[1].get()), nullptr);
    // The same through a Value the read made (a held Refund bound into the base's base).
    const Value held = transit::read(bytes, e, {.handlers = &read});
    const auto bound = transit::from_value<std::vector<std::shared_ptr<Event>>>(held, &read);
    ASSERT_NE(dynamic_cast<const Refund*>(bound[0].get()), nullptr);
    EXPECT_EQ(dynamic_cast<const Refund&>(*bound[0]).amount, 9.5);
  }
}

// A class that holds its base twice (a diamond without `virtual`) has no one base: C++
// refuses `static_cast<Shape*>` of it. Its Record's chains lead to the base by two paths that
// give different objects, and a read into std::unique_ptr<Shape> picked the first (the
// Shape inside Left) with no word; it is refused now, through the tag and through a held
// object. A virtual base, reached by two paths to one object, reads as before.
struct Shape {
  virtual ~Shape() = default;
  int id = 0;
};
struct Left : Shape {};
struct Right : Shape {};
struct Twice : Left, Right {
  int n = 0;
};
struct Solid {
  virtual ~Solid() = default;
  int id = 0;
};
struct Top : virtual Solid {};
struct Side : virtual Solid {};
struct Once : Top, Side {
  int n = 0;
};

TEST(Record, APolymorphicReadRefusesABaseTheTypeHoldsTwice) {
  auto left = Record<Left>("left").derives<Shape>();
  auto right = Record<Right>("right").derives<Shape>();
  auto twice = Record<Twice>("twice").field(&Twice::n, "n").derives<Left, Right>();
  transit::ReadHandlers read;
  read.add(left).add(right).add(twice);
  const std::string text = R"([["~#twice",["^ ","~:n",7]]])";
  try {
    (void)transit::read<std::vector<std::unique_ptr<Shape>>>(text, Encoding::json, {.handlers = &read});
    FAIL() << "read a Twice as one of its two Shapes";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), Errc::type_mismatch);
    EXPECT_NE(std::string(e.what()).find("~#twice reads (anonymous namespace)::Twice, which holds "
                                         "more than one (anonymous namespace)::Shape"),
              std::string::npos)
        << e.what();
  }
  // Its Left and its Right are each one object: those read.
  const auto lefts = transit::read<std::vector<std::unique_ptr<Left>>>(text, Encoding::json, {.handlers = &read});
  ASSERT_EQ(lefts.size(), 1u);
  EXPECT_EQ(dynamic_cast<const Twice&>(*lefts[0]).n, 7);
  // A Twice a read into Value holds, bound again into the base: refused the same way.
  const Value held = transit::read(text, Encoding::json, {.handlers = &read});
  try {
    (void)transit::from_value<std::vector<std::shared_ptr<Shape>>>(held, &read);
    FAIL() << "bound a held Twice as one of its two Shapes";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), Errc::type_mismatch);
    EXPECT_NE(std::string(e.what()).find("a held (anonymous namespace)::Twice reads (anonymous "
                                         "namespace)::Twice, which holds more than one"),
              std::string::npos)
        << e.what();
  }
}

TEST(Record, APolymorphicReadTakesAVirtualBaseReachedTwoWays) {
  auto top = Record<Top>("top").derives<Solid>();
  auto side = Record<Side>("side").derives<Solid>();
  auto once = Record<Once>("once").field(&Once::n, "n").derives<Top, Side>();
  transit::ReadHandlers read;
  read.add(top).add(side).add(once);
  for (Encoding e : kAll) {
    Once o;
    o.n = 5;
    transit::RegistryBuilder b;
    b.add(once);
    const transit::Registry registry = std::move(b).freeze();
    const std::string bytes = transit::write(o, e, {.registry = &registry});
    const auto back = transit::read<std::unique_ptr<Solid>>(bytes, e, {.handlers = &read});
    const auto* got = dynamic_cast<const Once*>(back.get());
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->n, 5);
    EXPECT_EQ(static_cast<const Solid*>(got), back.get());
  }
}

// The chains from each Record to its bases are worked out once, when a read first needs one,
// not per value; a Record added later may make a chain that was not there, or change the
// nearest: they are worked out again.
TEST(Record, ChainsToBasesFollowRecordsAddedAfterARead) {
  auto cancelled =
      Record<Cancelled>("cancelled").field(&Cancelled::id, "id").field(&Cancelled::reason, "reason").derives<Event>();
  auto refund = Record<Refund>("refund").field(&Refund::id, "id").field(&Refund::amount, "amount").derives<Cancelled>();
  transit::ReadHandlers read;
  read.add(refund);
  const std::string text = R"([["~#refund",["^ ","~:id","r1","~:amount",2.5]]])";
  try {
    (void)transit::read<std::vector<std::unique_ptr<Event>>>(text, Encoding::json, {.handlers = &read});
    FAIL() << "read a Refund as an Event with no Record of Cancelled";
  } catch (const transit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("which its Record does not declare to derive from"),
              std::string::npos)
        << e.what();
  }
  read.add(cancelled);
  const auto events = transit::read<std::vector<std::unique_ptr<Event>>>(text, Encoding::json, {.handlers = &read});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(dynamic_cast<const Refund&>(*events[0]).amount, 2.5);
}

// Readers on many threads share one ReadHandlers; the first read that needs a chain works them
// out for all, while the others wait or find them made (run under TSan by CI: "Thread").
TEST(Record, ThreadsShareTheChainsToBasesWorkedOutOnce) {
  auto cancelled =
      Record<Cancelled>("cancelled").field(&Cancelled::id, "id").field(&Cancelled::reason, "reason").derives<Event>();
  auto refund = Record<Refund>("refund").field(&Refund::id, "id").field(&Refund::amount, "amount").derives<Cancelled>();
  transit::ReadHandlers read;
  read.add(cancelled).add(refund);
  std::string text = "[";
  for (int i = 0; i < 200; ++i)
    text += (i ? "," : "") + std::string(R"(["~#refund",["^ ","~:id","r","~:amount",)") + std::to_string(i) + "]]";
  text += "]";
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 5; ++k) {
        const auto events = transit::read<std::vector<std::unique_ptr<Event>>>(text, Encoding::json, {.handlers = &read});
        for (std::size_t i = 0; i < events.size(); ++i)
          if (dynamic_cast<const Refund&>(*events[i]).amount != static_cast<double>(i)) ++wrong;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A key that is a whole value (a MessagePack map's array key, a cmap read as a Value) names no
// field, and all of it is skipped with its value. The typed fuzzer found the first token of
// such a key taken as the whole key: the cursor then read the key's items as keys and values
// (here "sku" as a key, its value the array's end: a mismatch), or walked off the tape.
TEST(Record, KeysThatAreWholeValuesNameNoField) {
  const Handlers h = make_handlers();
  const Line want{"A", 1, std::nullopt};
  const std::string mp =
      "\x83\x92\xa1"
      "a\xa3sku\xa1x\xa3sku\xa1"
      "A\xa8quantity\x01";
  EXPECT_EQ(transit::read<Line>(mp, Encoding::msgpack, {.handlers = &h.read}), want);
  EXPECT_EQ(transit::from_value<Line>(transit::read(mp, Encoding::msgpack), &h.read), want);
  const Value cmap = transit::read(R"({"~#cmap":[["a","sku"],"x",{"sku":1},2,"sku","A","quantity",1]})");
  EXPECT_EQ(transit::from_value<Line>(cmap, &h.read), want);
}

// from_value binds a Value as a typed read binds bytes; a Value read with a Record's handlers
// holds the objects themselves, which bind as their bytes did: copied, by their dynamic type
// into a pointer to a base.
TEST(Record, FromValueBindsTheObjectsAReadIntoValueMade) {
  const Handlers h = make_handlers();
  const auto [p, c, events] = two_events(Money{{"1.50"}, "EUR"});
  for (Encoding e : kAll) {
    const std::string bytes = transit::write(events, e, {.registry = &h.registry});
    const Value v = transit::read(bytes, e, {.handlers = &h.read});
    ASSERT_NE(v[0].get_if<Placed>(), nullptr);
    const auto back = transit::from_value<std::vector<std::unique_ptr<Event>>>(v, &h.read);
    ASSERT_EQ(back.size(), 2u);
    const auto* placed = dynamic_cast<const Placed*>(back[0].get());
    ASSERT_NE(placed, nullptr);
    EXPECT_EQ(placed->id, "o-1");
    EXPECT_EQ(placed->lines, p.lines);
    EXPECT_NE(placed, v[0].get_if<Placed>());  // a copy: the Value keeps its own
    EXPECT_EQ(dynamic_cast<const Cancelled&>(*back[1]).reason, "late");
    EXPECT_EQ(transit::from_value<Placed>(v[0], &h.read).lines, p.lines);
    EXPECT_EQ(transit::from_value<std::shared_ptr<Event>>(v[1], &h.read)->id, "o-2");
    const Value line = transit::read(transit::write(p.lines, e, {.registry = &h.registry}), e,
                                     {.handlers = &h.read});
    EXPECT_EQ(transit::from_value<std::vector<Line>>(line, &h.read), p.lines);
  }
  // Another type's object is still a mismatch, named as before.
  const Value cancelled = Value::object(c);
  try {
    (void)transit::from_value<Placed>(cancelled, &h.read);
    FAIL();
  } catch (const transit::Error& err) {
    EXPECT_STREQ(err.what(), "transit: type_mismatch in $: expected (anonymous namespace)::Placed, "
                             "got object #object[(anonymous namespace)::Cancel...");
  }
  // An object whose type does not derive from the base asked for.
  try {
    (void)transit::from_value<std::unique_ptr<Event>>(Value::object(Line{"B", 1, std::nullopt}),
                                                     &h.read);
    FAIL();
  } catch (const transit::Error& err) {
    EXPECT_STREQ(err.what(),
                 "transit: type_mismatch in $: expected std::unique_ptr<(anonymous "
                 "namespace)::Event>, got object #object[(anonymous namespace)::Line] (a held (anonymous namespace)::Line "
                 "reads (anonymous namespace)::Line, which its Record does not declare to derive "
                 "from (anonymous namespace)::Event)");
  }
}

// A move-only record (it owns a unique_ptr) reads typed, alone and as the items of a
// container; what a read into Value made of one cannot be copied out, and from_value says so.
// (read<T> of a move-only T did not compile: its binder copied a held object inline.)
struct Owner {
  std::string name;
  std::unique_ptr<Money> money;
};

TEST(Record, AMoveOnlyTypeReadsTypedAndIsNotCopiedOutOfAValue) {
  auto money = Record<Money>("money").field(&Money::amount, "amount").field(&Money::currency, "currency");
  auto owner = Record<Owner>("owner").field(&Owner::name, "name").field(&Owner::money, "money");
  transit::RegistryBuilder b;
  b.add(money).add(owner);
  const transit::Registry registry = std::move(b).freeze();
  transit::ReadHandlers read;
  read.add(money).add(owner);
  std::vector<Owner> owners;
  owners.push_back(Owner{"a", std::make_unique<Money>(Money{{"2.5"}, "EUR"})});
  owners.push_back(Owner{"b", nullptr});
  for (Encoding e : kAll) {
    const std::string bytes = transit::write(owners, e, {.registry = &registry});
    const auto back = transit::read<std::vector<Owner>>(bytes, e, {.handlers = &read});
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].name, "a");
    ASSERT_NE(back[0].money, nullptr);
    EXPECT_EQ(*back[0].money, *owners[0].money);
    EXPECT_EQ(back[1].money, nullptr);
    const Owner one = transit::read<Owner>(transit::write(owners[0], e, {.registry = &registry}),
                                           e, {.handlers = &read});
    EXPECT_EQ(one.name, "a");
    const Value held = transit::read(bytes, e, {.handlers = &read});
    ASSERT_NE(held[0].get_if<Owner>(), nullptr);
    try {
      (void)transit::from_value<std::vector<Owner>>(held, &read);
      FAIL();
    } catch (const transit::Error& err) {
      EXPECT_STREQ(err.what(),
                   "transit: type_mismatch in $[0]: expected (anonymous namespace)::Owner, got "
                   "object #object[(anonymous namespace)::Owner] (a held (anonymous "
                   "namespace)::Owner is bound only when it can be copied)");
    }
  }
}

TEST(Enums, AsKeywordsByNameElseAsIntegers) {
  for (Encoding e : kAll) {
    const std::vector<Status> s{Status::shipped, Status::open};
    EXPECT_EQ(transit::read<std::vector<Status>>(transit::write(s, e), e), s);
    const std::map<Priority, Status> m{{Priority::high, Status::open}};
    EXPECT_EQ((transit::read<std::map<Priority, Status>>(transit::write(m, e), e)), m);
  }
  EXPECT_EQ(transit::write(std::vector<Status>{Status::shipped}), R"(["~:shipped"])");
  EXPECT_EQ(transit::write(std::vector<Priority>{Priority::high}), R"([9])");
  const transit::ReadHandlers none;
  EXPECT_EQ(error_of<Status>(R"(["~#'","~:lost"])", none),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected (anonymous "
            "namespace)::Status, got keyword :lost (no such name)");
  EXPECT_EQ(error_of<Priority>(R"(["~#'",300])", none),
            "transit: type_mismatch at byte 7 (line 1, column 8) in $: expected unsigned char, "
            "got integer 300 (out of range)");
}

TEST(LibraryTypes, AreWrittenDirectlyAsTheirValues) {
  for (Encoding e : kAll) {
    EXPECT_EQ(transit::write(transit::Uuid{1, 2}, e), transit::write(Value::uuid({1, 2}), e));
    EXPECT_EQ(transit::write(transit::BigDecimal{"1.50"}, e),
              transit::write(Value::big_decimal("1.50"), e));
    EXPECT_EQ(transit::write(transit::Uri{"http://a"}, e), transit::write(Value::uri("http://a"), e));
    EXPECT_EQ(transit::write(std::map<transit::Keyword, transit::Symbol>{{{"k"}, {"s"}}}, e),
              transit::write(Value::map({{transit::kw("k"), transit::sym("s")}}), e));
  }
}

struct Celsius {
  double degrees = 0;
};
struct Unregistered {
  int x = 0;
};

TEST(Registration, MemberAddAndTheOneCharacterTagsOfTheSpec) {
  transit::RegistryBuilder b;
  b.add<Celsius>("celsius", [](const Celsius& c) { return c.degrees; });
  const transit::Registry r = std::move(b).freeze();
  EXPECT_EQ(transit::write(Celsius{1.5}, Encoding::json, {.registry = &r}), R"(["~#celsius",1.5])");
  transit::RegistryBuilder bad;
  try {
    bad.add<Celsius>("c", [](const Celsius& c) { return std::to_string(c.degrees); });
    FAIL();
  } catch (const transit::Error& e) {
    EXPECT_STREQ(e.what(),
                 "transit: invalid_argument: the tag \"c\" of the write handler for (anonymous "
                 "namespace)::Celsius is a built-in Transit tag; a user type needs a tag of its own");
  }
}

// A tag no reader reads (empty, whitespace, a control character) was taken, and every value
// of the type was written as ["~#a b", ...], which this library's own reader refuses.
TEST(Registration, TagsNoReaderReadsAreRefused) {
  for (const std::string tag : {"", "a b", "shop/\nline", "tab\t", "del\x7f"}) {
    SCOPED_TRACE(tag);
    const std::string detail =
        " is not a valid tag: empty, or has whitespace or a control character";
    try {
      transit::RegistryBuilder b;
      b.add<Celsius>(tag, [](const Celsius& c) { return c.degrees; });
      FAIL();
    } catch (const transit::Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_EQ(e.detail(), "the tag \"" + tag + "\" of the write handler for (anonymous "
                            "namespace)::Celsius" + detail);
    }
    try {
      transit::RegistryBuilder b;
      b.add(Record<Celsius>(tag).field(&Celsius::degrees, "degrees"));
      FAIL();
    } catch (const transit::Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
    }
    try {
      transit::RegistryBuilder b;
      b.set_default(tag, [](const transit::ObjectInfo& o) { return o.type_name; });
      FAIL();
    } catch (const transit::Error& e) {
      EXPECT_EQ(e.detail(), "the tag \"" + tag + "\" of the default write handler" + detail);
    }
  }
  // Any other text is a tag, as the reference implementations allow.
  transit::RegistryBuilder b;
  b.add<Celsius>("~x^0", [](const Celsius& c) { return c.degrees; });
  const transit::Registry r = std::move(b).freeze();
  const std::string text = transit::write(Celsius{1.5}, Encoding::json, {.registry = &r});
  EXPECT_EQ(text, R"(["~#~x^0",1.5])");
  EXPECT_EQ(transit::read(text), Value::tagged("~x^0", Value(1.5)));
}

TEST(Registration, TheTypedDefaultHandlerKnowsTheObjectsType) {
  transit::RegistryBuilder b;
  b.set_default("unknown", [](const transit::ObjectInfo& info) {
    return std::map<std::string, std::string>{{"type", std::string(info.type_name)}};
  });
  const transit::Registry r = std::move(b).freeze();
  EXPECT_EQ(transit::write(std::vector<Unregistered>{{}}, Encoding::json, {.registry = &r}),
            R"([["~#unknown",["^ ","type","(anonymous namespace)::Unregistered"]]])");
}

TEST(ReadHandlers, ObjectsMoveOutOfTheirValue) {
  transit::ReadHandlers h;
  h.add_object<std::vector<int>>("ints", [](const Value& rep) {
    std::vector<int> v;
    for (const Value& x : rep.items()) v.push_back(static_cast<int>(x.as_int()));
    return v;
  });
  Value v = transit::read(R"(["~#ints",[1,2,3]])", Encoding::json, {.handlers = &h});
  const int* data = v.as<std::vector<int>>().data();
  {
    Value shared = v;
    // Shared: copied.
    EXPECT_EQ(std::move(shared).take<std::vector<int>>(), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(v.as<std::vector<int>>().size(), 3u);
  }
  // The only owner: moved, the same buffer.
  std::vector<int> taken = std::move(v).take<std::vector<int>>();
  EXPECT_EQ(taken.data(), data);
}

// A type read by an add_object handler (no Record): read<T> of the bytes runs the handler as
// the decoder meets the tag, and so does from_value<T> of those bytes read as a Value without
// the handlers (a tagged value, "~T5" as a key too), each tagged value's handler once, the
// innermost first; a handler's failure is placed by the path. (from_value said "no typed
// reader for ~#temp" before, where read<T> of the same bytes worked: the typed round-trip
// generator's Handler<T> types found it.)
struct Temp {
  std::int64_t tenths = 0;
  bool operator==(const Temp&) const = default;
  auto operator<=>(const Temp&) const = default;
};
struct Trip {
  std::string name;
  std::vector<Temp> temps;
  bool operator==(const Trip&) const = default;
};

TEST(ReadHandlers, FromValueRunsTheHandlersOfTagsAReadWouldRun) {
  transit::RegistryBuilder b;
  b.add(transit::Handler<Temp>("T").rep([](const Temp& t) { return std::to_string(t.tenths); }));
  b.add(transit::Handler<Trip>("trip").rep([](const Trip& t) {
    return std::pair<std::string_view, const std::vector<Temp>&>{t.name, t.temps};
  }));
  const transit::Registry r = std::move(b).freeze();
  int calls = 0;
  transit::ReadHandlers h;
  h.add_object<Temp>("T", [&](const Value& rep) {
    ++calls;
    if (rep.as_string() == "x") throw std::runtime_error("not a number");
    return Temp{std::stoll(std::string(rep.as_string()))};
  });
  h.add_object<Trip>("trip", [&](const Value& rep) {
    ++calls;
    Trip t{std::string(rep[0].as_string()), {}};
    for (const Value& temp : rep[1].items()) t.temps.push_back(temp.as<Temp>());
    return t;
  });
  const std::map<Temp, Trip> want{{Temp{5}, Trip{"up", {Temp{-3}, Temp{7}}}}, {Temp{6}, Trip{}}};
  for (Encoding e : kAll) {
    SCOPED_TRACE(transit::encoding_name(e));
    const std::string text = transit::write(want, e, {.registry = &r});
    EXPECT_EQ((transit::read<std::map<Temp, Trip>>(text, e, {.handlers = &h})), want);
    const Value plain = transit::read(text, e);  // tagged values
    calls = 0;
    EXPECT_EQ((transit::from_value<std::map<Temp, Trip>>(plain, &h)), want);
    EXPECT_EQ(calls, 6);  // two keys, two trips, two temps in one of them
    // Bound into a Value, the objects the handlers made; without the handlers, still tagged.
    EXPECT_EQ(transit::from_value<Value>(plain, &h), transit::read(text, e, {.handlers = &h}));
    EXPECT_EQ(transit::from_value<Value>(plain), plain);
  }
  // A handled tag inside a map, inside a handled tag's rep, after an entry that stays as it
  // is: the rep the outer handler sees holds the inner object and every entry.
  h.add_object<Temp>("reading", [&](const Value& rep) {
    if (rep.size() != 3 || *rep.find(Value::keyword("at")) != Value(std::int64_t{9}) ||
        *rep.find(Value::keyword("unit")) != Value::keyword("c"))
      throw std::runtime_error("entries lost");
    return rep.find(Value::keyword("temp"))->as<Temp>();
  });
  const Value reading = Value::tagged(
      "reading", Value::map({{Value::keyword("at"), Value(std::int64_t{9})},
                             {Value::keyword("temp"), Value::tagged("T", Value("41"))},
                             {Value::keyword("unit"), Value::keyword("c")}}));
  EXPECT_EQ(transit::from_value<Temp>(reading, &h), Temp{41});
  const Value bad = Value::map({{Value::keyword("a"), Value::array({Value::tagged("T", Value("x"))})}});
  try {
    (void)transit::from_value<std::map<transit::Keyword, std::vector<Temp>>>(bad, &h);
    ADD_FAILURE() << "no throw";
  } catch (const transit::Error& x) {
    EXPECT_STREQ(x.what(), "transit: bad_rep in $[:a][0]: read handler for ~#T failed: not a number");
  }
}

}  // namespace
