"""A pod's hosts summarised on a Ray cluster: ``proflens summarize`` mapped
over a run's hosts, one host per task, each task reading its host's profile
where it runs (the log directory is on storage every node mounts) and writing
the summary beside it or under ``output_dir``. ``proflens tool`` and the page
then read the summaries as they do ``proflens summarize``'s (docs/python.md;
docs/pods.md has KubeRay and Slurm launches).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._api import Profile
from ._run import ProflensError

__all__ = ["HostStatus", "summarize"]


@dataclass
class HostStatus:
    """One host's outcome: ``ok``, the line ``proflens summarize`` printed
    (``written`` or ``up to date``) or the failure's message, and the tries."""

    host: str
    file: str
    ok: bool
    message: str
    attempts: int


def _summarize_host(file: str, output_dir: str | None) -> tuple[bool, str]:
    """A Ray task's work: one host's summary (the failure's message, not an
    exception, so the driver decides about the retry)."""
    from ._run import run

    try:
        args = ["summarize", file, *(["--output-dir", output_dir] if output_dir else [])]
        return True, run(*args)[1].decode().strip()
    except ProflensError as e:
        return False, str(e)


def summarize(
    logdir: str | os.PathLike[str],
    run: str | None = None,
    address: str | None = None,
    output_dir: str | os.PathLike[str] | None = None,
    retries: int = 1,
) -> list[HostStatus]:
    """Summarises every host of ``run`` (the only run by default) of
    ``logdir`` as Ray tasks: one host per task. A failed host is tried again
    ``retries`` times (once by default); a host that still fails is reported
    in its status, and the others go on. ``address`` is the cluster's (as
    ``ray.init`` takes it; none: the cluster this process is connected to, or
    a local one). With ``output_dir``, the summaries go under it in their
    run's folder as found under ``logdir``, so ``output_dir`` is itself a log
    directory of summaries. Returns each host's status, in the run's order."""
    import ray

    # Absolute paths: a task runs in a worker process with a working directory of its own.
    profile = Profile(Path(logdir).absolute(), run)
    base = Path(profile.path)
    todo: list[tuple[str, str, str | None]] = []
    for host in profile.hosts:
        file = Path(profile.files(host)[0]).absolute()
        out = None
        if output_dir is not None:
            relative = file.parent.relative_to(base) if file.parent.is_relative_to(base) else Path()
            out = os.fspath(Path(output_dir).absolute() / relative)
        todo.append((host, os.fspath(file), out))
    if not ray.is_initialized():
        ray.init(address=address)
    task = ray.remote(num_cpus=1, max_retries=0)(_summarize_host)
    pending = {i: task.remote(file, out) for i, (_, file, out) in enumerate(todo)}
    statuses: list[HostStatus | None] = [None] * len(todo)
    attempts = [1] * len(todo)
    while pending:
        ready, _ = ray.wait(list(pending.values()), num_returns=1)
        i = next(k for k, ref in pending.items() if ref == ready[0])
        del pending[i]
        host, file, out = todo[i]
        try:
            ok, message = ray.get(ready[0])
        except ray.exceptions.RayError as e:  # the worker or its node died
            ok, message = False, f"{host}: the task failed: {e}"
        if not ok and attempts[i] <= retries:
            attempts[i] += 1
            pending[i] = task.remote(file, out)
            continue
        statuses[i] = HostStatus(host=host, file=file, ok=ok, message=message, attempts=attempts[i])
    return [s for s in statuses if s is not None]
