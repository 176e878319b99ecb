// SPDX-License-Identifier: Apache-2.0
// The C++ samples of README.md and docs/*.md, compiled and checked, so the documentation cannot
// drift from the code. Each sample sits verbatim between a `// doc-sample begin` and a
// `// doc-sample end` line (in this file or any other tests/*_test.cpp), and
// DocSamples.EveryCppBlockIsCompiledInATest fails when a ```cpp block is found in no region.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cassert>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "transit/transit.h"

namespace {

// ---- README.md ---------------------------------------------------------------------------------

TEST(Readme, QuickStartInCode) {
  // doc-sample begin
  using transit::Value, transit::kw;

  Value order = Value::map({
      {kw("id"), Value::uuid({0x5a2cbea3e8c6428bULL, 0xb52521239370dd55ULL})},
      {kw("tags"), Value::set({kw("gift"), kw("express")})},
      {kw("total"), Value::big_decimal("19.99")},
  });
  std::string text = transit::write(order, transit::Encoding::json);
  // ["^ ","~:id","~u5a2cbea3-e8c6-428b-b525-21239370dd55","~:tags",["~#set",["~:gift","~:express"]],"~:total","~f19.99"]
  Value back = transit::read(text);          // reads JSON and JSON-Verbose alike
  assert(back == order);
  std::cout << transit::to_edn(back);        // {:id #uuid "5a2c...", :tags #{:gift :express}, :total 19.99M}
  // doc-sample end
  std::cout << "\n";
  EXPECT_EQ(text,
            R"(["^ ","~:id","~u5a2cbea3-e8c6-428b-b525-21239370dd55","~:tags",["~#set",)"
            R"(["~:gift","~:express"]],"~:total","~f19.99"])");
  EXPECT_EQ(back, order);
  EXPECT_EQ(transit::to_edn(back),
            R"({:id #uuid "5a2cbea3-e8c6-428b-b525-21239370dd55", :tags #{:gift :express}, )"
            R"(:total 19.99M})");
}

struct Point {
  int x, y;
};

TEST(Readme, OwnTypes) {
  // doc-sample begin
  transit::RegistryBuilder builder;
  transit::add<Point>(builder, "point", [](const Point& p) { return std::array{p.x, p.y}; });
  const transit::Registry registry = std::move(builder).freeze();  // immutable, shared by threads

  transit::WriteOptions options;
  options.registry = &registry;
  std::vector<Point> path{{0, 0}, {3, 4}};
  std::string text = transit::write(path, transit::Encoding::json, options);
  // [["~#point",[0,0]],["^0",[3,4]]]

  transit::ReadHandlers handlers;
  handlers.add_object<Point>("point", [](const transit::Value& rep) {
    return Point{int(rep[0].as_int()), int(rep[1].as_int())};
  });
  transit::ReadOptions read_options;
  read_options.handlers = &handlers;
  transit::Value back = transit::read(text, transit::Encoding::json, read_options);
  const Point& end = back[1].as<Point>();   // {3, 4}: user objects come back typed
  // doc-sample end
  EXPECT_EQ(text, R"([["~#point",[0,0]],["^0",[3,4]]])");
  EXPECT_EQ(end.x, 3);
  EXPECT_EQ(end.y, 4);
  EXPECT_EQ(transit::write(back, transit::Encoding::json, options), text);
}

// The streaming sample reads stdin and writes stdout, so it runs in a child process whose
// stdin and stdout are pipes.
void streaming_sample() {
  // doc-sample begin
  transit::FdSource in(STDIN_FILENO);
  transit::Reader reader(in, transit::Encoding::json);
  transit::FdSink out(STDOUT_FILENO);
  transit::Writer writer(out, transit::Encoding::json);
  while (auto v = reader.next()) {   // returns as soon as a value is complete
    writer.write(*v);
    writer.flush();                   // flush() reports failures; the destructor only tries
  }
  // doc-sample end
}

TEST(Readme, StreamingSample) {
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  std::cout.flush();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
    try {
      streaming_sample();
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  const std::string input = R"(["^ ","~:a",1] {"~:b":"~$c"} [1,2,"~$x"])";
  ASSERT_EQ(::write(to_child[1], input.data(), input.size()), ssize_t(input.size()));
  ::close(to_child[1]);
  std::string output;
  char buf[256];
  for (ssize_t n; (n = ::read(from_child[0], buf, sizeof buf)) > 0;) output.append(buf, std::size_t(n));
  ::close(from_child[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(output, R"(["^ ","~:a",1]["^ ","~:b","~$c"][1,2,"~$x"])");
}

// ---- docs/values.md ----------------------------------------------------------------------------

TEST(DocValues, ToEdn) {
  // doc-sample begin
  transit::Value v = transit::read(R"(["^ ","~:a",["~#list",[1,"~$b",2.5]],"~:b",["~#set",[]]])");
  std::string edn = transit::to_edn(v);   // {:a (1 b 2.5), :b #{}}
  // doc-sample end
  EXPECT_EQ(edn, "{:a (1 b 2.5), :b #{}}");
}

TEST(DocValues, DetachWhatOutlivesTheDocument) {
  transit::Value kept;
  {
    // doc-sample begin
    transit::Value doc = transit::read(R"(["^ ","~:id","order-1000000007-abcdefg","~:lines",[1,2,3]])");
    transit::Value id = doc.find(transit::kw("id"))->detach();  // does not hold `doc`'s memory
    // doc-sample end
    EXPECT_EQ(id, *doc.find(transit::kw("id")));
    EXPECT_NE(id.as_string().data(), doc.find(transit::kw("id"))->as_string().data());
    kept = id;
  }
  EXPECT_EQ(kept.as_string(), "order-1000000007-abcdefg");
}

// ---- docs/errors.md ----------------------------------------------------------------------------

TEST(DocErrors, ErrorMessageExample) {
  testing::internal::CaptureStderr();
  // doc-sample begin
  try {
    transit::read(R"(["^ ","~:a",[1,2,"~:abcd","^1"]])");
  } catch (const transit::Error& e) {
    std::cerr << e.what() << "\n";   // the message below
    assert(e.code() == transit::Errc::bad_cache_code && e.offset() == 26);
  }
  // doc-sample end
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "transit: bad_cache_code at byte 26 (line 1, column 27) in $[:a][3]: cache code "
            "\"^1\" (slot 1) is not assigned: the cache holds 1 entry\n");
  try {
    transit::read(R"(["^ ","~:a",[1,2,"~:abcd","^1"]])");
    FAIL() << "expected an error";
  } catch (const transit::Error& e) {
    EXPECT_EQ(e.code(), transit::Errc::bad_cache_code);
    EXPECT_EQ(e.offset(), 26u);
  }
}

// ---- docs/custom-types.md ----------------------------------------------------------------------

namespace custom {
// doc-sample begin
struct Point { int x, y; };
struct Shape { virtual ~Shape() = default; std::string name; };
struct Circle : Shape { Point center; double radius; };
struct Polygon : Shape { std::vector<Point> points; };
struct Square : Polygon {};  // no handler of its own
// doc-sample end

TEST(DocCustomTypes, HierarchyWrittenAndReadBack) {
  // doc-sample begin
  transit::RegistryBuilder b;
  // One line: write T as tag X with this representation (anything writable).
  transit::add<Point>(b, "point", [](const Point& p) { return std::array{p.x, p.y}; });
  // The full handler: tag, rep, and optionally a string rep, a JSON-Verbose rep, a dynamic tag.
  transit::add(b, transit::Handler<Circle>("circle").rep([](const Circle& c) {
    return std::tuple{std::string_view(c.name), c.center, c.radius};  // nested Point resolves too
  }));
  transit::add(b, transit::Handler<Polygon>("polygon").rep([](const Polygon& p) {
    return std::pair<std::string_view, const std::vector<Point>&>{p.name, p.points};
  }));
  b.derives<Circle, Shape>().derives<Polygon, Shape>().derives<Square, Polygon>();
  const transit::Registry registry = std::move(b).freeze();  // immutable, shared by threads

  std::vector<std::unique_ptr<Shape>> shapes;
  auto sun = std::make_unique<Circle>();
  sun->name = "sun", sun->center = {3, 4}, sun->radius = 1.5;
  shapes.push_back(std::move(sun));
  auto triangle = std::make_unique<Polygon>();
  triangle->name = "triangle", triangle->points = {{0, 0}, {4, 0}, {0, 3}};
  shapes.push_back(std::move(triangle));
  auto square = std::make_unique<Square>();
  square->name = "square", square->points = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  shapes.push_back(std::move(square));

  transit::WriteOptions options;
  options.registry = &registry;
  std::string text = transit::write(shapes, transit::Encoding::json, options);
  // [["~#circle",["sun",["~#point",[3,4]],1.5]],["~#polygon",["triangle",[["^1",[0,0]],...]]],
  //  ["^2",["square",...]]]      -- the Square is written by its dynamic type's nearest handler
  // doc-sample end
  EXPECT_EQ(text, R"([["~#circle",["sun",["~#point",[3,4]],1.5]],)"
                  R"(["~#polygon",["triangle",[["^1",[0,0]],["^1",[4,0]],["^1",[0,3]]]]],)"
                  R"(["^2",["square",[["^1",[0,0]],["^1",[1,0]],["^1",[1,1]],["^1",[0,1]]]]]])");

  // doc-sample begin
  transit::ReadHandlers handlers;
  handlers.add_object<Point>("point", [](const transit::Value& rep) {
    return Point{int(rep[0].as_int()), int(rep[1].as_int())};
  });
  handlers.add_object<Circle>("circle", [](const transit::Value& rep) {
    Circle c;
    c.name = rep[0].as_string(), c.center = rep[1].as<Point>(), c.radius = rep[2].as_double();
    return c;
  });
  handlers.add_object<Polygon>("polygon", [](const transit::Value& rep) {
    Polygon p;
    p.name = rep[0].as_string();
    for (const transit::Value& point : rep[1].items()) p.points.push_back(point.as<Point>());
    return p;
  });
  transit::ReadOptions read_options;
  read_options.handlers = &handlers;
  transit::Value back = transit::read(text, transit::Encoding::json, read_options);
  const Circle& circle = back[0].as<Circle>();        // user objects come back typed
  std::string again = transit::write(back, transit::Encoding::json, options);  // == text
  // doc-sample end
  EXPECT_EQ(circle.name, "sun");
  EXPECT_EQ(circle.center.x, 3);
  EXPECT_EQ(circle.radius, 1.5);
  EXPECT_EQ(back[2].as<Polygon>().name, "square");
  EXPECT_EQ(again, text);
}

}  // namespace custom

// ---- every sample is one of the above ----------------------------------------------------------

namespace fs = std::filesystem;

const fs::path kSourceDir = TRANSIT_SOURCE_DIR;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The lines of `text` with the indentation and trailing blanks taken off, blank lines dropped:
/// a sample may sit deeper in a test than in the page.
std::vector<std::string> normalized_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    lines.push_back(line.substr(first, last - first + 1));
  }
  return lines;
}

/// The ```cpp blocks of a Markdown page.
std::vector<std::string> cpp_blocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  std::istringstream in(markdown);
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.rfind("```cpp", 0) == 0) {
      inside = true;
      block.clear();
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

/// The regions between `// doc-sample begin` and `// doc-sample end` in the test sources.
std::vector<std::vector<std::string>> sample_regions() {
  std::vector<std::vector<std::string>> regions;
  for (const auto& entry : fs::directory_iterator(kSourceDir / "tests")) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 9 || name.substr(name.size() - 9) != "_test.cpp") continue;
    std::vector<std::string> region;
    bool inside = false;
    for (const std::string& line : normalized_lines(slurp(entry.path()))) {
      if (line == "// doc-sample begin") {
        inside = true;
        region.clear();
      } else if (line == "// doc-sample end") {
        inside = false;
        regions.push_back(region);
      } else if (inside) {
        region.push_back(line);
      }
    }
  }
  return regions;
}

bool contains(const std::vector<std::string>& region, const std::vector<std::string>& block) {
  return !block.empty() &&
         std::search(region.begin(), region.end(), block.begin(), block.end()) != region.end();
}

TEST(DocSamples, EveryCppBlockIsCompiledInATest) {
  const auto regions = sample_regions();
  ASSERT_GE(regions.size(), 7u) << "the doc-sample regions of tests/readme_test.cpp were not found";
  std::vector<fs::path> pages{kSourceDir / "README.md"};
  for (const auto& entry : fs::directory_iterator(kSourceDir / "docs"))
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  std::size_t checked = 0;
  for (const fs::path& page : pages) {
    const std::string text = slurp(page);
    ASSERT_FALSE(text.empty()) << page;
    for (const std::string& block : cpp_blocks(text)) {
      const auto lines = normalized_lines(block);
      const bool found = std::any_of(regions.begin(), regions.end(),
                                     [&](const auto& region) { return contains(region, lines); });
      EXPECT_TRUE(found) << page.filename() << ": this ```cpp block is in no `// doc-sample` "
                         << "region of tests/*_test.cpp:\n" << block;
      ++checked;
    }
  }
  EXPECT_GE(checked, 7u);
}

// Every stable code is in errors.md's table (`type_mismatch` was missing from it).
TEST(DocErrors, EveryCodeIsInTheTable) {
  const std::string page = slurp(kSourceDir / "docs" / "errors.md");
  for (int c = 0; c <= int(transit::Errc::io); ++c) {
    const std::string row = "| `" + std::string(transit::code_name(transit::Errc(c))) + "` |";
    EXPECT_NE(page.find(row), std::string::npos) << "docs/errors.md has no row " << row;
  }
}

TEST(DocSamples, ADriftedSampleIsFound) {
  const auto regions = sample_regions();
  const std::string drifted = cpp_blocks("```cpp\ntransit::Value v = transit::read(\"[1]\");\n```\n")[0];
  EXPECT_FALSE(std::any_of(regions.begin(), regions.end(),
                           [&](const auto& region) { return contains(region, normalized_lines(drifted)); }));
}

}  // namespace
