// SPDX-License-Identifier: Apache-2.0
// The write-handler registry: exact hits, ancestor walks, memoization, ambiguity, profiling,
// and lock-free lookups from many threads.
#include <gtest/gtest.h>

#include <thread>

#include "transit/registry.h"

namespace {

using transit::LookupProfiler;
using transit::LookupStrategy;
using transit::Registry;
using transit::RegistryBuilder;
using transit::detail::ErasedHandler;

ErasedHandler tagged(std::string tag) {
  ErasedHandler h;
  h.tag = std::move(tag);
  return h;
}

struct Shape {
  virtual ~Shape() = default;
  int id = 7;
};
struct Circle : Shape {
  double r = 1;
};
struct Unit : Circle {};
struct Named {
  virtual ~Named() = default;
  std::string name = "n";
};
// Named is the second base: a pointer to it sits at a non-zero offset in the object.
struct Label : Shape, Named {};
struct Sticker : Label {};
struct Untouched {};

// A virtual base: its offset is read from the object, so it cannot be memoized as a constant.
struct VBase {
  virtual ~VBase() = default;
  int v = 3;
};
struct VMid1 : virtual VBase {};
struct VMid2 : virtual VBase {};
struct VJoin : VMid1, VMid2 {};

std::string tag_of(const Registry& r, const std::type_info& type, const void* obj = nullptr,
                   LookupProfiler* profiler = nullptr) {
  const ErasedHandler* h = r.find(type, obj, profiler);
  return h ? h->tag : "<none>";
}

TEST(Registry, ExactTypeWins) {
  RegistryBuilder b;
  b.add_erased(typeid(Shape), tagged("shape")).add_erased(typeid(Circle), tagged("circle"));
  b.derives<Circle, Shape>();
  const Registry r = std::move(b).freeze();
  EXPECT_EQ(tag_of(r, typeid(Circle)), "circle");
  EXPECT_EQ(tag_of(r, typeid(Shape)), "shape");
}

TEST(Registry, NearestAncestorWins) {
  RegistryBuilder b;
  b.add_erased(typeid(Shape), tagged("shape")).add_erased(typeid(Circle), tagged("circle"));
  b.derives<Circle, Shape>().derives<Unit, Circle>();
  const Registry r = std::move(b).freeze();
  EXPECT_EQ(tag_of(r, typeid(Unit)), "circle");
}

TEST(Registry, UndeclaredTypeMissesWithoutDefault) {
  RegistryBuilder b;
  b.add_erased(typeid(Shape), tagged("shape"));
  const Registry r = std::move(b).freeze();
  EXPECT_EQ(tag_of(r, typeid(Untouched)), "<none>");
  const void* obj = nullptr;
  try {
    r.resolve(typeid(Untouched), obj, nullptr);
    FAIL();
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::no_handler);
    EXPECT_STREQ(e.what(),
                 "transit: no_handler: no write handler for C++ type (anonymous "
                 "namespace)::Untouched; no ancestors are declared (use derives<>)");
  }
}

TEST(Registry, MissNamesTheAncestorsTried) {
  RegistryBuilder b;
  b.derives<Circle, Shape>().derives<Unit, Circle>();
  const Registry r = std::move(b).freeze();
  const void* obj = nullptr;
  try {
    r.resolve(typeid(Unit), obj, nullptr);
    FAIL();
  } catch (const transit::Error& e) {
    EXPECT_STREQ(e.what(),
                 "transit: no_handler: no write handler for C++ type (anonymous "
                 "namespace)::Unit; tried ancestors (anonymous namespace)::Circle, (anonymous "
                 "namespace)::Shape");
  }
}

TEST(Registry, DefaultHandlerCatchesMisses) {
  RegistryBuilder b;
  b.set_default(tagged("fallback"));
  const Registry r = std::move(b).freeze();
  EXPECT_EQ(tag_of(r, typeid(Untouched)), "fallback");
  EXPECT_EQ(tag_of(r, typeid(Untouched)), "fallback");  // memoized the second time
}

