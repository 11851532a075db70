"""The ``proflens`` console command: the same program as the Rust build's."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from . import _native


def main() -> None:
    """Runs ``proflens`` with this process's arguments and exits with its code."""
    page = Path(__file__).with_name("page")
    # `proflens serve` serves the page built into the wheel.
    if page.is_dir():
        os.environ.setdefault("PROFLENS_PAGE", str(page))
    # Python's own SIGINT handler would wait for the command to return; Ctrl-C
    # ends the process, as it ends the Rust program.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_native.main(["proflens", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
