"""HTA's ``TraceAnalysis`` on PyTorch (Kineto) traces, answered by Proflens.

An HTA notebook switches by its import::

    from proflens.hta import TraceAnalysis      # was: from hta.trace_analysis import TraceAnalysis
    analyzer = TraceAnalysis(trace_dir="traces/")
    analyzer.get_temporal_breakdown()

Each method returns DataFrames with HTA 0.5.0's columns and values, as
``proflens tool ... --format hta`` prints them (docs/python.md). HTA's
defaults are the parameters computed (launch cutoffs 50 and 100 µs, a
consecutive kernel delay of 30 µs); other values raise ``ValueError`` rather
than answering for the defaults. There is nothing to draw: ``visualize`` is
accepted and ignored. Failures raise :class:`proflens.ProflensError` with the
command's message.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Iterable

from ._api import Profile, _pandas
from ._run import flags, run_json

if TYPE_CHECKING:
    import pandas

__all__ = ["TraceAnalysis"]

_TEMPORAL_COLUMNS = [
    "rank",
    "idle_time(us)",
    "compute_time(us)",
    "non_compute_time(us)",
    "kernel_time(us)",
    "idle_time_pctg",
    "compute_time_pctg",
    "non_compute_time_pctg",
]
_STATS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]


def _only_default(name: str, value: Any, default: Any) -> None:
    if value != default:
        raise ValueError(f"{name}={value!r}: Proflens computes HTA's default {name}={default!r} only")


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> "pandas.DataFrame":
    return _pandas().DataFrame.from_records(rows, columns=columns)


def _of_ranks(frame: "pandas.DataFrame", ranks: Iterable[int] | None) -> "pandas.DataFrame":
    if ranks is None:
        return frame
    return frame[frame["rank"].isin(list(ranks))].reset_index(drop=True)


class TraceAnalysis:
    """The traces of a job's ranks in ``trace_dir`` (``*.json``, ``*.json.gz``),
    as HTA's ``TraceAnalysis(trace_dir=...)`` reads them."""

    def __init__(self, trace_dir: str | os.PathLike[str], include_last_profiler_step: bool = False):
        self.trace_dir = os.fspath(trace_dir)
        self.include_last_profiler_step = include_last_profiler_step
        self._breakdowns: dict[str, Any] | None = None

    def _hta(self, tool: str, **options: Any) -> dict[str, Any]:
        last = flags({"include_last_step": self.include_last_profiler_step})
        return run_json("tool", self.trace_dir, tool, "--format", "hta", *last, *flags(options))

    def _breakdown(self, part: str) -> list[dict[str, Any]]:
        if self._breakdowns is None:
            self._breakdowns = self._hta("overview_page")
        return self._breakdowns[part]["per_rank"]

    def get_temporal_breakdown(self, visualize: bool = True) -> "pandas.DataFrame":
        """Per rank: idle, compute and non-compute time in µs, the span of the
        rank's kernels (``kernel_time(us)``) and the three shares in %."""
        return _frame(self._breakdown("temporal_breakdown"), _TEMPORAL_COLUMNS)

    def get_comm_comp_overlap(self, visualize: bool = True) -> "pandas.DataFrame":
        """Per rank: the share of communication time that overlaps computation
        (``None`` for a rank without communication)."""
        return _frame(self._breakdown("comm_comp_overlap"), ["rank", "comp_comm_overlap_pctg"])

    def get_cuda_kernel_launch_stats(
        self,
        ranks: list[int] | None = None,
        runtime_cutoff: int = 50,
        launch_delay_cutoff: int = 100,
        include_memory_events: bool = True,
        visualize: bool = True,
    ) -> "dict[int, pandas.DataFrame]":
        """Per rank, a row per kernel launch (``correlation``) with the launch's
        CPU duration, the kernel's GPU duration and the launch delay, in µs."""
        _only_default("runtime_cutoff", runtime_cutoff, 50)
        _only_default("launch_delay_cutoff", launch_delay_cutoff, 100)
        _only_default("include_memory_events", include_memory_events, True)
        per_rank = self._hta("kernel_launch_stats")["per_rank"]
        pd = _pandas()
        return {
            int(rank): pd.DataFrame(stats["columns"])
            for rank, stats in per_rank.items()
            if ranks is None or int(rank) in ranks
        }

    def get_idle_time_breakdown(
        self,
        ranks: list[int] | None = None,
        streams: list[int] | None = None,
        visualize: bool = True,
        visualize_pctg: bool = True,
        show_idle_interval_stats: bool = False,
        consecutive_kernel_delay: int = 30,
    ) -> "tuple[pandas.DataFrame, pandas.DataFrame | None]":
        """Per rank, stream and category (``host_wait``, ``kernel_wait``,
        ``other``): idle µs and its ratio; with ``show_idle_interval_stats``
        also the statistics of the gaps."""
        _only_default("consecutive_kernel_delay", consecutive_kernel_delay, 30)
        hta = self._hta("idle_time_breakdown")
        idle = _frame(hta["idle_time"], ["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"])
        stats = _frame(hta["idle_interval_stats"], ["rank", "stream", "idle_category", *_STATS])
        if streams is not None:
            idle = idle[idle["stream"].isin(streams)].reset_index(drop=True)
            stats = stats[stats["stream"].isin(streams)].reset_index(drop=True)
        return _of_ranks(idle, ranks), (_of_ranks(stats, ranks) if show_idle_interval_stats else None)

    def _summary(self, tool: str, keys: list[str], ranks: list[int] | None) -> "pandas.DataFrame | None":
        hta = self._hta(tool)
        if hta["returned_none"]:
            return None
        return _of_ranks(_frame(hta["rows"], [*keys, *_STATS]), ranks)

    def get_queue_length_summary(self, ranks: list[int] | None = None) -> "pandas.DataFrame | None":
        """Per rank and stream: statistics of the stream's queue length (kernels
        launched and not yet started), over HTA's points; None without launches."""
        return self._summary("queue_length", ["rank", "stream"], ranks)

    def get_memory_bw_summary(self, ranks: list[int] | None = None) -> "pandas.DataFrame | None":
        """Per rank and memcpy/memset kind: statistics of the GB/s series over its
        positive points; None without memory copies."""
        return self._summary("memory_bandwidth", ["rank", "name"], ranks)

    get_memory_bandwidth_summary = get_memory_bw_summary

    def critical_path_analysis(
        self, rank: int, annotation: str, instance_id: int | None
    ) -> "tuple[pandas.DataFrame, bool]":
        """The critical path of ``rank`` through the iterations named by
        ``annotation`` (``instance_id``: only that one, from 0). HTA returns its
        graph object; this returns the path as a table (a row per segment, as
        ``proflens tool ... critical_path --format csv``) and whether one was found."""
        self._breakdown("temporal_breakdown")
        ranks = self._breakdowns["load"]["ranks"] if self._breakdowns else {}
        if str(rank) not in ranks:
            raise ValueError(f"no rank {rank}; the ranks are: {', '.join(ranks)}")
        options = {"host": ranks[str(rank)], "annotation": annotation, "step": instance_id}
        result = Profile(self.trace_dir).tool("critical_path", **options)
        path = result.to_pandas()
        return path, len(path) > 0
