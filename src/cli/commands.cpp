// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "demo.h"
#include "model/edn.h"
#include "progress.h"
#include "whole_values.h"
#include "transit/transit.h"

namespace transit::cli {
namespace {

// ---- arguments -----------------------------------------------------------------------------------

/// The options a command takes besides `--from ENC`.
struct Accepts {
  bool to = false;          // --to ENC
  bool quiet = false;       // --quiet: no progress line
  bool max_output = false;  // --max-output-bytes N
};

/// Splits the options from positional arguments.
struct Parsed {
  std::optional<Encoding> from, to;
  bool quiet = false;
  std::size_t max_output_bytes = kDefaultMaxOutputBytes;
  std::vector<std::string_view> positional;
};

Parsed parse(Args args, const Usage& usage, Accepts accepts) {
  Parsed p;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--from" || (accepts.to && a == "--to")) {
      if (i + 1 == args.size()) usage_error(usage, std::string(a) + " needs an encoding");
      (a == "--from" ? p.from : p.to) = encoding_arg(usage, args[++i]);
    } else if (accepts.quiet && (a == "--quiet" || a == "-q")) {
      p.quiet = true;
    } else if (accepts.max_output && a == "--max-output-bytes") {
      if (i + 1 == args.size()) usage_error(usage, "--max-output-bytes needs a byte count");
      p.max_output_bytes = byte_count_arg(usage, args[++i]);
    } else if (a.size() > 1 && a[0] == '-') {
      usage_error(usage, "unknown option '" + std::string(a) + "'");
    } else {
      p.positional.push_back(a);
    }
  }
  return p;
}

// ---- input and output ----------------------------------------------------------------------------

/// An input file (or stdin for "-" or nothing), closed on scope exit.
// "cannot open 'f': No such file or directory": what failed, on what, and the system's reason.
[[noreturn]] void file_error(const char* what, std::string_view path, int error) {
  throw std::runtime_error(std::string(what) + " '" + std::string(path) + "': " + std::strerror(error));
}

// True when the two descriptors are one file (a link or another path to it included).
bool same_file(int a, int b) {
  struct stat sa {}, sb {};
  return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && S_ISREG(sa.st_mode) &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

class InputFile {
 public:
  explicit InputFile(std::optional<std::string_view> path) {
    if (!path || *path == "-") return;
    fd_ = ::open(std::string(*path).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) file_error("cannot open", *path, errno);
    owned_ = true;
    // A directory opens for reading; say so now rather than at the first read.
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd_);
      file_error("cannot read", *path, EISDIR);
    }
  }
  ~InputFile() {
    if (owned_) ::close(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  int fd() const { return fd_; }
  /// The size of a regular file; nothing for a pipe, a terminal or a socket.
  std::optional<std::uint64_t> size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(st.st_size);
  }

 private:
  int fd_ = STDIN_FILENO;
  bool owned_ = false;
};

class OutputFile {
 public:
  /// Opens `path` (stdout when absent or "-") for writing. Refuses, before anything is lost,
  /// when it is the file `input` reads: truncating it first would leave nothing to read
  /// (`transit convert f.json f.json`), and appending to it (`>> f.json`) would never end.
  explicit OutputFile(std::optional<std::string_view> path, const InputFile* input = nullptr) {
    if (path && *path != "-") {
      // Not O_TRUNC: the file is truncated only once it is known not to be the input.
      fd_ = ::open(std::string(*path).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd_ < 0) file_error("cannot create", *path, errno);
      owned_ = true;
    }
    if (input && same_file(fd_, input->fd())) {
      if (owned_) ::close(fd_);
      throw std::runtime_error("refusing to write over the input '" +
                               std::string(path && *path != "-" ? *path : "(stdout)") +
                               "': it would be lost before it is read");
    }
    struct stat st {};
    if (owned_ && ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && ::ftruncate(fd_, 0) != 0) {
      const int error = errno;
      ::close(fd_);
      file_error("cannot truncate", *path, error);
    }
  }
  ~OutputFile() {
    if (owned_) ::close(fd_);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = STDOUT_FILENO;
  bool owned_ = false;
};

std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    const long n = std::strtol(columns, nullptr, 10);
    if (n > 0) return static_cast<std::size_t>(n);
  }
  return 80;
}

