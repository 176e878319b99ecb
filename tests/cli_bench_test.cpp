// SPDX-License-Identifier: Apache-2.0
// `transit bench`: its --json report, its --svg chart and its exit statuses, run as a process.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "transit/transit.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status = -1;  // exit status
  std::string out;  // stdout
};

// Runs the CLI with `args` (already shell-quoted), stderr discarded.
CliRun run_cli(const std::string& args) {
  CliRun r;
  const std::string command = std::string("'") + TRANSIT_CLI_PATH + "' " + args + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A few typed values in a file of Transit JSON, removed with the fixture.
class CliBench : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(TRANSIT_CLI_PATH).empty()) GTEST_SKIP() << "the transit tool is not built";
    dir_ = fs::temp_directory_path() / ("transit-cli-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    values_ = {
        transit::Value::map({{transit::kw("ids"), transit::Value::array({1, 2, 3, 4})},
                             {transit::kw("translations"),
                              transit::Value::map({{transit::kw("can"), "be nested"}})}}),
        transit::Value::array({1.5, transit::Value::uuid({1, 2}), transit::Value::instant(1396909037000)}),
        transit::Value::set({transit::kw("a"), transit::sym("b"), transit::Value::big_integer("123456789012345678901234567890")}),
    };
    std::string text;
    transit::StringSink sink(text);
    transit::Writer writer(sink, transit::Encoding::json);
    for (const transit::Value& v : values_) writer.write(v);
    writer.flush();
    std::ofstream(file(), std::ios::binary) << text;
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  fs::path file() const { return dir_ / "values.json"; }
  std::size_t size_in(transit::Encoding e) const {
    std::string out;
    transit::StringSink sink(out);
    transit::Writer writer(sink, e);
    for (const transit::Value& v : values_) writer.write(v);
    writer.flush();
    return out.size();
  }

  fs::path dir_;
  std::vector<transit::Value> values_;
};

