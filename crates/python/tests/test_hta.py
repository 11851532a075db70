"""`proflens.hta.TraceAnalysis` against HTA 0.5.0's goldens (tests/data/kineto/*/goldens):
every golden of every case, every rank, row and column.

Tolerances:
* kernel launch stats, idle time, queue length, memory bandwidth: the same
  rows in the same order; integers and names exact, floats within 1e-9
  relative (HTA's own float sums, as tests/hta_counters_parity.rs states).
  Except in the goldens where HTA's unstable sort of simultaneous points
  decides (tests/hta_counters_parity.rs lists them, docs/deviations.md says
  why): there the keys and counts are exact and the statistics within the
  bound given below.
* temporal breakdown and comm/comp overlap: µs exact and shares exact to
  HTA's two decimals, except in the goldens tests/kineto_parity.rs lists as
  not exact (their µs differ by up to the bound listed there; shares by that
  bound's share of the whole, plus 0.01 for HTA's rounding).
"""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from conftest import KINETO, cli

from proflens.hta import TraceAnalysis

# tests/kineto_parity.rs's NOT_EXACT_US for these two APIs: golden → µs bound.
NOT_EXACT_US = {
    "kineto-a100-ddp-nccl/hta_comm_comp_overlap.include_last_step.json": 35.0,
    "kineto-a100-ddp-nccl/hta_temporal_breakdown.include_last_step.json": 35.0,
    "kineto-a100-ddp-nccl/hta_temporal_breakdown.json": 13.0,
    "kineto-b200-vllm-tp8/hta_temporal_breakdown.json": 77.0,
    "kineto-h100-hf-inference/hta_temporal_breakdown.Falconsai_nsfw_image_detection__1016002.json": 2.0,
    "kineto-h100-hf-inference/hta_temporal_breakdown.gaunernst_bert-small-uncased__1016001.json": 1.0,
    "kineto-mi300x-hf-inference/hta_temporal_breakdown.json": 1.0,
}

# tests/hta_counters_parity.rs's tie-bound goldens: golden → relative bound of the statistics.
TIE_BOUND = {
    "kineto-a100-ddp-nccl/hta_queue_length_summary.include_last_step.json": 0.011,
    "kineto-a100-ddp-nccl/hta_queue_length_summary.json": 0.011,
    "kineto-trace-diff-a100-v100/hta_queue_length_summary.control.include_last_step.json": 0.011,
    "kineto-trace-diff-a100-v100/hta_queue_length_summary.control.json": 0.011,
    "kineto-trace-diff-a100-v100/hta_queue_length_summary.test.include_last_step.json": 0.011,
    "kineto-trace-diff-a100-v100/hta_queue_length_summary.test.json": 0.011,
    "kineto-v100-resnet50-pt19/hta_queue_length_summary.include_last_step.json": 0.011,
    "kineto-v100-resnet50-pt19/hta_queue_length_summary.json": 0.011,
}
# There the `Memcpy DtoD` row's statistics, its count too, are HTA's order's: only its keys are compared.
TIE_ROW = {
    "kineto-trace-diff-a100-v100/hta_memory_bandwidth_summary.test.include_last_step.json": "Memcpy DtoD",
    "kineto-trace-diff-a100-v100/hta_memory_bandwidth_summary.test.json": "Memcpy DtoD",
}

APIS = [
    "hta_temporal_breakdown",
    "hta_comm_comp_overlap",
    "hta_cuda_kernel_launch_stats",
    "hta_idle_time_breakdown",
    "hta_queue_length_summary",
    "hta_memory_bandwidth_summary",
]


STATISTICS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]


def goldens() -> list[tuple[str, str]]:
    """(case, golden file name) for every golden of the facade's APIs."""
    return [
        (case, golden.name)
        for case in sorted(p.name for p in KINETO.iterdir())
        for golden in sorted((KINETO / case / "goldens").glob("hta_*.json"))
        if any(golden.name.startswith(api + ".") for api in APIS)
    ]


def groups():
    """The goldens by case, traces and include_last_step: one TraceAnalysis (and
    one load of its traces) answers a group, as in an HTA notebook."""
    by: dict[tuple, list[str]] = {}
    for case, name in goldens():
        load = json.loads((KINETO / case / "goldens" / name).read_text())["load"]
        key = (case, tuple(load["ranks"].values()), load["include_last_profiler_step"])
        by.setdefault(key, []).append(name)
    return [pytest.param(key, names, id=f"{key[0]}/{'+'.join(key[1])}/last={key[2]}") for key, names in by.items()]


def analysis_of(case: str, golden: dict, ranks_dir) -> TraceAnalysis:
    """The facade on the golden's traces, in a folder of their own (a case whose
    files are separate runs has a golden per file)."""
    files = list(golden["load"]["ranks"].values())
    folder = ranks_dir(case, files)
    return TraceAnalysis(trace_dir=folder, include_last_profiler_step=golden["load"]["include_last_profiler_step"])


def assert_rows(frame: pd.DataFrame, rows: list[dict], columns: list[str], where: str, rtol: float = 1e-9):
    expected = pd.DataFrame.from_records(rows, columns=columns)
    assert list(frame.columns) == columns, where
    keys = [c for c in columns if c not in STATISTICS or c == "count"]
    pd.testing.assert_frame_equal(frame[keys], expected[keys], check_dtype=False, rtol=1e-9, atol=0, obj=where)
    pd.testing.assert_frame_equal(frame, expected, check_dtype=False, rtol=rtol, atol=0, obj=where)


