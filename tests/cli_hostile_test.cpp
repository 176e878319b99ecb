// SPDX-License-Identifier: Apache-2.0
// The transit tool on hostile input, under an address-space limit so that memory growth is a
// failure rather than a slow test: `transit edn` must print a deep value in memory linear in
// its output (issue 12, item 5).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include "support/sanitizers.h"

namespace {

using transit::test::kAsan;

// Runs `transit args...` with stdin from `in` and stdout to `out`, at most `max_bytes` of
// address space (RLIM_INFINITY: no limit); returns the exit status (or 128 + signal), and
// the tool's peak resident memory in bytes through `peak_rss` when given.
int run_limited(const std::vector<std::string>& args, const std::string& in, const std::string& out,
                rlim_t max_bytes, std::size_t* peak_rss = nullptr) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int i = ::open(in.c_str(), O_RDONLY);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = ::open("/dev/null", O_WRONLY);
    if (i < 0 || o < 0 || null < 0) ::_exit(126);
    ::dup2(i, STDIN_FILENO);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    // No limit for RLIM_INFINITY: AddressSanitizer reserves terabytes of address space.
    const rlimit limit{max_bytes, max_bytes};
    if (max_bytes != RLIM_INFINITY) ::setrlimit(RLIMIT_AS, &limit);
    ::setenv("COLUMNS", "80", 1);
    std::vector<std::string> copy = args;
    std::vector<char*> argv{const_cast<char*>(TRANSIT_CLI_PATH)};
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(TRANSIT_CLI_PATH, argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  if (peak_rss) *peak_rss = static_cast<std::size_t>(usage.ru_maxrss) * 1024;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("transit-cli-hostile-" + std::to_string(::getpid()) + "-" + name);
}

TEST(CliHostile, EdnOfADeepValuePrintsInMemoryLinearInItsSize) {
  if (kAsan) GTEST_SKIP() << "an address-space limit means nothing under AddressSanitizer";
  // 500 arrays around a 16 MB string: every level once printed its whole subtree to see
  // whether it fit in the line (8 GB in all); the tool now gets 256 MB of address space.
  const std::size_t n = std::size_t{16} << 20;
  const std::string text = std::string(500, '[') + "\"" + std::string(n, 's') + "\"" + std::string(500, ']');
  const auto in = temp_file("in.json"), out = temp_file("out.edn");
  std::ofstream(in, std::ios::binary) << text;
  EXPECT_EQ(run_limited({"edn"}, in, out, rlim_t{256} << 20), 0);
  // One line: a single item never moves to a line of its own.
  EXPECT_EQ(std::filesystem::file_size(out), text.size() + 1);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

TEST(CliHostile, EdnStillBreaksWhatDoesNotFit) {
  const auto in = temp_file("in2.json"), out = temp_file("out2.edn");
  std::ofstream(in, std::ios::binary)
      << R"(["^ ","~:short",[1,2],"~:long",[")" << std::string(100, 'x') << R"(",2,3]])";
  EXPECT_EQ(run_limited({"edn"}, in, out, RLIM_INFINITY), 0);
  std::ifstream got(out);
  const std::string printed{std::istreambuf_iterator<char>(got), {}};
  EXPECT_EQ(printed, "{:short [1 2],\n :long\n  [\"" + std::string(100, 'x') + "\"\n   2\n   3]}\n");
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

/// What `transit convert args...` writes for the input `text` with at most `max_bytes` of
/// address space; its exit status through `status`.
std::string convert_output(const std::vector<std::string>& args, const std::string& text,
                           rlim_t max_bytes, int& status) {
  const auto in = temp_file("convert-in"), out = temp_file("convert-out");
  std::ofstream(in, std::ios::binary) << text;
  std::vector<std::string> command{"convert"};
  command.insert(command.end(), args.begin(), args.end());
  status = run_limited(command, in, out, max_bytes);
  std::ifstream got(out);
  std::string written(std::istreambuf_iterator<char>(got), {});
  std::filesystem::remove(in);
  std::filesystem::remove(out);
  return written;
}

TEST(CliHostile, ConvertNeverWritesWhatItCannotReadBack) {
  // MessagePack maps keyed by maps, 257 deep: read as 257 levels, written as 514 levels of
  // cmaps. After a first value that converts, convert stops with an error (exit 1) and what
  // it wrote reads back.
  std::string deep;
  for (int i = 0; i < 257; ++i) deep += "\x81";
  deep += "\x01";
  for (int i = 0; i < 257; ++i) deep += "\x02";
  int status = 0;
  EXPECT_EQ(convert_output({"--from", "msgpack", "--to", "json"}, "\x92\x01\x02" + deep, RLIM_INFINITY, status),
            "[1,2]\n");
  EXPECT_EQ(status, 1);
}

// Out of memory while reading a value (std::bad_alloc, not a transit::Error): the values
// completed before it are still written, as the Writer's destructor once flushed them.
TEST(CliHostile, ConvertWritesTheValuesBeforeOneItRanOutOfMemoryFor) {
  if (kAsan) GTEST_SKIP() << "an address-space limit means nothing under AddressSanitizer";
  std::string text = "[1,2]\n[[]";
  for (int i = 1; i < (1 << 24); ++i) text += ",[]";  // some 270 MB as Values
  text += "]\n";
  int status = 0;
  EXPECT_EQ(convert_output({}, text, rlim_t{128} << 20, status), "[1,2]\n");
  EXPECT_EQ(status, 1);
}

// convert holds a value in memory until it is complete (so that one that fails leaves nothing
// of itself in the output), but only its first MBs: a value of 100 MB of output goes to a file
// as it is written (cut back if it fails) and to anything else through a temporary file, in
// the memory a value of 1 MB takes.
TEST(CliHostile, ConvertHoldsNoLargeValueInMemory) {
  if (kAsan) GTEST_SKIP() << "AddressSanitizer's shadow memory distorts RSS";
  // A 100 KB keyword as the key of `maps` maps: 100 KB of JSON, 100 KB of JSON-Verbose a map.
  const auto peak_of = [](int maps, const std::string& to) {
    std::string text = "[";
    for (int i = 0; i < maps; ++i)
      text += std::string(i ? ",[\"^ \",\"^0\"," : "[\"^ \",\"~:" + std::string(100'000, 'k') + "\",") +
              std::to_string(i) + "]";
    text += "]";
    const auto in = temp_file("big-in.json");
    std::ofstream(in, std::ios::binary) << text;
    std::size_t peak = 0;
    EXPECT_EQ(run_limited({"convert", "--to", "json-verbose"}, in, to, RLIM_INFINITY, &peak), 0);
    std::filesystem::remove(in);
    return peak;
  };
  const auto out = temp_file("big-out.json");
  for (const std::string& to : {out.string(), std::string("/dev/null")}) {
    SCOPED_TRACE(to);
    const std::size_t small = peak_of(10, to);  // 1 MB of output
    const std::size_t large = peak_of(1000, to);
    EXPECT_LE(large, small + (std::size_t{16} << 20)) << small << " then " << large;
  }
  EXPECT_GT(std::filesystem::file_size(out), 100'000'000u);
  std::filesystem::remove(out);
}

// `transit stats` once kept every value of its input and wrote each in full to a string
// (500 MB in: bad_alloc, nothing printed). It now counts each value as it is read and drops
// it: ten times the input, the same peak memory, and exactly ten times the counts.
TEST(CliHostile, StatsStreamsItsInput) {
  if (kAsan) GTEST_SKIP() << "AddressSanitizer's shadow memory distorts RSS";
  // A value of about 100 KB: 1,000 records of a cached keyword key, a number and a string.
  std::string value = "[";
  for (int i = 0; i < 1000; ++i)
    value += std::string(i ? "," : "") + R"(["^ ","~:id",)" + std::to_string(i) +
             R"(,"~:name","record-)" + std::to_string(i) + std::string(60, 'n') + R"("])";
  value += "]\n";
  struct Run {
    std::string out;
    std::size_t peak = 0;
  };
  const auto stats_of = [&](int copies) {
    const auto in = temp_file("stats-in.json"), out = temp_file("stats-out.txt");
    {
      std::ofstream f(in, std::ios::binary);
      for (int i = 0; i < copies; ++i) f << value;
    }
    Run run;
    EXPECT_EQ(run_limited({"stats", "--quiet", in.string()}, "/dev/null", out, RLIM_INFINITY, &run.peak), 0);
    std::ifstream got(out);
    run.out.assign(std::istreambuf_iterator<char>(got), {});
    std::filesystem::remove(in);
    std::filesystem::remove(out);
    return run;
  };
  const Run small = stats_of(20);   // 2 MB
  const Run large = stats_of(200);  // 20 MB: kept whole, some 40 MB more
  EXPECT_LE(large.peak, small.peak + (std::size_t{4} << 20)) << small.peak << " then " << large.peak;
  // Every count ten times over, the depth the same.
  const auto field = [](const std::string& out, const std::string& name) -> long long {
    const std::size_t at = out.find(name);
    return at == std::string::npos ? -1 : std::stoll(out.substr(at + name.size()));
  };
  for (const char* name : {"values: ", "json: ", "json-verbose: ", "msgpack: ", "bytes, ",
                           "keyword: ", "map: ", "integer: "}) {
    SCOPED_TRACE(name);
    ASSERT_GT(field(small.out, name), 0) << small.out;
    EXPECT_EQ(field(large.out, name), 10 * field(small.out, name)) << large.out;
  }
  EXPECT_EQ(field(large.out, "max depth: "), field(small.out, "max depth: "));
  EXPECT_EQ(field(small.out, "values: "), 20);
  EXPECT_EQ(field(small.out, "bytes, "), 20 * 1000 * 2 - 20 * 2) << "the cache codes: 2 per record but the first";
}

}  // namespace
