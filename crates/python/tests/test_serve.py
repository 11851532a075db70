"""`proflens serve LOGDIR`: the page built into the wheel and the log directory on
127.0.0.1, read-only, with traversal, other hosts and other origins refused."""

from __future__ import annotations

import http.client
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import BERT, proflens_command


@pytest.fixture
def served(tmp_path: Path):
    logdir = tmp_path / "logdir"
    run = logdir / "plugins" / "profile" / "run1"
    run.mkdir(parents=True)
    shutil.copy(BERT, run / "worker0.xplane.pb")
    (tmp_path / "secret.txt").write_text("not to be served")
    server = subprocess.Popen(
        [*proflens_command(), "serve", str(logdir), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        line = server.stdout.readline().decode()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?logdir=logdir/", line)
        assert match, f"no URL in {line!r}: {server.stderr.read1().decode() if server.poll() is not None else ''}"
        yield int(match.group(1)), run
    finally:
        server.kill()
        server.wait()


def get(port: int, path: str, headers: dict[str, str] | None = None, method: str = "GET"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, headers=headers or {})
    response = conn.getresponse()
    return response.status, response.read(), dict(response.getheaders())


def test_the_page_and_a_profile_are_served(served):
    port, run = served
    status, page, headers = get(port, "/")
    assert status == 200 and b"<html" in page.lower()
    assert b"Content-Security-Policy" in page, "the page keeps its CSP"
    status, index, _ = get(port, "/logdir/proflens-index.json")
    assert status == 200 and b"worker0" in index
    status, body, _ = get(port, "/logdir/plugins/profile/run1/worker0.xplane.pb")
    assert status == 200 and body == (run / "worker0.xplane.pb").read_bytes()


def test_traversal_other_hosts_origins_and_writes_are_refused(served):
    port, _ = served
    for path in ["/logdir/../secret.txt", "/logdir/%2e%2e/secret.txt", "/../secret.txt", "/logdir/..%2fsecret.txt"]:
        status, body, _ = get(port, path)
        assert status in (403, 404) and b"not to be served" not in body, path
    assert get(port, "/", {"Host": "evil.example:80"})[0] == 403
    assert get(port, "/logdir/proflens-index.json", {"Origin": "http://evil.example"})[0] == 403
    assert get(port, "/", method="PUT")[0] in (403, 405)


def test_a_missing_logdir_fails(tmp_path):
    done = subprocess.run([*proflens_command(), "serve", str(tmp_path / "nope"), "--port", "0"], capture_output=True)
    assert done.returncode == 1 and done.stderr.decode().startswith("proflens: ")
