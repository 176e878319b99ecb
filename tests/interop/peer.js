// SPDX-License-Identifier: Apache-2.0
// The transit-js side of the interop tests (tests/interop/interop_test.cpp drives it).
//
//   node peer.js roundtrip ENC [FILE]  reads one Transit value per line (JSON or JSON-Verbose)
//                                      from FILE or stdin and prints, per value, one line
//                                      `DESCRIPTION<TAB>TEXT`: how transit-js typed what it
//                                      read, and the value written back by transit-js in ENC.
//   node peer.js fixtures ENC          prints `NAME<TAB>TEXT` for each value of the fixture set
//                                      below, written by transit-js in ENC.
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

function roundtrip(enc, file) {
  const input = fs.readFileSync(file === undefined || file === '-' ? 0 : file, 'utf8');
  const reader = t.reader('json');
  const writer = writerFor(enc);
  const out = [];
  for (const line of input.split('\n')) {
    if (line === '') continue;
    try {
      const v = reader.read(line);
      out.push(describe(v) + '\t' + writer.write(v));
    } catch (e) {
      out.push('error:' + String(e.message).replace(/[\t\n]/g, ' ') + '\t');
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}

function writeFixtures(enc) {
  const writer = writerFor(enc);
  const out = fixtures().map(([name, v]) => name + '\t' + writer.write(v));
  process.stdout.write(out.join('\n') + '\n');
}

function main(argv) {
  const [mode, enc, file] = argv;
  if (mode === 'roundtrip') roundtrip(enc, file);
  else if (mode === 'fixtures') writeFixtures(enc);
  else if (mode === 'version') {
    process.stdout.write(require(require.resolve('transit-js/package.json', searchPaths)).version + '\n');
  }
  else {
    process.stderr.write('usage: node peer.js roundtrip ENC [FILE] | fixtures ENC | version\n');
    process.exit(2);
  }
}

main(process.argv.slice(2));
