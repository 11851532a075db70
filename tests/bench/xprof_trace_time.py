"""Times XProf 2.24's trace-viewer conversion of one xplane file.

Usage: python3 xprof_trace_time.py XPLANE_FILE   (a Python with the `xprof` package)

Converts a copy (XProf writes cache files next to its input) with the
streaming viewer's default parameters and with the legacy JSON viewer, each in
a fresh process, and prints JSON: conversion seconds (imports excluded), bytes
produced and peak memory. `cargo xtask bench-web` runs it beside Proflens's
own browser measurements.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import json, resource, sys, time
from xprof.convert import raw_to_tool_data
t0 = time.perf_counter()
params = {"resolution": 8000, "full_dma": False} if sys.argv[2] == "trace_viewer@" else {}
data, _ = raw_to_tool_data.xspace_to_tool_data([sys.argv[1]], sys.argv[2], params)
print(json.dumps({"tool": sys.argv[2], "convert_s": time.perf_counter() - t0,
                  "bytes": len(data) if data else 0,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
'''


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = []
    for tool in ['trace_viewer@', 'trace_viewer']:
        scratch = tempfile.mkdtemp(prefix='xprof-trace-')
        try:
            copy = os.path.join(scratch, 'plugins', 'profile', 'run', 'host.xplane.pb')
            os.makedirs(os.path.dirname(copy))
            shutil.copy(sys.argv[1], copy)
            start = time.perf_counter()
            out = subprocess.run([sys.executable, '-c', CHILD, copy, tool], capture_output=True, text=True)
            if out.returncode != 0:
                results.append({'tool': tool, 'error': out.stderr.strip().splitlines()[-1:] or ['failed']})
                continue
            result = json.loads(out.stdout.strip().splitlines()[-1])
            result['process_s'] = time.perf_counter() - start
            results.append(result)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps({'file': sys.argv[1], 'xprof': results}, indent=2))


if __name__ == '__main__':
    main()