// ---- EDN pretty-printing ---------------------------------------------------------------------------

// Everything is printed straight into `out`. Whether a value fits on the rest of the line is
// found by printing it with a bound of the room left (detail::append_edn), which costs O(width)
// whatever its size, and taking it back when it does not fit: memory is the output's size,
// not depth x size as when every level printed its whole subtree to measure it.
//
// `spill`, when given, is offered `out` after each item of a collection broken over lines:
// nothing printed before that point is taken back any more, so it may go to the output, and a
// value of 16M items prints through a buffer of a few KB rather than a string of its whole text.
void pretty(const Value& v, std::size_t indent, std::size_t width, std::string& out,
            const std::function<void(std::string&)>* spill = nullptr) {
  const bool collection = v.kind() == Kind::array || v.kind() == Kind::list ||
                          v.kind() == Kind::set || v.kind() == Kind::map;
  if (!collection || v.size() == 0) {
    detail::append_edn(v, out);
    return;
  }
  const std::size_t mark = out.size();
  if (detail::append_edn(v, out, width > indent ? width - indent : 0)) return;
  out.resize(mark);
  const char* open = v.kind() == Kind::array ? "[" : v.kind() == Kind::list ? "(" :
                     v.kind() == Kind::set   ? "#{" : "{";
  const char* close = v.kind() == Kind::array ? "]" : v.kind() == Kind::list ? ")" : "}";
  const std::size_t inner = indent + std::string_view(open).size();
  out += open;
  auto newline = [&] {
    out += '\n';
    out.append(inner, ' ');
  };
  if (v.kind() == Kind::map) {
    bool first = true;
    for (const auto& [key, value] : v.entries()) {
      if (!first) {
        out += ',';
        newline();
      }
      first = false;
      const std::size_t key_start = out.size();
      pretty(key, inner, width, out);  // measured below by its length: printed whole
      const std::size_t key_end_column = inner + (out.size() - key_start);
      const std::size_t value_start = out.size();
      out += ' ';
      if (!detail::append_edn(value, out,
                              width > key_end_column + 1 ? width - key_end_column - 1 : 0)) {
        out.resize(value_start);
        out += '\n';
        out.append(inner + 1, ' ');
        pretty(value, inner + 1, width, out, spill);
      }
      if (spill) (*spill)(out);
    }
  } else {
    bool first = true;
    for (const Value& item : v.items()) {
      if (!first) newline();
      first = false;
      pretty(item, inner, width, out, spill);
      if (spill) (*spill)(out);
    }
  }
  out += close;
}

// ---- statistics --------------------------------------------------------------------------------------

struct Tally {
  std::map<std::string_view, std::size_t> kinds;
  std::size_t max_depth = 0;

  void count(const Value& v, std::size_t depth) {
    ++kinds[kind_name(v.kind())];
    max_depth = std::max(max_depth, depth);
    switch (v.kind()) {
      case Kind::array:
      case Kind::list:
      case Kind::set:
        for (const Value& item : v.items()) count(item, depth + 1);
        break;
      case Kind::map:
      case Kind::link:
        for (const auto& [key, value] : v.entries()) {
          count(key, depth + 1);
          count(value, depth + 1);
        }
        break;
      case Kind::tagged:
        count(v.rep(), depth + 1);
        break;
      default:
        break;
    }
  }
};

/// Counts the bytes a Writer produces and keeps none of them, so `stats` measures a value in
/// each encoding without holding its text. For JSON it also counts the cache codes: string
/// tokens of the form "^X" or "^XY" ("^ " marks a map). Quotes only occur in string tokens,
/// so a scan that skips escapes finds every token; it runs across chunks, a token may span two.
class CountingSink final : public Sink {
 public:
  explicit CountingSink(bool count_cache_codes) : scan_(count_cache_codes) {}

