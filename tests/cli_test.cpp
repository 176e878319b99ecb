// SPDX-License-Identifier: Apache-2.0
// The transit tool as its users drive it: roundtrip over a live pipe, exit statuses, and
// values completed before bad input.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "transit/transit.h"

namespace {

// A running `transit` with pipes to its stdin, stdout and stderr.
class Tool {
 public:
  explicit Tool(std::vector<std::string> args) {
    int in[2], out[2], err[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
      std::vector<char*> argv{const_cast<char*>(TRANSIT_CLI_PATH)};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(TRANSIT_CLI_PATH, argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    in_ = in[1];
    out_ = out[0];
    err_ = err[0];
  }
  ~Tool() {
    close_input();
    if (pid_ > 0) wait();
    ::close(out_);
    ::close(err_);
  }

  void send(std::string_view bytes) {
    ASSERT_EQ(::write(in_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void close_input() {
    if (in_ >= 0) ::close(std::exchange(in_, -1));
  }

  /// Reads stdout until `n` bytes have come or 10 s pass.
  std::string receive(std::size_t n) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (got.size() < n && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      const ssize_t r = ::read(out_, buf, std::min(sizeof buf, n - got.size()));
      if (r <= 0) break;
      got.append(buf, static_cast<std::size_t>(r));
    }
    return got;
  }
  std::string drain(int fd) {
    std::string got;
    char buf[4096];
    for (ssize_t r; (r = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(r));
    return got;
  }
  std::string rest_of_stdout() { return drain(out_); }
  std::string stderr_text() { return drain(err_); }

  int wait() {
    int status = 0;
    ::waitpid(std::exchange(pid_, -1), &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
};

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
  EXPECT_EQ(tool.rest_of_stdout(), R"({"~:a":1}{"~#set":[2]})");
  const std::string err = tool.stderr_text();
  EXPECT_EQ(err, "transit: truncated at byte 41 (line 1, column 42) in $[:b]: input ends inside a value\n");
  EXPECT_EQ(tool.wait(), 1);
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
    EXPECT_NE(out.find("1 cache codes used"), std::string::npos) << out;
    EXPECT_NE(out.find("keyword: 2"), std::string::npos) << out;
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

}  // namespace
