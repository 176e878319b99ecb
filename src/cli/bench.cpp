// SPDX-License-Identifier: Apache-2.0
// `transit bench`: times reading and writing a file's values in every encoding.
#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "floors.h"
#include "progress.h"
#include "sizes.h"
#include "transit/transit.h"

namespace transit::cli {
namespace {

constexpr Usage kBenchUsage{
    "usage: transit bench FILE [--from ENC] [--runs N] [--min-time S] [--json] [--svg OUT]\n"
    "                    [--quiet]\n"
    "\n"
    "Reads every value of FILE (in ENC, default json; - for stdin), checks that each encoding\n"
    "reads them back equal, then times writing them and reading them back in json,\n"
    "json-verbose and msgpack: the median of N runs (default 10) of each. Prints time, MB/s\n"
    "(10^6 bytes per second) and size per encoding, and the size in each form. Beside each\n"
    "encoding, its floor on the same bytes: RapidJSON (DOM parse, Writer) for the JSON forms,\n"
    "msgpack-cxx (unpack, pack) for MessagePack, a fresh document and buffer each run.\n"
    "\n"
    "Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID: user and system time, so page\n"
    "faults and memory given back to the system count; time the thread waits for a core does\n"
    "not). Ours and the floor's runs alternate (ours, floor, ours, floor ...), writes first,\n"
    "so that a change in the machine's speed falls on both alike. Before timing, one block of\n"
    "just under 32 MiB is freed: glibc then keeps its mmap and trim thresholds at their top,\n"
    "as in a process that has run a while, whatever the loading of FILE freed.\n"
    "\n"
    "  --from ENC    the encoding of FILE: json (default), json-verbose or msgpack\n"
    "  --runs N      runs of each write and each read, and of their floor's (default 10)\n"
    "  --min-time S  run each write and each read at least N times and, with their floor's\n"
    "                runs, for at least S seconds of CPU time (default 0: N runs): a median of\n"
    "                many short runs is not one moment of a machine whose speed drifts\n"
    "  --json        print one JSON object instead: {\"file\": FILE, \"values\": COUNT,\n"
    "                \"results\": [{\"encoding\": ENC, \"op\": \"read\" or \"write\", \"median_ns\":\n"
    "                NS, \"bytes\": B, \"runs\": R}, ...], \"floors\": [{\"encoding\": ENC,\n"
    "                \"library\": LIB, \"op\": OP, \"median_ns\": NS}, ...]}, one result and one\n"
    "                floor per encoding and op\n"
    "  --svg OUT     also draw the times and sizes as a bar chart in the SVG file OUT\n"
    "  --quiet, -q   no progress line on stderr (drawn only when stderr is a terminal and the\n"
    "                run takes more than a second)"};

constexpr std::array kEncodings = {Encoding::json, Encoding::json_verbose, Encoding::msgpack};

struct Options {
  std::string_view file;
  Encoding from = Encoding::json;
  int runs = 10;
  double min_time = 0;  // seconds
  bool json = false;
  std::optional<std::string_view> svg;
  bool quiet = false;
};

Options parse_options(Args args) {
  Options o;
  bool have_file = false;
  const auto operand = [&](std::size_t& i) {
    if (i + 1 == args.size()) usage_error(kBenchUsage, std::string(args[i]) + " needs a value");
    return args[++i];
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--from") {
      o.from = encoding_arg(kBenchUsage, operand(i));
    } else if (a == "--runs") {
      const std::string n(operand(i));
      char* end = nullptr;
      const long runs = std::strtol(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || runs < 1 || runs > 1'000'000)
        usage_error(kBenchUsage, "--runs needs a whole number from 1 to 1000000, not '" + n + "'");
      o.runs = static_cast<int>(runs);
    } else if (a == "--min-time") {
      const std::string t(operand(i));
      char* end = nullptr;
      const double seconds = std::strtod(t.c_str(), &end);
      if (t.empty() || *end != '\0' || !(seconds >= 0 && seconds <= 3600))
        usage_error(kBenchUsage, "--min-time needs seconds from 0 to 3600, not '" + t + "'");
      o.min_time = seconds;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--svg") {
      o.svg = operand(i);
    } else if (a == "--quiet" || a == "-q") {
      o.quiet = true;
    } else if (a.size() > 1 && a[0] == '-') {
      usage_error(kBenchUsage, "unknown option '" + std::string(a) + "'");
    } else if (have_file) {
      usage_error(kBenchUsage, "bench takes one FILE");
    } else {
      o.file = a;
      have_file = true;
    }
  }
  if (!have_file) usage_error(kBenchUsage, "bench needs a FILE");
  return o;
}

// ---- timing ----------------------------------------------------------------------------------------

struct Result {
  Encoding encoding = Encoding::json;
  std::int64_t read_ns = 0;
  std::int64_t write_ns = 0;
  std::size_t bytes = 0;
  // The floor's times on the same bytes (see floors.h).
  std::string library;
  std::int64_t floor_read_ns = 0;
  std::int64_t floor_write_ns = 0;
  // Runs of each side (ours, and the floor's as many).
  int read_runs = 0;
  int write_runs = 0;
};

// The output is held in memory: a value that expands past the tool's limit fails with
// too_large instead of growing the string until memory runs out.
std::string write_all(std::span<const Value> values, Encoding encoding) {
  WriteOptions options;
  options.max_output_bytes = kDefaultMaxOutputBytes;
  return write_values(values, encoding, options);
}

// This thread's CPU time, user and system: what the work cost, page faults and munmap
// included, without the time the thread waited for a core on a loaded machine (which wall
// clock counts, and which swung single ratios from 0.48x to 2.19x; docs/performance-log.md).
std::int64_t thread_cpu_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

std::int64_t median(std::vector<std::int64_t> times) {
  std::sort(times.begin(), times.end());
  const std::size_t mid = times.size() / 2;
  return times.size() % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

struct Medians {
  std::int64_t ours = 0, floor = 0;
  int runs = 0;
};

// The most runs --min-time adds to a phase (of a value that takes nanoseconds).
constexpr int kMostRuns = 1'000'000;

// At least `runs` runs each of ours and the floor, alternating (ours, floor, ours, floor ...),
// so that a drift of the machine's speed falls on both sides alike, and more until both sides
// together have taken `min_ns`; the median of each side.
template <class Ours, class Floor>
Medians paired_medians(int runs, std::int64_t min_ns, Progress& progress, const std::string& what,
                       Ours ours, Floor floor) {
  std::vector<std::int64_t> ours_ns, floor_ns;
  std::int64_t spent = 0;
  for (int i = 0; i < runs || (spent < min_ns && i < kMostRuns); ++i) {
    progress.step(what + " run " + std::to_string(i + 1) +
                  (i < runs ? " of " + std::to_string(runs) : std::string(" (--min-time)")));
    std::int64_t start = thread_cpu_ns();
    ours();
    std::int64_t end = thread_cpu_ns();
    ours_ns.push_back(end - start);
    start = thread_cpu_ns();
    floor();
    end = thread_cpu_ns();
    floor_ns.push_back(end - start);
    spent += ours_ns.back() + floor_ns.back();
  }
  const int done = static_cast<int>(ours_ns.size());
  return {median(std::move(ours_ns)), median(std::move(floor_ns)), done};
}

// Writes the values in `encoding` and checks that they read back equal; returns the text.
std::string check_round_trip(std::span<const Value> values, Encoding encoding, Progress& progress) {
  progress.step(std::string(encoding_name(encoding)) + ": checking the round trip");
  std::string text = write_all(values, encoding);
  const std::vector<Value> back = read_all(text, encoding);
  if (!std::equal(back.begin(), back.end(), values.begin(), values.end()))
    throw std::runtime_error("the values do not read back equal from " +
                             std::string(encoding_name(encoding)));
  return text;
}

// Puts glibc's allocator in the state of a process that has run a while, whatever this one
// did first. glibc raises its mmap threshold to the largest mmapped block freed so far (up to
// 32 MiB on 64-bit) and its trim threshold to twice that, so what a process freed before the
// timing decides whether a floor's allocations come from the heap and are kept, or are mapped
// or trimmed and faulted in again every run: msgpack-cxx's unpack of keywords.verbose.json
// ran 1.7 ms or 12-13 ms (317 brk calls against 58) as the read that loaded the file had
// freed larger or smaller blocks (docs/performance-log.md, round twenty-two). A block of the
// largest size glibc adapts to, freed once, leaves both thresholds at their top for every
// file. Other allocators ignore it.
void settle_allocator() {
  // Its header and page rounding included, a block of 32 MiB would be past the limit and
  // leave the thresholds where they were.
  constexpr std::size_t kLargestAdapted = (std::size_t{32} << 20) - (std::size_t{64} << 10);
  // Volatile, so that the compiler cannot drop the pair as it may an unused allocation.
  void* volatile block = std::malloc(kLargestAdapted);
  std::free(block);
}

// Times ours and the floor on `text`, the values written in `encoding`: the writes, then the
// reads, each run of ours followed by one of the floor's.
Result measure(std::span<const Value> values, Encoding encoding, const std::string& text, const Options& o,
               Progress& progress) {
  const std::int64_t min_ns = static_cast<std::int64_t>(o.min_time * 1e9);
  Result r;
  r.encoding = encoding;
  r.bytes = text.size();
  const std::string name(encoding_name(encoding));
  const Floor floor(text, encoding);
  r.library = floor.library();
  const std::size_t floor_bytes = floor.write();  // also its warm-up
  const std::size_t floor_values = floor.read();
  const Medians writes = paired_medians(
      o.runs, min_ns, progress, name + ": write, ours and " + r.library + "'s",
      [&] {
        const std::string out = write_all(values, encoding);
        if (out.size() != r.bytes) throw std::runtime_error("a write produced different output");
      },
      [&] {
        if (floor.write() != floor_bytes) throw std::runtime_error("a floor write produced different output");
      });
  const Medians reads = paired_medians(
      o.runs, min_ns, progress, name + ": read, ours and " + r.library + "'s",
      [&] {
        if (read_all(text, encoding).size() != values.size())
          throw std::runtime_error("a read produced different values");
      },
      [&] {
        if (floor.read() != floor_values) throw std::runtime_error("a floor read produced different values");
      });
  r.write_ns = writes.ours;
  r.floor_write_ns = writes.floor;
  r.read_ns = reads.ours;
  r.floor_read_ns = reads.floor;
  r.write_runs = writes.runs;
  r.read_runs = reads.runs;
  return r;
}

// ---- formatting ---------------------------------------------------------------------------------------

// Three significant digits: 1.23, 12.3, 123, 1234.
std::string three_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x);
  return buf;
}