  void write(const char* data, std::size_t size) override {
    bytes_ += size;
    if (scan_)
      for (std::size_t i = 0; i < size; ++i) scan(data[i]);
  }
  std::uint64_t bytes() const noexcept { return bytes_; }
  std::uint64_t cache_codes() const noexcept { return codes_; }

 private:
  void scan(char c) noexcept {
    if (!in_string_) {
      if (c == '"') in_string_ = true, token_size_ = 0;
      return;
    }
    if (escaped_) {
      escaped_ = false;
    } else if (c == '"') {
      in_string_ = false;
      if ((token_size_ == 2 || token_size_ == 3) && token_start_[0] == '^' && token_start_[1] != ' ')
        ++codes_;
      return;
    } else if (c == '\\') {
      escaped_ = true;
    }
    if (token_size_ < 2) token_start_[token_size_] = c;
    ++token_size_;
  }

  bool scan_;
  std::uint64_t bytes_ = 0;
  std::uint64_t codes_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  std::size_t token_size_ = 0;  // raw bytes of the string token so far, escapes included
  char token_start_[2] = {};
};

/// One encoding's share of `stats`: a writer into a counting sink, until a value cannot be
/// written in it (it would expand past the limit), which makes the encoding unavailable.
struct EncodingCount {
  EncodingCount(Encoding e, const WriteOptions& options)
      : encoding(e), sink(e == Encoding::json), writer(sink, e, options) {}
  void write(const Value& v) {
    if (unavailable) return;
    try {
      writer.write(v);
    } catch (const Error& err) {
      unavailable = err.detail();
    }
  }

  Encoding encoding;
  CountingSink sink;
  Writer writer;
  std::optional<std::string> unavailable;
};

// ---- commands -------------------------------------------------------------------------------------------

/// The input as a Source that counts the bytes read, and calls `before_wait` when a read is
/// about to wait because nothing more has arrived yet. A command flushes its output there, so
/// every value completed has been written before the tool waits for input (a pipeline never
/// stalls on a finished value), while input that is already there (a file, a fast producer)
/// is converted in large blocks instead of one write per value.
class InputSource final : public Source {
 public:
  InputSource(int fd, std::function<void()> before_wait)
      : fd_(fd), inner_(fd), before_wait_(std::move(before_wait)) {}
  std::size_t read(char* buffer, std::size_t size) override {
    if (before_wait_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 0) != 1) before_wait_();  // nothing ready (or poll failed): flush first
    }
    const std::size_t n = inner_.read(buffer, size);
    count_ += n;
    return n;
  }
  std::uint64_t count() const noexcept { return count_; }

 private:
  int fd_;
  FdSource inner_;
  std::function<void()> before_wait_;
  std::uint64_t count_ = 0;
};

/// Every ASCII byte is a MessagePack positive fixint, so JSON text read as MessagePack reads
/// with no error, as one small integer a byte. Such a read is said on stderr once the input has
/// been read: values that are all integers of 0-127, the first of them `[` or `{` (91, 123).
class LooksLikeJson {
 public:
  explicit LooksLikeJson(Encoding from) : possible_(from == Encoding::msgpack) {}
  void see(const Value& v) {
    if (!possible_) return;
    possible_ = v.kind() == Kind::integer && v.as_int() >= 0 && v.as_int() < 128;
    if (possible_ && values_ == 0) {
      first_ = static_cast<char>(v.as_int());
      possible_ = first_ == '[' || first_ == '{';
    }
    ++values_;
  }
  void warn() const {
    if (possible_ && values_ > 1)
      std::cerr << "transit: warning: the input read as MessagePack is " << values_
                << " one-byte integers, the first '" << first_
                << "': it looks like JSON text (--from json)\n";
  }

 private:
  bool possible_;
  char first_ = 0;
  std::uint64_t values_ = 0;
};

