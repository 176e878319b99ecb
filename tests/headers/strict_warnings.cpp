// SPDX-License-Identifier: Apache-2.0
// The public headers as a consumer's own code sees them: through pkg-config's -I, or
// add_subdirectory(), they are not system headers, so a project that builds with -Wshadow or
// -Wsign-conversion and -Werror fails on any warning in them. The templates a user
// instantiates most are instantiated here too.
#include <transit/transit.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {
struct Point {
  int x = 0, y = 0;
};
struct Counted {
  std::string got;
  long write(const char* data, std::size_t size) {
    got.append(data, size);
    return static_cast<long>(size);
  }
};
}  // namespace

int main() {
  transit::RegistryBuilder builder;
  transit::add<Point>(builder, "point", [](const Point& p) { return std::array{p.x, p.y}; });
  const transit::Registry registry = std::move(builder).freeze();
  transit::WriteOptions options;
  options.registry = &registry;
  std::string text = transit::write(std::vector<Point>{{1, 2}}, transit::Encoding::json, options);
  transit::ReadHandlers handlers;
  handlers.add_object<Point>("point", [](const transit::Value& rep) {
    return Point{static_cast<int>(rep[0].as_int()), static_cast<int>(rep[1].as_int())};
  });
  transit::ReadOptions read_options;
  read_options.handlers = &handlers;
  const transit::Value back = transit::read(text, transit::Encoding::json, read_options);
  const auto m = transit::read<std::map<std::string, std::vector<int>>>(R"(["^ ","a",[1]])");
  Counted counted;
  transit::SinkRef<Counted> sink(counted);
  transit::Writer writer(sink, transit::Encoding::msgpack);
  writer.write(back);
  writer.write(m);
  writer.flush();
  // std::ostream::write takes a signed std::streamsize.
  std::ostringstream os;
  transit::SinkRef<std::ostream> stream_sink(os);
  transit::Writer stream_writer(stream_sink, transit::Encoding::json);
  stream_writer.write(back);
  stream_writer.flush();
  return transit::to_edn(back).empty() ? 1 : 0;
}
