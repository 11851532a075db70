"""HTA's analyses of a PyTorch trace: HolisticTraceAnalysis vs the proflens CLI.

Usage: python3 hta_vs_proflens.py PROFLENS_BINARY TRACE_FILE [REPEATS]

Needs `pip install HolisticTraceAnalysis==0.5.0` (the version of the goldens;
pandas 3.1.1 and numpy 2.4.6 made them). For each analysis that both have,
one run is: HTA loading the trace (`TraceAnalysis(trace_files={0: …})`,
its defaults) and calling the analysis, against `proflens tool TRACE TOOL
--format hta` as a fresh process (it decodes the trace too). Both are timed
on the same file in this one script, median of REPEATS cold runs each, and
the script prints the times and the ratio HTA / Proflens as JSON (whether
the numbers agree is the parity tests' job: tests/*_parity.rs).
"""

import json
import os
import statistics
import subprocess
import sys
import time

ANALYSES = {
    # proflens tool: (HTA method, keyword arguments)
    'kernel_launch_stats': ('get_cuda_kernel_launch_stats', {'visualize': False}),
    'idle_time_breakdown': ('get_idle_time_breakdown', {'visualize': False, 'show_idle_interval_stats': True}),
    'queue_length': ('get_queue_length_summary', {}),
    'memory_bandwidth': ('get_memory_bw_summary', {}),
}


def hta_run(trace, method, kwargs):
    from hta.trace_analysis import TraceAnalysis

    started = time.perf_counter()
    analysis = TraceAnalysis(trace_files={0: os.path.abspath(trace)}, trace_dir='/')
    getattr(analysis, method)(**kwargs)
    return time.perf_counter() - started


def proflens_run(binary, trace, tool):
    started = time.perf_counter()
    out = subprocess.run([binary, 'tool', trace, tool, '--format', 'hta'], check=True, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    return elapsed, json.loads(out.stdout)


def main():
    binary, trace = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    report = {'trace': trace, 'bytes': os.path.getsize(trace), 'repeats': repeats, 'analyses': {}}
    for tool, (method, kwargs) in ANALYSES.items():
        # Each HTA run in its own process, so that none reuses another's parse.
        hta = []
        for _ in range(repeats):
            code = (
                'import sys, json; sys.path[:0] = [%r]; import hta_vs_proflens as b; '
                'print(json.dumps(b.hta_run(%r, %r, %r)))' % (os.path.dirname(__file__), trace, method, kwargs)
            )
            out = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True, text=True)
            hta.append(float(out.stdout.strip().splitlines()[-1]))
        ours = [proflens_run(binary, trace, tool)[0] for _ in range(repeats)]
        h, p = statistics.median(hta), statistics.median(ours)
        report['analyses'][tool] = {'hta_s': round(h, 3), 'proflens_s': round(p, 3), 'ratio': round(h / p, 1)}
    print(json.dumps(report, indent=1))


if __name__ == '__main__':
    main()
