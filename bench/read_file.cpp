// SPDX-License-Identifier: Apache-2.0
// transit-read-file FILE [N] [transit|handlers|held|source|pipe|rapidjson|simdjson|msgpack-unpack|twitter|citm|write-json|
// write-verbose|write-msgpack|rapidjson-write|msgpack-pack|copy-values] [msgpack]: reads FILE into memory and parses it N times, with transit::read (as Transit JSON, the default), with
// one of the floors (RapidJSON's DOM parse with full precision, the very function
// transit-bench's Floor/RapidJsonDom times: bench/rapidjson_dom.h; simdjson's DOM parse,
// copying the text into its padded buffer; msgpack-cxx's `unpack` of the file's MessagePack form, with
// `msgpack`), or typed into the structs of bench/typed_corpora.h
// (`twitter`, `citm`: FILE is that corpus as transit-bench --dump writes it; with `msgpack`,
// its MessagePack form, converted before anything is counted), for instruction counts of the
// parse (and the freeing of what it built: below):
//   valgrind --tool=callgrind --toggle-collect='*transit_read(*' transit-read-file FILE 3
//   valgrind --tool=callgrind --toggle-collect='*rapidjson_dom(*' transit-read-file FILE 3 rapidjson
//   valgrind --tool=callgrind --toggle-collect='*simdjson_dom(*' transit-read-file FILE 3 simdjson
//   valgrind --tool=callgrind --toggle-collect='*transit_read(*' transit-read-file FILE 3 transit msgpack
//   valgrind --tool=callgrind --toggle-collect='*transit_source_read(*' transit-read-file FILE 3 source
//   valgrind --tool=callgrind --toggle-collect='*transit_pipe_read(*' transit-read-file FILE 3 pipe
//   valgrind --tool=callgrind --toggle-collect='*msgpack_unpack(*' transit-read-file FILE 3 msgpack-unpack msgpack
//   valgrind --tool=callgrind --toggle-collect='*typed_read*' transit-read-file FILE 3 twitter [msgpack]
//   valgrind --tool=callgrind --toggle-collect='*handled_read(*' transit-read-file FILE 3 handlers [msgpack]
// `handlers` reads as `transit` does with a read handler for the tag `point` (extensions has
// 3,000 a read), which returns its rep. `held` (same toggle) reads with read handlers for the
// tags `m` and `f`, each returning its rep: what a service with handlers for the tags its
// messages hold pays (bench/messages/event.json holds an instant, `~m`, and order.json
// decimals, `~f`; numbers.json neither, nor any message `point`).
// `source` reads FILE as Transit JSON from a Source that hands out the text in 64 KiB chunks,
// with a fresh Reader each time (transit-bench's Read/TransitJsonSource). Its reads fill
// their chunks, so a document of up to 4 MiB is read ahead and read in place by simdjson
// (round twenty-two), with counts. `pipe` reads it from a Source whose reads come one byte
// short of the 64 KiB asked, as a pipe's may: a document longer than a read is then read by
// RapidJSON a byte at a time, whose events announce no counts, so every container takes the
// decoder's uncounted path.
// What each toggle counts: the parse, and the freeing of what it built, each time:
// transit_read the Value transit::read returns (built in one arena: about 900 instructions a
// JSON read, 500 a MessagePack one); rapidjson_dom its Document; msgpack_unpack its zone;
// typed_read its struct; simdjson_dom reuses one parser, as the library does, and frees
// nothing. `transit::read(*` (the toggle before round seventeen) counts the read without the
// freeing of its Value, where the floors' functions count their freeing.
// Counts, not times: timed, the RapidJSON DOM and msgpack-cxx unpack modes are not the floors
// transit-bench and `transit bench` time. In this process glibc's trim threshold (twice the
// largest mmapped block freed so far: the file's text, 2.9 MB for geojson) is below the free
// room a read's Document or zone leaves at the heap's top: each read grows the heap by brk
// for their chunks and gives it back when they are freed, and the next read faults the pages
// in again (geojson: 448 and 661 minor faults a read, 3x and
// 10x the time of a read with them kept; transit::read keeps its arena's blocks: no fault).
// Instructions barely move (0.002% and 0.016% fewer without the trim). To time them as the
// other two tools do (no fault a read there), run with
// GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456.
// The write modes read FILE once (Transit JSON into a Value, or RapidJSON's Document) and write
// it N times, as transit-bench's write rows do: one writer (Transit JSON or JSON-Verbose) or
// RapidJSON Writer, and one output buffer cleared between writes:
//   valgrind --tool=callgrind --toggle-collect='*transit_write(*' transit-read-file FILE 3 write-json
//   valgrind --tool=callgrind --toggle-collect='*rapidjson_write(*' transit-read-file FILE 3 rapidjson-write
// and for MessagePack (FILE is Transit JSON; its MessagePack form is made before anything is
// counted): a Transit MessagePack writer, or msgpack-cxx's `pack` of the object it unpacks from
// those bytes into one sbuffer cleared between writes, as transit-bench's Floor/MsgpackPack:
//   valgrind --tool=callgrind --toggle-collect='*transit_write(*' transit-read-file FILE 3 write-msgpack
//   valgrind --tool=callgrind --toggle-collect='*msgpack_pack(*' transit-read-file FILE 3 msgpack-pack
// `copy-values` reads FILE once (Transit JSON) and N times copies every Value of the document
// (each item, key and value, every level) into one vector, then clears it: what a user who
// keeps parts of a read document pays in reference counts (one increment and one decrement
// of the arena's count per copy):
//   valgrind --tool=callgrind --toggle-collect='*copy_values(*' transit-read-file FILE 3 copy-values
#include <msgpack.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#ifdef TRANSIT_HAVE_SIMDJSON
#include <simdjson.h>
#endif

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "chunk_source.h"
#include "rapidjson_dom.h"
#include "transit/transit.h"
#include "typed_corpora.h"

