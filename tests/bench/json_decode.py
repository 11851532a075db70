"""Trace JSON decode speed: Proflens vs a validating JSON walk vs Python.

Usage: python3 json_decode.py PROFLENS_BINARY TRACE_FILE [REPEATS] [JSON_WALK_BINARY]

Prints, as JSON, best of REPEATS (MB/s = decimal megabytes of the file per
second):

* `proflens_decode`: the `decode` phase of `proflens bench FILE` (the file
  held in memory, parsed and built into Proflens's model);
* `serde_walk`: serde_json checking the same bytes without building
  anything (`from_slice::<IgnoredAny>`), from the `json_walk` example
  (`cargo build --release -p proflens-format --example json_walk`); its
  streamed decode (`proflens_stream`, the path of files over 128 MiB and of
  the browser) comes from the same binary;
* `python_json_loads`: Python's `json.loads` of the bytes;

and the ratios between them (Python is left out with SKIP_PYTHON=1: it
needs several times the file's size in memory). JSON_WALK_BINARY defaults to the `json_walk`
beside PROFLENS_BINARY (target/release/examples/json_walk).
"""

import json
import os
import subprocess
import sys
import time


def proflens_decode_ms(binary, trace, repeats):
    out = subprocess.run([binary, 'bench', trace, '--repeat', str(repeats)],
                         check=True, capture_output=True, text=True)
    return next(p['ms'] for p in json.loads(out.stdout)['phases'] if p['name'] == 'decode')


def walk_ms(walker, mode, trace, repeats):
    out = subprocess.run([walker, mode, trace, str(repeats)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)['ms']


def python_ms(trace, repeats):
    with open(trace, 'rb') as f:
        raw = f.read()
    best = float('inf')
    for _ in range(repeats):
        start = time.perf_counter()
        json.loads(raw)
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, trace = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    walker = sys.argv[4] if len(sys.argv) > 4 else os.path.join(os.path.dirname(binary), 'examples', 'json_walk')
    size = os.path.getsize(trace)
    ms = {
        'proflens_decode': proflens_decode_ms(binary, trace, repeats),
        'proflens_stream': walk_ms(walker, '--stream', trace, repeats),
        'serde_walk': walk_ms(walker, '--walk', trace, repeats),
    }
    if os.environ.get('SKIP_PYTHON') != '1':
        ms['python_json_loads'] = python_ms(trace, repeats)
    mb_s = {k: round(size / 1e6 / (v / 1000), 1) for k, v in ms.items()}
    print(json.dumps({
        'file': trace,
        'bytes': size,
        'repeats': repeats,
        'ms': {k: round(v, 1) for k, v in ms.items()},
        'mb_s': mb_s,
        'ratio_decode_over_serde_walk': round(mb_s['proflens_decode'] / mb_s['serde_walk'], 3),
        'ratio_decode_over_python': round(mb_s['proflens_decode'] / mb_s['python_json_loads'], 3) if 'python_json_loads' in mb_s else None,
        'ratio_stream_over_decode': round(mb_s['proflens_stream'] / mb_s['proflens_decode'], 3),
    }, indent=2))


if __name__ == '__main__':
    main()