/// Reads every value of `from` on `in`, calling `each` as each one arrives, `before_wait`
/// before waiting for more input, and reporting the bytes read to `progress`. Values read
/// before an error have been handled when the error is thrown.
template <class Each>
void for_each_value(const InputFile& in, Encoding from, Each each, Progress* progress = nullptr,
                    std::function<void()> before_wait = {}) {
  InputSource source(in.fd(), std::move(before_wait));
  const std::optional<std::uint64_t> total = progress ? in.size() : std::nullopt;
  Reader reader(source, from);
  std::uint64_t values = 0;
  LooksLikeJson looks(from);
  while (auto v = reader.next()) {
    looks.see(*v);
    each(*v);
    if (progress) progress->bytes(source.count(), total, ++values);
  }
  looks.warn();
}

/// Text output through an FdSink, in blocks of 64 KiB and on flush(). A failed write throws
/// Error(io), so lost output is an error.
class TextOutput {
 public:
  explicit TextOutput(const OutputFile& out) : sink_(out.fd()) {}
  std::string& buffer() { return buffer_; }
  /// Writes the buffer out once it holds a block: after a value, or inside one wherever
  /// nothing printed is taken back any more (see pretty).
  void flush_if_full() {
    if (buffer_.size() >= 64 * 1024) flush();
  }
  void flush() {
    sink_.write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

 private:
  FdSink sink_;
  std::string buffer_;
};

constexpr Usage kConvertUsage{
    "usage: transit convert [--from ENC] [--to ENC] [--max-output-bytes N] [--quiet] [IN [OUT]]\n"
    "\n"
    "Converts every top-level value of IN (default stdin) from one encoding to another, writing\n"
    "to OUT (default stdout). ENC is json (default), json-verbose or msgpack; a JSON value is\n"
    "followed by a newline, MessagePack values by nothing. Before waiting for more input,\n"
    "every value completed has been written; input already there is written in large blocks.\n"
    "A value goes out only once it is complete: one that fails (bad input, too deep,\n"
    "--max-output-bytes) leaves nothing of itself.\n"
    "\n"
    "  --max-output-bytes N  fail on a value that expands to more than N bytes of output\n"
    "                        (K, M, G suffixes; default 1G)\n"
    "  --quiet, -q           no progress line on stderr (drawn only when stderr is a terminal,\n"
    "                        stdout is not, and the conversion takes more than a second)"};

constexpr Usage kRoundtripUsage{
    "usage: transit roundtrip ENC\n"
    "\n"
    "The Transit verification protocol: reads values in ENC from stdin one at a time and writes\n"
    "each back in ENC to stdout, flushed as soon as it has been read, until end of input."};

constexpr Usage kEdnUsage{
    "usage: transit edn [--from ENC] [IN]\n"
    "\n"
    "Prints each value of IN (default stdin) as EDN, indented to the terminal width. Before\n"
    "waiting for more input, every value completed has been written."};

constexpr Usage kStatsUsage{
    "usage: transit stats [--from ENC] [--quiet] [IN]\n"
    "\n"
    "For all values of IN (default stdin): the size in each encoding, the cache codes used,\n"
    "counts by type and the maximum nesting depth. An encoding in which a value would expand\n"
    "past 1 GiB is reported as unavailable.\n"
    "\n"
    "  --quiet, -q  no progress line on stderr (drawn only when stderr is a terminal and the\n"
    "               reading takes more than a second)"};

constexpr Usage kDemoUsage{
    "usage: transit demo [--profile]\n"
    "\n"
    "Writes a built-in sample of typed values (keywords, symbols, dates, UUIDs, URIs, big\n"
    "numbers, sets, lists, a map with composite keys, a tagged value) in every encoding, reads\n"
    "each back, and prints the texts, their sizes and \"round trip: ok\". Then writes a C++\n"
    "object graph (a small class hierarchy) directly through a handler registry and reads it\n"
    "back as objects.\n"
    "\n"
    "  --profile  also print where handler lookup spent its time, per C++ type: how each\n"
    "             type resolved, its lookups, their time and share of writing; as a table,\n"
    "             then as JSON"};

}  // namespace

[[noreturn]] void usage_error(const Usage& usage, const std::string& problem) {
  throw std::invalid_argument(problem + "\n" + usage.text);
}

