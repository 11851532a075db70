//! Counter tracks: the plane's own counter series (Chrome trace `"ph":"C"`,
//! nvidia-smi logs) and, on the host, memory in use per allocator from the
//! `MemoryAllocation`/`MemoryDeallocation` events XProf's memory profile
//! reads (PyTorch's `[memory]` events become those too, in the importer).
//! And the level of detail of a counter drawn in a window.

use super::{Track, TrackSource};
use crate::common::schema::{event_stat, HOST_PLANE};
use proflens_model::{Counter, Origin, Profile};
use std::collections::BTreeMap;

/// Counter tracks keep clear of line ids: they have no thread in an export.
const COUNTER_TID: i64 = -1;

/// The counter tracks of plane `p`, in name order within each source.
pub fn counter_tracks(profile: &Profile, p: usize) -> Vec<Track> {
    let plane = &profile.planes[p];
    let mut counters: Vec<Counter> = plane.counters.iter().filter(|c| !c.is_empty()).cloned().collect();
    if profile.str(plane.name) == HOST_PLANE {
        counters.extend(memory_counters(profile, p));
    }
    counters
        .into_iter()
        .map(|c| Track { name: c.name.clone(), tid: COUNTER_TID, source: TrackSource::Counter(Box::new(c)) })
        .collect()
}

/// Memory per allocator over time, bytes. XSpace: "Memory in use"
/// (stack reserved + heap allocated, as the memory profile counts it);
/// PyTorch: "Memory allocated" (by tensors) and "Memory reserved" (held by
/// the caching allocator: allocated + cached free).
pub fn memory_counters(profile: &Profile, p: usize) -> Vec<Counter> {
    let plane = &profile.planes[p];
    let key = |name: &str| profile.strings.lookup(name);
    let (Some(_), Some(_)) = (key("MemoryAllocation").or(key("MemoryDeallocation")), key("bytes_allocated")) else {
        return Vec::new();
    };
    let keys = [key("allocator_name"), key("bytes_allocated"), key("bytes_reserved"), key("bytes_available")];
    let pytorch = profile.origin == Origin::Kineto;
    // allocator → (in use / allocated, reserved)
    let mut series: BTreeMap<String, (Counter, Counter)> = BTreeMap::new();
    for line in &plane.lines {
        let ev = &line.events;
        for i in 0..ev.len() {
            let name = profile.str(plane.event_metadata[ev.metadata[i] as usize].name);
            if name != "MemoryAllocation" && name != "MemoryDeallocation" {
                continue;
            }
            let stat = |k: usize| event_stat(profile, plane, line, i, keys[k]);
            let int = |k: usize| stat(k).and_then(|v| v.as_i64()).unwrap_or(0);
            let Some(allocated) = stat(1).and_then(|v| v.as_i64()) else { continue };
            let allocator = stat(0).map(|v| v.to_string()).unwrap_or_default();
            let (used, reserved) = series.entry(allocator.clone()).or_insert_with(|| {
                let suffix = if allocator.is_empty() { String::new() } else { format!(" ({allocator})") };
                let used = if pytorch { "Memory allocated" } else { "Memory in use" };
                (Counter::new(format!("{used}{suffix}"), "B"), Counter::new(format!("Memory reserved{suffix}"), "B"))
            });
            let t = ev.start_ps.at(i);
            if pytorch {
                used.push(t, allocated as f64);
                reserved.push(t, allocated.saturating_add(int(3)) as f64);
            } else {
                used.push(t, int(2).saturating_add(allocated) as f64);
            }
        }
    }
    let mut out = Vec::new();
    for (_, (mut used, mut reserved)) in series {
        used.sort();
        reserved.sort();
        out.push(used);
        if !reserved.is_empty() {
            out.push(reserved);
        }
    }
    out
}

/// One sample to draw: the value from `time_ps` on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub time_ps: i64,
    pub value: f64,
}

/// The samples of `c` to draw `[start_ps, end_ps]` at `ps_per_pixel`: the
/// last sample before the window (its value holds at the left edge), then
/// per pixel at most the smallest and the largest sample in time order and
/// the pixel's last one (whose value holds into the next pixel), then the
/// first sample after the window. So an answer is bounded by the width,
/// whatever the number of samples.
pub fn visible_samples(c: &Counter, start_ps: i64, end_ps: i64, ps_per_pixel: f64) -> Vec<Sample> {
    let mut out = Vec::new();
    if c.is_empty() || end_ps < start_ps {
        return out;
    }
    let at = |i: usize| Sample { time_ps: c.times_ps[i], value: c.values[i] };
    let from = c.times_ps.partition_point(|&t| t < start_ps);
    let to = c.times_ps.partition_point(|&t| t <= end_ps);
    if from > 0 {
        out.push(at(from - 1));
    }
    let pixel = ps_per_pixel.max(1.0);
    let bucket_of = |t: i64| ((t - start_ps) as f64 / pixel).floor() as i64;
    let mut i = from;
    while i < to {
        let bucket = bucket_of(c.times_ps[i]);
        let mut j = i;
        let (mut lo, mut hi) = (i, i);
        while j < to && bucket_of(c.times_ps[j]) == bucket {
            if c.values[j] < c.values[lo] {
                lo = j;
            }
            if c.values[j] > c.values[hi] {
                hi = j;
            }
            j += 1;
        }
        let mut picks = [i, lo, hi, j - 1];
        picks.sort_unstable();
        let mut last = usize::MAX;
        for k in picks {
            if k != last {
                out.push(at(k));
                last = k;
            }
        }
        i = j;
    }
    if to < c.len() {
        out.push(at(to));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(n: i64) -> Counter {
        let mut c = Counter::new("c", "B");
        for t in 0..n {
            c.push(t * 10, ((t * 7919) % 1000) as f64);
        }
        c
    }

    #[test]
    fn a_window_holds_a_few_samples_per_pixel_with_the_extremes() {
        let c = counter(100_000);
        let samples = visible_samples(&c, 100_000, 900_000, 1_000.0);
        assert!(samples.len() <= 4 * 800 + 2, "{}", samples.len());
        assert_eq!(samples[0].time_ps, 99_990, "the last sample before the window");
        assert_eq!(samples.last().map(|s| s.time_ps), Some(900_010), "the first after it");
        let in_window = |s: &&Sample| (100_000..=900_000).contains(&s.time_ps);
        let max = samples.iter().filter(in_window).map(|s| s.value).fold(0.0, f64::max);
        let min = samples.iter().filter(in_window).map(|s| s.value).fold(f64::MAX, f64::min);
        assert_eq!((min, max), (0.0, 999.0));
        assert!(samples.windows(2).all(|w| w[0].time_ps < w[1].time_ps));
    }

    #[test]
    fn zoomed_in_every_sample_is_kept() {
        let c = counter(10);
        let samples = visible_samples(&c, 0, 90, 0.5);
        assert_eq!(samples.len(), 10);
        assert!(visible_samples(&c, 200, 300, 1.0).len() == 1, "only the value holding since the last sample");
    }
}
