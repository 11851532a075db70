"""The ``proflens`` command line run in this process (:mod:`proflens._native`)."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

from . import _native


class ProflensError(Exception):
    """A path, profile, tool or option Proflens cannot use: the message is the
    ``proflens`` command's, without its ``proflens:`` prefix."""


def arg(value: Any) -> str:
    """One command-line argument: paths as the file system names them, the rest as text."""
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def flags(options: Mapping[str, Any]) -> list[str]:
    """Keyword options as the command's flags: ``include_last_step=True`` is
    ``--include-last-step``, ``module="jit_f"`` is ``--module jit_f``; None
    and False are left out, a list is joined with commas."""
    out: list[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, ",".join(arg(v) for v in value)]
        else:
            out += [flag, arg(value)]
    return out


def run(*args: Any, ok_codes: tuple[int, ...] = (0,)) -> tuple[int, bytes]:
    """Runs ``proflens ARGS...``: its exit code and what it printed; a failure
    raises :class:`ProflensError` with the command's message."""
    code, out, error = _native.run(["proflens", *(arg(a) for a in args)])
    if error is not None:
        raise ProflensError(error)
    if code not in ok_codes:
        raise ProflensError(f"proflens {' '.join(arg(a) for a in args)} exited with {code}")
    return code, out


def run_json(*args: Any) -> Any:
    """Runs ``proflens ARGS...`` and parses what it printed as JSON."""
    return json.loads(run(*args)[1])
