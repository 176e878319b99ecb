// SPDX-License-Identifier: Apache-2.0
// What the interop tests against transit-js share (interop_test.cpp, interop_property_test.cpp):
// running peer.js under node, skipping when it cannot run, comparing texts, and the model of what
// transit-js makes of a Value (`as_transit_js_sees_it`, `js_type`). interop_test.cpp's header
// comment lists the gaps of JavaScript's model this encodes.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "transit/transit.h"

extern char** environ;

namespace transit::interop {

namespace fs = std::filesystem;

constexpr std::int64_t kMaxSafe = 9007199254740991;  // 2^53 - 1, JavaScript's largest exact integer

// ---- running node ------------------------------------------------------------------------------

inline const fs::path& interop_dir() {
  static const fs::path dir = TRANSIT_INTEROP_DIR;
  return dir;
}

inline std::string node_program() {
  const char* node = std::getenv("TRANSIT_INTEROP_NODE");
  return node != nullptr && *node != '\0' ? node : "node";
}

struct NodeRun {
  int spawn_error = 0;  // errno of a failed spawn, 0 when node ran
  int exit_status = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// Runs `node peer.js args...` with TRANSIT_JS_DIR pointing at the installed transit-js.
// stdout comes back through a pipe, stderr through a temporary file.
inline NodeRun run_peer(const std::vector<std::string>& args) {
  setenv("TRANSIT_JS_DIR", interop_dir().c_str(), 1);
  std::vector<std::string> argv_text{node_program(), TRANSIT_INTEROP_PEER};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  static int runs = 0;
  const fs::path err_path = interop_dir() / ("stderr-" + std::to_string(getpid()) + "-" +
                                             std::to_string(++runs) + ".txt");
  NodeRun run;
  int out_pipe[2];
  if (pipe(out_pipe) != 0) {
    run.spawn_error = errno;
    return run;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out_pipe[1]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    run.spawn_error = rc;
    return run;
  }
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(out_pipe[0], buffer, sizeof buffer);
    if (n > 0) {
      run.out.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.err = read_file(err_path);
  fs::remove(err_path);
  return run;
}

// Why the interop tests cannot run here, or nullopt when they can. Computed once per process.
inline const std::optional<std::string>& skip_reason() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
    const fs::path recorded = interop_dir() / "skip-reason";
    if (fs::exists(recorded)) return "transit-js is not available: " + read_file(recorded);
    if (!fs::exists(interop_dir() / "node_modules" / "transit-js" / "package.json"))
      return "transit-js is not installed in " + interop_dir().string() +
             " (the interop_setup test installs it: run ctest -R interop)";
    const NodeRun run = run_peer({"version"});
    if (run.spawn_error != 0)
      return "cannot run " + node_program() + ": " + std::strerror(run.spawn_error);
    return std::nullopt;
  }();
  return reason;
}

// Splits the peer's output into `first<TAB>second` lines.
inline std::vector<std::pair<std::string, std::string>> tab_lines(const std::string& out) {
  std::vector<std::pair<std::string, std::string>> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos) {
      lines.emplace_back(line, "");
    } else {
      lines.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
  }
  return lines;
}

// Where two long texts part, with some context, for failure messages.
inline std::string first_difference(const std::string& js, const std::string& ours) {
  const auto diff = static_cast<std::size_t>(
      std::mismatch(js.begin(),
                    js.begin() + static_cast<std::ptrdiff_t>(std::min(js.size(), ours.size())),
                    ours.begin())
          .first -
      js.begin());
  const std::size_t from = diff < 60 ? 0 : diff - 60;
  return "  transit-js: ..." + js.substr(from, 160) + "\n  ours:       ..." +
         ours.substr(from, 160) + "\n  (they differ at character " + std::to_string(diff) + ")";
}

// JSON.stringify writes `\u001f`, RapidJSON `\u001F`: the same JSON string. Lowercases the hex
// digits of every \u escape so texts can be compared byte for byte.
inline std::string normalize_escapes(std::string text) {
  for (std::size_t i = 0; i + 5 < text.size(); ++i) {
    if (text[i] == '\\' && text[i + 1] == 'u') {
      for (std::size_t j = i + 2; j < i + 6; ++j)
        text[j] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[j])));
      i += 5;
    } else if (text[i] == '\\') {
      ++i;  // skip the escaped character, which may be a backslash
    }
  }
  return text;
}

