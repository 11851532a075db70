"""The Python API on the fixtures: each tool's DataFrame is the CLI's CSV, row for
row and column for column (pandas reads both; equal with no tolerance), its
JSON the CLI's JSON, its errors the CLI's messages."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from conftest import BERT, MULTIRANK, XSPACE_RUN, cli

import proflens

CASES = [
    (BERT, None),
    (XSPACE_RUN, None),
    (MULTIRANK, None),
    (MULTIRANK, "sampled_rank-1"),
]


def without_times(value):
    """A view model without the fields that time the analysis itself (as
    crates/cli/tests/common's `untimed`)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in ("build_ms", "decode_ms")}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


@pytest.mark.parametrize("path,host", CASES, ids=lambda c: getattr(c, "name", str(c)))
def test_every_tool_is_the_clis(path, host):
    p = proflens.open(path)
    where = ["--host", host] if host else []
    compared = 0
    for tool in proflens.tools():
        name = tool["id"]
        args = ["tool", path, name, *where]
        json_run = cli(*args, check=False)
        if json_run.returncode != 0:
            with pytest.raises(proflens.ProflensError) as raised:
                p.tool(name, host=host)
            assert "proflens: " + str(raised.value) == json_run.stderr.decode().strip().splitlines()[-1]
            continue
        result = p.tool(name, host=host)
        assert without_times(result.to_json()) == without_times(json.loads(json_run.stdout)), name
        csv_run = cli(*args, "--format", "csv", check=False)
        if csv_run.returncode != 0:
            with pytest.raises(proflens.ProflensError):
                result.to_pandas()
            continue
        expected = pd.read_csv(io.BytesIO(csv_run.stdout))
        frame = result.to_pandas()
        pd.testing.assert_frame_equal(frame, expected, check_exact=True, obj=f"{path.name} {name}")
        assert len(frame.columns) == len(csv_run.stdout.decode().splitlines()[0].split(",")) or len(frame) == 0
        compared += 1
    assert compared >= 3, f"only {compared} tools with a table on {path}"


def test_runs_hosts_and_files():
    p = proflens.open(MULTIRANK)
    assert p.runs == ["kineto-multirank-sampled"] and p.run == p.runs[0]
    assert p.hosts == ["sampled_rank-0", "sampled_rank-1"]
    assert p.files("sampled_rank-1")[0].endswith("sampled_rank-1.json.gz")
    with pytest.raises(proflens.ProflensError, match="no host 'nope'"):
        p.files("nope")
    several = proflens.open(XSPACE_RUN.parent)
    assert len(several.runs) >= 5 and several.run is None
    with pytest.raises(proflens.ProflensError, match="choose one"):
        several.hosts
    with pytest.raises(proflens.ProflensError, match="no run 'nope'"):
        proflens.open(MULTIRANK, run="nope")


def test_other_tables_by_name_and_options():
    result = proflens.open(MULTIRANK).tool("kernel_launch_stats", host="sampled_rank-0", include_last_step=True)
    assert result.tables, "the view model has lists of records"
    first = result.tables[0]
    frame = result.to_pandas(first)
    assert len(frame) > 0
    with pytest.raises(proflens.ProflensError, match="no table"):
        result.to_pandas("nope")
    shown = json.loads(cli("tool", MULTIRANK, "kernel_launch_stats", "--host", "sampled_rank-0", "--include-last-step").stdout)
    assert without_times(result.to_json()) == without_times(shown)


def test_advise_and_compare_are_the_clis():
    findings = proflens.open(XSPACE_RUN).advise()
    assert findings == json.loads(cli("advise", XSPACE_RUN).stdout)["findings"]
    assert findings and findings[0]["id"] == "input_bound"
    same = proflens.compare(BERT, BERT, tool="overview_page")
    assert same == json.loads(cli("compare", BERT, BERT, "--tool", "overview_page").stdout)


def test_errors_are_exceptions_with_the_clis_message(tmp_path):
    with pytest.raises(proflens.ProflensError) as raised:
        proflens.open(tmp_path / "nope")
    assert str(raised.value) == cli("info", tmp_path / "nope", check=False).stderr.decode().strip()[len("proflens: ") :]
    bad = tmp_path / "bad.xplane.pb"
    bad.write_bytes(b"\x0a\xff\xff\xff\xff\xff garbage")
    with pytest.raises(proflens.ProflensError):
        proflens.open(bad).tool("overview_page")
    with pytest.raises(proflens.ProflensError, match="unexpected argument"):
        proflens.open(BERT).tool("overview_page", no_such_option=3)