namespace {

[[gnu::noinline]] std::size_t rapidjson_write(const rapidjson::Document& doc, rapidjson::StringBuffer& out) {
  out.Clear();
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);
  return out.GetSize();
}

// Flattened: in this large unit GCC leaves sbuffer::write out of line (a call per item, 38% of
// the count), where `transit bench` and transit-bench inline it; the floor counted here must be
// the one they time.
[[gnu::noinline, gnu::flatten]] std::size_t msgpack_pack(const msgpack::object& o, msgpack::sbuffer& out) {
  out.clear();
  msgpack::pack(out, o);
  return out.size();
}

[[gnu::noinline]] std::size_t transit_write(transit::Writer& writer, std::string& out, const transit::Value& v) {
  out.clear();
  writer.write(v);
  writer.flush();
  return out.size();
}

void copy_below(const transit::Value& v, std::vector<transit::Value>& out) {
  switch (v.kind()) {
    case transit::Kind::array:
    case transit::Kind::list:
    case transit::Kind::set:
      for (const transit::Value& item : v.items()) {
        out.push_back(item);
        copy_below(item, out);
      }
      break;
    case transit::Kind::map:
    case transit::Kind::link:
      for (const auto& [key, value] : v.entries()) {
        out.push_back(key);
        out.push_back(value);
        copy_below(value, out);
      }
      break;
    default:
      break;
  }
}

// Copies every Value of `v` into `out`, then drops the copies (see copy-values above).
[[gnu::noinline]] std::size_t copy_values(const transit::Value& v, std::vector<transit::Value>& out) {
  out.push_back(v);
  copy_below(v, out);
  const std::size_t copied = out.size();
  out.clear();
  return copied;
}

// The MessagePack floor, as transit-bench's Floor/MsgpackUnpack: one zone per unpack.
[[gnu::noinline]] std::size_t msgpack_unpack(const std::string& bytes) {
  const msgpack::object_handle handle = msgpack::unpack(bytes.data(), bytes.size());
  const msgpack::object& root = handle.get();
  return root.type == msgpack::type::MAP     ? root.via.map.size
         : root.type == msgpack::type::ARRAY ? root.via.array.size
                                             : 1;
}

#ifdef TRANSIT_HAVE_SIMDJSON
[[gnu::noinline]] std::size_t simdjson_dom(simdjson::dom::parser& parser, const std::string& text) {
  simdjson::dom::element root;
  if (parser.parse(text.data(), text.size(), true).get(root))
    throw std::runtime_error("simdjson cannot parse the file");
  return root.is_object() ? root.get_object().value_unsafe().size()
                          : root.is_array() ? root.get_array().value_unsafe().size() : 1;
}
#endif

// A Transit read as the floors' functions count theirs: the parse and the freeing of what it
// built (the Value here, rapidjson_dom's Document, msgpack_unpack's zone, typed_read's struct).
[[gnu::noinline]] std::size_t transit_read(const std::string& bytes, transit::Encoding encoding) {
  return transit::read(bytes, encoding).size();
}

// transit_read with a read handler for the tag `point` that returns its rep (extensions'
// 3,000 points a read): what a read pays for user handlers (the decoder records each call,
// Decoder::walk_value_at).
[[gnu::noinline]] std::size_t handled_read(const std::string& bytes, transit::Encoding encoding,
                                           const transit::ReadOptions& options) {
  return transit::read(bytes, encoding, options).size();
}

// transit_read from a Source: the Reader, its parse and the freeing of the Value.
[[gnu::noinline]] std::size_t transit_source_read(const std::string& bytes) {
  transit::bench::ChunkSource source(bytes, 64 * 1024);  // ReadOptions::chunk_size's default
  transit::Reader reader(source, transit::Encoding::json);
  const std::optional<transit::Value> v = reader.next();
  return v ? v->size() : 0;
}

// transit_source_read from a Source whose reads come short (see `pipe` above).
[[gnu::noinline]] std::size_t transit_pipe_read(const std::string& bytes) {
  transit::bench::ChunkSource source(bytes, 64 * 1024 - 1);  // never a full chunk
  transit::Reader reader(source, transit::Encoding::json);
  const std::optional<transit::Value> v = reader.next();
  return v ? v->size() : 0;
}

