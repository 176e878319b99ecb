// SPDX-License-Identifier: Apache-2.0
// The transit-js side of the interop tests (tests/interop/interop_test.cpp and
// interop_property_test.cpp drive it).
//
//   node peer.js roundtrip ENCS [FILE] [--writer-per-value] [--keep-writer-after-error]
//                                      reads one Transit value per line (JSON or JSON-Verbose)
//                                      from FILE or stdin and prints, per value, one line
//                                      `DESCRIPTION<TAB>TEXT...`: how transit-js typed what it
//                                      read, and the value written back by transit-js in each
//                                      encoding of ENCS (`json`, `json-verbose` or both,
//                                      comma-separated). One writer per encoding writes every
//                                      value, or a new one for each value with --writer-per-value;
//                                      new ones after a value transit-js fails to write, unless
//                                      --keep-writer-after-error.
//   node peer.js fixtures ENC          prints `NAME<TAB>TEXT` for each value of the fixture set
//                                      below, written by transit-js in ENC.
//   node peer.js generate ENC SEED COUNT
//                                      prints `DESCRIPTION<TAB>TEXT` for COUNT values made by the
//                                      seeded generator below (the same SEED makes the same
//                                      values), written by transit-js in ENC.
//   node peer.js check ENC SEED COUNT FILE
//                                      makes the same COUNT values again and reads FILE, one line
//                                      per value of TAB-separated texts (what the other side wrote
//                                      back, in any encoding); prints per value `ok`, or
//                                      `mismatch<TAB>N<TAB>DESCRIPTION` for the first text N
//                                      (0-based) that transit-js does not read as a value equal
//                                      (transit.equals) to the one it made, with how it typed it.
//
// ENC is `json` or `json-verbose`. transit-js is loaded from TRANSIT_JS_DIR/node_modules (the
// copy the test suite installed into the build tree) or from the usual module path. A value
// transit-js fails on is reported as `error:<message>` with an empty TEXT, so one bad value
// does not hide the others. JSON.stringify escapes tabs and newlines, so neither appears
// inside TEXT.
'use strict';

const fs = require('fs');

const searchPaths = process.env.TRANSIT_JS_DIR ? {paths: [process.env.TRANSIT_JS_DIR]} : undefined;
const t = require(require.resolve('transit-js', searchPaths));

// A type tree of what transit-js made of a value, in a form the C++ side can rebuild from its
// own Value: scalars by transit-js type, collections with their children. Set members and map
// entries are sorted, so the order of a hash-based collection does not matter.
function describe(v) {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      break;
  }
  if (v instanceof Date) return 'date';
  if (t.isBinary(v)) return 'binary';
  if (t.isKeyword(v)) return 'keyword';
  if (t.isSymbol(v)) return 'symbol';
  if (t.isUUID(v)) return 'uuid';
  if (t.isInteger(v)) return 'long';  // a goog.math.Long: an integer beyond +-(2^53 - 1)
  if (t.isBigInt(v)) return 'bigint';
  if (t.isBigDec(v)) return 'bigdec';
  if (t.isURI(v)) return 'uri';
  if (t.isLink(v)) return 'link(' + describe(v.rep) + ')';
  if (t.isList(v)) return 'list[' + v.rep.map(describe).join(',') + ']';
  if (Array.isArray(v)) return 'array[' + v.map(describe).join(',') + ']';
  if (t.isSet(v)) {
    const members = [];
    v.forEach((x) => members.push(describe(x)));
    return 'set{' + members.sort().join(',') + '}';
  }
  if (t.isMap(v)) {
    const entries = [];
    v.forEach((val, key) => entries.push(describe(key) + '=>' + describe(val)));
    return 'map{' + entries.sort().join(',') + '}';
  }
  if (t.isTaggedValue(v)) return 'tagged:' + v.tag + '(' + describe(v.rep) + ')';
  return 'unknown:' + Object.prototype.toString.call(v);
}