bool is_help(Args args) {
  return std::any_of(args.begin(), args.end(),
                     [](std::string_view a) { return a == "--help" || a == "-h"; });
}

Encoding encoding_arg(const Usage& usage, std::string_view name) {
  if (auto e = parse_encoding(name)) return *e;
  usage_error(usage, "unknown encoding '" + std::string(name) +
                         "' (expected json, json-verbose or msgpack)");
}

std::vector<Value> read_values(std::optional<std::string_view> path, Encoding from,
                               Progress* progress) {
  InputFile in(path);
  std::vector<Value> values;
  for_each_value(in, from, [&](const Value& v) { values.push_back(v); }, progress);
  return values;
}

std::size_t byte_count_arg(const Usage& usage, std::string_view text) {
  std::size_t n = 0, i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (n > (SIZE_MAX - 9) / 10) usage_error(usage, "byte count '" + std::string(text) + "' is too large");
    n = n * 10 + static_cast<std::size_t>(text[i] - '0');
  }
  int shift = 0;
  if (i + 1 == text.size()) {
    const char unit = text[i++];
    shift = unit == 'K' || unit == 'k' ? 10 : unit == 'M' || unit == 'm' ? 20 : unit == 'G' || unit == 'g' ? 30 : -1;
  }
  if (i == 0 || i != text.size() || shift < 0 || n == 0)
    usage_error(usage, "expected a byte count such as 1000, 64K, 16M or 1G, not '" + std::string(text) + "'");
  if (n > (SIZE_MAX >> shift)) usage_error(usage, "byte count '" + std::string(text) + "' is too large");
  return n << shift;
}

std::string pretty_edn(const Value& value, std::size_t width) {
  std::string out;
  pretty(value, 0, width, out);
  return out;
}

int convert(Args args) {
  return run_command(args, kConvertUsage, [&] {
    const Parsed p = parse(args, kConvertUsage, {.to = true, .quiet = true, .max_output = true});
    if (p.positional.size() > 2) usage_error(kConvertUsage, "too many arguments");
    InputFile in(p.positional.size() > 0 ? std::optional(p.positional[0]) : std::nullopt);
    OutputFile out(p.positional.size() > 1 ? std::optional(p.positional[1]) : std::nullopt, &in);
    const Encoding to = p.to.value_or(Encoding::json);
    WholeValueOutput sink(out.fd());
    WriteOptions options;
    options.max_output_bytes = p.max_output_bytes;
    // One JSON value a line, as transit-ruby writes a stream (head, wc -l, grep, a terminal
    // see values as lines; every reader takes whitespace between values). MessagePack ignores
    // it.
    options.newline_after_value = true;
    Writer writer(sink, to, options);
    // Values and the progress line would garble each other on one terminal.
    Progress progress("convert", progress_enabled(p.quiet) && ::isatty(out.fd()) != 1);
    std::uint64_t written = 0;
    try {
      for_each_value(in, p.from.value_or(Encoding::json), [&](const Value& v) {
        try {
          writer.write(v);
          writer.flush();  // every byte of it in the sink, which then knows it is whole
        } catch (const Error& e) {
          // A value refused by the writer is one the reader read whole: say which it was.
          if (e.code() == Errc::too_deep)
            throw Error(Errc::too_deep, {}, {}, "value " + std::to_string(written + 1) + ": " + e.detail());
          if (e.code() != Errc::too_large) throw;
          throw Error(Errc::too_large, {}, {},
                      "value " + std::to_string(written + 1) + " expands to more than " +
                          std::to_string(p.max_output_bytes) + " bytes of " +
                          std::string(encoding_name(to)) + " (--max-output-bytes)");
        }
        sink.value_done();
        ++written;
      }, &progress, [&] { sink.push(); });
    } catch (...) {  // std::bad_alloc too: the values before it were read and written whole
      progress.finish();
      sink.drop_value();  // nothing of a value that failed
      sink.push();        // every value completed before the error
      throw;
    }
    progress.finish();
    sink.push();
    return kOk;
  });
}

