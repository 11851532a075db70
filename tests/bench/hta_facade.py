"""An HTA notebook's calls, HolisticTraceAnalysis 0.5.0 against proflens.hta.

Usage: python3 hta_facade.py TRACE_DIR [REPEATS]

Run with a Python that has both `HolisticTraceAnalysis==0.5.0` and the proflens
wheel (`cargo xtask wheel`; pandas 3.1.1). One run, in a fresh process each
(cold: imports, trace loading and every call): `TraceAnalysis(trace_dir=…)`,
then `get_temporal_breakdown`, `get_comm_comp_overlap`,
`get_cuda_kernel_launch_stats`, `get_idle_time_breakdown`,
`get_queue_length_summary`, `get_memory_bw_summary`, the same calls with the
same arguments on both. Prints the median of REPEATS runs of each side, the
time of each call in the median run, and the ratio HTA / Proflens, as JSON.
Whether the numbers agree is crates/python/tests/test_hta.py's job.
"""

import json
import statistics
import subprocess
import sys

NOTEBOOK = """
import json, sys, time
started = time.perf_counter()
from {module} import TraceAnalysis
times = {{"import": time.perf_counter() - started}}
def timed(name, call):
    t = time.perf_counter()
    call()
    times[name] = time.perf_counter() - t
analysis = None
def load():
    global analysis
    analysis = TraceAnalysis(trace_dir=sys.argv[1])
timed("TraceAnalysis", load)
timed("get_temporal_breakdown", lambda: analysis.get_temporal_breakdown(visualize=False))
timed("get_comm_comp_overlap", lambda: analysis.get_comm_comp_overlap(visualize=False))
timed("get_cuda_kernel_launch_stats", lambda: analysis.get_cuda_kernel_launch_stats(visualize=False))
timed("get_idle_time_breakdown", lambda: analysis.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=True))
timed("get_queue_length_summary", lambda: analysis.get_queue_length_summary())
timed("get_memory_bw_summary", lambda: analysis.get_memory_bw_summary())
times["total"] = time.perf_counter() - started
print(json.dumps(times))
"""

SIDES = {"hta": "hta.trace_analysis", "proflens": "proflens.hta"}


def run(module, trace_dir):
    out = subprocess.run(
        [sys.executable, "-c", NOTEBOOK.format(module=module), trace_dir],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        sys.exit(f"{module} failed on {trace_dir}:\n{out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    trace_dir = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    runs = {side: [] for side in SIDES}
    for _ in range(repeats):  # interleaved, so load on the machine falls on both
        for side, module in SIDES.items():
            runs[side].append(run(module, trace_dir))
    result = {"trace_dir": trace_dir, "repeats": repeats}
    for side in SIDES:
        totals = sorted(r["total"] for r in runs[side])
        median = statistics.median(totals)
        result[side] = {
            "median_s": round(median, 3),
            "runs_s": [round(t, 3) for t in totals],
            "calls_s_of_median_run": {
                k: round(v, 3) for k, v in min(runs[side], key=lambda r: abs(r["total"] - median)).items()
            },
        }
    result["hta_over_proflens"] = round(result["hta"]["median_s"] / result["proflens"]["median_s"], 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