struct Unit {
  const char* name;
  double scale;  // units per base unit
};

// The unit that puts `largest` (in ns) between 1 and 1000.
Unit time_unit(double largest_ns) {
  if (largest_ns >= 1e9) return {"s", 1e-9};
  if (largest_ns >= 1e6) return {"ms", 1e-6};
  if (largest_ns >= 1e3) return {"µs", 1e-3};
  return {"ns", 1};
}

Unit size_unit(double largest_bytes) {
  if (largest_bytes >= 1e6) return {"MB", 1e-6};
  if (largest_bytes >= 1e3) return {"KB", 1e-3};
  return {"bytes", 1};
}

std::string duration(std::int64_t ns) {
  const Unit u = time_unit(static_cast<double>(ns));
  return three_digits(static_cast<double>(ns) * u.scale) + " " + u.name;
}

double mb_per_s(std::size_t bytes, std::int64_t ns) {
  return ns <= 0 ? 0.0 : static_cast<double>(bytes) * 1e3 / static_cast<double>(ns);
}

std::string pad_left(std::string s, std::size_t width) {
  return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

// A right-aligned table cell; "µs" is two bytes but one column.
std::string cell(const std::string& s, std::size_t width) {
  return pad_left(s, width + (s.find("µ") != std::string::npos ? 1 : 0));
}

// How many times the floor's time ours takes, e.g. "1.23x".
std::string ratio(std::int64_t ours_ns, std::int64_t floor_ns) {
  if (floor_ns <= 0) return "-";
  return three_digits(static_cast<double>(ours_ns) / static_cast<double>(floor_ns)) + "x";
}

// "median of 10 runs", or with --min-time the runs it took: "median of 10-4,210 runs (at
// least 0.5 s a phase)".
std::string runs_said(const Options& o, std::span<const Result> results) {
  if (o.min_time <= 0) return "median of " + std::to_string(o.runs) + (o.runs == 1 ? " run" : " runs");
  int fewest = kMostRuns, most = 0;
  for (const Result& r : results)
    for (const int n : {r.read_runs, r.write_runs}) fewest = std::min(fewest, n), most = std::max(most, n);
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", o.min_time);
  return "median of " + (fewest == most ? thousands(static_cast<std::size_t>(most))
                                        : thousands(static_cast<std::size_t>(fewest)) + "-" +
                                              thousands(static_cast<std::size_t>(most))) +
         (most == 1 ? " run" : " runs") + " (at least " + seconds + " s a phase)";
}

void print_table(std::ostream& out, const Options& o, std::size_t values,
                 std::span<const Result> results, const Sizes& sizes) {
  out << o.file << ": " << values << (values == 1 ? " value" : " values") << ", " << runs_said(o, results)
      << "\n\n";
  out << "encoding      " << pad_left("read", 10) << pad_left("MB/s", 9) << pad_left("write", 10)
      << pad_left("MB/s", 9) << pad_left("bytes", 12) << "\n";
  for (const Result& r : results) {
    std::string name(encoding_name(r.encoding));
    name.resize(14, ' ');
    out << name << cell(duration(r.read_ns), 10) << pad_left(three_digits(mb_per_s(r.bytes, r.read_ns)), 9)
        << cell(duration(r.write_ns), 10) << pad_left(three_digits(mb_per_s(r.bytes, r.write_ns)), 9)
        << pad_left(thousands(r.bytes), 12) << "\n";
  }
  out << "\nfloors on the same bytes (a fresh document and buffer each run, as above):\n";
  out << "encoding      library     " << pad_left("read", 10) << pad_left("ours/it", 9)
      << pad_left("write", 10) << pad_left("ours/it", 9) << "\n";
  for (const Result& r : results) {
    std::string name(encoding_name(r.encoding));
    name.resize(14, ' ');
    std::string library = r.library;
    library.resize(12, ' ');
    out << name << library << cell(duration(r.floor_read_ns), 10)
        << pad_left(ratio(r.read_ns, r.floor_read_ns), 9) << cell(duration(r.floor_write_ns), 10)
        << pad_left(ratio(r.write_ns, r.floor_write_ns), 9) << "\n";
  }
  out << "\n";
  const SizeRow row{std::filesystem::path(o.file).filename().string(), sizes};
  print_size_table(out, std::span(&row, 1));
}

void print_json(std::ostream& out, const Options& o, std::size_t values, std::span<const Result> results) {
  std::vector<Value> entries;
  for (const Result& r : results) {
    for (const bool read_op : {true, false}) {
      entries.push_back(Value::map({{"encoding", encoding_name(r.encoding)},
                                    {"op", read_op ? "read" : "write"},
                                    {"median_ns", read_op ? r.read_ns : r.write_ns},
                                    {"bytes", r.bytes},
                                    {"runs", read_op ? r.read_runs : r.write_runs}}));
    }
  }
  std::vector<Value> floors;
  for (const Result& r : results) {
    for (const bool read_op : {true, false}) {
      floors.push_back(Value::map({{"encoding", encoding_name(r.encoding)},
                                   {"library", r.library},
                                   {"op", read_op ? "read" : "write"},
                                   {"median_ns", read_op ? r.floor_read_ns : r.floor_write_ns}}));
    }
  }
  // JSON-Verbose of a map with string keys is a plain JSON object.
  out << write(Value::map({{"file", o.file},
                           {"values", values},
                           {"results", Value::array(std::move(entries))},
                           {"floors", Value::array(std::move(floors))}}),
               Encoding::json_verbose)
      << "\n";
}

// ---- the chart --------------------------------------------------------------------------------------------

constexpr const char* kColors[] = {"#4c78a8", "#f58518", "#54a24b"};  // by kEncodings order
// Each encoding's floor: a lighter shade of its colour, drawn right after it.
constexpr const char* kFloorColors[] = {"#a6bcd4", "#fac28b", "#a9d0a5"};
constexpr const char* kPlainColor = "#9d9d9d";

std::string xml_escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

// A round tick step (1, 2 or 5 times a power of ten) giving about five ticks up to `top`.
double tick_step(double top) {
  if (top <= 0) return 1;
  const double raw = top / 5, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

std::string tick_label(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

struct Bar {
  std::string label;  // under the bar, or empty
  double value;       // in the panel's unit
  const char* color;
};

// A bar panel: title, y axis with round ticks, grid and label, bars with their values on top,
// and group labels under each group of bars.
void panel(std::string& svg, double x0, double y0, double width, double height, const std::string& title,
           const std::string& y_label, const std::vector<std::vector<Bar>>& groups,
           const std::vector<std::string>& group_labels) {
  double largest = 0;
  for (const auto& g : groups)
    for (const Bar& b : g) largest = std::max(largest, b.value);
  const double step = tick_step(largest * 1.12);
  const double top = std::max(step, std::ceil(largest * 1.12 / step) * step);
  const auto y_of = [&](double v) { return y0 + height - v / top * height; };

  svg += "<text x=\"" + num(x0 + width / 2) + "\" y=\"" + num(y0 - 16) +
         "\" class=\"title\" text-anchor=\"middle\">" + xml_escape(title) + "</text>\n";
  for (double t = 0; t <= top + step / 2; t += step) {
    svg += "<line x1=\"" + num(x0) + "\" x2=\"" + num(x0 + width) + "\" y1=\"" + num(y_of(t)) + "\" y2=\"" +
           num(y_of(t)) + "\" class=\"grid\"/>\n";
    svg += "<text x=\"" + num(x0 - 6) + "\" y=\"" + num(y_of(t) + 4) + "\" text-anchor=\"end\">" +
           tick_label(t) + "</text>\n";
  }
  svg += "<line x1=\"" + num(x0) + "\" x2=\"" + num(x0) + "\" y1=\"" + num(y0) + "\" y2=\"" + num(y0 + height) +
         "\" class=\"axis\"/>\n";
  svg += "<line x1=\"" + num(x0) + "\" x2=\"" + num(x0 + width) + "\" y1=\"" + num(y0 + height) + "\" y2=\"" +
         num(y0 + height) + "\" class=\"axis\"/>\n";
  const double label_x = x0 - 48, label_y = y0 + height / 2;
  svg += "<text x=\"" + num(label_x) + "\" y=\"" + num(label_y) + "\" transform=\"rotate(-90 " + num(label_x) +
         " " + num(label_y) + ")\" text-anchor=\"middle\" class=\"label\">" + xml_escape(y_label) + "</text>\n";

  const double group_width = width / static_cast<double>(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double n = static_cast<double>(groups[g].size());
    const double bar_width = std::min(80.0, group_width * 0.8 / n);
    double x = x0 + group_width * (static_cast<double>(g) + 0.5) - bar_width * n / 2;
    for (const Bar& b : groups[g]) {
      const double y = y_of(b.value);
      svg += "<rect x=\"" + num(x + 2) + "\" y=\"" + num(y) + "\" width=\"" + num(bar_width - 4) +
             "\" height=\"" + num(y0 + height - y) + "\" fill=\"" + b.color + "\"/>\n";
      svg += "<text x=\"" + num(x + bar_width / 2) + "\" y=\"" + num(y - 5) +
             "\" text-anchor=\"middle\" class=\"value\">" + three_digits(b.value) + "</text>\n";
      if (!b.label.empty())
        svg += "<text x=\"" + num(x + bar_width / 2) + "\" y=\"" + num(y0 + height + 18) +
               "\" text-anchor=\"middle\" class=\"bar\">" + xml_escape(b.label) + "</text>\n";
      x += bar_width;
    }
    if (!group_labels.empty())
      svg += "<text x=\"" + num(x0 + group_width * (static_cast<double>(g) + 0.5)) + "\" y=\"" +
             num(y0 + height + 20) + "\" text-anchor=\"middle\" class=\"label\">" + xml_escape(group_labels[g]) +
             "</text>\n";
  }
}

std::string chart(const Options& o, std::size_t values, std::span<const Result> results, const Sizes& sizes) {
  constexpr double kWidth = 920, kHeight = 470;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" +
                    num(kHeight) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) + "\" ";
  svg +=
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<style>.title{font-size:15px;font-weight:bold}.heading{font-size:18px;font-weight:bold}"
      ".label{font-size:13px}.bar{font-size:11px}.value{font-size:11px;fill:#333}.note{fill:#555}"
      ".grid{stroke:#e4e4e4}.axis{stroke:#333}</style>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + num(kWidth / 2) + "\" y=\"28\" text-anchor=\"middle\" class=\"heading\">transit bench: " +
         xml_escape(o.file) + "</text>\n";
  svg += "<text x=\"" + num(kWidth / 2) + "\" y=\"48\" text-anchor=\"middle\" class=\"note\">" +
         std::to_string(values) + (values == 1 ? " value" : " values") + ", " + runs_said(o, results) +
         "; shorter bars are better</text>\n";

  // Legend: one swatch per encoding, centred under the heading (about 7 px a character).
  double legend_width = 0;
  for (const Encoding e : kEncodings) legend_width += 20 + 7.0 * static_cast<double>(encoding_name(e).size()) + 28;
  double lx = (kWidth - legend_width + 28) / 2;
  for (std::size_t i = 0; i < kEncodings.size(); ++i) {
    const std::string_view name = encoding_name(kEncodings[i]);
    svg += "<rect x=\"" + num(lx) + "\" y=\"62\" width=\"14\" height=\"14\" fill=\"" + kColors[i] + "\"/>\n";
    svg += "<text x=\"" + num(lx + 20) + "\" y=\"74\">" + std::string(name) + "</text>\n";
    lx += 20 + 7.0 * static_cast<double>(name.size()) + 28;
  }

  std::int64_t slowest = 0;
  for (const Result& r : results)
    slowest = std::max({slowest, r.read_ns, r.write_ns, r.floor_read_ns, r.floor_write_ns});
  const Unit t = time_unit(static_cast<double>(slowest));
  std::vector<std::vector<Bar>> ops(2);
  for (std::size_t i = 0; i < results.size(); ++i) {
    ops[0].push_back({"", static_cast<double>(results[i].read_ns) * t.scale, kColors[i]});
    ops[0].push_back({"", static_cast<double>(results[i].floor_read_ns) * t.scale, kFloorColors[i]});
    ops[1].push_back({"", static_cast<double>(results[i].write_ns) * t.scale, kColors[i]});
    ops[1].push_back({"", static_cast<double>(results[i].floor_write_ns) * t.scale, kFloorColors[i]});
  }
  panel(svg, 80, 125, 360, 280, "Median time", std::string("time (") + t.name + ")", ops, {"read", "write"});
  svg += "<text x=\"260\" y=\"452\" text-anchor=\"middle\" class=\"note\">lighter bars: RapidJSON (JSON), "
         "msgpack-cxx (MessagePack)</text>\n";

  const Unit s = size_unit(static_cast<double>(std::max({sizes.plain_json, sizes.json, sizes.json_verbose, sizes.msgpack})));
  std::vector<std::vector<Bar>> bytes(1);
  bytes[0].push_back({"plain JSON", static_cast<double>(sizes.plain_json) * s.scale, kPlainColor});
  for (std::size_t i = 0; i < results.size(); ++i)
    bytes[0].push_back({std::string(encoding_name(results[i].encoding)),
                        static_cast<double>(results[i].bytes) * s.scale, kColors[i]});
  panel(svg, 545, 125, 355, 280, "Size", std::string("size (") + s.name + ")", bytes, {});
  svg += "<text x=\"722\" y=\"452\" text-anchor=\"middle\" class=\"note\">plain JSON: the same values without "
         "Transit types</text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace

int bench(Args args) {
  return run_command(args, kBenchUsage, [&] {
    const Options o = parse_options(args);
    Progress progress("bench", progress_enabled(o.quiet));
    const std::vector<Value> values = read_values(o.file, o.from, &progress);
    // Every encoding is checked (written and read once) before any is timed: the checks are
    // the warm-up, and no encoding is timed in the allocator's first state, whose cost would
    // fall on whichever came first (docs/performance-log.md, "`transit bench` beside
    // `transit-bench`").
    std::vector<std::string> texts;
    for (const Encoding e : kEncodings) texts.push_back(check_round_trip(values, e, progress));
    settle_allocator();
    std::vector<Result> results;
    for (std::size_t i = 0; i < kEncodings.size(); ++i)
      results.push_back(measure(values, kEncodings[i], texts[i], o, progress));
    progress.step("sizes");
    const Sizes sizes = measure_sizes(values);
    progress.finish();
    if (o.json)
      print_json(std::cout, o, values.size(), results);
    else
      print_table(std::cout, o, values.size(), results, sizes);
    if (o.svg) {
      std::ofstream out{std::string(*o.svg), std::ios::binary};
      out << chart(o, values.size(), results, sizes);
      if (!out.flush()) throw std::runtime_error("cannot write '" + std::string(*o.svg) + "'");
    }
    return kOk;
  });
}

}  // namespace transit::cli
