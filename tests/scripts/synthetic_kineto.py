#!/usr/bin/env python3
"""Writes a SYNTHETIC PyTorch profiler (Kineto) trace as large as wanted,
from a real one: the real trace's events are written again and again, each
copy's times shifted past the last copy's end, its `ProfilerStep#N` numbers,
correlation / External ids and flow ids moved past the last copy's, so steps,
kernel launches and flows stay distinct. Metadata (`M`) events and the
top-level keys are written once. Events are written as they are made (one
copy's text in memory at a time), so the output may be larger than memory:
it exists to measure decoding trace JSON past 2 GiB (`proflens info`,
`proflens tool F overview_page`), not as a realistic profile.

    python3 tests/scripts/synthetic_kineto.py IN.json[.gz] OUT.json[.gz] GB

OUT ending in `.gz` is written gzip (level 1). Times keep their decimal
text exactly (no float rounding). Needs only the standard library.
"""

import decimal
import gzip
import json
import re
import sys

# Args that identify a launch or an op across host and device events.
ID_ARGS = ("correlation", "External id", "external id")
STEP = re.compile(r"^ProfilerStep#(\d+)$")
HOLE = "\u0000{}\u0000"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return json.loads(f.read(), parse_float=decimal.Decimal)


def floats(value):
    """Decimals (other than the shifted times) as floats: written back, a
    float's shortest text is the number read, and not a string."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [floats(v) for v in value]
    return value


def template(event, holes):
    """The event's JSON text split around the fields a copy changes: a list
    of text pieces and, between them, the names of the holes."""
    e = floats(event)
    e["args"] = dict(e.get("args") or {})
    for name, (where, key) in holes.items():
        (e if where == "event" else e["args"])[key] = HOLE.format(name)
    if not e["args"]:
        del e["args"]
    text = json.dumps(floats(e), separators=(",", ":"))
    parts = re.split(r'"\\u0000(\w+)\\u0000"', text)
    return parts


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, out, gb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    trace = load(src)
    events = trace["traceEvents"]
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]
    timed = [e for e in body if "ts" in e]
    t_min = min(decimal.Decimal(str(e["ts"])) for e in timed)
    t_max = max(decimal.Decimal(str(e["ts"])) + decimal.Decimal(str(e.get("dur", 0))) for e in timed)
    span = (t_max - t_min) + 1000  # 1 ms apart
    ids = [e["args"][k] for e in body for k in ID_ARGS if isinstance((e.get("args") or {}).get(k), int)]
    ids += [e[k] for e in body for k in ("id", "bind_id") if isinstance(e.get(k), int)]
    id_stride = max(ids, default=0) + 1
    steps = [int(m.group(1)) for e in body if (m := STEP.match(str(e.get("name", ""))))]
    step_stride = (max(steps) - min(steps) + 1) if steps else 0

    templates = []
    for e in body:
        holes = {}
        if "ts" in e:
            holes["ts"] = ("event", "ts")
        for k in ("id", "bind_id"):
            if isinstance(e.get(k), int):
                holes[k] = ("event", k)
        for i, k in enumerate(ID_ARGS):
            if isinstance((e.get("args") or {}).get(k), int):
                holes[f"arg{i}"] = ("args", k)
        if STEP.match(str(e.get("name", ""))):
            holes["step"] = ("event", "name")
        templates.append((template(e, holes), e))

    def fill(parts, e, copy):
        out = [parts[0]]
        for hole, text in zip(parts[1::2], parts[2::2]):
            if hole == "ts":
                value = str(decimal.Decimal(str(e["ts"])) + copy * span)
            elif hole in ("id", "bind_id"):
                value = str(e[hole] + copy * id_stride)
            elif hole == "step":
                n = int(STEP.match(e["name"]).group(1)) + copy * step_stride
                value = json.dumps(f"ProfilerStep#{n}")
            else:
                value = str(e["args"][ID_ARGS[int(hole[3:])]] + copy * id_stride)
            out.append(value)
            out.append(text)
        return "".join(out)

    target = int(gb * 1e9)
    opener = (lambda p: gzip.open(p, "wt", compresslevel=1)) if out.endswith(".gz") else (lambda p: open(p, "w"))
    written, copies = 0, 0
    with opener(out) as f:
        head = {k: v for k, v in trace.items() if k != "traceEvents"}
        f.write("{")
        for k, v in head.items():
            if k in ("traceName", "displayTimeUnit", "baseTimeNanoseconds"):
                continue
            f.write(f"{json.dumps(k)}:{json.dumps(floats(v))},\n")
        f.write('"traceEvents":[\n')
        f.write(",\n".join(json.dumps(floats(e), separators=(",", ":")) for e in meta))
        while written < target:
            chunk = "".join(",\n" + fill(parts, e, copies) for parts, e in templates)
            f.write(chunk)
            written += len(chunk)
            copies += 1
        f.write("\n]")
        for k in ("traceName", "displayTimeUnit", "baseTimeNanoseconds"):
            if k in head:
                f.write(f",\n{json.dumps(k)}:{json.dumps(floats(head[k]))}")
        f.write("}\n")
    print(f"{out}: {copies} copies of {len(body)} events ({copies * len(body)} events), {written / 1e9:.2f} GB of events")


if __name__ == "__main__":
    main()
