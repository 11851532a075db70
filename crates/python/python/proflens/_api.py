"""``proflens.open``, ``Profile.tool``, ``Profile.advise``, ``proflens.compare``."""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING, Any

from ._run import ProflensError, flags, run, run_json

if TYPE_CHECKING:
    import pandas


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - the message is what matters
        raise ImportError("DataFrames need pandas: pip install 'proflens[pandas]'") from e
    return pandas


class ToolResult:
    """One tool's result on one host or a run's hosts: :meth:`to_json` is the
    view model (``--format json``), :meth:`to_pandas` its tables."""

    def __init__(self, args: list[str], view: Any):
        self._args = args
        self._view = view
        self._csv: bytes | None = None

    def to_json(self) -> Any:
        """The tool's view model, as ``proflens tool ... --format json`` prints it."""
        return self._view

    def csv(self) -> str:
        """The tool's main table as ``proflens tool ... --format csv`` prints it."""
        if self._csv is None:
            self._csv = run(*self._args, "--format", "csv")[1]
        return self._csv.decode()

    @property
    def tables(self) -> list[str]:
        """The names :meth:`to_pandas` takes besides the main table: each field of
        the view model that is a list of records (``"a/b"`` for a nested one)."""
        return [name for name, _ in _record_lists(self._view, "")]

    def to_pandas(self, table: str | None = None) -> "pandas.DataFrame":
        """The main table (the rows and columns of ``--format csv``), or the
        view model's list of records named ``table`` (see :attr:`tables`)."""
        pd = _pandas()
        if table is None:
            return pd.read_csv(io.StringIO(self.csv()))
        for name, records in _record_lists(self._view, ""):
            if name == table:
                return pd.DataFrame.from_records(records)
        raise ProflensError(f"no table {table!r}; the tables are: {', '.join(self.tables) or 'none'}")

    def __repr__(self) -> str:
        return f"<proflens.ToolResult {' '.join(self._args[1:3])}>"


def _record_lists(value: Any, prefix: str):
    """(name, list) for each list of objects in a view model, depth first."""
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{prefix}/{key}" if prefix else key
            if isinstance(item, list) and item and all(isinstance(r, dict) for r in item):
                yield name, item
            yield from _record_lists(item, name)


class Profile:
    """A profile file, a run folder, a log directory or an archive of profiles,
    as ``proflens`` reads it. Listing its runs and hosts reads no profile; each
    :meth:`tool` call reads what the tool needs, as the command does."""

    def __init__(self, path: str | os.PathLike[str], run: str | None = None):
        self.path = os.fspath(path)
        listed = run_json("info", self.path, "--list")
        self._hosts = {r["name"]: [h["name"] for h in r["hosts"]] for r in listed["runs"]}
        self._files = {r["name"]: {h["name"]: h["files"] for h in r["hosts"]} for r in listed["runs"]}
        if run is not None and run not in self._hosts and "+" not in run:
            raise ProflensError(f"{self.path}: no run {run!r}; the runs are: {', '.join(self._hosts)}")
        self.run = run if run is not None else (next(iter(self._hosts)) if len(self._hosts) == 1 else None)

    @property
    def runs(self) -> list[str]:
        """The runs found, as ``proflens info`` names them."""
        return list(self._hosts)

    @property
    def hosts(self) -> list[str]:
        """The hosts (or PyTorch ranks) of :attr:`run`."""
        if self.run is None:
            raise ProflensError(
                f"{self.path} holds {len(self._hosts)} runs; choose one: proflens.open(path, run=...) "
                f"with one of {', '.join(self._hosts)}"
            )
        if "+" in self.run:
            return [h for part in self.run.split("+") for h in self._hosts.get(part, [])]
        return list(self._hosts[self.run])

    def files(self, host: str, run: str | None = None) -> list[str]:
        """The files ``host`` of ``run`` (default :attr:`run`) is read from."""
        run = run or self.run or ""
        for part in run.split("+"):
            if host in self._files.get(part, {}):
                return list(self._files[part][host])
        raise ProflensError(f"run {run!r} has no host {host!r}")

    def _where(self, run: str | None, host: str | None) -> list[str]:
        run = run if run is not None else self.run
        return [*(["--run", run] if run else []), *(["--host", host] if host else [])]

    def tool(self, name: str, run: str | None = None, host: str | None = None, **options: Any) -> ToolResult:
        """Runs the tool ``name`` (``proflens tools`` lists them; XProf's names)
        on ``host``, or without one on every host of the run together, as
        ``proflens tool PATH NAME`` does. ``options`` are the command's
        (``include_last_step=True``, ``module="jit_f(1)"``, ``step=0``, ...)."""
        args = ["tool", self.path, name, *self._where(run, host), *flags(options)]
        return ToolResult(args, run_json(*args, "--format", "json"))

    def advise(self, run: str | None = None, host: str | None = None) -> list[dict[str, Any]]:
        """The Advisor's findings, the costliest first: each with its estimated
        gain, the evidence and the fix (``proflens advise``)."""
        return run_json("advise", self.path, *self._where(run, host))["findings"]

    def __repr__(self) -> str:
        return f"<proflens.Profile {self.path!r} runs={self.runs}>"


def open(path: str | os.PathLike[str], run: str | None = None) -> Profile:
    """A profile file, run folder, log directory or archive; ``run`` chooses
    one run when the path holds several."""
    return Profile(path, run)


def compare(
    base: str | os.PathLike[str],
    candidate: str | os.PathLike[str],
    tool: str = "overview_page",
    **options: Any,
) -> dict[str, Any]:
    """``proflens compare BASE CANDIDATE --tool TOOL``: baseline, candidate,
    change and verdict, as JSON. ``options`` are the command's (``run``,
    ``host``, ``base_host``, ``module``, ...)."""
    return run_json("compare", base, candidate, "--tool", tool, *flags(options))


def tools() -> list[dict[str, Any]]:
    """The tools: id, label, what each reads, output formats (``proflens tools --json``)."""
    return run_json("tools", "--json")