// ---- what transit-js can represent -------------------------------------------------------------

inline std::string utf8(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

// The value we read back after transit-js has read `v` and written it again.
inline Value as_transit_js_sees_it(const Value& v) {
  switch (v.kind()) {
    case Kind::character:
      // No char type in transit-js: `~c` is read as a string and written back as one.
      return Value::string(utf8(v.as_char()));
    case Kind::floating: {
      // One number type: an integral double below 1e21 is written as JavaScript prints it,
      // digits without a decimal point, and we read those digits as an integer (or a big
      // integer beyond int64). -0.0 prints as 0.
      const double d = v.as_double();
      if (!std::isfinite(d) || d != std::trunc(d) || std::fabs(d) >= 1e21) return v;
      // JavaScript prints the shortest digits that round-trip, padded with zeros to the
      // decimal point: 2^60 prints as 1152921504606847000, not 1152921504606846976.
      char sci[64];
      const auto sci_end =
          std::to_chars(sci, sci + sizeof sci, std::fabs(d), std::chars_format::scientific).ptr;
      const std::string_view s(sci, static_cast<std::size_t>(sci_end - sci));
      const auto e = s.find('e');
      int exponent = 0;
      std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exponent);
      std::string text = d < 0 ? "-" : "";
      for (char c : s.substr(0, e))
        if (c != '.') text += c;
      const std::size_t digits = text.size() - (d < 0 ? 1 : 0);
      text.append(static_cast<std::size_t>(exponent + 1) - digits, '0');
      std::int64_t i = 0;
      if (std::from_chars(text.data(), text.data() + text.size(), i).ec == std::errc{})
        return Value::integer(i);
      return Value::big_integer(text);
    }
    case Kind::array:
    case Kind::list:
    case Kind::set: {
      std::vector<Value> items;
      for (const auto& item : v.items()) items.push_back(as_transit_js_sees_it(item));
      return v.is(Kind::array)  ? Value::array(std::move(items))
             : v.is(Kind::list) ? Value::list(std::move(items))
                                : Value::set(std::move(items));
    }
    case Kind::map:
    case Kind::link: {
      std::vector<Entry> entries;
      for (const auto& [k, val] : v.entries())
        entries.emplace_back(as_transit_js_sees_it(k), as_transit_js_sees_it(val));
      Value m = Value::map(std::move(entries));
      return v.is(Kind::link) ? Value::link(std::move(m)) : m;
    }
    case Kind::tagged:
      return Value::tagged(v.tag(), as_transit_js_sees_it(v.rep()));
    default:
      return v;
  }
}

