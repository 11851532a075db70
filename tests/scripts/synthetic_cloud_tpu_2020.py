#!/usr/bin/env python3
"""Writes the SYNTHETIC legacy tool files of tests/data/legacy/synthetic-cloud-tpu-2020/.

The Cloud TPU tool files of 2020 (TensorBoard profile plugin's demo folder
`Cloud-TPU`) are not at hand; these follow their layout as the
profile plugin's frontend of that time reads it (tensorflow/profiler,
Apache-2.0: `frontend/app/services/data_service/mock_data.ts` and
`frontend/app/components/overview_page/step_time_graph/step_time_graph.ts`,
`COLUMN_IDS_FOR_TPU`): a step table of `computeTimeMs`, `inputTimeMs`,
`idleTimeMs` and a tooltip with the step time, the averages
`compute_ms_average`, `input_ms_average`, `idle_ms_average`, and no
`hardware_type`. Every number is invented.

  localhost.overview_page.json   top ops, step table (its categories add up
                                 to each step time: 313.8 ms on average),
                                 run environment, tips
  localhost.input_pipeline.json  step table whose step 1 does NOT add up
                                 (categories 140 ms, step time 120 ms), {},
                                 host input ops, tips

Run from anywhere: python3 tests/scripts/synthetic_cloud_tpu_2020.py
"""
import json
import os
import statistics

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "legacy", "synthetic-cloud-tpu-2020")


def col(id_, type_, label=None):
    return {"id": id_, "label": label or id_, "type": type_}


def row(*values):
    return {"c": [{"v": v} for v in values]}


def tooltip(step, step_time, waiting):
    return f"step {step}:\nTime waiting for input data = {waiting:.3f} ms, Step time = {step_time:.3f} ms"


def step_columns():
    return [
        col("stepnum", "string"),
        col("computeTimeMs", "number", "Compute"),
        col("inputTimeMs", "number", "Input"),
        col("idleTimeMs", "number", "Idle"),
        {"id": "tooltip", "label": "tooltip", "type": "string", "p": {"role": "tooltip"}},
    ]


OVERVIEW_STEPS = [  # step, compute, input, idle (ms): each step is their sum
    ("100", 250.125, 50.5, 12.25),
    ("101", 251.0, 49.75, 13.5),
    ("102", 249.5, 51.25, 13.5),
]


def overview():
    times = [c + i + d for _, c, i, d in OVERVIEW_STEPS]
    mean = lambda k: statistics.mean(s[k] for s in OVERVIEW_STEPS)
    steps = {
        "cols": step_columns(),
        "rows": [row(s, c, i, d, tooltip(s, c + i + d, i)) for s, c, i, d in OVERVIEW_STEPS],
        "p": {
            "steptime_ms_average": f"{statistics.mean(times):.1f}",
            "steptime_ms_maximum": f"{max(times):.1f}",
            "steptime_ms_minimum": f"{min(times):.1f}",
            "steptime_ms_standard_deviation": f"{statistics.stdev(times):.1f}",
            "compute_ms_average": f"{mean(1):.1f}",
            "input_ms_average": f"{mean(2):.1f}",
            "idle_ms_average": f"{mean(3):.1f}",
        },
    }
    ops = {
        "cols": [
            col("selfTimePercent", "number", "Time (%)"),
            col("cumulativeTimePercent", "number", "Cumulative time (%)"),
            col("category", "string", "Category"),
            col("operation", "string", "Operation"),
            col("flopRate", "number", "GFLOPs/Sec"),
        ],
        "rows": [
            row(0.25, 0.25, "Conv2D", "resnet/conv1/Conv2D", 5120.5),
            row(0.125, 0.375, "InfeedDequeueTuple", "InfeedQueue/dequeue", 0),
        ],
        "p": {
            "device_idle_time_percent": "4.2%",
            "flop_rate_utilization_relative_to_roofline": "40.5%",
            "host_idle_time_percent": "61.0%",
            "memory_bw_utilization_relative_to_hw_limit": "30.0%",
            "mxu_utilization_percent": "22.5%",
            "remark_color": "",
            "remark_text": "",
        },
    }
    env = {
        "cols": [],
        "rows": [],
        "p": {
            "device_core_count": "8 (Replica count = 8, num cores per replica = 1)",
            "device_type": "TPU v3",
            "host_count": "1",
        },
    }
    input_share = 100 * mean(2) / statistics.mean(times)
    tips = {
        "cols": [col("tip_type", "string"), col("link", "string")],
        "rows": [row("host", "input_pipeline_analyzer (Use the Input Pipeline Analyzer.)")],
        "p": {
            "bottleneck": "both",
            "statement": f"Your program is MODERATELY input-bound because {input_share:.1f}% of the total step "
            "time sampled is waiting for input. Therefore, you would need to reduce both the input time "
            "and other time.",
        },
    }
    return [ops, steps, env, tips]


