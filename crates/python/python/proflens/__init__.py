"""Proflens: profiles of TensorFlow, JAX and PyTorch jobs, analysed offline.

The same analyses as the ``proflens`` command and the page, in this process::

    import proflens
    p = proflens.open("logs/")              # a profile file, a run folder or a log directory
    p.runs, p.hosts
    p.tool("framework_op_stats").to_pandas()  # the rows of `proflens tool ... --format csv`
    p.advise()                               # the Advisor's findings, ranked
    proflens.compare("before/", "after/", tool="overview_page")

HTA's API on PyTorch traces is :mod:`proflens.hta`; a pod's hosts summarised
on a Ray cluster is :mod:`proflens.ray`. Importing this module loads no
profile, no pandas and no Ray.
"""

from __future__ import annotations

from ._api import Profile, ProflensError, ToolResult, compare, open, tools

__version__: str
from ._native import __version__  # noqa: E402

__all__ = ["Profile", "ProflensError", "ToolResult", "compare", "open", "tools", "__version__"]
