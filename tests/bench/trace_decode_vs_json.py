"""Decoding a trace-event JSON file: Proflens vs Python's own json module.

Usage: python3 trace_decode_vs_json.py PROFLENS_BINARY TRACE_FILE [REPEATS]

The baseline every PyTorch trace tool (HTA, torch-tb-profiler) starts from is
`json.load` of the (gzip) trace; Proflens's decode does that work and builds
its model. Both run here on the same file, best of REPEATS, and the script
prints their times and the ratio baseline / Proflens as JSON.
"""

import gzip
import json
import subprocess
import sys
import time


def python_load(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    return json.loads(raw)


def main():
    binary, trace = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    out = subprocess.run([binary, 'bench', trace, '--repeat', str(repeats)], check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    proflens_ms = next(p['ms'] for p in report['phases'] if p['name'] == 'decode')
    best = float('inf')
    for _ in range(repeats):
        start = time.perf_counter()
        python_load(trace)
        best = min(best, (time.perf_counter() - start) * 1000)
    print(json.dumps({
        'file': trace,
        'events': report['events'],
        'proflens_decode_ms': round(proflens_ms, 1),
        'python_json_load_ms': round(best, 1),
        'ratio_python_over_proflens': round(best / proflens_ms, 2),
    }, indent=2))


if __name__ == '__main__':
    main()
