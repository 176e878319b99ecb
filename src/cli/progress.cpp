// SPDX-License-Identifier: Apache-2.0
#include "progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace transit::cli {
namespace {

using Clock = std::chrono::steady_clock;

// The line appears only when the work is long: after this long (TRANSIT_PROGRESS_DELAY_MS
// overrides it, so that tests and scripts can see the line at once), then is redrawn at most
// this often.
constexpr auto kDefaultDelay = std::chrono::milliseconds(1000);
constexpr auto kInterval = std::chrono::milliseconds(200);

Clock::duration delay() {
  if (const char* ms = std::getenv("TRANSIT_PROGRESS_DELAY_MS")) {
    char* end = nullptr;
    const long n = std::strtol(ms, &end, 10);
    if (*ms != '\0' && *end == '\0' && n >= 0) return std::chrono::milliseconds(n);
  }
  return kDefaultDelay;
}

std::string megabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  return buf;
}

// 1234567 -> "1,234,567"
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void put(const std::string& s) {
  // Progress is a courtesy: a terminal that fails to take it changes nothing.
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, s.data(), s.size());
}

}  // namespace

bool progress_enabled(bool quiet) { return !quiet && ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string_view label, bool enabled)
    : label_(label), enabled_(enabled), start_(Clock::now()), next_(start_ + delay()) {}

Progress::~Progress() { finish(); }

bool Progress::due() {
  if (!enabled_) return false;
  // One clock read (a vDSO call, some 20 ns) per top-level value: small beside reading and
  // writing the value, and a slow trickle of values still updates the line.
  const Clock::time_point now = Clock::now();
  if (now < next_) return false;
  next_ = now + kInterval;
  return true;
}

void Progress::bytes(std::uint64_t done, std::optional<std::uint64_t> total, std::uint64_t values) {
  if (!due()) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  std::string text = megabytes(double(done));
  if (total && *total > 0) {
    text += " of " + megabytes(double(*total)) + " (" +
            std::to_string(std::min<std::uint64_t>(100, done * 100 / *total)) + "%)";
  }
  if (seconds > 0) text += ", " + megabytes(double(done) / seconds) + "/s";
  text += ", " + grouped(values) + (values == 1 ? " value" : " values");
  draw(text);
}

void Progress::step(std::string_view what) {
  if (due()) draw(std::string(what));
}

void Progress::draw(const std::string& text) {
  // Carriage return, the line, then erase whatever a longer previous line left on the right.
  put("\r" + label_ + ": " + text + "\x1b[K");
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_) put("\r\x1b[K");
  drawn_ = false;
}

}  // namespace transit::cli
