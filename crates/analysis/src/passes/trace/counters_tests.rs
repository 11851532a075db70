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
