"""`proflens.ray.summarize` on a local Ray cluster (`ray.init(num_cpus=2)`): a run
of 8 hosts summarised one host per task, equal byte for byte to
`proflens summarize`'s summaries, with one host's file unreadable: that host
is tried twice and reported, the other seven are summarised."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import BERT, cli

import proflens
import proflens.ray

HOSTS = [f"host{i}" for i in range(8)]
SUMMARY = ".proflens-summary.bin.gz"


@pytest.fixture
def cluster(ray_cluster):
    return ray_cluster


def make_logdir(root: Path) -> Path:
    run = root / "plugins" / "profile" / "run1"
    run.mkdir(parents=True)
    for host in HOSTS:
        shutil.copy(BERT, run / f"{host}.xplane.pb")
    return run


def make_unreadable(file: Path) -> bytes:
    """The file unreadable: no read permission, and (root reads any file) no profile in it."""
    kept = file.read_bytes()
    file.write_bytes(b"\xff" * 64)
    file.chmod(0)
    return kept


def test_a_run_of_8_hosts_with_one_unreadable(cluster, tmp_path):
    run = make_logdir(tmp_path / "logdir")
    out = tmp_path / "summaries"
    broken = run / "host3.xplane.pb"
    kept = make_unreadable(broken)

    statuses = proflens.ray.summarize(tmp_path / "logdir", output_dir=out)

    assert [s.host for s in statuses] == HOSTS
    for s in statuses:
        if s.host == "host3":
            assert not s.ok and s.attempts == 2, s
            assert "host3.xplane.pb" in s.message, s
        else:
            assert s.ok and s.attempts == 1 and s.message.endswith(")") and "written" in s.message, s
    written = sorted(p.name for p in (out / "plugins" / "profile" / "run1").iterdir())
    assert written == [f"{h}{SUMMARY}" for h in HOSTS if h != "host3"]

    # The same hosts summarised by the command, beside the profiles: the same bytes.
    done = cli("summarize", tmp_path / "logdir", check=False)
    assert done.returncode == 1 and "host3.xplane.pb" in done.stderr.decode()
    for host in HOSTS:
        if host != "host3":
            ours = (out / "plugins" / "profile" / "run1" / f"{host}{SUMMARY}").read_bytes()
            assert ours == (run / f"{host}{SUMMARY}").read_bytes(), host

    # Mended, the host is summarised on the next call; the seven are up to date.
    broken.chmod(0o644)
    broken.write_bytes(kept)
    again = proflens.ray.summarize(tmp_path / "logdir", output_dir=out)
    assert all(s.ok for s in again)
    assert [s.host for s in again if "written" in s.message] == ["host3"]
    assert all("up to date" in s.message for s in again if s.host != "host3")

    # The summaries alone are a log directory: its tools answer as the profiles'.
    from_summaries = json.loads(cli("tool", out, "overview_page").stdout)
    cli("summarize", tmp_path / "logdir")
    from_profiles = json.loads(cli("tool", tmp_path / "logdir", "overview_page").stdout)
    assert from_summaries["run_environment"] == from_profiles["run_environment"]
    assert from_summaries["input"]["steps"] == from_profiles["input"]["steps"]


def test_summaries_beside_the_profiles_by_default(cluster, tmp_path):
    run = make_logdir(tmp_path / "logdir")
    for f in list(run.iterdir())[2:]:
        f.unlink()
    statuses = proflens.ray.summarize(os.fspath(tmp_path / "logdir"))
    assert len(statuses) == 2 and all(s.ok for s in statuses)
    assert sorted(p.name for p in run.glob(f"*{SUMMARY}")) == sorted(f"{s.host}{SUMMARY}" for s in statuses)


def test_no_such_run_is_an_error(cluster, tmp_path):
    make_logdir(tmp_path / "logdir")
    with pytest.raises(proflens.ProflensError, match="no run 'nope'"):
        proflens.ray.summarize(tmp_path / "logdir", run="nope")