// The values transit-js writes for the JsToCpp tests. interop_test.cpp holds the same set, by
// name, as C++ Values; a name on one side only is a test failure.
function fixtures() {
  const kw = t.keyword;
  const sym = t.symbol;
  const manyKeys = [];
  for (let i = 0; i < 2100; i++) manyKeys.push(kw('key' + i));
  const manyKeysMap = t.map();
  for (let i = 0; i < 2000; i++) manyKeysMap.set('field-' + i, i);
  const record = (id) => t.map([kw('id'), id, kw('name'), 'n' + id, kw('tags'), t.set([kw('a'), kw('b')])]);
  return [
    ['null', null],
    ['true', true],
    ['false', false],
    ['zero', 0],
    ['int', 42],
    ['negative_int', -7],
    ['max_safe_int', 9007199254740991],
    ['min_safe_int', -9007199254740991],
    ['two_pow_53_number', 9007199254740992],
    ['long_two_pow_53_plus_1', t.integer('9007199254740993')],
    ['long_max', t.integer('9223372036854775807')],
    ['long_min', t.integer('-9223372036854775808')],
    ['double', 1.5],
    ['double_tenth', 0.1],
    ['double_small', -2.5e-10],
    ['double_subnormal', 5e-324],
    ['double_max', 1.7976931348623157e308],
    ['double_1e21', 1e21],
    ['double_integral', 2.0],
    ['double_negative_zero', -0],
    ['nan', NaN],
    ['infinity', Infinity],
    ['negative_infinity', -Infinity],
    ['big_int', t.bigInt('123456789012345678901234567890')],
    ['big_int_negative', t.bigInt('-98765432109876543210')],
    ['big_int_plus_sign', t.bigInt('+5')],  // written as given: `~n+5`
    ['big_dec', t.bigDec('3.14159265358979323846264338327950288')],
    ['big_dec_exponent', t.bigDec('-1.5E+300')],
    ['empty_string', ''],
    ['string', 'hello'],
    ['string_tilde', '~tilde'],
    ['string_caret', '^caret'],
    ['string_backquote', '`backquote'],
    ['string_map_marker', '^ '],
    ['string_escapes', 'tab\tnewline\n"quote"\\backslash\u0001'],
    ['string_unicode', 'h\u00e9llo w\u00f6rld \u4e2d\u6587'],
    ['string_astral', '\u{1F600} \u{1D11E}'],
    ['keyword', kw('kw')],
    ['keyword_namespaced', kw('my.ns/kw')],
    ['symbol', sym('sym')],
    ['symbol_namespaced', sym('my.ns/sym')],
    ['uuid', t.uuid('531a379e-31bb-4ce1-8690-158dceeb2a11')],
    ['uri', t.uri('http://example.com/a?b=c#d')],
    ['bytes', t.binary('AAEC/f7/')],
    ['bytes_from_uint8array', new Uint8Array([0, 1, 127, 128, 255])],
    ['bytes_empty', t.binary('')],
    ['instant_epoch', new Date(0)],
    ['instant', new Date(1700000000123)],
    ['instant_before_1970', new Date(-2177452800001)],
    // JSON-Verbose: years before 0 as getUTCFullYear() prints them, `-1-12-31T...`
    ['instant_year_minus_1', new Date(-62167219200001)],
    ['instant_year_minus_12', new Date(-62531522999750)],
    ['array', [1, 'two', kw('three'), null, true]],
    ['array_empty', []],
    ['array_nested', [[1, [2, [3, []]]]]],
    ['list', t.list([1, 2, 3])],
    ['list_empty', t.list([])],
    ['set', t.set([1, 2, 3])],
    ['set_keywords', t.set([kw('alpha'), kw('beta'), kw('gamma')])],
    ['set_empty', t.set([])],
    ['map_keyword_keys', t.map([kw('a'), 1, kw('b/c'), 'x'])],
    ['map_string_keys', t.map(['one', 1, 'two', 2, '~tilde', 3, '^ ', 4])],
    ['map_int_keys', t.map([1, 'one', -2, 'two', 9007199254740991, 'max'])],
    ['map_scalar_keys', t.map([null, 'nil', true, 't', false, 'f', sym('s'),
                               's', t.uuid('531a379e-31bb-4ce1-8690-158dceeb2a11'), 'u',
                               new Date(1000), 'd'])],
    ['map_empty', t.map()],
    ['object_as_map', {alpha: 1, beta: [2, 3]}],
    ['cmap', t.map([[1, 2], 'vector', t.map([kw('k'), 1]), 'map', 3, 'int'])],
    ['map_nested_repeated_keys', [record(1), record(2), record(3), t.map([kw('id'), record(4)])]],
    ['cache_wraps_keywords', manyKeys.concat(manyKeys)],
    ['cache_wraps_map_keys', [manyKeysMap, manyKeysMap]],
    ['link', t.link(t.map(['href', 'http://example.com/x', 'rel', 'self', 'name', 'x',
                           'prompt', 'see x', 'render', 'link']))],
    ['tagged_point', t.tagged('point', [1, 2])],
    ['tagged_scalar', t.tagged('x', 'foo')],
    ['tagged_map', t.tagged('person', t.map([kw('name'), 'Ada', kw('born'), 1815]))],
    ['everything_nested', t.map([
      kw('list'), t.list([t.set([kw('k')]), [sym('s')]]),
      kw('when'), new Date(86400000),
      'nested', t.map([kw('id'), t.uuid('00000000-0000-0000-0000-000000000001'),
                       kw('uri'), t.uri('urn:isbn:0451450523')]),
    ])],
  ];
}

