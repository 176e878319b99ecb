// SPDX-License-Identifier: Apache-2.0
// A progress line on stderr for long commands: shown only when stderr is a terminal, only once
// the work has taken a while, redrawn in place, and erased when the work ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace transit::cli {

class Progress {
 public:
  /// `enabled` false makes every call a no-op (see progress_enabled). `label` starts the line.
  Progress(std::string_view label, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Reports input read so far: "label: 12.3 MB of 45.6 MB (27%), 80.1 MB/s, 1,234 values".
  /// `total` is the input's size when known. Cheap enough to call once per value.
  void bytes(std::uint64_t done, std::optional<std::uint64_t> total, std::uint64_t values);
  /// Reports a step of work that is not input: "label: json-verbose: write run 3 of 10".
  void step(std::string_view what);
  /// Erases the line, if one was drawn; the destructor does it too.
  void finish();

 private:
  bool due();
  void draw(const std::string& text);

  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, next_;
};

/// True when a progress line may be drawn: stderr is a terminal and --quiet was not given.
bool progress_enabled(bool quiet);

}  // namespace transit::cli
