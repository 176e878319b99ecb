// SPDX-License-Identifier: Apache-2.0
// The transit tool as its users drive it: roundtrip over a live pipe, exit statuses, and
// values completed before bad input.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_tool.h"
#include "transit/transit.h"

namespace {

using transit::test::Tool;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(TRANSIT_CLI_PATH).empty()) GTEST_SKIP() << "the transit tool is not built";
    ::signal(SIGPIPE, SIG_IGN);
  }
};

// The verification protocol: each value is answered before the next is sent, with the pipe
// left open, so the tool must not wait for more input or for a buffer to fill.
TEST_F(Cli, RoundtripAnswersEachValueOverALivePipe) {
  for (transit::Encoding e :
       {transit::Encoding::json, transit::Encoding::json_verbose, transit::Encoding::msgpack}) {
    SCOPED_TRACE(transit::encoding_name(e));
    Tool tool({"roundtrip", std::string(transit::encoding_name(e))});
    const std::vector<transit::Value> values{
        transit::Value::map({{transit::kw("a"), transit::Value::set({1, 2})}}),
        transit::Value::array({"~tilde", transit::Value::uuid({1, 2})}), transit::Value(42)};
    for (const transit::Value& v : values) {
      const std::string bytes = transit::write(v, e);
      tool.send(bytes);
      const std::string answer = tool.receive(bytes.size());
      ASSERT_EQ(answer, bytes) << "no answer before the next value was sent";
    }
    tool.close_input();
    EXPECT_EQ(tool.rest_of_stdout(), "");
    EXPECT_EQ(tool.wait(), 0);
  }
}

TEST_F(Cli, BadInputExitsOneAfterWritingTheCompleteValues) {
  Tool tool({"convert", "--to", "json-verbose"});
  tool.send(R"(["^ ","~:a",1] ["~#set",[2]] ["^ ","~:b",)");
  tool.close_input();
  EXPECT_EQ(tool.rest_of_stdout(), "{\"~:a\":1}\n{\"~#set\":[2]}\n");
  const std::string err = tool.stderr_text();
  EXPECT_EQ(err, "transit: truncated at byte 41 (line 1, column 42) in $[:b]: input ends inside a value\n");
  EXPECT_EQ(tool.wait(), 1);
}

// JSON and JSON-Verbose values go out one a line, as transit-ruby writes them (Oj's stream
// writer ends each top-level value with a newline), so that head, wc -l, grep and a terminal
// see one value a line; our readers and the peers' read whitespace between values.
// MessagePack stays bytes back to back, and roundtrip byte-exact.
TEST_F(Cli, ConvertWritesAJsonValueALine) {
  const std::string input = R"(["^ ","~:a",1] ["^ ","~:b",2])";
  for (const char* to : {"json", "json-verbose", "msgpack"}) {
    SCOPED_TRACE(to);
    Tool tool({"convert", "--to", to});
    tool.send(input);
    tool.close_input();
    const std::string out = tool.rest_of_stdout();
    EXPECT_EQ(tool.wait(), 0);
    const auto e = *transit::parse_encoding(to);
    const transit::Value a = transit::Value::map({{transit::kw("a"), 1}});
    const transit::Value b = transit::Value::map({{transit::kw("b"), 2}});
    const std::string line_end = e == transit::Encoding::msgpack ? "" : "\n";
    EXPECT_EQ(out, transit::write(a, e) + line_end + transit::write(b, e) + line_end);
  }
  Tool roundtrip({"roundtrip", "json"});
  roundtrip.send(input);
  roundtrip.close_input();
  EXPECT_EQ(roundtrip.rest_of_stdout(), R"(["^ ","~:a",1]["^ ","~:b",2])");
  EXPECT_EQ(roundtrip.wait(), 0);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `transit convert f.json f.json` used to truncate f.json before reading it, lose it, and
// exit 0 (issue 12, item 10). The same file by another name (a hard link) is the same file.
TEST_F(Cli, ConvertRefusesToWriteOverItsInput) {
  const std::string path = ::testing::TempDir() + "transit-cli-self-overwrite.json";
  const std::string link = path + ".link";
  const std::string text = R"(["^ ","~:a",1])";
  std::ofstream(path, std::ios::binary) << text;
  std::remove(link.c_str());
  ASSERT_EQ(::link(path.c_str(), link.c_str()), 0);
  for (const std::string& out : {path, link}) {
    SCOPED_TRACE(out);
    Tool tool({"convert", "--to", "msgpack", path, out});
    tool.close_input();
    EXPECT_NE(tool.stderr_text().find("refusing to write over the input '" + out + "'"),
              std::string::npos);
    EXPECT_EQ(tool.wait(), 1);
    EXPECT_EQ(file_text(path), text);
  }
  // Another file is still written, and truncated first.
  const std::string other = path + ".other";
  std::ofstream(other, std::ios::binary) << std::string(1000, 'x');
  Tool tool({"convert", "--to", "json-verbose", path, other});
  tool.close_input();
  EXPECT_EQ(tool.wait(), 0) << tool.stderr_text();
  EXPECT_EQ(file_text(other), "{\"~:a\":1}\n");
  std::remove(path.c_str());
  std::remove(link.c_str());
  std::remove(other.c_str());
}

// A file that cannot be opened says why (issue 12, item 13).
TEST_F(Cli, CannotOpenSaysWhy) {
  const std::string dir = ::testing::TempDir();
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"convert", dir + "no-such-transit-input.json"},
       "cannot open '" + dir + "no-such-transit-input.json': No such file or directory"},
      {{"edn", dir}, "cannot read '" + dir + "': Is a directory"},
      {{"stats", dir + "no-such-transit-input.json"}, "No such file or directory"},
      {{"convert", "-", dir + "no-such-dir/out.json"},
       "cannot create '" + dir + "no-such-dir/out.json': No such file or directory"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[0] + " " + c.args[1]);
    Tool tool(c.args);
    tool.close_input();
    EXPECT_NE(tool.stderr_text().find(c.message), std::string::npos) << tool.stderr_text();
    EXPECT_EQ(tool.wait(), 1);
  }
}

