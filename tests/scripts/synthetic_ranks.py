#!/usr/bin/env python3
"""SYNTHETIC job of N PyTorch ranks made from one real Kineto trace: each
copy's `distributedInfo.rank` is its index and `world_size` is N; nothing
else changes (every rank has the same events). For measuring the tools of
all ranks (`proflens tool DIR stragglers`) from traces and from rank
summaries; not a fixture.

    tests/scripts/synthetic_ranks.py TRACE.json.gz OUT_DIR [N=16]
"""
import gzip
import re
import sys
from pathlib import Path


def main() -> None:
    source, out = Path(sys.argv[1]), Path(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, "rt") as f:
        text = f.read()
    info = re.search(r'"distributedInfo"\s*:\s*\{[^{}]*', text)
    if not info:
        sys.exit(f"{source}: no distributedInfo to rewrite")
    out.mkdir(parents=True, exist_ok=True)
    for rank in range(count):
        block = re.sub(r'"rank"\s*:\s*\d+', f'"rank": {rank}', info.group(0), count=1)
        block = re.sub(r'"world_size"\s*:\s*\d+', f'"world_size": {count}', block, count=1)
        copy = text[: info.start()] + block + text[info.end():]
        with gzip.open(out / f"synthetic_rank-{rank}.json.gz", "wt", compresslevel=6) as f:
            f.write(copy)
    print(f"{count} synthetic ranks of {source.name} in {out}")


if __name__ == "__main__":
    main()
