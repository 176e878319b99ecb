#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs transit-simdjson-walk's check-fused on small JSON texts, valid and not, and on every
*.json of a corpora directory: the fused stage 2 (bench/simdjson_fused.cpp) must read each
as simdjson's DOM parse and tape walk do (the same events, hashed whole) or refuse it as they
do (docs/performance-log.md, "JSON read, round twenty").

usage: bench/check_fused.py build/bench/transit-simdjson-walk [CORPORA_DIR]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

CASES = [
    '[]', '{}', '[1,2,3]', '{"a":1}', '[1,]', '[,1]', '{"a" 1}', '{"a":}', '{"a":1,}', '{1:2}',
    '[1 2]', '[1}', '{"a":1]', '[[]', '[]]', '[] []', '[]x', '  [ 1 , "x" ]  ', 'true', 'false',
    'null', 'tru', 'truex', '[truex]', '[nul]', '[null ]', '[falsey]', '1', '-1', '-0', '0', '01',
    '[01]', '[-]', '[1.]', '[.5]', '[1e]', '[1e+]', '[1E-2]', '[1.5e3]', '[-9223372036854775808]',
    '[-9223372036854775809]', '[9223372036854775807]', '[9223372036854775808]',
    '[18446744073709551615]', '[18446744073709551616]', '[99999999999999999999]',
    '[100000000000000000000]', '[1e400]', '[1e-400]', '[-0.0]', '[0.1]',
    '[3.141592653589793238462643383279]', '[2.2250738585072011e-308]', '[12a]', '[1"a"]',
    '["a"x]', '["a" "b"]', '["a\\"b"]', '["a\\\\"]', '["\\u00e9\\n"]', '["\\ud800"]', '["\\x"]',
    '["abc', '"abc"', '""', '[""]', '{"":""}', '["a\\u0000b"]', '[{"k":[1,{"z":null}]}]',
    '[' * 1023 + ']' * 1023, '[' * 1024 + ']' * 1024, '[' * 1025 + ']' * 1025,
    '{"a":{"b":{"c":[true,false,null]}}}', '[1,\t2\r\n]', '[\u00e9]', '["\u00e9"]', '[1]\x00',
    '[-01]', '[-1.0e05]', '[1e05]', '[0e0]', '["x",]', '[:]', '{"a"::1}', '{"a":1 "b":2}', '{,}',
    '[1,,2]', '[-1e-400]', '[-1e400]', '[1e308]', '[1.8e308]', '[4.9e-324]', '[2.4e-324]',
    '[2.5e-324]', '[0.0000001e-330]', '[123456789012345678901234567890e-400]',
    '[1e-999999999999999999999]', '[-0.0e-999]',
]
RAW = [b'["\xff"]', b'["\x01"]']


def texts():
    for c in CASES:
        yield c.encode('utf-8')
    yield from RAW
    rng = random.Random(7)
    for i in range(40):  # strings of quotes, backslashes and spaces, escaped by json.dumps
        s = ''.join(rng.choice('ab\\\\ "') for _ in range(rng.randint(0, 40)))
        yield json.dumps([s, 'x' * len(s), s + 'y' * (i % 9)]).encode('utf-8')


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    tool = sys.argv[1]
    failed = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, text in enumerate(texts()):
            path = os.path.join(tmp, 'case%03d.json' % i)
            with open(path, 'wb') as f:
                f.write(text)
            paths.append(path)
        if len(sys.argv) == 3:
            paths += sorted(os.path.join(sys.argv[2], n) for n in os.listdir(sys.argv[2])
                            if n.endswith('.json'))
        for path in paths:
            run = subprocess.run([tool, path, '1', 'check-fused'], capture_output=True)
            checked += 1
            if run.returncode != 0:
                failed += 1
                with open(path, 'rb') as f:
                    head = f.read(80)
                print('differs:', run.stdout.decode(errors='replace').strip(), head)
    print('%d texts, %d differ' % (checked, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
