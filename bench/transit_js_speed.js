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
// `transit bench` times ours. Each run is timed by two clocks: the process's CPU time (user and
// system, as `transit bench` times ours by its thread's), which also counts what V8's other
// threads (the garbage collector's helpers) do in parallel, and wall clock, which does not but
// counts time spent waiting for a core on a loaded machine. Each clock's median is taken and
// the smaller printed: whichever way the clock is biased, it is not in our favour.
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

function medianOf(times) {
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  return times.length % 2 ? times[mid] : Math.round((times[mid - 1] + times[mid]) / 2);
}

function median(op) {
  const cpu = [];
  const wall = [];
  for (let i = 0; i < runs; ++i) {
    const startWall = process.hrtime.bigint();
    const startCpu = cpuNs();
    op();
    cpu.push(cpuNs() - startCpu);
    wall.push(Number(process.hrtime.bigint() - startWall));
  }
  return Math.min(medianOf(cpu), medianOf(wall));
}

const result = {file};
for (const [name, op] of Object.entries(ops)) result[name + '_ns'] = median(op);
console.log(JSON.stringify(result));
