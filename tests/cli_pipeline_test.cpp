// SPDX-License-Identifier: Apache-2.0
// The transit tool in pipelines: convert and edn pass each value on as soon as it is complete,
// output that is lost is an error, the progress line on a terminal, --version and help,
// --max-output-bytes.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_tool.h"
#include "transit/transit.h"

namespace {

using transit::Encoding;
using transit::Value;
using transit::test::Tool;
namespace fs = std::filesystem;

class CliPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(TRANSIT_CLI_PATH).empty()) GTEST_SKIP() << "the transit tool is not built";
    ::signal(SIGPIPE, SIG_IGN);  // inherited: the tool sees EPIPE, not the signal
    dir_ = fs::temp_directory_path() /
           ("transit-cli-pipeline-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path write_file(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  fs::path dir_;
};

const std::vector<Value> kValues{
    Value::map({{transit::kw("n"), 1}, {transit::kw("tags"), Value::set({transit::kw("a")})}}),
    Value::array({"text", Value::uuid({1, 2}), 2.5}),
    Value::map({{transit::kw("n"), 3}}),
};

// Each value is sent only after the previous one has come out the other end, with the input
// pipe left open: a tool that buffered its output until exit would never answer.
TEST_F(CliPipeline, ConvertPassesEachValueOnOverALivePipe) {
  const std::pair<Encoding, Encoding> directions[] = {{Encoding::json, Encoding::json_verbose},
                                                      {Encoding::msgpack, Encoding::json},
                                                      {Encoding::json_verbose, Encoding::msgpack}};
  for (const auto& [from, to] : directions) {
    SCOPED_TRACE(std::string(transit::encoding_name(from)) + " to " + std::string(transit::encoding_name(to)));
    Tool tool({"convert", "--from", std::string(transit::encoding_name(from)), "--to",
               std::string(transit::encoding_name(to))});
    for (const Value& v : kValues) {
      tool.send(transit::write(v, from));
      const std::string expected = transit::write(v, to) + (to == Encoding::msgpack ? "" : "\n");
      ASSERT_EQ(tool.receive(expected.size()), expected) << "no output before the next value was sent";
    }
    tool.close_input();
    EXPECT_EQ(tool.rest_of_stdout(), "");
    EXPECT_EQ(tool.wait(), 0);
  }
}

TEST_F(CliPipeline, EdnPassesEachValueOnOverALivePipe) {
  Tool tool({"edn"});
  for (const Value& v : kValues) {
    tool.send(transit::write(v, Encoding::json));
    const std::string expected = transit::to_edn(v) + "\n";
    ASSERT_EQ(tool.receive(expected.size()), expected) << "no output before the next value was sent";
  }
  tool.close_input();
  EXPECT_EQ(tool.wait(), 0);
}