inline std::string sorted_join(std::vector<std::string> parts) {
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// How transit-js types what it reads for `v`, in peer.js's `describe` notation.
inline std::string js_type(const Value& v) {
  switch (v.kind()) {
    case Kind::null:
      return "null";
    case Kind::boolean:
      return "boolean";
    case Kind::integer: {
      // transit-js reads integers beyond 2^53 - 1 as goog.math.Long.
      const std::int64_t i = v.as_int();
      return i > kMaxSafe || i < -kMaxSafe ? "long" : "number";
    }
    case Kind::floating:
      return "number";
    case Kind::big_integer:
      return "bigint";
    case Kind::big_decimal:
      return "bigdec";
    case Kind::string:
    case Kind::character:  // no char type in transit-js
      return "string";
    case Kind::bytes:
      return "binary";
    case Kind::keyword:
      return "keyword";
    case Kind::symbol:
      return "symbol";
    case Kind::instant:
      return "date";
    case Kind::uuid:
      return "uuid";
    case Kind::uri:
      return "uri";
    case Kind::array:
    case Kind::list: {
      std::string out = v.is(Kind::array) ? "array[" : "list[";
      bool first = true;
      for (const auto& item : v.items()) {
        out += (first ? "" : ",") + js_type(item);
        first = false;
      }
      return out + "]";
    }
    case Kind::set: {
      std::vector<std::string> members;
      for (const auto& item : v.items()) members.push_back(js_type(item));
      return "set{" + sorted_join(std::move(members)) + "}";
    }
    case Kind::map:
    case Kind::link: {
      std::vector<std::string> entries;
      for (const auto& [k, val] : v.entries()) entries.push_back(js_type(k) + "=>" + js_type(val));
      const std::string map = "map{" + sorted_join(std::move(entries)) + "}";
      return v.is(Kind::link) ? "link(" + map + ")" : map;
    }
    case Kind::tagged:
      return "tagged:" + std::string(v.tag()) + "(" + js_type(v.rep()) + ")";
    case Kind::object:
      break;
  }
  return "object";
}

// Our JSON text with the cache codes transit-js would write in their places. The two write
// caches differ in one case only: when the cache has filled (1936 entries), transit-js starts
// it again on the next cacheable string even when that string is cached, and writes it in full;
// transit-java and we write its code and start again on the next new string
// (JsLimits.WriteCacheWrapsOnAHit). This walks our text, resolves our codes with a read cache,
// and codes each cacheable string again as transit-js's WriteCache does. Both write in the same
// order, so the result is transit-js's text for a value it holds exactly.
inline std::string with_js_cache_codes(const std::string& ours) {
  constexpr std::size_t kEntries = 44 * 44;
  const auto utf16_length = [](std::string_view raw) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < raw.size(); ++n) {
      const auto c = static_cast<unsigned char>(raw[i]);
      if (c == '\\') {
        i += raw[i + 1] == 'u' ? 6 : 2;
      } else {
        const std::size_t bytes = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (bytes == 4) ++n;  // a surrogate pair
        i += bytes;
      }
    }
    return n;
  };
  const auto cacheable = [&](std::string_view raw, bool map_key) {
    return utf16_length(raw) > 3 &&
           (map_key || raw.starts_with("~:") || raw.starts_with("~$") || raw.starts_with("~#"));
  };
  const auto code = [](std::size_t index) {
    std::string c = "^";
    if (index >= 44) c += static_cast<char>('0' + index / 44);
    return c += static_cast<char>('0' + index % 44);
  };
  std::vector<std::string> read_cache(kEntries);
  std::size_t read_at = 0;
  struct Slot {
    std::string code;
    std::size_t gen;
  };
  std::unordered_map<std::string, Slot> write_cache;
  std::size_t write_at = 0, gen = 0;
  struct Frame {
    bool map = false;  // a "^ " array
    std::size_t index = 0;
  };
  std::vector<Frame> stack;
  std::string out;
  for (std::size_t i = 0; i < ours.size();) {
    const char c = ours[i];
    if (c == '[' || c == '{') {
      stack.push_back({});
      out += c;
      ++i;
    } else if (c == ']' || c == '}') {
      stack.pop_back();
      if (!stack.empty()) ++stack.back().index;
      out += c;
      ++i;
    } else if (c == '"') {
      std::size_t end = i + 1;
      while (ours[end] != '"') end += ours[end] == '\\' ? 2 : 1;
      const std::string raw = ours.substr(i + 1, end - i - 1);
      i = end + 1;
      Frame* frame = stack.empty() ? nullptr : &stack.back();
      if (frame != nullptr && frame->index == 0 && raw == "^ ") {
        frame->map = true;
        ++frame->index;
        out += "\"^ \"";
        continue;
      }
      const bool map_key = frame != nullptr && frame->map && frame->index % 2 == 1;
      if (frame != nullptr) ++frame->index;
      std::string full = raw;
      if (raw.size() >= 2 && raw[0] == '^' && raw[1] != ' ') {
        const std::size_t index = raw.size() == 2 ? static_cast<std::size_t>(raw[1] - '0')
                                                  : static_cast<std::size_t>(raw[1] - '0') * 44 +
                                                        static_cast<std::size_t>(raw[2] - '0');
        full = read_cache.at(index);
      } else if (cacheable(raw, map_key)) {
        if (read_at == kEntries) read_at = 0;
        read_cache[read_at++] = raw;
      }
      std::string emitted = full;
      if (cacheable(full, map_key)) {
        if (write_at == kEntries) {
          write_at = 0;
          ++gen;
        }
        auto [it, added] = write_cache.try_emplace(full, Slot{code(write_at), gen});
        if (added || it->second.gen != gen) {
          it->second = {code(write_at++), gen};
        } else {
          emitted = it->second.code;
        }
      }
      out += '"' + emitted + '"';
    } else {
      std::size_t end = i;
      while (end < ours.size() && std::strchr(",]}:", ours[end]) == nullptr) ++end;
      if (end == i) {
        out += c;  // a separator
        ++i;
        continue;
      }
      if (!stack.empty()) ++stack.back().index;
      out += ours.substr(i, end - i);
      i = end;
    }
  }
  return out;
}

}  // namespace transit::interop