function writerFor(enc) {
  if (enc !== 'json' && enc !== 'json-verbose') throw new Error('unknown encoding ' + enc);
  return t.writer(enc);
}

function readLines(file) {
  const input = fs.readFileSync(file === undefined || file === '-' ? 0 : file, 'utf8');
  return input.split('\n').filter((line) => line !== '');
}

// A transit-js writer whose write threw keeps the cache codes it gave the failed value's
// strings, and its next value writes those codes for strings it never wrote
// (JsLimits.AWriterThatThrewWritesCodesOfTheFailedValue): after an error the writers are made
// again, unless --keep-writer-after-error asks to see that happen.
function roundtrip(encs, file, writerPerValue, keepWriterAfterError) {
  const reader = t.reader('json');
  const outs = encs.split(',');
  let writers = outs.map(writerFor);
  const out = [];
  for (const line of readLines(file)) {
    try {
      const v = reader.read(line);
      if (writerPerValue) writers = outs.map(writerFor);
      out.push([describe(v)].concat(writers.map((w) => w.write(v))).join('\t'));
    } catch (e) {
      out.push('error:' + String(e.message).replace(/[\t\n]/g, ' ') + '\t');
      if (!keepWriterAfterError) writers = outs.map(writerFor);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}

// ---- a seeded generator of transit-js values (modes generate and check) -------------------------
//
// Values of every type transit-js has, made from a seed so that `check` makes the same ones
// again: numbers, goog.math.Long, big integers and decimals, strings, keywords, symbols, UUIDs,
// dates, URIs, binary, arrays, lists, sets, maps with any keys (composite ones make cmaps; more
// than 32 entries make transit-js's hashed map), plain objects, links and tagged values of tags
// nobody knows; now and then one value with thousands of distinct cacheable strings (so both
// caches wrap), and one nested a few hundred deep. Left out, each a limit of transit-js or of
// JavaScript rather than a bug of the reader (interop_test.cpp and interop_property_test.cpp
// pin each in a JsLimits test):
//   - NaN: transit.equals(NaN, NaN) is false, so no value holding a NaN equals itself.
//   - integral numbers beyond +-(2^53 - 1): JSON.stringify writes them as JSON numbers (2^60 as
//     1152921504606847000), which a reader takes for the integer they spell and writes back as
//     `~i`, a goog.math.Long, not equal to the number. Integers that large are made as Longs,
//     and Longs only that large (transit-js reads `~i5` as the number 5).
//   - numbers with a fraction as map keys: written `~i1.5`, which is not an integer
//     (JsLimits.DoubleMapKeys).
//   - one-character tags whose rep is not a string: transit-js cannot write them
//     (JsLimits.OneCharacterTagsNeedStringReps).
//   - `__proto__` as a map key: a JSON-Verbose writer drops the entry (JsLimits.ProtoKey).
//   - maps of more than 32 entries (transit-js's hashed TransitMap) with two keys of the same
//     transit.hash (:abcd and "abcd", "Aa" and "BB", 97 and "a"): its key iterator counts
//     entries as buckets, so writing the map throws (JsLimits.HashedMapKeysThatCollide).
//   - dates beyond JavaScript's range (+-8.64e15 ms: JsLimits.InstantsBeyondJavaScriptsRange),
//     and in JSON-Verbose before the year 1000 or after 9999: transit-js does not read back its
//     own unpadded years before 1000 (`-1-...` before 0), nor any `10000-...` (the C++ reader
//     reads all of transit-js's forms: JsLimits.VerboseDatesBeforeYear1000,
//     VerboseDatesAfterYear9999, and the fixtures instant_year_minus_1 and _12).
//   - strings with unpaired UTF-16 surrogates: they are not Unicode text (JsLimits.LoneSurrogates).

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const MAX_SAFE = 9007199254740991;
const DATE_RANGE = 8.64e15;
const YEAR_1000 = -30610224000000;   // 1000-01-01T00:00:00.000Z
const YEAR_10000 = 253402300800000;  // 10000-01-01T00:00:00.000Z

// Strings a writer must escape or may cache, or a reader could take for something else; the
// names of Object.prototype's properties, which transit-js's caches keep in plain objects.
const STRINGS = [
  '', 'a', 'ab', 'abc', 'abcd', 'name', 'id', '~', '~tilde', '~~', '^', '^caret', '^ ', '^0', '^ZZ',
  '`', '`backquote', '~#notatag', '~:notakeyword', '~i5', '~m0', 'tab\tnewline\n"quote"\\',
  '\u0001\u001f\b\f\r\u007f', 'h\u00e9llo w\u00f6rld', '\u4e2d\u6587', '\u{1F600} \u{1D11E}',
  '\u2028\u2029', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '0',
  '42', '-1', ' ', 'null', 'true', 'long-enough-to-cache', 'ns/name', '/',
];
const NAMES = ['a', 'id', 'name', 'tags', 'my.ns/kw', 'a/b', 'k\u00e9', '\u{1F600}', 'with space',
               'constructor', '~', '^', 'long-keyword-name'];
// Tags no reader knows: transit-js keeps a TaggedValue, and so do we.
const TAGS = ['point', 'gen/thing', 'x-y', 'person', 'ns/tag'];
const ONE_CHAR_TAGS = ['X', 'Q', 'W', 'g', 'h', 'y'];

function makeGenerator(seed, enc) {
  const random = mulberry32(seed);
  const below = (n) => Math.floor(random() * n);
  const coin = () => random() < 0.5;
  const pick = (xs) => xs[below(xs.length)];
  const verbose = enc === 'json-verbose';

  function chars(n) {
    let s = '';
    for (let i = 0; i < n; i++) {
      switch (below(7)) {
        case 0: s += String.fromCharCode(1 + below(31)); break;  // control characters
        case 1: s += pick(['~', '^', '`', ' ', '"', '\\', '/', '\u007f']); break;
        case 2: s += String.fromCharCode(0xa0 + below(0x700)); break;
        case 3: s += String.fromCharCode(0x3000 + below(0x6000)); break;
        case 4: s += String.fromCodePoint(0x10000 + below(0x10000)); break;  // a surrogate pair
        default: s += String.fromCharCode(0x20 + below(0x5f)); break;
      }
    }
    return s;
  }
  function string() {
    switch (below(7)) {
      case 0: case 1: case 2: return pick(STRINGS);
      case 3: return chars(below(12));
      case 4: return pick(['~', '^', '`', '^ ']) + chars(below(4));
      case 5: return 'key-' + below(3000);  // cacheable, and repeated across values
      default: return chars(64 << below(6));
    }
  }
  function name() {
    return coin() ? pick(NAMES) : string();
  }
  function digits(most) {
    let s = String(1 + below(9));
    for (let n = below(most); n > 0; n--) s += String(below(10));
    return s;
  }
  function safeInt() {
    switch (below(5)) {
      case 0: return below(10) - 5;
      case 1: return coin() ? MAX_SAFE : -MAX_SAFE;
      case 2: return (coin() ? 1 : -1) * (2147483648 + below(3) - 1);
      default: return (coin() ? 1 : -1) * Math.floor(random() * MAX_SAFE);
    }
  }
  function long() {
    let n;
    switch (below(4)) {
      case 0: n = BigInt(MAX_SAFE) + 1n + BigInt(below(3)); break;
      case 1: n = 9223372036854775807n - BigInt(below(2)); break;
      default: n = (BigInt(below(2 ** 31)) << 32n) | BigInt(below(2 ** 32)); break;
    }
    if (n <= BigInt(MAX_SAFE)) n += BigInt(MAX_SAFE) + 1n;
    if (coin()) n = -n - (coin() ? 1n : 0n);  // -2^63 too
    return t.integer(n.toString());
  }
  function double() {
    switch (below(8)) {
      case 0: return pick([0.1, 0.5, -2.5e-10, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308]);
      case 1: return pick([Infinity, -Infinity, 1e21, -1e300, 1.5e22]);
      default: {
        for (;;) {
          const d = (random() - 0.5) * Math.pow(10, below(40) - 20);
          if (!Number.isInteger(d) || Math.abs(d) >= 1e21) return d;
        }
      }
    }
  }
  function bigDec() {
    let s = (coin() ? '-' : '') + (coin() ? '0' : digits(25));
    if (coin()) s += '.' + digits(10) + (coin() ? '00' : '');
    if (below(4) === 0) s += pick(['E', 'E+', 'E-']) + below(400);
    return t.bigDec(s);
  }
  function hex(n) {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[below(16)];
    return s;
  }
  function date() {
    const lo = verbose ? YEAR_1000 : -DATE_RANGE, hi = verbose ? YEAR_10000 - 1 : DATE_RANGE;
    switch (below(4)) {
      case 0: return new Date(pick([0, -1, 1700000000123, lo, hi]));
      default: return new Date(lo + Math.floor(random() * (hi - lo)));
    }
  }
  function binary() {
    const b = Buffer.alloc(below(4) === 0 ? 0 : below(40));
    for (let i = 0; i < b.length; i++) b[i] = below(256);
    return b;
  }
  function scalar() {
    switch (below(16)) {
      case 0: return null;
      case 1: return coin();
      case 2: case 3: return safeInt();
      case 4: return double();
      case 5: return long();
      case 6: return t.bigInt((coin() ? '-' : '') + digits(40));
      case 7: return bigDec();
      case 8: case 9: return string();
      case 10: return t.keyword(name());
      case 11: return t.symbol(name());
      case 12: return t.uuid(hex(8) + '-' + hex(4) + '-' + hex(4) + '-' + hex(4) + '-' + hex(12));
      case 13: return date();
      case 14: return t.uri('http://example.com/' + string());
      default: return binary();
    }
  }
  function scalarKey() {
    return key(0);
  }
  // transit.equals holds an empty map equal to any object with no keys of its own (empty
  // bytes, an empty array, a Date), so no empty map goes where members or keys are compared
  // (JsLimits.EmptyMapEqualsEmptyBytesAndArrays).
  function emptyMap(x) {
    return (t.isMap(x) && x.size === 0) ||
           (x !== null && typeof x === 'object' && x.constructor === Object && Object.keys(x).length === 0);
  }
  function members(depth, most) {
    return items(depth, most).filter((x) => !emptyMap(x));
  }
  function key(depth) {
    for (;;) {
      const k = below(6) === 0 && depth > 0 ? value(depth - 1) : scalar();
      if (emptyMap(k)) continue;
      // JsLimits.DoubleMapKeys, and integral numbers beyond 2^53 - 1 written as `~i1e+21`
      if (typeof k === 'number' && !Number.isSafeInteger(k)) continue;
      if (k === '__proto__') continue;  // JsLimits.ProtoKey
      return k;
    }
  }
  function items(depth, most) {
    const out = [];
    for (let n = depth <= 0 ? 0 : below(most); n > 0; n--) out.push(value(depth - 1));
    return out;
  }
  // Up to `most` entries; a large map's values are scalars, so that sizes stay bounded, and
  // its keys have distinct transit.hash codes (JsLimits.HashedMapKeysThatCollide).
  function entries(depth, most, keyOf) {
    const out = [];
    const hashes = new Set();
    for (let n = depth <= 0 ? 0 : below(most); n > 0; n--) {
      const k = keyOf(depth);
      if (most > 6) {
        if (hashes.has(t.hash(k))) continue;
        hashes.add(t.hash(k));
      }
      out.push(k, most > 6 ? scalar() : value(depth - 1));
    }
    return out;
  }
  function tagged(depth) {
    if (coin()) return t.tagged(pick(ONE_CHAR_TAGS), string());  // JsLimits.OneCharacterTagsNeedStringReps
    return t.tagged(coin() ? pick(TAGS) : 'tag-' + below(3000), value(depth - 1));
  }
  function value(depth) {
    switch (depth <= 0 ? 0 : below(14)) {
      case 0: case 1: case 2: case 3: case 4: case 5: return scalar();
      case 6: return items(depth, 6);
      case 7: return t.list(items(depth, 5));
      case 8: return t.set(members(depth, 6));
      case 9: return t.map(entries(depth, 6, () => t.keyword(name())));
      case 10: return t.map(entries(depth, 6, key));
      case 11: return t.map(entries(depth, below(8) === 0 ? 60 : 6, string));
      case 12: return tagged(depth);
      default: {
        switch (below(3)) {
          case 0: {
            const o = {};
            for (let n = below(4); n > 0; n--) o['field-' + below(10)] = value(depth - 1);
            return o;
          }
          case 1:
            return t.link(t.map(['href', t.uri('http://example.com/' + below(100)), 'rel', string(),
                                 'render', pick(['link', 'image'])]));
          default:
            return t.map(entries(depth, 40, scalarKey));  // large: transit-js's hashed map
        }
      }
    }
  }
  // Thousands of distinct cacheable strings in one value, so that both caches wrap, with the
  // same keys again at other depths.
  function cacheWrapping() {
    const n = 2000 + below(1000);
    const out = [];
    for (let i = 0; i < n; i++) {
      const k = 'field-' + i;
      switch (below(5)) {
        case 0: out.push(t.keyword(k)); break;
        case 1: out.push(t.symbol(k)); break;
        case 2: out.push(t.tagged('tag-' + i, i)); break;
        case 3: out.push(t.map([k, i, t.keyword('kw-' + i), t.map([k, pick(STRINGS)])])); break;
        default: out.push(t.map([t.keyword(k), [t.keyword(k), t.map(['field-' + below(n), i])]])); break;
      }
    }
    return out;
  }
  // Nested a few hundred deep (transit-cpp reads 512 levels by default). At most 10 of the
  // levels are sets: transit.equals compares a set's members twice (as keys and as values of
  // its map), so it takes time exponential in the sets nested.
  function deep() {
    let v = scalar();
    if (typeof v === 'number') v = [v];  // it may become a map key
    let sets = 0;
    for (let n = 50 + below(200); n > 0; n--) {
      switch (below(6)) {
        case 0: v = [v, scalar()]; break;
        case 1: v = t.list([v]); break;
        case 2: v = sets++ < 10 ? t.set([v, 1]) : [v]; break;
        case 3: v = t.map([t.keyword(name()), v]); break;
        case 4: v = t.map([v, 'cmap']); break;
        default: v = t.tagged(pick(TAGS), v); break;
      }
    }
    return v;
  }
  return function next() {
    const r = below(100);
    if (r === 0) return cacheWrapping();
    if (r === 1) return deep();
    return value(below(5));
  };
}

function generated(enc, seed, count) {
  const next = makeGenerator(Number(seed), enc);
  const values = [];
  for (let i = 0; i < Number(count); i++) values.push(next());
  return values;
}

function generate(enc, seed, count) {
  const reader = t.reader('json');
  const writer = writerFor(enc);
  const out = generated(enc, seed, count).map((v) => {
    const text = writer.write(v);
    const self = reader.read(text);
    // A value transit-js does not read back as itself is its own problem: said so here.
    return (t.equals(v, self) ? '' : 'self-mismatch:') + describe(self) + '\t' + text;
  });
  process.stdout.write(out.join('\n') + '\n');
}

function check(enc, seed, count, file) {
  const values = generated(enc, seed, count);
  const lines = readLines(file);
  if (lines.length !== values.length) {
    throw new Error('check: ' + lines.length + ' lines for ' + values.length + ' values');
  }
  const reader = t.reader('json');
  const out = values.map((v, i) => {
    const texts = lines[i].split('\t');
    for (let n = 0; n < texts.length; n++) {
      let got;
      try {
        got = reader.read(texts[n]);
      } catch (e) {
        return 'mismatch\t' + n + '\terror:' + String(e.message).replace(/[\t\n]/g, ' ');
      }
      if (!t.equals(v, got)) return 'mismatch\t' + n + '\t' + describe(got);
    }
    return 'ok';
  });
  process.stdout.write(out.join('\n') + '\n');
}

function writeFixtures(enc) {
  const writer = writerFor(enc);
  const out = fixtures().map(([name, v]) => name + '\t' + writer.write(v));
  process.stdout.write(out.join('\n') + '\n');
}

function main(argv) {
  const [mode, enc, ...rest] = argv;
  if (mode === 'roundtrip') {
    roundtrip(enc, rest[0], rest.includes('--writer-per-value'),
              rest.includes('--keep-writer-after-error'));
  }
  else if (mode === 'fixtures') writeFixtures(enc);
  else if (mode === 'generate') generate(writerFor(enc) && enc, rest[0], rest[1]);
  else if (mode === 'check') check(enc, rest[0], rest[1], rest[2]);
  else if (mode === 'version') {
    process.stdout.write(require(require.resolve('transit-js/package.json', searchPaths)).version + '\n');
  }
  else {
    process.stderr.write('usage: node peer.js roundtrip ENCS [FILE] [--writer-per-value]\n' +
                         '                         [--keep-writer-after-error] | fixtures ENC |\n' +
                         '       generate ENC SEED COUNT | check ENC SEED COUNT FILE | version\n');
    process.exit(2);
  }
}

main(process.argv.slice(2));