template <class T>
[[gnu::noinline]] std::size_t typed_read(const std::string& bytes, transit::Encoding encoding) {
  const transit::ReadOptions options{.handlers = &transit::bench::typed::handlers()};
  T t = transit::read<T>(bytes, encoding, options);
  if constexpr (std::is_same_v<T, transit::bench::typed::Twitter>)
    return t.statuses.size();
  else
    return t.events.size() + t.performances.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: transit-read-file FILE [N] [transit|handlers|held|source|pipe|rapidjson|simdjson|msgpack-unpack|twitter|citm|write-json|write-verbose|write-msgpack|rapidjson-write|msgpack-pack|copy-values] [msgpack]\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "transit-read-file: cannot open " << argv[1] << "\n";
    return 1;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string text = bytes.str();
  const int n = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string_view with = argc > 3 ? argv[3] : "transit";
  const bool msgpack = argc > 4 && std::string_view(argv[4]) == "msgpack";
  const auto encoding = msgpack ? transit::Encoding::msgpack : transit::Encoding::json;
  std::size_t items = 0;
  try {
    if (with == "write-json" || with == "write-verbose" || with == "write-msgpack") {
      const transit::Value v = transit::read(text, transit::Encoding::json);
      std::string out;
      transit::StringSink sink(out);
      transit::Writer writer(sink, with == "write-json"      ? transit::Encoding::json
                                   : with == "write-verbose" ? transit::Encoding::json_verbose
                                                             : transit::Encoding::msgpack);
      std::size_t bytes_out = 0;
      for (int i = 0; i < n; ++i) bytes_out += transit_write(writer, out, v);
      std::cout << bytes_out << " bytes written, " << n << " writes\n";
      return 0;
    }
    if (with == "copy-values") {
      const transit::Value v = transit::read(text, transit::Encoding::json);
      std::vector<transit::Value> out;
      std::size_t copied = 0;
      for (int i = 0; i < n; ++i) copied += copy_values(v, out);
      std::cout << copied << " values copied, " << n << " walks\n";
      return 0;
    }
    if (with == "msgpack-pack") {
      const std::string packed = transit::write(transit::read(text, transit::Encoding::json), transit::Encoding::msgpack);
      const msgpack::object_handle handle = msgpack::unpack(packed.data(), packed.size());
      msgpack::sbuffer out;
      std::size_t bytes_out = 0;
      for (int i = 0; i < n; ++i) bytes_out += msgpack_pack(handle.get(), out);
      std::cout << bytes_out << " bytes written, " << n << " writes\n";
      return 0;
    }
    if (with == "rapidjson-write") {
      rapidjson::Document doc;
      if (!transit::bench::rapidjson_parse(doc, text)) {
        std::cerr << "transit-read-file: RapidJSON cannot parse the file\n";
        return 1;
      }
      rapidjson::StringBuffer out;
      std::size_t bytes_out = 0;
      for (int i = 0; i < n; ++i) bytes_out += rapidjson_write(doc, out);
      std::cout << bytes_out << " bytes written, " << n << " writes\n";
      return 0;
    }
#ifdef TRANSIT_HAVE_SIMDJSON
    simdjson::dom::parser parser;
#endif
    if (msgpack)
      text = transit::write(transit::read(text, transit::Encoding::json), transit::Encoding::msgpack);
    for (int i = 0; i < n; ++i) {
      if (with == "twitter") {
        items += typed_read<transit::bench::typed::Twitter>(text, encoding);
      } else if (with == "citm") {
        items += typed_read<transit::bench::typed::Citm>(text, encoding);
      } else if (with == "transit") {
        items += transit_read(text, encoding);
      } else if (with == "handlers") {
        static const transit::ReadHandlers handlers = [] {
          transit::ReadHandlers h;
          h.add("point", [](const transit::Value& rep) { return rep; });
          return h;
        }();
        items += handled_read(text, encoding, {.handlers = &handlers});
      } else if (with == "held") {
        static const transit::ReadHandlers handlers = [] {
          transit::ReadHandlers h;
          h.add("m", [](const transit::Value& rep) { return rep; });
          h.add("f", [](const transit::Value& rep) { return rep; });
          return h;
        }();
        items += handled_read(text, encoding, {.handlers = &handlers});
      } else if (with == "source" && !msgpack) {
        items += transit_source_read(text);
      } else if (with == "pipe" && !msgpack) {
        items += transit_pipe_read(text);
      } else if (with == "rapidjson") {
        items += transit::bench::rapidjson_dom(text);
      } else if (with == "msgpack-unpack" && msgpack) {
        items += msgpack_unpack(text);
#ifdef TRANSIT_HAVE_SIMDJSON
      } else if (with == "simdjson") {
        items += simdjson_dom(parser, text);
#endif
      } else {
        std::cerr << "transit-read-file: no parser " << with << " in this build\n";
        return 2;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cout << items << " top-level items, " << n << " reads\n";
  return 0;
}
