// SPDX-License-Identifier: Apache-2.0
// The registry at scale: 10,000 handlers and 100,000 derived types (a generated hierarchy),
// each resolved by one walk and then by one probe, and the table growing under readers.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <typeindex>
#include <unordered_map>

#include "support/generated_hierarchy.h"
#include "transit/registry.h"

namespace {

namespace gen = transit::generated;
using transit::LookupProfiler;
using transit::Registry;

std::string tag_of(const Registry& r, const std::type_info& type, LookupProfiler* profiler) {
  const void* obj = nullptr;
  const transit::detail::ErasedHandler* h = r.find(type, obj, profiler);
  return h ? h->tag : "<none>";
}

TEST(RegistryScale, EveryDerivedTypeWalksOnceThenHitsInOneProbe) {
  const Registry r = gen::builder().freeze();
  const gen::Types& t = gen::types();
  LookupProfiler profiler;
  int wrong = 0;
  for (int round = 0; round < 2; ++round) {
    for (int n = 0; n < gen::kDerived; ++n)
      if (tag_of(r, *t.derived[static_cast<std::size_t>(n)], &profiler) !=
          gen::tag_of_base(n % gen::kHandlers))
        ++wrong;
    for (int m = 0; m < gen::kHandlers; ++m)
      if (tag_of(r, *t.bases[static_cast<std::size_t>(m)], &profiler) != gen::tag_of_base(m)) ++wrong;
  }
  EXPECT_EQ(wrong, 0);

  const auto report = profiler.report();
  ASSERT_EQ(report.size(), static_cast<std::size_t>(gen::kHandlers + gen::kDerived));
  std::size_t derived = 0, bases = 0;
  for (const transit::LookupStats& s : report) {
    if (s.exact_hits) {
      ++bases;
      EXPECT_EQ(s.exact_hits, 2u) << s.type_name;
      EXPECT_EQ(s.walks + s.memo_hits, 0u) << s.type_name;
    } else {
      ++derived;
      // The first lookup walks one step to its base; the second is a hit in the table.
      EXPECT_EQ(s.walks, 1u) << s.type_name;
      EXPECT_EQ(s.walk_steps, 1u) << s.type_name;
      EXPECT_EQ(s.memo_hits, 1u) << s.type_name;
    }
  }
  EXPECT_EQ(bases, static_cast<std::size_t>(gen::kHandlers));
  EXPECT_EQ(derived, static_cast<std::size_t>(gen::kDerived));
}

// Two threads resolve the 100,000 derived types for the first time (the same types, racing to
// publish them, so the table grows many times under the readers) while two others keep hitting
// the exact types and types already resolved. Run under ThreadSanitizer by run.sh.
TEST(RegistryScale, ThreadsResolveNewTypesWhileOthersHit) {
  const Registry r = gen::builder().freeze();
  const gen::Types& t = gen::types();
  constexpr int kWarm = 100;  // derived types resolved before the threads start
  for (int n = 0; n < kWarm; ++n) tag_of(r, *t.derived[static_cast<std::size_t>(n)], nullptr);
  std::atomic<int> wrong{0};
  std::atomic<int> resolvers_left{2};
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < gen::kDerived; ++i) {
        // One thread goes up, the other down: they meet in the middle and race on the rest.
        const int n = k == 0 ? i : gen::kDerived - 1 - i;
        if (tag_of(r, *t.derived[static_cast<std::size_t>(n)], nullptr) !=
            gen::tag_of_base(n % gen::kHandlers))
          ++wrong;
      }
      --resolvers_left;
    });
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      int i = 0;
      while (resolvers_left.load() > 0 || i < 2 * gen::kHandlers) {
        const int m = (i * 7 + k) % gen::kHandlers;
        if (tag_of(r, *t.bases[static_cast<std::size_t>(m)], nullptr) != gen::tag_of_base(m)) ++wrong;
        const int n = i % kWarm;
        if (tag_of(r, *t.derived[static_cast<std::size_t>(n)], nullptr) !=
            gen::tag_of_base(n % gen::kHandlers))
          ++wrong;
        ++i;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  // Everything is resolved now: a profiled pass sees only table hits.
  LookupProfiler profiler;
  for (int n = 0; n < gen::kDerived; ++n) tag_of(r, *t.derived[static_cast<std::size_t>(n)], &profiler);
  std::uint64_t walks = 0, hits = 0;
  for (const transit::LookupStats& s : profiler.report()) {
    walks += s.walks;
    hits += s.memo_hits;
  }
  EXPECT_EQ(walks, 0u);
  EXPECT_EQ(hits, static_cast<std::uint64_t>(gen::kDerived));
}

}  // namespace
