// SPDX-License-Identifier: Apache-2.0
// The JSON read floor: RapidJSON's DOM parse, as transit-bench times it (Floor/RapidJsonDom)
// and transit-read-file counts it (bench/instr_table.sh).
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string_view>

namespace transit::bench {

/// Parses `text` into a fresh rapidjson::Document (default allocator, full-precision numbers,
/// as the library reads numbers) and returns its top-level items, so that the parse cannot be
/// dropped. Throws std::runtime_error unless `text` is one JSON value.
std::size_t rapidjson_dom(std::string_view text);

/// Parses `text` into `doc` with rapidjson_dom's flags, as `transit bench` parses each value
/// (src/cli/floors.cpp: ParseStream over a MemoryStream, stopping after the value); returns
/// whether it parsed and only whitespace follows. Document::Parse(text, size), which the two
/// tools called before, reads the same bytes through an EncodedInputStream and costs up to 4%
/// more instructions a parse (0.2% on bytes' long strings). Every DOM parse of the tools goes
/// through this unit: RapidJSON's parse functions are templates, and the linker keeps one copy
/// of each, that of the first unit which has it, so a parse written in another unit
/// (json_bench.cpp's checks, read_file.cpp's rapidjson-write) supplied the code the floor ran,
/// inlined as GCC saw fit there: transit-bench's floor cost 2.2% (citm_catalog) and 3.7%
/// (twitter) more instructions than transit-read-file's.
bool rapidjson_parse(rapidjson::Document& doc, std::string_view text);

}  // namespace transit::bench
