#!/usr/bin/env python3
"""Writes the SYNTHETIC legacy TPU tool files of tests/data/legacy/synthetic-tpu-tools/.

No real Cloud TPU tool files (`capture_tpu_profile`'s output) are at hand, so
these are made here, in the shapes the TPU tools wrote (column ids and
property names from TensorBoard's profile plugin documentation and the
field numbers of trace_events.proto); every number is invented.

  localhost.overview_page.json   TensorBoard 1.x TPU overview: TensorCore +
                                 BarnaCore step table, run environment of
                                 properties only (tpu_type, tpu_core_count)
  localhost.input_pipeline.json  the first TPU tools' input pipeline:
                                 noninfeedTimeMs / infeedTimeMs columns
  localhost.pod_viewer.json      TPU pod viewer: named per-core times,
                                 all-reduce and channel tables
  localhost.trace                the `Trace` protobuf (trace_events.proto)

Run from anywhere: python3 tests/scripts/synthetic_tpu_tools.py
"""
import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "legacy", "synthetic-tpu-tools")


def col(id_, type_, label=None):
    return {"id": id_, "label": label or id_, "type": type_}


def row(*values):
    return {"c": [{"v": v} for v in values]}


STEPS = [  # step, tc compute, bc compute, bc infeed, tc infeed, tc idle (ms)
    ("41", 30.5, 1.25, 0.5, 60.25, 2.0),
    ("42", 31.0, 1.5, 0.25, 55.5, 1.75),
    ("43", 29.75, 1.0, 0.75, 65.0, 2.5),
]


def tooltip(s):
    step_time = s[1] + s[4] + s[5]
    return f"step {s[0]}:\nTime waiting for input data = {s[4]:.3f} ms, Step time = {step_time:.3f} ms"


overview = [
    {
        "cols": [col("selfTimePercent", "number", "Time (%)"), col("cumulativeTimePercent", "number"),
                 col("category", "string"), col("operation", "string"), col("flopRate", "number", "GFLOPs/Sec")],
        "rows": [row(0.625, 0.625, "", "infeed", 0), row(0.25, 0.875, "Conv2D", "model/conv1/Conv2D", 1536.5),
                 row(0.125, 1.0, "", "all-reduce.3", 0.5)],
        "p": {"device_idle_time_percent": "2.2%", "flop_rate_utilization_relative_to_roofline": "4.5%",
              "hardware_type": "TPU", "host_idle_time_percent": "71.5%",
              "memory_bw_utilization_relative_to_hw_limit": "3.5%", "mxu_utilization_percent": "12.5%",
              "remark_color": "black", "remark_text": ""},
    },
    {
        "cols": [col("stepnum", "string"), col("tcComputeTimeMs", "number", "TensorCore compute (in ms)"),
                 col("bcComputeTimeMs", "number", "BarnaCore compute (in ms)"),
                 col("bcInfeedTimeMs", "number", "BarnaCore input (in ms)"),
                 col("tcInfeedTimeMs", "number", "TensorCore input (in ms)"),
                 col("tcIdleTimeMs", "number", "TensorCore idle (in ms)"), col("tooltip", "string"),
                 col("infeedPercentAverage", "number"), col("infeedPercentMin", "number"),
                 col("infeedPercentMax", "number")],
        "rows": [row(s[0], s[1], s[2], s[3], s[4], s[5], tooltip(s), 60.5, 59.0, 62.0) for s in STEPS],
        "p": {"bc_compute_ms_average": "1.25", "bc_infeed_ms_average": "0.50", "infeed_percent_average": "64.1",
              "steptime_ms_average": "92.8", "steptime_ms_maximum": "97.2", "steptime_ms_minimum": "88.2",
              "steptime_ms_standard_deviation": "4.5",
              "summary_conclusion": "Your program is HIGHLY input-bound because 64.1% of the total step time sampled is waiting for input. Therefore, you should first focus on reducing the input time.",
              "summary_nextstep": "Look at Section 3 for the breakdown of input time on the host.",
              "tc_compute_ms_average": "30.42", "tc_idle_ms_average": "2.08", "tc_infeed_ms_average": "60.25"},
    },
    {"p": {"error_message": "", "host_count": "1", "tpu_core_count": "8 (Replica count = 8, num cores per replica = 1)",
           "tpu_type": "TPU v2"}},
    {
        "cols": [col("tip_type", "string"), col("link", "string")],
        "rows": [row("host", "Use the Input Pipeline tool.")],
        "p": {"bottleneck": "host",
              "statement": "Your program is HIGHLY input-bound because 64.1% of the total step time sampled is waiting for input. Therefore, you should first focus on reducing the input time."},
    },
]