int roundtrip(Args args) {
  return run_command(args, kRoundtripUsage, [&] {
    if (args.size() != 1) usage_error(kRoundtripUsage, "roundtrip takes exactly one encoding");
    const Encoding encoding = encoding_arg(kRoundtripUsage, args[0]);
    const InputFile in(std::nullopt);
    FdSink sink(STDOUT_FILENO);
    WriteOptions options;
    options.max_output_bytes = kDefaultMaxOutputBytes;
    Writer writer(sink, encoding, options);
    for_each_value(in, encoding, [&](const Value& v) {
      writer.write(v);
      writer.flush();
    });
    return kOk;
  });
}

int edn(Args args) {
  return run_command(args, kEdnUsage, [&] {
    const Parsed p = parse(args, kEdnUsage, {});
    if (p.positional.size() > 1) usage_error(kEdnUsage, "too many arguments");
    InputFile in(p.positional.empty() ? std::nullopt : std::optional(p.positional[0]));
    const OutputFile stdout_file(std::nullopt);
    TextOutput out(stdout_file);
    const std::size_t width = terminal_width();
    const std::function<void(std::string&)> spill = [&](std::string&) { out.flush_if_full(); };
    try {
      for_each_value(in, p.from.value_or(Encoding::json), [&](const Value& v) {
        pretty(v, 0, width, out.buffer(), &spill);
        out.buffer() += '\n';
        out.flush_if_full();
      }, nullptr, [&] { out.flush(); });
    } catch (const Error& e) {
      if (e.code() == Errc::io) throw;  // the output is lost: nothing more to write
      out.flush();  // every value completed before the error
      throw;
    }
    out.flush();
    return kOk;
  });
}

int stats(Args args) {
  return run_command(args, kStatsUsage, [&] {
    const Parsed p = parse(args, kStatsUsage, {.quiet = true});
    if (p.positional.size() > 1) usage_error(kStatsUsage, "too many arguments");
    InputFile in(p.positional.empty() ? std::nullopt : std::optional(p.positional[0]));
    Progress progress("stats", progress_enabled(p.quiet));
    WriteOptions limited;
    limited.max_output_bytes = kDefaultMaxOutputBytes;
    EncodingCount counts[] = {{Encoding::json, limited},
                              {Encoding::json_verbose, limited},
                              {Encoding::msgpack, limited}};
    Tally tally;
    std::uint64_t values = 0;
    // Each value is counted as it is read, then dropped: memory follows the largest value,
    // not the whole input.
    for_each_value(in, p.from.value_or(Encoding::json), [&](const Value& v) {
      ++values;
      tally.count(v, 1);
      for (EncodingCount& c : counts) c.write(v);
    }, &progress);
    progress.finish();
    std::cout << "values: " << values << "\n";
    std::cout << "size by encoding:\n";
    for (EncodingCount& c : counts) {
      if (!c.unavailable) c.writer.flush();  // the last bytes buffered, into the count
      const std::string_view name = encoding_name(c.encoding);
      if (c.unavailable) {
        std::cout << "  " << name << ": unavailable (" << *c.unavailable << ")\n";
        continue;
      }
      std::cout << "  " << name << ": " << c.sink.bytes() << " bytes";
      if (c.encoding == Encoding::json)
        std::cout << ", " << c.sink.cache_codes() << (c.sink.cache_codes() == 1 ? " cache code used" : " cache codes used");
      std::cout << "\n";
    }
    std::cout << "max depth: " << tally.max_depth << "\n";
    std::cout << "counts by type:\n";
    for (const auto& [kind, n] : tally.kinds) std::cout << "  " << kind << ": " << n << "\n";
    return kOk;
  });
}

int demo(Args args) {
  return run_command(args, kDemoUsage, [&] {
    const bool profile = args.size() == 1 && args[0] == "--profile";
    if (args.size() > (profile ? 1u : 0u))
      usage_error(kDemoUsage, "unexpected argument '" + std::string(args.back()) + "'");
    return run_demo(std::cout, profile);
  });
}

}  // namespace transit::cli
