//! Counter tracks on a real PyTorch trace (H100, with `[memory]` events):
//! the memory series, and a Chrome-trace export read back.

use super::counters::memory_counters;
use super::export::write_chrome_trace;
use super::{track_counter, Trace};
use crate::passes::grouping::Grouping;
use proflens_format::{inflate::gunzip, load_profile, Limits};
use proflens_model::{Counter, Profile};
use serde_json::Value;

const H100: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/kineto/kineto-h100-hf-inference/Falconsai_nsfw_image_detection__1016002.json.gz"
);

fn load(bytes: &[u8]) -> Profile {
    load_profile(bytes, &Limits::default(), &mut |_| {}).expect("decoded")
}

/// The file's `[memory]` events, read straight from its JSON.
fn raw_memory_events(gz: &[u8]) -> Vec<Value> {
    let text = gunzip(gz, 1 << 30, &mut |_| {}).expect("gunzip");
    let json: Value = serde_json::from_slice(&text).expect("json");
    json["traceEvents"].as_array().expect("events").iter().filter(|e| e["name"] == "[memory]").cloned().collect()
}

fn counters_of(trace: &Trace) -> Vec<&Counter> {
    trace.sections.iter().flat_map(|s| &s.tracks).filter_map(track_counter).collect()
}

#[test]
fn pytorch_memory_events_become_allocated_and_reserved_per_device() {
    let gz = std::fs::read(H100).expect("fixture");
    let raw = raw_memory_events(&gz);
    assert_eq!(raw.len(), 620);
    let profile = load(&gz);
    let host = profile.planes.iter().position(|p| profile.str(p.name) == "/host:CPU").expect("host");
    let counters = memory_counters(&profile, host);
    let names: Vec<&str> = counters.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["Memory allocated (CPU)", "Memory reserved (CPU)", "Memory allocated (GPU_0)", "Memory reserved (GPU_0)"]
    );
    let samples: usize = counters.iter().filter(|c| c.name.starts_with("Memory allocated")).map(Counter::len).sum();
    assert_eq!(samples, raw.len(), "one sample per [memory] event");
    // The GPU's largest values are the file's largest totals.
    let gpu = raw.iter().filter(|e| e["args"]["Device Type"] == 1);
    let most = |key: &str| gpu.clone().filter_map(|e| e["args"][key].as_f64()).fold(0.0, f64::max);
    assert_eq!(counters[2].max_value(), most("Total Allocated"));
    assert_eq!(counters[3].max_value(), most("Total Reserved"));
    assert!(counters.iter().all(|c| c.unit == "B" && c.times_ps.windows(2).all(|w| w[0] <= w[1])));
}

#[test]
fn exported_counters_read_back_as_the_same_series() {
    let gz = std::fs::read(H100).expect("fixture");
    let profile = load(&gz);
    let trace = Trace::new(&profile, &Grouping::default());
    let before = counters_of(&trace);
    assert_eq!(before.len(), 4, "memory counters on the host section");
    let host = trace.sections.iter().find(|s| s.name == "/host:CPU").expect("host section");
    assert!(track_counter(&host.tracks[0]).is_some(), "counters come first in their section");
    let mut out = Vec::new();
    write_chrome_trace(&profile, &Grouping::default(), &trace, None, &mut out).expect("written");
    let again = load(&out);
    let plane = again.planes.iter().find(|p| again.str(p.name) == "/host:CPU").expect("host plane");
    for c in before {
        let back = plane.counters.iter().find(|b| b.name == c.name).unwrap_or_else(|| panic!("{} kept", c.name));
        assert_eq!(back.values, c.values, "{}", c.name);
        // Times are relative to each file's first event: compare the gaps.
        let gaps = |t: &[i64]| t.iter().map(|x| x - t[0]).collect::<Vec<_>>();
        assert_eq!(gaps(&back.times_ps), gaps(&c.times_ps), "{}", c.name);
    }
}

struct Quiet;

impl crate::context::Hooks for Quiet {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// The synthetic nvidia-smi log beside a copy of the H100 trace
/// (tests/data/nvidia_smi/README.md) joins the GPU's section as counters.
#[test]
fn an_nvidia_smi_log_beside_the_trace_adds_gpu_counters() {
    use crate::context::{HostContext, HostFile};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/nvidia_smi/h100");
    let paths = ["Falconsai_nsfw_image_detection__1016002.json.gz", "nvidia-smi.csv"];
    let found = proflens_format::logdir::discover(paths, "run");
    let host = &found.runs[0].hosts[0];
    assert_eq!(host.counter_logs, vec![1]);
    let files = [0, 1]
        .map(|i| {
            let path = format!("{dir}/{}", paths[i]);
            HostFile {
                path: paths[i].to_string(),
                tool: None,
                read: Box::new(move || proflens_format::source::open_file(path.as_ref())),
            }
        })
        .into_iter()
        .collect();
    let context = HostContext::new("h100", files, std::rc::Rc::new(Quiet));
    let profile = context.profile().expect("decoded");
    assert!(profile.warnings.is_empty(), "{:?}", profile.warnings);
    let trace = Trace::new(&profile, &Grouping::default());
    let gpu = trace.sections.iter().find(|s| s.name == "/device:GPU:0").expect("GPU section");
    let names: Vec<&str> = gpu.tracks.iter().filter_map(track_counter).map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["utilization.gpu (GPU 0)", "memory.used (GPU 0)", "power.draw (GPU 0)"]);
    let util = track_counter(&gpu.tracks[0]).expect("counter");
    assert_eq!(util.len(), 12);
    // The log's 07:54:52.661 row is the trace's first event (07:54:52.661417544 UTC): 417.544 µs before it.
    assert_eq!(util.times_ps[1], -417_544_000, "aligned on the profile's clock");
    assert_eq!(util.max_value(), 97.0);
}

/// A CSV beside the trace that is no nvidia-smi log (here a small table
/// written inline) adds no counter and no warning.
#[test]
fn another_csv_beside_the_trace_is_left_alone() {
    use crate::context::{HostContext, HostFile};
    let files = vec![
        HostFile {
            path: "trace.json.gz".to_string(),
            tool: None,
            read: Box::new(|| proflens_format::source::open_file(H100.as_ref())),
        },
        HostFile {
            path: "table.csv".to_string(),
            tool: None,
            read: Box::new(|| Ok(proflens_format::source::in_memory(b"name,value\na,1\n".to_vec()))),
        },
    ];
    let context = HostContext::new("h100", files, std::rc::Rc::new(Quiet));
    let profile = context.profile().expect("the trace is the events, not the CSV");
    assert!(profile.warnings.is_empty(), "{:?}", profile.warnings);
    assert!(profile.planes.iter().all(|p| p.counters.is_empty()));
}
