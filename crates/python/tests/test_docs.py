"""docs/python.md's example runs as a notebook would: every ```python block, in
order, in one namespace, from the repository's root (its Ray block on the
session's local cluster)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from conftest import DATA

ROOT = DATA.parents[1]


def test_the_notebook_example_runs(capsys, ray_cluster):
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 8, "docs/python.md lost its example"
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for i, block in enumerate(blocks):
            exec(compile(block, f"docs/python.md block {i + 1}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    printed = capsys.readouterr().out
    assert "['sampled_rank-0', 'sampled_rank-1']" in printed
    assert "unknown tool 'no_such_tool'" in printed
    assert all(s.ok for s in namespace["statuses"])
    assert namespace["found"] and len(namespace["temporal"]) == 2
