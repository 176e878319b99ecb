// SPDX-License-Identifier: Apache-2.0
// Types shared by the registry test and the shared library it loads (plugin_shapes.cpp). They
// have no key function, so each binary that uses them emits its own type_info; the library is
// built with hidden symbols, so its copies are never merged with the test program's.
#pragma once

#include <string>

namespace transit_plugin {

struct Shape {
  virtual ~Shape() = default;
  std::string name;
};
struct Hexagon : Shape {
  double side = 2;
};
struct Pentagon : Shape {
  int corners = 5;
};

/// `transit_plugin_make(0)` is a Hexagon named "hex", `(1)` a Pentagon named "pent"; free with
/// `transit_plugin_free`.
using MakeFn = Shape* (*)(int which);
using FreeFn = void (*)(Shape*);

}  // namespace transit_plugin
