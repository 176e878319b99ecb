// SPDX-License-Identifier: Apache-2.0
// Types whose type_info is duplicated across shared objects: a library loaded with dlopen makes
// objects of types it defines, with its own type_info copies, and a registry built here writes
// them. The exact table (keyed by address) misses; the walk compares by name, as the Itanium
// ABI allows, and memoizes the library's type_info so the next lookup is one probe.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <memory>
#include <typeinfo>
#include <vector>

#include "plugin/plugin_shapes.h"
#include "transit/transit.h"

namespace {

using transit_plugin::Hexagon;
using transit_plugin::Pentagon;
using transit_plugin::Shape;

struct Library {
  explicit Library(const char* path) : handle(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {}
  ~Library() {
    if (handle) dlclose(handle);
  }
  void* handle;
};

TEST(RegistrySharedLibrary, WritesTypesWhoseTypeInfoTheLibraryDuplicates) {
  Library lib(TRANSIT_TEST_PLUGIN);
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  auto make = reinterpret_cast<transit_plugin::MakeFn>(dlsym(lib.handle, "transit_plugin_make"));
  auto release = reinterpret_cast<transit_plugin::FreeFn>(dlsym(lib.handle, "transit_plugin_free"));
  ASSERT_TRUE(make && release);
  {
    std::unique_ptr<Shape, transit_plugin::FreeFn> hex(make(0), release), pent(make(1), release);
    // The library's objects carry the library's type_info: equal to ours by name only.
    const Shape& h = *hex;
    const Shape& p = *pent;
    ASSERT_NE(&typeid(h), &typeid(Hexagon));
    ASSERT_NE(&typeid(p), &typeid(Pentagon));
    ASSERT_EQ(typeid(h), typeid(Hexagon));

    transit::RegistryBuilder b;
    transit::add(b, transit::Handler<Shape>("shape").rep(
                        [](const Shape& s) -> const std::string& { return s.name; }));
    transit::add(b, transit::Handler<Pentagon>("pentagon").rep(
                        [](const Pentagon& p) { return std::vector<int>{p.corners}; }));
    b.derives<Hexagon, Shape>().derives<Pentagon, Shape>();
    const transit::Registry registry = std::move(b).freeze();
    transit::LookupProfiler profiler;
    transit::WriteOptions options;
    options.registry = &registry;
    options.profiler = &profiler;
    const std::vector<const Shape*> shapes{hex.get(), pent.get(), hex.get(), pent.get()};
    EXPECT_EQ(transit::write(shapes, transit::Encoding::json, options),
              R"([["~#shape","hex"],["~#pentagon",[5]],["^0","hex"],["^1",[5]]])");

    const auto report = profiler.report();
    ASSERT_EQ(report.size(), 2u);
    for (const transit::LookupStats& s : report) {
      EXPECT_EQ(s.walks, 1u) << s.type_name;      // found by name once ...
      EXPECT_EQ(s.memo_hits, 1u) << s.type_name;  // ... then by the library's type_info address
      if (s.type_name == "transit_plugin::Hexagon") {
        EXPECT_EQ(s.resolution, transit::Resolution::ancestor);
        EXPECT_EQ(s.handler_type, "transit_plugin::Shape");
        EXPECT_EQ(s.distance, 1u);
      } else {
        EXPECT_EQ(s.type_name, "transit_plugin::Pentagon");
        EXPECT_EQ(s.resolution, transit::Resolution::own);
      }
    }
  }
}

}  // namespace
