// SPDX-License-Identifier: Apache-2.0
// The shared library registry_plugin_test.cpp loads with dlopen: it makes objects whose dynamic
// types' type_info objects live here, not in the program whose registry writes them.
#include "plugin/plugin_shapes.h"

extern "C" __attribute__((visibility("default"))) transit_plugin::Shape* transit_plugin_make(
    int which) {
  if (which == 0) {
    auto* h = new transit_plugin::Hexagon;
    h->name = "hex";
    return h;
  }
  auto* p = new transit_plugin::Pentagon;
  p->name = "pent";
  return p;
}

extern "C" __attribute__((visibility("default"))) void transit_plugin_free(transit_plugin::Shape* s) {
  delete s;
}