def shares_tolerance(slack_us: float, whole_us: float) -> float:
    """Both sides round to two decimals (0.005 each), plus the µs bound's share."""
    return 0.01 + 1e-9 + (100.0 * slack_us / whole_us if whole_us else 0.0)


@pytest.mark.parametrize("key,names", groups())
def test_the_facade_gives_htas_dataframes(key, names, ranks_dir):
    case = key[0]
    analysis = None
    for name in names:
        golden = json.loads((KINETO / case / "goldens" / name).read_text())
        analysis = analysis or analysis_of(case, golden, ranks_dir)
        check(analysis, case, name, golden)


def check(analysis: TraceAnalysis, case: str, name: str, golden: dict):
    api = golden["api"].split(".")[1]
    where = f"{case}/{name}"
    slack = NOT_EXACT_US.get(where, 0.0)
    if api == "get_temporal_breakdown":
        frame = analysis.get_temporal_breakdown(visualize=False)
        assert len(frame) == len(golden["per_rank"]), where
        for (_, ours), g in zip(frame.iterrows(), golden["per_rank"]):
            assert ours["rank"] == g["rank"], where
            for column in ["idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)"]:
                assert abs(ours[column] - g[column]) <= slack, (where, column, ours[column], g[column])
            for column in ["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]:
                tol = shares_tolerance(slack, g["kernel_time(us)"])
                assert abs(ours[column] - g[column]) <= tol, (where, column, ours[column], g[column])
    elif api == "get_comm_comp_overlap":
        frame = analysis.get_comm_comp_overlap(visualize=False)
        assert list(frame["rank"]) == [g["rank"] for g in golden["per_rank"]], where
        for value, g in zip(frame["comp_comm_overlap_pctg"], golden["per_rank"]):
            theirs = g["comp_comm_overlap_pctg"]
            if theirs is None:
                assert pd.isna(value), where
            else:
                # The bound's share of the rank's communication is not in the golden: 0.5 points at most
                # for the listed golden (35 µs of the A100 rank's ~7 ms of NCCL kernels).
                assert abs(value - theirs) <= (0.5 if slack else 0.005 + 1e-9), (where, value, theirs)
    elif api == "get_cuda_kernel_launch_stats":
        frames = analysis.get_cuda_kernel_launch_stats(visualize=False)
        assert sorted(frames) == sorted(int(r) for r in golden["per_rank"]), where
        for rank, stats in golden["per_rank"].items():
            expected = pd.DataFrame(stats["columns"])
            pd.testing.assert_frame_equal(frames[int(rank)], expected, check_dtype=False, rtol=1e-9, obj=where)
    elif api == "get_idle_time_breakdown":
        idle, stats = analysis.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=True)
        assert_rows(idle, golden["idle_time"], ["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"], where)
        columns = ["rank", "stream", "idle_category", "count", "mean", "std", "min", "25%", "50%", "75%", "max"]
        assert_rows(stats, golden["idle_interval_stats"], columns, where)
        assert analysis.get_idle_time_breakdown()[1] is None, "HTA's default shows no interval stats"
    else:
        summary = (
            analysis.get_queue_length_summary()
            if api == "get_queue_length_summary"
            else analysis.get_memory_bw_summary()
        )
        if golden["returned_none"]:
            assert summary is None, where
        else:
            keys = ["rank", "stream"] if api == "get_queue_length_summary" else ["rank", "name"]
            columns = [*keys, "count", "mean", "std", "min", "25%", "50%", "75%", "max"]
            rows = golden["rows"]
            if where in TIE_ROW:
                tied = summary["name"] == TIE_ROW[where]
                assert list(summary.loc[tied, keys].itertuples(index=False, name=None)) == [
                    tuple(r[k] for k in keys) for r in rows if r["name"] == TIE_ROW[where]
                ], where
                summary = summary[~tied].reset_index(drop=True)
                rows = [r for r in rows if r["name"] != TIE_ROW[where]]
            assert_rows(summary, rows, columns, where, TIE_BOUND.get(where, 1e-9))


def test_every_api_is_checked_on_a_golden():
    names = {name.split(".")[0] for _, name in goldens()}
    assert names == set(APIS)


def test_critical_path_is_the_clis_table(ranks_dir):
    folder = ranks_dir("kineto-multirank-sampled", ["sampled_rank-0.json.gz", "sampled_rank-1.json.gz"])
    path, found = TraceAnalysis(trace_dir=folder).critical_path_analysis(rank=1, annotation="ProfilerStep", instance_id=0)
    assert found and len(path) > 0
    shown = cli("tool", folder, "critical_path", "--host", "sampled_rank-1", "--annotation", "ProfilerStep", "--step", "0", "--format", "csv")
    pd.testing.assert_frame_equal(path, pd.read_csv(io.BytesIO(shown.stdout)), check_exact=True)
    with pytest.raises(ValueError, match="no rank 7"):
        TraceAnalysis(trace_dir=folder).critical_path_analysis(rank=7, annotation="ProfilerStep", instance_id=0)


def test_other_parameters_than_htas_defaults_are_refused(ranks_dir):
    folder = ranks_dir("kineto-multirank-sampled", ["sampled_rank-0.json.gz"])
    with pytest.raises(ValueError, match="runtime_cutoff"):
        TraceAnalysis(trace_dir=folder).get_cuda_kernel_launch_stats(runtime_cutoff=10)