input_pipeline = [
    {
        "cols": [col("stepnum", "string"), col("noninfeedTimeMs", "number"), col("infeedTimeMs", "number"),
                 col("tooltip", "string"), col("infeedPercentAverage", "number"), col("infeedPercentMin", "number"),
                 col("infeedPercentMax", "number")],
        "rows": [row("7", 20.5, 79.5, "step 7:\nStep time = 100.000 ms", 79.5, 78.0, 81.0),
                 row("8", 22.25, 70.75, "step 8:\nStep time = 93.000 ms", 76.1, 75.0, 77.5)],
        "p": {"infeed_percent_average": "77.8", "infeed_percent_maximum": "81.0", "infeed_percent_minimum": "75.0",
              "infeed_percent_standard_deviation": "2.4", "steptime_ms_average": "96.5",
              "steptime_ms_maximum": "100.0", "steptime_ms_minimum": "93.0", "steptime_ms_standard_deviation": "4.9",
              "summary_conclusion": "Your program is HIGHLY input-bound because 77.8% of the total step time sampled is waiting for input.",
              "summary_nextstep": "Look at Section 3 for the breakdown of input time on the host."},
    },
    {
        "cols": [col("opName", "string"), col("count", "number"), col("timeInMs", "number"),
                 col("timeInPercent", "number"), col("selfTimeInMs", "number"), col("selfTimeInPercent", "number"),
                 col("category", "string")],
        "rows": [row("Iterator::Model::Map", 4, 120.5, 0.75, 100.25, 0.625, "Preprocessing"),
                 row("input_pipeline_task0/while/enqueue", 4, 40.25, 0.25, 40.25, 0.375, "Enqueue")],
        "p": {"advanced_file_read_us": "0.000", "demanded_file_read_us": "0.000", "enqueue_us": "40250.000",
              "preprocessing_us": "100250.000", "unclassified_nonequeue_us": "0.000"},
    },
]


def core(step, host, chip, node, compute, crs, send, recv, infeed, total):
    return {"bottleneck": "", "chipId": chip, "crsDurationUs": crs, "highFlopsComputeUs": compute,
            "hostInfeedDurationUs": infeed, "hostName": host, "hostOutfeedDurationUs": 0.5, "nodeId": node,
            "recvDurationUs": recv, "sendDurationUs": send, "stepNum": step, "totalDurationUs": total}


def pod_step(step, scale):
    return {
        "stepNum": step,
        "allReduceOpDb": [
            {"name": "all-reduce.1", "occurrences": 16, "durationUs": 125.5 * scale, "dataSize": "4194304",
             "replicaGroups": [{"replicaIds": ["0", "1"]}]},
            {"name": "all-reduce.2", "occurrences": 2, "durationUs": 8.25 * scale, "dataSize": "2048",
             "replicaGroups": [{"replicaIds": ["0", "1"]}]},
        ],
        "channelDb": [
            {"channelId": "17", "srcCoreId": 0, "dstCoreId": 1, "dataSize": "1048576", "durationUs": 33.5 * scale,
             "sendDelayUs": 1.25, "occurrences": 1, "replicaId": 0, "hloNames": ["send.17", "recv-done.17"],
             "utilization": 0.5},
        ],
        "coreIdToReplicaIdMap": {"0": 0, "1": 1},
        "podStatsPerCore": {
            "0": core(step, "tpu-host-0:8470", 0, 0, 9000.0 * scale, 2008.0, 150.25, 160.75, 320.5, 12000.0 * scale),
            "1": core(step, "tpu-host-0:8470", 0, 1, 8800.5 * scale, 2100.0, 140.0, 170.0, 330.25, 12000.0 * scale),
        },
    }


pod_viewer = {"hloInfoMap": {}, "podStatsSequence": {"podStatsMap": [pod_step(41, 1.0), pod_step(42, 1.25)]}}


# ---- trace_events.proto `Trace`, encoded by hand ----
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value) if value else b""


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def resource(name, rid, sort_index):
    return field_bytes(1, name.encode()) + field_varint(2, rid) + field_varint(3, sort_index)


def device(name, did, resources):
    body = field_bytes(1, name.encode()) + field_varint(2, did)
    for rid, (rname, sort_index) in sorted(resources.items()):
        entry = field_varint(1, rid) + field_bytes(2, resource(rname, rid, sort_index))
        body += field_bytes(3, entry)
    return body


def event(did, rid, name, ts_ps, dur_ps, args):
    body = field_varint(1, did) + field_varint(2, rid) + field_bytes(3, name.encode())
    body += field_varint(9, ts_ps) + field_varint(10, dur_ps)
    for k, v in sorted(args.items()):
        body += field_bytes(11, field_bytes(1, k.encode()) + field_bytes(2, v.encode()))
    return body


DEVICES = {
    1: ("TPU Core 0", {1: ("Step", 0), 2: ("TensorFlow Ops", 1), 3: ("XLA Ops", 2)}),
    2: ("Host Threads", {10: ("infeed thread", 0)}),
}
EVENTS = [
    (1, 1, "41", 1_000_000_000, 92_750_000_000, {"step_num": "41"}),
    (1, 2, "model/conv1/Conv2D", 1_250_000_000, 30_500_000_000, {"tf_op": "model/conv1/Conv2D"}),
    (1, 3, "fusion.12", 1_250_000_001, 30_499_999_999, {"long_name": "%fusion.12 = bf16[128,256] fusion()"}),
    (1, 3, "all-reduce.1", 32_000_000_000, 125_500_000, {}),
    (2, 10, "InfeedEnqueueTuple", 900_000_000, 60_250_000_000, {"bytes": "4194304"}),
    (2, 10, "infeed ready", 61_150_000_000, 0, {}),
]
trace = b""
for did, (dname, resources) in sorted(DEVICES.items()):
    trace += field_bytes(1, field_varint(1, did) + field_bytes(2, device(dname, did, resources)))
for e in EVENTS:
    trace += field_bytes(4, event(*e))

for name, value in [("localhost.overview_page.json", overview), ("localhost.input_pipeline.json", input_pipeline),
                    ("localhost.pod_viewer.json", pod_viewer)]:
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
with open(os.path.join(HERE, "localhost.trace"), "wb") as f:
    f.write(trace)