TEST(Registry, AmbiguousAncestorsAreAnErrorAtFreeze) {
  RegistryBuilder b;
  b.add_erased(typeid(Shape), tagged("shape")).add_erased(typeid(Named), tagged("named"));
  b.derives<Label, Shape, Named>();
  try {
    std::move(b).freeze();
    FAIL() << "expected an ambiguity error";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::invalid_argument);
    EXPECT_STREQ(e.what(),
                 "transit: invalid_argument: ambiguous handler for (anonymous namespace)::Label: "
                 "(anonymous namespace)::Shape and (anonymous namespace)::Named both have "
                 "handlers at distance 1; register one for the type itself or declare fewer "
                 "bases");
  }
}

TEST(Registry, OwnHandlerSettlesAmbiguity) {
  RegistryBuilder b;
  b.add_erased(typeid(Shape), tagged("shape")).add_erased(typeid(Named), tagged("named"));
  b.add_erased(typeid(Label), tagged("label")).derives<Label, Shape, Named>();
  const Registry r = std::move(b).freeze();
  EXPECT_EQ(tag_of(r, typeid(Label)), "label");
}

TEST(Registry, DiamondThroughOneBaseIsNotAmbiguous) {
  RegistryBuilder b;
  b.add_erased(typeid(VBase), tagged("vbase"));
  b.derives<VMid1, VBase>().derives<VMid2, VBase>().derives<VJoin, VMid1, VMid2>();
  const Registry r = std::move(b).freeze();
  EXPECT_EQ(tag_of(r, typeid(VJoin)), "vbase");
}

TEST(Registry, ObjectPointerIsConvertedToTheHandlersBase) {
  RegistryBuilder b;
  b.add_erased(typeid(Named), tagged("named")).derives<Label, Shape, Named>().derives<Sticker, Label>();
  const Registry r = std::move(b).freeze();
  Sticker s;
  s.name = "sticky";
  for (int round = 0; round < 2; ++round) {  // the walk, then the memoized offset
    const void* obj = dynamic_cast<const void*>(static_cast<const Shape*>(&s));
    ASSERT_EQ(tag_of(r, typeid(Sticker), obj), "named") << round;
    const void* adjusted = obj;
    r.find(typeid(Sticker), adjusted, nullptr);
    EXPECT_EQ(static_cast<const Named*>(adjusted)->name, "sticky") << round;
    EXPECT_EQ(adjusted, static_cast<const Named*>(&s)) << round;
  }
}

TEST(Registry, VirtualBasesAreConvertedEveryTime) {
  RegistryBuilder b;
  b.add_erased(typeid(VBase), tagged("vbase"));
  b.derives<VMid1, VBase>().derives<VJoin, VMid1, VMid2>();
  const Registry r = std::move(b).freeze();
  VJoin one, two;
  one.v = 11;
  two.v = 22;
  for (VJoin* j : {&one, &two, &one}) {
    const void* obj = dynamic_cast<const void*>(j);
    r.find(typeid(VJoin), obj, nullptr);
    EXPECT_EQ(static_cast<const VBase*>(obj), static_cast<const VBase*>(j));
    EXPECT_EQ(static_cast<const VBase*>(obj)->v, j->v);
  }
}