TEST_F(CliPipeline, ConvertToAFileWritesEveryValue) {
  std::string input;
  for (int i = 0; i < 5000; ++i) input += transit::write(kValues[std::size_t(i) % kValues.size()]);
  const fs::path in = write_file("in.json", input);
  const fs::path out = dir_ / "out.mp";
  Tool tool({"convert", "--to", "msgpack", in.string(), out.string()});
  tool.close_input();
  EXPECT_EQ(tool.wait(), 0);
  std::ifstream file(out, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  transit::Reader reader(bytes, Encoding::msgpack);
  std::size_t n = 0;
  while (auto v = reader.next()) EXPECT_EQ(*v, kValues[n++ % kValues.size()]);
  EXPECT_EQ(n, 5000u);
}

// ---- lost output ---------------------------------------------------------------------------

TEST_F(CliPipeline, LostOutputToAFullDeviceExitsOne) {
  for (std::vector<std::string> args : {std::vector<std::string>{"edn"}, {"stats"}, {"convert"},
                                        {"roundtrip", "json"}, {"demo"}}) {
    SCOPED_TRACE(args[0]);
    Tool::Options to_full;
    to_full.stdout_path = "/dev/full";
    Tool tool(args, to_full);
    tool.send(R"(["^ ","~:a",1] [1,2])");
    tool.close_input();
    const std::string err = tool.stderr_text();
    EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
    EXPECT_EQ(tool.wait(), 1);
  }
}

TEST_F(CliPipeline, LostOutputToAClosedPipeExitsOneWhenSigpipeIsIgnored) {
  for (std::vector<std::string> args : {std::vector<std::string>{"edn"}, {"stats"}, {"convert"}}) {
    SCOPED_TRACE(args[0]);
    Tool tool(args);
    tool.close_stdout();
    tool.send(R"(["^ ","~:a",1] [1,2])");
    tool.close_input();
    const std::string err = tool.stderr_text();
    EXPECT_NE(err.find("Broken pipe"), std::string::npos) << err;
    EXPECT_EQ(tool.wait(), 1);
  }
}

// ---- --version, help ---------------------------------------------------------------------------

TEST_F(CliPipeline, VersionAndHelp) {
  {
    Tool tool({"--version"});
    tool.close_input();
    EXPECT_EQ(tool.rest_of_stdout(), "transit 0.1.0\n");
    EXPECT_EQ(tool.wait(), 0);
  }
  {
    Tool tool({"--help"});
    tool.close_input();
    const std::string out = tool.rest_of_stdout();
    EXPECT_NE(out.find("exit status:\n  0  success\n  1  bad input"), std::string::npos) << out;
    EXPECT_NE(out.find("  2  bad usage"), std::string::npos) << out;
    EXPECT_EQ(tool.wait(), 0);
  }
  for (const char* command : {"convert", "roundtrip", "edn", "stats", "demo", "bench"}) {
    SCOPED_TRACE(command);
    Tool help({"help", command});
    help.close_input();
    Tool dash_help({command, "--help"});
    dash_help.close_input();
    const std::string text = help.rest_of_stdout();
    EXPECT_EQ(text.rfind(std::string("usage: transit ") + command, 0), 0u) << text;
    EXPECT_EQ(text, dash_help.rest_of_stdout());
    EXPECT_EQ(help.wait(), 0);
  }
  {
    Tool tool({"help", "frobnicate"});
    tool.close_input();
    // It said "help takes one command name", which it had been given.
    EXPECT_EQ(tool.stderr_text().substr(0, 45), "transit: help: unknown command 'frobnicate'\nu");
    EXPECT_EQ(tool.wait(), 2);
  }
  {
    Tool tool({"help", "help"});  // as `transit help`: the list of commands
    tool.close_input();
    EXPECT_EQ(tool.stderr_text(), "");
    EXPECT_NE(tool.rest_of_stdout().find("commands:"), std::string::npos);
    EXPECT_EQ(tool.wait(), 0);
  }
}

// ---- --max-output-bytes ------------------------------------------------------------------------

// [1,2], then a 100 KB keyword as the key of `maps` maps: about 100 KB of JSON, 100 KB of
// JSON-Verbose a map (100 MB for 1000).
std::string amplifying_input(int maps_count = 1000) {
  const Value key = transit::kw(std::string(100'000, 'k'));
  std::vector<Value> maps;
  for (int i = 0; i < maps_count; ++i) maps.push_back(Value::map({{key, i}}));
  return transit::write(Value::array({1, 2})) + transit::write(Value::array(std::move(maps)));
}

TEST_F(CliPipeline, MaxOutputBytesStopsAnAmplifyingValue) {
  Tool tool({"convert", "--to", "json-verbose", "--max-output-bytes", "1M"});
  tool.send(amplifying_input());
  tool.close_input();
  const std::string out = tool.rest_of_stdout();
  EXPECT_TRUE(out == "[1,2]\n") << out.size() << " bytes, begins " << out.substr(0, 64);
  EXPECT_EQ(tool.stderr_text(),
            "transit: too_large: value 2 expands to more than 1048576 bytes of json-verbose "
            "(--max-output-bytes)\n");
  EXPECT_EQ(tool.wait(), 1);
}

// A value that reads within the reader's depth but writes deeper (a JSON date is a string, a
// MessagePack one an array) is refused by the writer: the message says which value, as
// too_large's does (it said only "value nests deeper than 512 levels as written ...").
TEST_F(CliPipeline, AValueTooDeepToWriteIsNamed) {
  std::string deep = "\"~m5\"";
  for (int i = 0; i < 512; ++i) deep = "[" + deep + "]";
  Tool tool({"convert", "--to", "msgpack"});
  tool.send("[1,2]\n" + deep + "\n[3]\n");
  tool.close_input();
  EXPECT_EQ(tool.rest_of_stdout(), transit::write(Value::array({1, 2}), Encoding::msgpack));
  EXPECT_EQ(tool.stderr_text(),
            "transit: too_deep: value 2: value nests deeper than 512 levels as written "
            "(WriteOptions::max_depth), which a reader with the same max_depth rejects\n");
  EXPECT_EQ(tool.wait(), 1);
}

TEST_F(CliPipeline, MaxOutputBytesLargeEnoughLetsItThrough) {
  const fs::path in = write_file("in.json", amplifying_input());
  Tool tool({"convert", "--to", "json-verbose", "--max-output-bytes", "200M", in.string(), "/dev/null"});
  tool.close_input();
  EXPECT_EQ(tool.stderr_text(), "");
  EXPECT_EQ(tool.wait(), 0);
}

// ---- a value that fails leaves nothing of itself --------------------------------------------

std::string file_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

/// Every value of `bytes`, read by the library to its end: a stream that ends inside a value
/// throws.
std::vector<Value> read_all(const std::string& bytes, Encoding encoding) {
  transit::Reader reader(bytes, encoding);
  std::vector<Value> values;
  while (auto v = reader.next()) values.push_back(std::move(*v));
  return values;
}

/// Runs `args` (convert reading a file) with its output to a pipe, to a file named as OUT,
/// and to a stdout that is a file: each time the output is exactly `before`, whole, and the
/// tool says `error` and exits 1.
void expect_only_values_before(const fs::path& dir, const std::vector<std::string>& args,
                               Encoding to, const std::vector<Value>& before, const std::string& error) {
  std::string expected;
  for (const Value& v : before) expected += transit::write(v, to) + (to == Encoding::msgpack ? "" : "\n");
  enum class Out { pipe, named_file, stdout_file };
  for (const Out where : {Out::pipe, Out::named_file, Out::stdout_file}) {
    SCOPED_TRACE(where == Out::pipe ? "to a pipe" : where == Out::named_file ? "to OUT" : "to a stdout that is a file");
    const fs::path out = dir / "out";
    fs::remove(out);
    std::vector<std::string> run = args;
    Tool::Options options;
    if (where == Out::named_file) run.push_back(out.string());
    if (where == Out::stdout_file) options.stdout_path = out.string();
    Tool tool(run, options);
    tool.close_input();
    std::string bytes = tool.rest_of_stdout();
    EXPECT_EQ(tool.stderr_text(), error);
    EXPECT_EQ(tool.wait(), 1);
    if (where != Out::pipe) bytes = file_bytes(out);
    EXPECT_EQ(bytes.size(), expected.size());
    EXPECT_TRUE(bytes == expected) << "begins " << bytes.substr(0, 64);  // not megabytes of it
    EXPECT_EQ(read_all(bytes, to), before);
  }
}

// A value that failed once the writer had handed its first 64 KiB on (the writer's buffer)
// left them at the end of the output, which no reader could read to its end. Past 1 MiB it is
// held in memory; past 12 MiB, beyond what convert holds in memory, a file is cut back to the
// values before it and a pipe gets nothing of it (it was held in a temporary file).
TEST_F(CliPipeline, AValueTooLargeLeavesOnlyTheValuesBeforeIt) {
  const fs::path in = write_file("in.json", amplifying_input());
  for (const auto& [limit, bytes] : {std::pair{"1M", "1048576"}, std::pair{"12M", "12582912"}}) {
    SCOPED_TRACE(limit);
    expect_only_values_before(
        dir_, {"convert", "--to", "json-verbose", "--max-output-bytes", limit, in.string()},
        Encoding::json_verbose, {Value::array({1, 2})},
        std::string("transit: too_large: value 2 expands to more than ") + bytes +
            " bytes of json-verbose (--max-output-bytes)\n");
  }
}

TEST_F(CliPipeline, AValueTooDeepPast64KiBLeavesOnlyTheValuesBeforeIt) {
  // 100 KB of text, then an instant 512 levels deep: read at 512 levels, written at 513 (a
  // MessagePack instant is an array), so the writer fails it after its first 64 KiB.
  std::string deep = "\"~m5\"";
  for (int i = 0; i < 511; ++i) deep = "[" + deep + "]";
  const fs::path in = write_file("in.json", "[1,2]\n[\"" + std::string(100'000, 't') + "\"," + deep + "]\n[3]\n");
  expect_only_values_before(
      dir_, {"convert", "--to", "msgpack", in.string()}, Encoding::msgpack, {Value::array({1, 2})},
      "transit: too_deep: value 2: value nests deeper than 512 levels as written "
      "(WriteOptions::max_depth), which a reader with the same max_depth rejects\n");
}

// A value larger than convert holds in memory goes out whole to every kind of output.
TEST_F(CliPipeline, AValueLargerThanWhatIsHeldInMemoryGoesOutWhole) {
  const std::string input = amplifying_input(200);  // 20 MB of JSON-Verbose
  const fs::path in = write_file("in.json", input);
  const std::vector<Value> values = read_all(input, Encoding::json);
  const fs::path out = dir_ / "out";
  {
    Tool tool({"convert", "--to", "json-verbose", in.string()});
    tool.close_input();
    const std::string bytes = tool.rest_of_stdout();
    EXPECT_EQ(tool.wait(), 0) << tool.stderr_text();
    EXPECT_GT(bytes.size(), 20'000'000u);
    EXPECT_EQ(read_all(bytes, Encoding::json_verbose), values);
  }
  {
    Tool tool({"convert", "--to", "json-verbose", in.string(), out.string()});
    tool.close_input();
    EXPECT_EQ(tool.wait(), 0) << tool.stderr_text();
    EXPECT_EQ(read_all(file_bytes(out), Encoding::json_verbose), values);
  }
}

TEST_F(CliPipeline, MaxOutputBytesNeedsAByteCount) {
  for (const char* bad : {"", "0", "12X", "M", "-5", "99999999999999999999G"}) {
    SCOPED_TRACE(bad);
    Tool tool({"convert", "--max-output-bytes", bad});
    tool.close_input();
    EXPECT_NE(tool.stderr_text().find("--max-output-bytes"), std::string::npos);
    EXPECT_EQ(tool.wait(), 2);
  }
}

// ---- the progress line -------------------------------------------------------------------------

/// A pseudo terminal: the tool's stderr is its slave side; what the tool drew is read from
/// the master side once the tool has exited.
class Pty {
 public:
  Pty() {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0)
      throw std::runtime_error("no pseudo terminal");
    slave_ = ::open(::ptsname(master_), O_RDWR | O_NOCTTY);
    if (slave_ < 0) throw std::runtime_error("cannot open the pseudo terminal's slave side");
  }
  ~Pty() {
    close_slave();
    ::close(master_);
  }
  int slave() const { return slave_; }
  void close_slave() {
    if (slave_ >= 0) ::close(std::exchange(slave_, -1));
  }
  /// Everything written to the terminal; call after the tool has exited.
  std::string screen() {
    close_slave();
    std::string got;
    char buf[4096];
    for (ssize_t r; (r = ::read(master_, buf, sizeof buf)) > 0;) got.append(buf, std::size_t(r));
    return got;  // read ends with EIO once the slave side is closed everywhere
  }

 private:
  int master_ = -1, slave_ = -1;
};

/// The tool's stderr on the terminal, with the progress line drawn from the first value on.
Tool::Options progress_on(const Pty& pty, bool immediately = true) {
  Tool::Options options;
  if (immediately) options.env = {"TRANSIT_PROGRESS_DELAY_MS=0"};
  options.stderr_fd = pty.slave();
  return options;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string many_values(int n) {
  std::string input;
  for (int i = 0; i < n; ++i) input += transit::write(kValues[std::size_t(i) % kValues.size()]);
  return input;
}

TEST_F(CliPipeline, ConvertDrawsProgressOnATerminalWithTheFileSize) {
  const fs::path in = write_file("in.json", many_values(3000));
  Pty pty;
  Tool tool({"convert", in.string(), "/dev/null"},
            progress_on(pty));
  tool.close_input();
  EXPECT_EQ(tool.wait(), 0);
  const std::string screen = pty.screen();
  // "\rconvert: 0.1 MB of 0.2 MB (60%), 136.6 MB/s, 1 value\x1b[K" ..., then erased.
  EXPECT_EQ(screen.rfind("\rconvert: ", 0), 0u) << screen;
  char total[32];
  std::snprintf(total, sizeof total, " MB of %.1f MB (", double(fs::file_size(in)) / 1e6);
  EXPECT_NE(screen.find(total), std::string::npos) << total << " in " << screen;
  EXPECT_NE(screen.find("%), "), std::string::npos) << screen;
  EXPECT_NE(screen.find(" MB/s, "), std::string::npos) << screen;
  EXPECT_NE(screen.find(" value"), std::string::npos) << screen;
  EXPECT_EQ(screen.find('\n'), std::string::npos) << "the line is redrawn in place, never scrolled";
  EXPECT_EQ(screen.substr(screen.size() - 4), "\r\x1b[K") << "the line is erased at the end";
}

TEST_F(CliPipeline, ConvertRedrawsProgressAsValuesTrickleIn) {
  Pty pty;
  Tool tool({"convert"}, progress_on(pty));
  for (int i = 1; i <= 3; ++i) {
    const std::string v = transit::write(Value::array({i}));
    tool.send(v);
    ASSERT_EQ(tool.receive(v.size() + 1), v + "\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // past the redraw interval
  }
  tool.close_input();
  EXPECT_EQ(tool.wait(), 0);
  const std::string screen = pty.screen();
  EXPECT_GE(count(screen, "\rconvert: "), 3u) << screen;
  EXPECT_NE(screen.find(", 3 values"), std::string::npos) << screen;
  EXPECT_EQ(screen.find(" of "), std::string::npos) << "a pipe's size is not known: " << screen;
}

TEST_F(CliPipeline, StatsAndBenchDrawProgressOnATerminal) {
  const fs::path in = write_file("in.json", many_values(300));
  for (std::vector<std::string> args :
       {std::vector<std::string>{"stats", in.string()}, {"bench", in.string(), "--runs", "2"}}) {
    SCOPED_TRACE(args[0]);
    Pty pty;
    Tool tool(args, progress_on(pty));
    tool.close_input();
    EXPECT_NE(tool.rest_of_stdout(), "");
    EXPECT_EQ(tool.wait(), 0);
    const std::string screen = pty.screen();
    EXPECT_EQ(screen.rfind("\r" + args[0] + ": ", 0), 0u) << screen;
    EXPECT_EQ(screen.substr(screen.size() - 4), "\r\x1b[K") << screen;
  }
}

TEST_F(CliPipeline, NoProgressWhenQuietShortOrNotATerminal) {
  const fs::path in = write_file("in.json", many_values(300));
  {
    Pty pty;  // --quiet
    Tool tool({"convert", "--quiet", in.string(), "/dev/null"},
              progress_on(pty));
    tool.close_input();
    EXPECT_EQ(tool.wait(), 0);
    EXPECT_EQ(pty.screen(), "");
  }
  {
    Pty pty;  // the default delay: a conversion this short draws nothing
    Tool tool({"stats", in.string()}, progress_on(pty, false));
    tool.close_input();
    EXPECT_EQ(tool.wait(), 0);
    EXPECT_EQ(pty.screen(), "");
  }
  {
    // stderr is a pipe, not a terminal
    Tool::Options immediately;
    immediately.env = {"TRANSIT_PROGRESS_DELAY_MS=0"};
    Tool tool({"convert", in.string(), "/dev/null"}, immediately);
    tool.close_input();
    EXPECT_EQ(tool.stderr_text(), "");
    EXPECT_EQ(tool.wait(), 0);
  }
}

}  // namespace