TEST_F(CliBench, JsonReportHasOneResultPerEncodingAndOp) {
  const CliRun r = run_cli("bench " + quoted(file()) + " --runs 2 --json");
  ASSERT_EQ(r.status, 0);
  const transit::Value report = transit::read(r.out, transit::Encoding::json);
  ASSERT_EQ(report.kind(), transit::Kind::map);
  ASSERT_EQ(report.size(), 4u);
  EXPECT_EQ(*report.find("file"), transit::Value(file().string()));
  EXPECT_EQ(*report.find("values"), transit::Value(3));
  const transit::Value* results = report.find("results");
  ASSERT_NE(results, nullptr);
  ASSERT_EQ(results->kind(), transit::Kind::array);
  ASSERT_EQ(results->size(), 6u);
  std::set<std::pair<std::string, std::string>> seen;
  for (const transit::Value& entry : results->items()) {
    ASSERT_EQ(entry.kind(), transit::Kind::map);
    EXPECT_EQ(entry.size(), 5u);
    const std::string encoding(entry.find("encoding")->as_string());
    const std::string op(entry.find("op")->as_string());
    EXPECT_TRUE(op == "read" || op == "write") << op;
    EXPECT_EQ(*entry.find("runs"), transit::Value(2)) << encoding << " " << op;
    const auto parsed = transit::parse_encoding(encoding);
    ASSERT_TRUE(parsed) << encoding;
    EXPECT_TRUE(seen.emplace(encoding, op).second) << encoding << " " << op << " twice";
    EXPECT_GT(entry.find("median_ns")->as_int(), 0);
    EXPECT_LT(entry.find("median_ns")->as_int(), 10'000'000'000);
    EXPECT_EQ(entry.find("bytes")->as_int(), static_cast<std::int64_t>(size_in(*parsed))) << encoding;
  }
  EXPECT_EQ(seen.size(), 6u);

  // Beside each result, its floor on the same bytes: RapidJSON for the JSON forms, msgpack-cxx
  // for MessagePack, read and write.
  const transit::Value* floors = report.find("floors");
  ASSERT_NE(floors, nullptr);
  ASSERT_EQ(floors->kind(), transit::Kind::array);
  ASSERT_EQ(floors->size(), 6u);
  std::set<std::pair<std::string, std::string>> floors_seen;
  for (const transit::Value& entry : floors->items()) {
    ASSERT_EQ(entry.kind(), transit::Kind::map);
    EXPECT_EQ(entry.size(), 4u);
    const std::string encoding(entry.find("encoding")->as_string());
    const std::string op(entry.find("op")->as_string());
    EXPECT_TRUE(op == "read" || op == "write") << op;
    EXPECT_EQ(entry.find("library")->as_string(), encoding == "msgpack" ? "msgpack-cxx" : "RapidJSON")
        << encoding;
    EXPECT_TRUE(floors_seen.emplace(encoding, op).second) << encoding << " " << op << " twice";
    EXPECT_GT(entry.find("median_ns")->as_int(), 0);
    EXPECT_LT(entry.find("median_ns")->as_int(), 10'000'000'000);
  }
  EXPECT_EQ(floors_seen, seen);
}

TEST_F(CliBench, TableShowsEachFloorBesideOurs) {
  const CliRun r = run_cli("bench " + quoted(file()) + " --runs 2");
  ASSERT_EQ(r.status, 0);
  const std::size_t floors = r.out.find("floors on the same bytes");
  ASSERT_NE(floors, std::string::npos) << r.out;
  // One row per encoding under the floors' heading, naming its library and two ratios.
  for (const char* row : {"json          RapidJSON", "json-verbose  RapidJSON", "msgpack       msgpack-cxx"}) {
    const std::size_t at = r.out.find(row, floors);
    ASSERT_NE(at, std::string::npos) << row << "\n" << r.out;
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    const std::string times = line.substr(std::string_view(row).size());  // after the library
    EXPECT_EQ(std::count(times.begin(), times.end(), 'x'), 2) << line;
    EXPECT_TRUE(times.ends_with("x")) << line;
  }
}

// Checks that `xml` is one well-formed element tree: every tag closed in order, attributes
// quoted, text free of bare '<' and '&' other than entities.
::testing::AssertionResult well_formed(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0, roots = 0;
  while (i < xml.size()) {
    if (xml[i] != '<') {
      if (xml[i] == '&') {
        const std::size_t semi = xml.find(';', i);
        const std::string entity = xml.substr(i, semi == std::string::npos ? 1 : semi - i + 1);
        if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;")
          return ::testing::AssertionFailure() << "bad entity at " << i;
      }
      if (open.empty() && roots > 0 && xml[i] != '\n') return ::testing::AssertionFailure() << "text after the root";
      ++i;
      continue;
    }
    const std::size_t end = xml.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << i;
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.starts_with("?")) continue;  // an XML declaration
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1))
        return ::testing::AssertionFailure() << "</" << tag.substr(1) << "> closes nothing open";
      open.pop_back();
      continue;
    }
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0)
      return ::testing::AssertionFailure() << "unbalanced quotes in <" << tag << ">";
    const bool empty = tag.ends_with("/");
    const std::string name = tag.substr(0, tag.find_first_of(" \n/"));
    if (open.empty() && ++roots > 1) return ::testing::AssertionFailure() << "two root elements";
    if (!empty) open.push_back(name);
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  if (roots != 1) return ::testing::AssertionFailure() << "no root element";
  return ::testing::AssertionSuccess();
}