TEST(Registry, ProfilerSeparatesFailuresFromDefaultsAndSaysHowEachTypeResolved) {
  for (const bool with_default : {false, true}) {
    RegistryBuilder b;
    b.add_erased(typeid(Shape), tagged("shape")).derives<Circle, Shape>().derives<Unit, Circle>();
    if (with_default) b.set_default(tagged("fallback"));
    const Registry r = std::move(b).freeze();
    LookupProfiler profiler;
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(tag_of(r, typeid(Untouched), nullptr, &profiler), with_default ? "fallback" : "<none>");
      EXPECT_EQ(tag_of(r, typeid(Unit), nullptr, &profiler), "shape");
      EXPECT_EQ(tag_of(r, typeid(Shape), nullptr, &profiler), "shape");
    }
    for (const transit::LookupStats& s : profiler.report()) {
      EXPECT_EQ(s.lookups(), 2u) << s.type_name;
      if (s.type_name == "(anonymous namespace)::Untouched") {
        EXPECT_EQ(s.resolution, with_default ? transit::Resolution::fallback : transit::Resolution::failure);
        EXPECT_EQ(s.default_fallbacks, with_default ? 2u : 0u);
        EXPECT_EQ(s.failures, with_default ? 0u : 2u);
        EXPECT_EQ(s.walks, 1u);
        EXPECT_EQ(s.memo_hits, 1u);
      } else if (s.type_name == "(anonymous namespace)::Shape") {
        EXPECT_EQ(s.resolution, transit::Resolution::own);
        EXPECT_EQ(s.exact_hits, 2u);
      } else {
        EXPECT_EQ(s.type_name, "(anonymous namespace)::Unit");
        EXPECT_EQ(s.resolution, transit::Resolution::ancestor);
        EXPECT_EQ(s.handler_type, "(anonymous namespace)::Shape");
        EXPECT_EQ(s.distance, 2u);
      }
      EXPECT_GE(s.timed, 1u) << s.type_name;  // the walk, and the first hit
    }
    const std::string json = profiler.json();
    EXPECT_NE(json.find(R"({"type":"(anonymous namespace)::Unit","resolution":"ancestor",)"
                        R"("handler_type":"(anonymous namespace)::Shape","distance":2,"lookups":2,)"
                        R"("exact_hits":0,"memo_hits":1,"walks":1,"walk_steps":2,)"
                        R"("default_fallbacks":0,"failures":0,"time_ns":)"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find(with_default ? R"("resolution":"fallback")" : R"("resolution":"failure")"),
              std::string::npos)
        << json;
    EXPECT_NE(profiler.table().find("(anonymous namespace)::Shape @2"), std::string::npos)
        << profiler.table();
  }
}

class Strategies : public ::testing::TestWithParam<LookupStrategy> {};

TEST_P(Strategies, ResolveAlikeAndProfileHowTheyGotThere) {
  RegistryBuilder b;
  b.add_erased(typeid(Shape), tagged("shape"));
  b.derives<Circle, Shape>().derives<Unit, Circle>();
  const Registry r = std::move(b).freeze(GetParam());
  LookupProfiler profiler;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(tag_of(r, typeid(Unit), nullptr, &profiler), "shape");
    EXPECT_EQ(tag_of(r, typeid(Shape), nullptr, &profiler), "shape");
  }
  const auto report = profiler.report();
  ASSERT_EQ(report.size(), 2u);
  const auto& unit = report[0].type_name.find("Unit") != std::string::npos ? report[0] : report[1];
  const auto& shape = &unit == &report[0] ? report[1] : report[0];
  EXPECT_EQ(unit.lookups(), 3u);
  EXPECT_EQ(shape.exact_hits, 3u);
  switch (GetParam()) {
    case LookupStrategy::memoized:
      EXPECT_EQ(unit.walks, 1u);
      EXPECT_EQ(unit.walk_steps, 2u);  // Circle, then Shape
      EXPECT_EQ(unit.memo_hits, 2u);
      break;
    case LookupStrategy::exact_first:
      EXPECT_EQ(unit.walks, 3u);
      EXPECT_EQ(unit.walk_steps, 6u);
      break;
    case LookupStrategy::walk_every_time:
      EXPECT_EQ(unit.walks, 3u);
      EXPECT_EQ(unit.walk_steps, 6u);  // Circle, Shape: the type itself is no step
      EXPECT_EQ(shape.walk_steps, 0u);  // an exact hit probes no ancestor
      break;
  }
  EXPECT_NE(profiler.table().find("total"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(All, Strategies,
                         ::testing::Values(LookupStrategy::memoized, LookupStrategy::exact_first,
                                           LookupStrategy::walk_every_time));

TEST(Registry, ManyThreadsShareOneFrozenRegistry) {
  RegistryBuilder b;
  b.add_erased(typeid(Shape), tagged("shape")).add_erased(typeid(Named), tagged("named"));
  b.derives<Circle, Shape>().derives<Unit, Circle>().derives<Sticker, Label>();
  b.derives<Label, Named>();
  const Registry r = std::move(b).freeze();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      Sticker s;
      for (int i = 0; i < 20000; ++i) {
        if (tag_of(r, typeid(Unit)) != "shape") ++wrong;
        const void* obj = dynamic_cast<const void*>(static_cast<const Shape*>(&s));
        const ErasedHandler* h = r.find(typeid(Sticker), obj, nullptr);
        if (!h || h->tag != "named" || obj != static_cast<const Named*>(&s)) ++wrong;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
