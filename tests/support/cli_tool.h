// SPDX-License-Identifier: Apache-2.0
// A running `transit` tool for tests, as a user drives it: pipes to its stdin, stdout and
// stderr, or stdout sent to a file (/dev/full) and stderr to a pseudo terminal.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace transit::test {

class Tool {
 public:
  struct Options {
    /// Set in the tool's environment, "NAME=value".
    std::vector<std::string> env;
    /// Stdout goes to this file (opened for writing) instead of a pipe.
    std::optional<std::string> stdout_path;
    /// Stderr goes to this descriptor (a pseudo terminal's slave side) instead of a pipe.
    int stderr_fd = -1;
  };

  explicit Tool(std::vector<std::string> args) : Tool(std::move(args), Options{}) {}
  Tool(std::vector<std::string> args, Options options) {
    int in[2], out[2] = {-1, -1}, err[2] = {-1, -1};
    if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], STDIN_FILENO);
      if (options.stdout_path) {
        const int fd = ::open(options.stdout_path->c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) ::_exit(126);
        ::dup2(fd, STDOUT_FILENO);
        ::close(fd);
      } else {
        ::dup2(out[1], STDOUT_FILENO);
      }
      ::dup2(options.stderr_fd >= 0 ? options.stderr_fd : err[1], STDERR_FILENO);
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
      if (options.stderr_fd > STDERR_FILENO) ::close(options.stderr_fd);
      for (std::string& e : options.env) ::putenv(e.data());
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
    close_stdout();
    ::close(err_);
  }
  Tool(const Tool&) = delete;
  Tool& operator=(const Tool&) = delete;

  void send(std::string_view bytes) {
    ASSERT_EQ(::write(in_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void close_input() {
    if (in_ >= 0) ::close(std::exchange(in_, -1));
  }
  /// Closes the reading end of the tool's stdout, as a consumer that goes away does.
  void close_stdout() {
    if (out_ >= 0) ::close(std::exchange(out_, -1));
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
  static std::string drain(int fd) {
    std::string got;
    char buf[4096];
    for (ssize_t r; (r = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(r));
    return got;
  }
  std::string rest_of_stdout() { return drain(out_); }
  std::string stderr_text() { return drain(err_); }

  /// The exit status, or 128 + the signal that ended the tool.
  int wait() {
    int status = 0;
    ::waitpid(std::exchange(pid_, -1), &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
};

}  // namespace transit::test