TEST_F(CliBench, SvgChartIsWellFormed) {
  const fs::path svg = dir_ / "chart.svg";
  const CliRun r = run_cli("bench " + quoted(file()) + " --runs 2 --svg " + quoted(svg));
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("msgpack"), std::string::npos) << "the table still goes to stdout";
  const std::string text = slurp(svg);
  ASSERT_TRUE(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"")) << text.substr(0, 80);
  EXPECT_TRUE(well_formed(text));
  for (const char* expected : {"json-verbose", "msgpack", "Median time", "Size", "time (", "size (", "<rect",
                               "RapidJSON", "msgpack-cxx"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected;
}

// --min-time adds runs to a phase until ours and the floor's together have taken that much CPU
// time: each phase of this small file (microseconds a run) runs far more than --runs times,
// and the report says how many.
TEST_F(CliBench, MinTimeRunsEachPhaseAtLeastThatLong) {
  const CliRun r = run_cli("bench " + quoted(file()) + " --runs 3 --min-time 0.02 --json");
  ASSERT_EQ(r.status, 0);
  const transit::Value report = transit::read(r.out, transit::Encoding::json);
  const transit::Value* results = report.find("results");
  ASSERT_NE(results, nullptr);
  ASSERT_EQ(results->size(), 6u);
  for (const transit::Value& entry : results->items()) {
    const std::int64_t runs = entry.find("runs")->as_int();
    const std::int64_t median_ns = entry.find("median_ns")->as_int();
    // 20 ms of runs of both sides, each side at most a few times the other: far more than 3.
    EXPECT_GT(runs, 3) << entry.find("encoding")->as_string() << " " << entry.find("op")->as_string();
    EXPECT_LE(runs, 1'000'000);
    EXPECT_GT(median_ns, 0);
  }
  const CliRun table = run_cli("bench " + quoted(file()) + " --runs 3 --min-time 0.02");
  ASSERT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("runs (at least 0.02 s a phase)"), std::string::npos) << table.out;
  // 0 is the default: exactly --runs runs.
  const CliRun plain = run_cli("bench " + quoted(file()) + " --runs 3 --min-time 0");
  ASSERT_EQ(plain.status, 0);
  EXPECT_NE(plain.out.find("median of 3 runs\n"), std::string::npos) << plain.out;
}

// The usage text says what the times are: this thread's CPU time (so a scheduler's delays on a
// loaded machine are not timed, and page faults are), with ours and the floor's runs alternating.
TEST_F(CliBench, UsageNamesTheClockAndTheOrder) {
  const CliRun r = run_cli("bench --help");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("CLOCK_THREAD_CPUTIME_ID"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("page\nfaults"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(ours, floor, ours, floor ...)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mmap and trim thresholds"), std::string::npos) << r.out;
}

// Every option of the usage line is listed, its description in one column (--runs and --from
// were in the prose only, and --min-time's lines were indented apart from the others').
TEST_F(CliBench, UsageListsEveryOptionInOneColumn) {
  const CliRun r = run_cli("bench --help");
  ASSERT_EQ(r.status, 0);
  for (const char* option : {"--from ENC", "--runs N", "--min-time S", "--json", "--svg OUT",
                             "--quiet, -q"}) {
    const std::size_t at = r.out.find(std::string("\n  ") + option + " ");
    ASSERT_NE(at, std::string::npos) << option << "\n" << r.out;
    const std::size_t text = r.out.find_first_not_of(' ', at + 3 + std::strlen(option));
    EXPECT_EQ(text - at - 1, 16u) << option;
  }
  const std::size_t list = r.out.find("\n  --from ENC");
  for (std::size_t line = r.out.find('\n', list + 1); line != std::string::npos && line + 1 < r.out.size();
       line = r.out.find('\n', line + 1)) {
    if (r.out.compare(line + 1, 4, "  --") != 0) {
      EXPECT_EQ(r.out.find_first_not_of(' ', line + 1) - line - 1, 16u) << r.out.substr(line + 1, 40);
    }
  }
}

TEST_F(CliBench, ExitStatuses) {
  EXPECT_EQ(run_cli("bench --help").status, 0);
  EXPECT_EQ(run_cli("bench").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --runs 0").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --runs").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --min-time -1").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --min-time 1s").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --min-time 3601").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --min-time").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --from yaml").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(file()) + " --fast").status, 2);
  EXPECT_EQ(run_cli("bench " + quoted(dir_ / "missing.json")).status, 1);
  std::ofstream(dir_ / "bad.json") << "[\"^ \"";
  EXPECT_EQ(run_cli("bench " + quoted(dir_ / "bad.json") + " --runs 1").status, 1);
}

}  // namespace
