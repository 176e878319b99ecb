// SPDX-License-Identifier: Apache-2.0
// transit-js's read and write times for one Transit JSON or JSON-Verbose file, the peer beside
// which issue 11 places our JSON numbers (bench/peer_speed.py runs it beside `transit bench`).
//
//   TRANSIT_JS_DIR=build/interop node bench/transit_js_speed.js FILE [RUNS]
//
// FILE holds one Transit value. transit-js reads it (its reader takes JSON and JSON-Verbose
// alike) and writes it back in both modes; after 2 s of warm-up for the JIT, each operation is
// timed RUNS times (default 15) and the median printed as one JSON object:
//   {"file": FILE, "read_ns": N, "write_json_ns": N, "write_verbose_ns": N}
// Each run is a fresh read of the whole text and a fresh write into a new string, as
// `transit bench` times ours. Times are CPU time, user and system, as `transit bench` times
// ours; of the whole process, so that work transit-js leaves to V8's other threads (its
// garbage collector's helpers) is counted too.
'use strict';

const fs = require('fs');

const searchPaths = process.env.TRANSIT_JS_DIR ? {paths: [process.env.TRANSIT_JS_DIR]} : undefined;
const t = require(require.resolve('transit-js', searchPaths));

const [file, runsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node transit_js_speed.js FILE [RUNS]');
  process.exit(2);
}
const runs = runsArg ? Number(runsArg) : 15;
const text = fs.readFileSync(file, 'utf8');

const reader = t.reader('json');
const writers = {json: t.writer('json'), verbose: t.writer('json-verbose')};
const value = reader.read(text);
const lengths = {json: writers.json.write(value).length, verbose: writers.verbose.write(value).length};

const ops = {
  read: () => reader.read(text),
  write_json: () => {
    if (writers.json.write(value).length !== lengths.json) throw new Error('write changed');
  },
  write_verbose: () => {
    if (writers.verbose.write(value).length !== lengths.verbose) throw new Error('write changed');
  },
};

// Warm-up: every operation in turn for 2 s, so the JIT has compiled what the runs use.
const warmEnd = process.hrtime.bigint() + 2000000000n;
while (process.hrtime.bigint() < warmEnd) for (const op of Object.values(ops)) op();

// This process's CPU time in ns (process.cpuUsage counts microseconds).
function cpuNs() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

function median(op) {
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const start = cpuNs();
    op();
    times.push(cpuNs() - start);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  return times.length % 2 ? times[mid] : Math.round((times[mid - 1] + times[mid]) / 2);
}

const result = {file};
for (const [name, op] of Object.entries(ops)) result[name + '_ns'] = median(op);
console.log(JSON.stringify(result));
