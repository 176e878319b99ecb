// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "demo.h"
#include "transit/transit.h"

namespace transit::cli {
namespace {

// ---- arguments -----------------------------------------------------------------------------------

/// Splits `--from ENC` / `--to ENC` options from positional arguments.
struct Parsed {
  std::optional<Encoding> from, to;
  std::vector<std::string_view> positional;
};

Parsed parse(Args args, const Usage& usage, bool takes_to) {
  Parsed p;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--from" || (takes_to && a == "--to")) {
      if (i + 1 == args.size()) usage_error(usage, std::string(a) + " needs an encoding");
      (a == "--from" ? p.from : p.to) = encoding_arg(usage, args[++i]);
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
class InputFile {
 public:
  explicit InputFile(std::optional<std::string_view> path) {
    if (!path || *path == "-") return;
    fd_ = ::open(std::string(*path).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot open '" + std::string(*path) + "'");
    owned_ = true;
  }
  ~InputFile() {
    if (owned_) ::close(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = STDIN_FILENO;
  bool owned_ = false;
};

class OutputFile {
 public:
  explicit OutputFile(std::optional<std::string_view> path) {
    if (!path || *path == "-") return;
    fd_ = ::open(std::string(*path).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot create '" + std::string(*path) + "'");
    owned_ = true;
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

void pretty(const Value& v, std::size_t indent, std::size_t width, std::string& out) {
  std::string flat = to_edn(v);
  const bool collection = v.kind() == Kind::array || v.kind() == Kind::list ||
                          v.kind() == Kind::set || v.kind() == Kind::map;
  if (!collection || indent + flat.size() <= width || v.size() == 0) {
    out += flat;
    return;
  }
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
      pretty(key, inner, width, out);
      const std::size_t key_end_column = inner + (out.size() - key_start);
      const std::string value_flat = to_edn(value);
      if (key_end_column + 1 + value_flat.size() <= width) {
        out += ' ';
        out += value_flat;
      } else {
        out += '\n';
        out.append(inner + 1, ' ');
        pretty(value, inner + 1, width, out);
      }
    }
  } else {
    bool first = true;
    for (const Value& item : v.items()) {
      if (!first) newline();
      first = false;
      pretty(item, inner, width, out);
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

/// Cache codes in a Transit JSON text: string tokens of the form "^X" or "^XY" ("^ " marks a
/// map). Quotes only occur in string tokens, so a scan that skips escapes finds every token.
std::size_t count_cache_codes(std::string_view json) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '"') continue;
    const std::size_t start = ++i;
    while (i < json.size() && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
    const std::string_view token = json.substr(start, i - start);
    if ((token.size() == 2 || token.size() == 3) && token[0] == '^' && token[1] != ' ') ++n;
  }
  return n;
}

// ---- commands -------------------------------------------------------------------------------------------

/// Reads every value of `from` on `in`, calling `each` as each one arrives. Values read before
/// an error have been handled when the error is thrown.
template <class Each>
void for_each_value(int in_fd, Encoding from, Each each) {
  FdSource source(in_fd);
  Reader reader(source, from);
  while (auto v = reader.next()) each(*v);
}

constexpr Usage kConvertUsage{
    "usage: transit convert [--from ENC] [--to ENC] [IN [OUT]]\n"
    "\n"
    "Converts every top-level value of IN (default stdin) from one encoding to another, writing\n"
    "to OUT (default stdout). ENC is json (default), json-verbose or msgpack."};

constexpr Usage kRoundtripUsage{
    "usage: transit roundtrip ENC\n"
    "\n"
    "The Transit verification protocol: reads values in ENC from stdin one at a time and writes\n"
    "each back in ENC to stdout, flushed as soon as it has been read, until end of input."};

constexpr Usage kEdnUsage{
    "usage: transit edn [--from ENC] [IN]\n"
    "\n"
    "Prints each value of IN (default stdin) as EDN, indented to the terminal width."};

constexpr Usage kStatsUsage{
    "usage: transit stats [--from ENC] [IN]\n"
    "\n"
    "For all values of IN (default stdin): the size in each encoding, the cache codes used,\n"
    "counts by type and the maximum nesting depth."};

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

std::vector<Value> read_values(std::optional<std::string_view> path, Encoding from) {
  InputFile in(path);
  std::vector<Value> values;
  for_each_value(in.fd(), from, [&](const Value& v) { values.push_back(v); });
  return values;
}

std::string pretty_edn(const Value& value, std::size_t width) {
  std::string out;
  pretty(value, 0, width, out);
  return out;
}

int convert(Args args) {
  return run_command(args, kConvertUsage, [&] {
    const Parsed p = parse(args, kConvertUsage, true);
    if (p.positional.size() > 2) usage_error(kConvertUsage, "too many arguments");
    InputFile in(p.positional.size() > 0 ? std::optional(p.positional[0]) : std::nullopt);
    OutputFile out(p.positional.size() > 1 ? std::optional(p.positional[1]) : std::nullopt);
    FdSink sink(out.fd());
    Writer writer(sink, p.to.value_or(Encoding::json));
    try {
      for_each_value(in.fd(), p.from.value_or(Encoding::json), [&](const Value& v) { writer.write(v); });
    } catch (const Error&) {
      writer.flush();  // every value completed before the error
      throw;
    }
    writer.flush();
    return kOk;
  });
}

int roundtrip(Args args) {
  return run_command(args, kRoundtripUsage, [&] {
    if (args.size() != 1) usage_error(kRoundtripUsage, "roundtrip takes exactly one encoding");
    const Encoding encoding = encoding_arg(kRoundtripUsage, args[0]);
    FdSink sink(STDOUT_FILENO);
    Writer writer(sink, encoding);
    for_each_value(STDIN_FILENO, encoding, [&](const Value& v) {
      writer.write(v);
      writer.flush();
    });
    return kOk;
  });
}

int edn(Args args) {
  return run_command(args, kEdnUsage, [&] {
    const Parsed p = parse(args, kEdnUsage, false);
    if (p.positional.size() > 1) usage_error(kEdnUsage, "too many arguments");
    InputFile in(p.positional.empty() ? std::nullopt : std::optional(p.positional[0]));
    const std::size_t width = terminal_width();
    for_each_value(in.fd(), p.from.value_or(Encoding::json), [&](const Value& v) {
      std::cout << pretty_edn(v, width) << "\n" << std::flush;
    });
    return kOk;
  });
}

int stats(Args args) {
  return run_command(args, kStatsUsage, [&] {
    const Parsed p = parse(args, kStatsUsage, false);
    if (p.positional.size() > 1) usage_error(kStatsUsage, "too many arguments");
    const std::vector<Value> values =
        read_values(p.positional.empty() ? std::nullopt : std::optional(p.positional[0]),
                    p.from.value_or(Encoding::json));
    Tally tally;
    for (const Value& v : values) tally.count(v, 1);
    std::cout << "values: " << values.size() << "\n";
    std::cout << "size by encoding:\n";
    for (Encoding e : {Encoding::json, Encoding::json_verbose, Encoding::msgpack}) {
      std::size_t bytes = 0, codes = 0;
      try {
        for (const Value& v : values) {
          const std::string text = write(v, e);
          bytes += text.size();
          if (e == Encoding::json) codes += count_cache_codes(text);
        }
      } catch (const Error& err) {
        std::cout << "  " << encoding_name(e) << ": unavailable (" << err.detail() << ")\n";
        continue;
      }
      std::cout << "  " << encoding_name(e) << ": " << bytes << " bytes";
      if (e == Encoding::json) std::cout << ", " << codes << " cache codes used";
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