INPUT_STEPS = [  # step, compute, input, idle, step time (ms): step 1 does not add up
    ("0", 100.0, 20.0, 5.0, 125.0),
    ("1", 100.0, 30.0, 10.0, 120.0),
]


def input_pipeline():
    times = [t for *_, t in INPUT_STEPS]
    cols = step_columns() + [
        col("infeedPercentAverage", "number", "% step time waiting for input data"),
        {"id": "infeedPercentMin", "label": "Infeed percent min", "type": "number", "p": {"role": "interval"}},
        {"id": "infeedPercentMax", "label": "Infeed percent max", "type": "number", "p": {"role": "interval"}},
    ]
    rows = [
        row(s, c, i, d, tooltip(s, t, i), 100 * i / t, 100 * i / t - 1, 100 * i / t + 1)
        for s, c, i, d, t in INPUT_STEPS
    ]
    shares = [100 * i / t for _, _, i, _, t in INPUT_STEPS]
    steps = {
        "cols": cols,
        "rows": rows,
        "p": {
            "infeed_percent_average": f"{statistics.mean(shares):.1f}",
            "infeed_percent_maximum": f"{max(shares):.1f}",
            "infeed_percent_minimum": f"{min(shares):.1f}",
            "infeed_percent_standard_deviation": f"{statistics.stdev(shares):.1f}",
            "steptime_ms_average": f"{statistics.mean(times):.1f}",
            "steptime_ms_maximum": f"{max(times):.1f}",
            "steptime_ms_minimum": f"{min(times):.1f}",
            "steptime_ms_standard_deviation": f"{statistics.stdev(times):.1f}",
            "input_conclusion": "Your program is HIGHLY input-bound because 20.5% of the total step time "
            "sampled is waiting for input. Therefore, you should first focus on reducing the input time.",
            "summary_nextstep": "Look at the section 3 for the breakdown of input time on the host.",
        },
    }
    host_ops = {
        "cols": [
            col("opName", "string", "Input Op"),
            col("count", "number", "Count"),
            col("timeInMs", "number", "Total Time (in ms)"),
            col("timeInPercent", "number", "Total Time (as % of total input-processing time)"),
            col("selfTimeInMs", "number", "Total Self Time (in ms)"),
            col("selfTimeInPercent", "number", "Total Self Time (as % of total input-processing time)"),
            col("category", "string", "Category"),
        ],
        "rows": [
            row("Iterator::Model::Prefetch::MapAndBatch::TFRecord", 12, 300.5, 0.75, 300.5, 0.75, "Advanced file read"),
            row("input_pipeline_task0/while/InfeedQueue/enqueue/0", 4, 100.25, 0.25, 100.25, 0.25, "Enqueue"),
        ],
        "p": {
            "advanced_file_read_us": "300500.000",
            "demanded_file_read_us": "0.000",
            "enqueue_us": "100250.000",
            "preprocessing_us": "0.000",
            "unclassified_nonequeue_us": "0.000",
        },
    }
    tips = {"cols": [col("link", "string")], "rows": [row("Enqueuing data: you may want to combine small input data chunks into fewer but larger chunks.")]}
    return [steps, {}, host_ops, tips]


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, tables in [("localhost.overview_page.json", overview()), ("localhost.input_pipeline.json", input_pipeline())]:
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(tables, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
