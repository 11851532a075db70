"""The `proflens` console command the wheel installs: the same program as the Rust build's."""

from __future__ import annotations

import json

from conftest import BERT, MULTIRANK, cli

import proflens


def test_version_and_tools_are_the_programs():
    assert cli("--version").stdout.decode().strip() == f"proflens {proflens.__version__}"
    listed = json.loads(cli("tools", "--json").stdout)
    assert [t["id"] for t in listed] == [t["id"] for t in proflens.tools()]
    assert {"overview_page", "framework_op_stats", "kernel_launch_stats", "advisor"} <= {t["id"] for t in listed}


def test_info_lists_runs_hosts_and_files_without_reading():
    listed = json.loads(cli("info", MULTIRANK, "--list").stdout)
    (run,) = listed["runs"]
    assert [h["name"] for h in run["hosts"]] == ["sampled_rank-0", "sampled_rank-1"]
    assert all(f.endswith(".json.gz") for h in run["hosts"] for f in h["files"])


def test_a_tool_prints_json_and_csv():
    overview = json.loads(cli("tool", BERT, "overview_page").stdout)
    assert overview["input"]["steps"], "the BERT host has a step"
    csv = cli("tool", BERT, "framework_op_stats", "--format", "csv").stdout.decode()
    assert csv.splitlines()[0].startswith("host_or_device") or "," in csv.splitlines()[0]


def test_failures_exit_1_with_one_plain_line(tmp_path):
    missing = cli("info", tmp_path / "nope", check=False)
    assert missing.returncode == 1 and missing.stdout == b""
    assert missing.stderr.decode().startswith("proflens: ") and missing.stderr.decode().count("\n") == 1
    unknown = cli("tool", BERT, "no_such_tool", check=False)
    assert unknown.returncode == 1 and "unknown tool 'no_such_tool'" in unknown.stderr.decode()
    usage = cli("tool", check=False)
    assert usage.returncode == 1 and b"Usage" in usage.stderr


def test_python_dash_m_runs_the_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "proflens", "--version"], capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout.decode().startswith("proflens ")