TEST_F(Cli, BadUsageExitsTwo) {
  for (std::vector<std::string> args : {std::vector<std::string>{"convert", "--to", "yaml"},
                                        {"roundtrip"},
                                        {"no-such-command"},
                                        {"demo", "--loud"}}) {
    Tool tool(args);
    tool.close_input();
    EXPECT_NE(tool.stderr_text(), "");
    EXPECT_EQ(tool.wait(), 2) << args[0];
  }
}

TEST_F(Cli, EdnAndStats) {
  {
    Tool tool({"edn"});
    tool.send(R"(["^ ","~:a",["~#list",[1,"x"]]])");
    tool.close_input();
    EXPECT_EQ(tool.rest_of_stdout(), "{:a (1 \"x\")}\n");
    EXPECT_EQ(tool.wait(), 0);
  }
  {
    Tool tool({"stats"});
    tool.send(R"([["^ ","~:name",1],["^ ","^0",2]])");
    tool.close_input();
    const std::string out = tool.rest_of_stdout();
    EXPECT_NE(out.find("values: 1"), std::string::npos) << out;
    EXPECT_NE(out.find("1 cache code used"), std::string::npos) << out;
    EXPECT_NE(out.find("keyword: 2"), std::string::npos) << out;
    EXPECT_EQ(tool.wait(), 0);
  }
  {
    Tool tool({"stats"});
    tool.send(R"([["^ ","~:name",1,"~:size",2],["^ ","^0",3,"^1",4]])");
    tool.close_input();
    const std::string out = tool.rest_of_stdout();
    EXPECT_NE(out.find(", 2 cache codes used"), std::string::npos) << out;
    EXPECT_EQ(tool.wait(), 0);
  }
}

// JSON text given as MessagePack reads with no error (every ASCII byte is a positive fixint):
// the tool converts it, as asked, and says on stderr that it looks like JSON.
TEST_F(Cli, JsonTextReadAsMessagePackIsSaid) {
  {
    Tool tool({"convert", "--from", "msgpack"});
    tool.send("[1,2]\n");
    tool.close_input();
    EXPECT_EQ(tool.rest_of_stdout(), "[\"~#'\",91]\n[\"~#'\",49]\n[\"~#'\",44]\n[\"~#'\",50]\n"
                                     "[\"~#'\",93]\n[\"~#'\",10]\n");
    EXPECT_EQ(tool.stderr_text(),
              "transit: warning: the input read as MessagePack is 6 one-byte integers, the first "
              "'[': it looks like JSON text (--from json)\n");
    EXPECT_EQ(tool.wait(), 0);
  }
  {
    Tool tool({"edn", "--from", "msgpack"});
    tool.send("{}");
    tool.close_input();
    EXPECT_EQ(tool.rest_of_stdout(), "123\n125\n");
    EXPECT_NE(tool.stderr_text().find("the first '{': it looks like JSON text"), std::string::npos)
        << tool.stderr_text();
    EXPECT_EQ(tool.wait(), 0);
  }
  // MessagePack is not: a map, small integers not starting with '[' or '{', one '[' alone.
  for (const std::string& bytes :
       {transit::write(transit::Value::array({1, 2}), transit::Encoding::msgpack), std::string("\x01\x5b\x02"),
        std::string("\x5b")}) {
    Tool tool({"convert", "--from", "msgpack"});
    tool.send(bytes);
    tool.close_input();
    (void)tool.rest_of_stdout();
    EXPECT_EQ(tool.stderr_text(), "");
    EXPECT_EQ(tool.wait(), 0);
  }
}

TEST_F(Cli, DemoSaysRoundTripOk) {
  Tool tool({"demo", "--profile"});
  tool.close_input();
  const std::string out = tool.rest_of_stdout();
  EXPECT_NE(out.find("handler lookups"), std::string::npos);
  EXPECT_NE(out.find("% of "), std::string::npos) << out;  // the share of writing time
  EXPECT_NE(out.find("\"resolution\":\"ancestor\",\"handler_type\":"), std::string::npos) << out;
  EXPECT_NE(out.find("\nround trip: ok\n"), std::string::npos) << out;
  EXPECT_EQ(tool.wait(), 0);
}

// README.md shows what `./run.sh demo` prints, line by line: a line ending in " ..." is cut
// short there, a line "..." stands for lines left out, and blank lines are not shown. The
// README began at the JSON form, leaving out the sample's EDN that the demo prints first.
TEST_F(Cli, DemoPrintsWhatTheReadmeShows) {
  std::ifstream in(std::string(TRANSIT_SOURCE_DIR) + "/README.md");
  std::vector<std::string> shown;
  bool inside = false, after_intro = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("`./run.sh demo` prints this") != std::string::npos) after_intro = true;
    if (after_intro && !inside && line == "```text") {
      inside = true;
    } else if (inside && line == "```") {
      break;
    } else if (inside) {
      shown.push_back(line);
    }
  }
  ASSERT_GE(shown.size(), 10u) << "README.md's demo output block was not found";
  Tool tool({"demo"});
  tool.close_input();
  std::vector<std::string> printed;
  std::istringstream out(tool.rest_of_stdout());
  for (std::string line; std::getline(out, line);)
    if (!line.empty()) printed.push_back(line);
  EXPECT_EQ(tool.wait(), 0);
  std::size_t at = 0;
  bool skipping = false;
  for (std::string line : shown) {
    if (line.find_first_not_of(' ') != std::string::npos &&
        line.substr(line.find_first_not_of(' ')) == "...") {
      skipping = true;
      continue;
    }
    const bool cut = line.size() >= 4 && line.compare(line.size() - 4, 4, " ...") == 0;
    if (cut) line.resize(line.size() - 4);
    auto matches = [&](const std::string& p) { return cut ? p.rfind(line, 0) == 0 : p == line; };
    while (skipping && at < printed.size() && !matches(printed[at])) ++at;
    ASSERT_LT(at, printed.size()) << "README.md shows a line the demo does not print: " << line;
    EXPECT_TRUE(matches(printed[at]))
        << "README.md shows\n  " << line << "\nwhere the demo prints\n  " << printed[at];
    ++at;
    skipping = false;
  }
  EXPECT_TRUE(skipping || at == printed.size()) << "the demo prints more than README.md shows";
}

}  // namespace
