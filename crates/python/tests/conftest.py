"""The Python package's tests: the installed wheel (`cargo xtask test` installs it
into a fresh venv) on the repository's fixtures (tests/data, PROFLENS_TEST_DATA)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(os.environ.get("PROFLENS_TEST_DATA", Path(__file__).parents[3] / "tests" / "data"))
KINETO = DATA / "kineto"
MULTIRANK = KINETO / "kineto-multirank-sampled"
XSPACE_RUN = DATA / "xspace" / "input_bound"
BERT = DATA / "xspace" / "external" / "34.83.195.179_6003.xplane.pb"


def proflens_command() -> list[str]:
    """The `proflens` console command the wheel installed beside this Python."""
    command = Path(sys.executable).with_name("proflens")
    assert command.exists(), f"the wheel installed no {command}"
    return [str(command)]


def cli(*args: object, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Runs the installed `proflens` command."""
    done = subprocess.run([*proflens_command(), *map(str, args)], capture_output=True, timeout=600)
    if check:
        assert done.returncode == 0, done.stderr.decode()
    return done


@pytest.fixture
def ranks_dir(tmp_path: Path):
    """Copies one trace file per rank folder (HTA reads a folder as one job)."""

    def make(case: str, files: list[str]) -> Path:
        folder = tmp_path / case
        folder.mkdir()
        for f in files:
            shutil.copy(KINETO / case / f, folder / f)
        return folder

    return make


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray cluster for the session (the issue's `ray.init(num_cpus=2)`)."""
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
