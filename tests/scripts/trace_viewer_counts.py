"""Summarises XProf's trace_viewer@ goldens for tests/trace_viewer_parity.rs.

For each fixture with a `trace_viewer@` golden in ../shared/fixtures, writes
tests/data/goldens/<case>/trace_viewer_counts.json: XProf's complete (`X`)
events counted per process (without XProf's host-name prefix), thread and
event name. The goldens are 1-9 MB each; their counts are what the parity
test compares, so only the counts are kept. Run from the repository root:

    python3 tests/scripts/trace_viewer_counts.py ../shared/fixtures
"""
import collections
import gzip
import json
import pathlib
import re
import sys

CASES = {
    "custom_loop": "custom_loop/goldens/trace_viewer@.json",
    "custom_loop_xla": "custom_loop_xla/goldens/trace_viewer@.json",
    "input_bound": "input_bound/goldens/trace_viewer@.json",
    "jax_mlp": "jax_mlp/goldens/trace_viewer@.json",
    "keras_fit": "keras_fit/goldens/trace_viewer@.json",
    "jax-mi300x-gemm-xplane": "external/jax-mi300x-gemm-xplane/goldens/trace_viewer@.json",
    "jax-mi300x-conv-xplane-jax06": "external/jax-mi300x-conv-xplane-jax06/goldens/trace_viewer@.json",
    "jax-tpu-v6e-inference-xplane": "external/jax-tpu-v6e-inference-xplane/goldens/trace_viewer@.json.gz",
    "tf-gpu-multiworker-bert-xplane": "external/tf-gpu-multiworker-bert-xplane/goldens/trace_viewer@.34.83.195.179_6003.json.gz",
}


def counts(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path) as f:
        events = json.load(f)["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    table = collections.defaultdict(collections.Counter)
    for e in events:
        if e.get("ph") != "X":
            continue
        # XProf names processes "<host> <plane>"; the plane is what both sides share.
        process = re.sub(r"^\S+ (?=/)", "", processes[e["pid"]])
        table[f"{process}\t{threads[(e['pid'], e['tid'])]}"][e["name"]] += 1
    return {key: dict(sorted(names.items())) for key, names in sorted(table.items())}


def main(shared):
    out_root = pathlib.Path(__file__).resolve().parent.parent / "data" / "goldens"
    for case, golden in CASES.items():
        summary = counts(pathlib.Path(shared) / golden)
        out = out_root / case / "trace_viewer_counts.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"source": golden, "threads": summary}, indent=0, sort_keys=True) + "\n")
        print(out, sum(sum(n.values()) for n in summary.values()), "events")


if __name__ == "__main__":
    main(sys.argv[1])
