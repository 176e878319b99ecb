#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The interop_setup test: installs transit-js VERSION from npm into DIR (in the build tree).
# Exits 77, which ctest reports as skipped, when node or npm is missing or the install fails,
# and leaves the reason in DIR/skip-reason for the interop tests to skip with.
#   setup.sh DIR VERSION
set -u
dir=$1
version=$2
mkdir -p "$dir" || exit 1
rm -f "$dir/skip-reason"

skip() {
  printf '%s\n' "$1" > "$dir/skip-reason"
  echo "SKIPPED: $1"
  exit 77
}

command -v node > /dev/null 2>&1 || skip "node not found on PATH"
command -v npm > /dev/null 2>&1 || skip "npm not found on PATH"

installed=$(node -p "require('$dir/node_modules/transit-js/package.json').version" 2> /dev/null)
if [ "$installed" = "$version" ]; then
  echo "transit-js@$version already installed in $dir"
  exit 0
fi

if ! npm install --no-audit --no-fund --prefix "$dir" "transit-js@$version" \
    > "$dir/npm-install.log" 2>&1; then
  cat "$dir/npm-install.log"
  skip "npm install transit-js@$version failed: $(grep 'npm error' "$dir/npm-install.log" | head -n 2 | tr '\n' ' ')(log: $dir/npm-install.log)"
fi
echo "installed transit-js@$version in $dir"
