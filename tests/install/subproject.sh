#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds tests/install/subproject, a consumer that builds transit-cpp from source inside its
# own build (MODE: add_subdirectory or FetchContent from a local path), runs it, installs it
# into a scratch prefix and checks what the install holds. No build type (no optimisation, no
# debug info), so that compiling the library takes as little time as it can, and transit must
# leave it unset.
#
# add_subdirectory: the consumer builds transit as a shared library (BUILD_SHARED_LIBS) with the
# tool, and installs it with its app (TRANSIT_INSTALL=ON). With the build tree's library gone,
# the installed app and tool must run from the prefix: the SONAME they need is installed and
# their rpath finds it. FetchContent: transit is static and TRANSIT_INSTALL is left at its
# default, off in a subproject, so the app's install holds the app and nothing of transit's.
#
# ipo: FetchContent with link-time optimisation and release flags (-O3 -DNDEBUG, given as
# flags: a build type would be the parent's), as a project that builds its dependencies for
# release may: the tool is built too, a static program that reads MessagePack, whose whole-
# program link g++ 12 crashed on (CMakeLists.txt says how it is avoided), and must convert.
set -euo pipefail
mode=$1 transit_source=$2 scratch=$3 launcher=${4:-}
expected='["^ ","~:installed",true]'
shared=OFF options=() consumer_mode=$mode
if [[ $mode == add_subdirectory ]]; then
  shared=ON options=(-DBUILD_SHARED_LIBS=ON -DTRANSIT_INSTALL=ON -DTRANSIT_BUILD_CLI=ON)
elif [[ $mode == ipo ]]; then
  consumer_mode=FetchContent
  options=(-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON "-DCMAKE_CXX_FLAGS=-O3 -DNDEBUG" -DTRANSIT_BUILD_CLI=ON)
fi
rm -rf "$scratch"
cmake -S "$transit_source/tests/install/subproject" -B "$scratch" \
  -DTRANSIT_CONSUMER_MODE="$consumer_mode" -DTRANSIT_SOURCE="$transit_source" "${options[@]}" \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} >/dev/null
cmake --build "$scratch" -j2 >/dev/null
out=$("$scratch/consumer")
[[ $out == "$expected" ]] || { echo "$mode consumer printed: $out" >&2; exit 1; }
echo "$mode consumer: ok"
if [[ $mode == ipo ]]; then
  # FetchContent_Declare(transit ...) builds the dependency in _deps/transit-build.
  tool=$scratch/_deps/transit-build/transit
  [[ -x $tool ]] || { echo "the ipo build made no transit tool at $tool" >&2; exit 1; }
  text='["^ ","~:a",[1,2.5,"~t2020-01-01T00:00:00.000Z",["~#set",["~:a","~:bb"]]]]'
  out=$(echo "$text" | "$tool" convert --to msgpack | "$tool" convert --from msgpack --to json-verbose)
  [[ $out == '{"~:a":[1,2.5,"~t2020-01-01T00:00:00.000Z",{"~#set":["~:a","~:bb"]}]}' ]] ||
    { echo "the ipo build's tool converted MessagePack to: $out" >&2; exit 1; }
  echo "ipo: the consumer and the tool (MessagePack through and back) run"
  exit 0
fi

prefix=$scratch/prefix
cmake --install "$scratch" --prefix "$prefix" >/dev/null
installed=$(cd "$prefix" && find . ! -type d | sort)
if [[ $shared == OFF ]]; then
  [[ $installed == ./bin/consumer ]] ||
    { printf '%s\n' "with TRANSIT_INSTALL off, the app's install holds:" "$installed" >&2; exit 1; }
  echo "$mode consumer, TRANSIT_INSTALL off: installs only the app"
  exit 0
fi

# libtransit.so.MAJOR.MINOR (CMakeLists.txt says why), the name the app and the tool need.
version=$(sed -n 's/^project(transit VERSION \([0-9]*\.[0-9]*\)\..*/\1/p' "$transit_source/CMakeLists.txt")
soname=libtransit.so.$version
library=$(find "$prefix" -name libtransit.so)
[[ -n $library ]] || { printf '%s\n' "no libtransit.so installed:" "$installed" >&2; exit 1; }
got=$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $got == "$soname" ]] || { echo "libtransit.so's SONAME is '$got', not $soname" >&2; exit 1; }
[[ -f $(dirname "$library")/$soname ]] || { echo "$soname is not installed" >&2; exit 1; }
for program in consumer transit; do
  needed=$(readelf -d "$prefix/bin/$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [[ $'\n'$needed$'\n' == *$'\n'$soname$'\n'* ]] ||
    { printf '%s\n' "installed $program does not need $soname but:" "$needed" >&2; exit 1; }
done
[[ -f $prefix/include/transit/transit.h ]] || { echo "TRANSIT_INSTALL=ON installed no headers" >&2; exit 1; }
# Only the installed library is left to load, found through the programs' rpath alone.
find "$scratch" -path "$prefix" -prune -o -name 'libtransit.so*' -exec rm {} +
out=$(env -u LD_LIBRARY_PATH "$prefix/bin/consumer")
[[ $out == "$expected" ]] || { echo "installed $mode consumer printed: $out" >&2; exit 1; }
out=$(echo '["^ ","~:a",1]' | env -u LD_LIBRARY_PATH "$prefix/bin/transit" convert --to json-verbose)
[[ $out == '{"~:a":1}' ]] || { echo "installed transit convert printed: $out" >&2; exit 1; }
echo "$mode consumer, shared transit: the installed app and tool run from the prefix ($soname)"

# pkg-config against the shared install: a program links libtransit.so alone and needs no
# libsimdjson of its own (simdjson is Requires.private there: libtransit.so brings it).
pc_dir=$(dirname "$(find "$prefix" -name transit.pc | head -n 1)")
[[ -f $pc_dir/transit.pc ]] || { echo "TRANSIT_INSTALL=ON installed no transit.pc" >&2; exit 1; }
flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs transit)
libdir=$(PKG_CONFIG_PATH=$pc_dir pkg-config --variable=libdir transit)
# shellcheck disable=SC2086  # the flags are words
# --no-as-needed first, as toolchains without Debian's --as-needed default link: every library
# named is then needed, so what pkg-config names is what the program depends on.
${CXX:-c++} -std=c++20 "$transit_source/tests/install/consumer/main.cpp" -o "$scratch/pkg-consumer" \
  -Wl,--no-as-needed $flags -Wl,-rpath,"$libdir"
needed=$(readelf -d "$scratch/pkg-consumer" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[[ $'\n'$needed$'\n' == *$'\n'$soname$'\n'* ]] ||
  { printf '%s\n' "the pkg-config consumer does not need $soname but:" "$needed" >&2; exit 1; }
[[ $needed != *libsimdjson* ]] ||
  { printf '%s\n' "pkg-config ($flags) made the consumer need simdjson itself:" "$needed" >&2; exit 1; }
out=$(env -u LD_LIBRARY_PATH "$scratch/pkg-consumer")
[[ $out == "$expected" ]] || { echo "pkg-config consumer of the shared install printed: $out" >&2; exit 1; }
echo "$mode consumer, shared transit: a pkg-config consumer ($flags) needs $soname and no simdjson"
