"""Proflens vs XProf on the same profile, measured in one script.

Usage: python3 compare_xprof.py PROFLENS_BINARY XPLANE_FILE [XPROF_PYTHON]

Runs `proflens bench XPLANE_FILE` (decode + each tool, best of 3 in one
process) and XProf 2.24's own converter (`xprof.convert.raw_to_tool_data`, the
code behind XProf's /data route) for the same tools, each XProf tool in a fresh
process as the plugin does, on a copy of the file (XProf writes cache files
next to its input). XPROF_PYTHON is a Python with the `xprof` package
(default: this one). Prints JSON with both sides' times, peak memory and the
ratios XProf / Proflens. Not part of the test suite: it needs XProf from PyPI.
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

TOOLS = ['overview_page', 'input_pipeline_analyzer', 'framework_op_stats']

XPROF_CHILD = r'''
import json, sys, time, resource
t0 = time.perf_counter()
from xprof.convert import raw_to_tool_data
t1 = time.perf_counter()
data, _ = raw_to_tool_data.xspace_to_tool_data([sys.argv[1]], sys.argv[2], {})
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "convert_s": t2 - t1,
                  "bytes": len(data) if data else 0,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
'''


def run_xprof(python, xplane, tool):
    scratch = tempfile.mkdtemp(prefix='xprof-bench-')
    try:
        copy = os.path.join(scratch, 'plugins', 'profile', 'run', 'host.xplane.pb')
        os.makedirs(os.path.dirname(copy))
        shutil.copy(xplane, copy)
        start = time.perf_counter()
        out = subprocess.run([python, '-c', XPROF_CHILD, copy, tool], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result['process_s'] = wall
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    proflens, xplane = sys.argv[1], sys.argv[2]
    python = sys.argv[3] if len(sys.argv) > 3 else sys.executable
    start = time.perf_counter()
    bench = json.loads(subprocess.run([proflens, 'bench', xplane], capture_output=True, text=True, check=True).stdout)
    proflens_process_s = time.perf_counter() - start
    phases = {p['name']: p for p in bench['phases']}
    shared_ms = phases['decode']['ms'] + phases['shared_analysis']['ms']
    rows = []
    for tool in TOOLS:
        xprof = run_xprof(python, xplane, tool)
        ours_ms = shared_ms + phases[tool]['ms']
        rows.append({
            'tool': tool,
            'proflens_ms': ours_ms,
            'xprof_convert_ms': xprof['convert_s'] * 1000,
            'xprof_process_ms': xprof['process_s'] * 1000,
            'ratio_xprof_over_proflens': (xprof['convert_s'] * 1000) / ours_ms if ours_ms else None,
            'proflens_peak_rss_bytes': phases[tool]['peak_rss_bytes'],
            'xprof_peak_rss_bytes': xprof['peak_rss_bytes'],
        })
    print(json.dumps({
        'file': xplane,
        'bytes': bench['bytes'],
        'events': bench['events'],
        'proflens_whole_run_ms (3 repeats of every phase)': proflens_process_s * 1000,
        'note': 'proflens_ms = decode + shared analysis + the tool (best of 3, one process); '
                'xprof_convert_ms = raw_to_tool_data for the tool in a fresh process, imports excluded',
        'tools': rows,
    }, indent=2))


if __name__ == '__main__':
    main()
