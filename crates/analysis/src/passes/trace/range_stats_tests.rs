//! Exact small cases (clipping, self time, nearest-rank percentiles, shares)
//! and, on a real profile, per-name counts against a direct count.

use super::*;
use crate::passes::grouping::group_events;
use crate::passes::trace::{DerivedTrack, Section, Track, TrackSource};
use proflens_model::{nesting_depths, Events, Times};

/// A track of named spans `(name, start, duration)`, sorted by start.
pub(crate) fn track(name: &str, spans: &[(&str, i64, i64)]) -> Track {
    let start_ps: Times = spans.iter().map(|s| s.1).collect();
    let duration_ps: Times = spans.iter().map(|s| s.2).collect();
    let depth = nesting_depths(&start_ps, &duration_ps);
    let mut names: Vec<String> = Vec::new();
    let metadata = spans
        .iter()
        .map(|s| match names.iter().position(|n| n == s.0) {
            Some(k) => k as _,
            None => {
                names.push(s.0.to_string());
                (names.len() - 1) as _
            }
        })
        .collect();
    let events = Events { start_ps, duration_ps, depth, metadata, ..Events::default() };
    Track { name: name.to_string(), tid: 0, source: TrackSource::Derived(Box::new(DerivedTrack { events, names })) }
}

/// Two tracks: A nests step ⊃ op ⊃ kernel; B holds one long op.
pub(crate) fn two_tracks() -> Trace {
    let a = track(
        "A",
        &[("step", 0, 100), ("op", 10, 20), ("op", 50, 40), ("kernel", 60, 10), ("step", 200, 100), ("late", 400, 10)],
    );
    let b = track("B", &[("early", 0, 5), ("op", 10, 1000)]);
    Trace { sections: vec![Section { name: "host".into(), pid: 1, plane: 0, tracks: vec![a, b] }] }
}

fn row<'a>(rows: &'a [RangeRow], name: &str) -> &'a RangeRow {
    rows.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no row {name}"))
}

#[test]
fn percentiles_by_nearest_rank() {
    let ten: Vec<i64> = (1..=10).collect();
    assert_eq!(nearest_rank(&ten, 50.0), 5);
    assert_eq!(nearest_rank(&ten, 90.0), 9);
    assert_eq!(nearest_rank(&ten, 99.0), 10);
    assert_eq!(nearest_rank(&ten, 0.0), 1);
    assert_eq!(nearest_rank(&[7], 99.0), 7);
    assert_eq!(nearest_rank(&[20, 40], 50.0), 20);
    assert_eq!(nearest_rank(&[], 50.0), 0);
}

#[test]
fn clipped_totals_self_times_and_shares() {
    let (profile, grouping, trace) = (Profile::default(), Grouping::default(), two_tracks());
    // Range 20..250 (230 ps) on both tracks: 460 ps on offer for a name.
    let s = range_stats(&profile, &grouping, &trace, &[0, 1], 250, 20);
    assert_eq!((s.start_ps, s.end_ps, s.tracks), (20, 250, 2));
    let names: Vec<&str> = s.by_name.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["op", "step", "kernel"], "longest total first; early and late lie outside");

    let step = row(&s.by_name, "step");
    // 20..100 of the first step (children 20..30 and 50..90 taken off) and 200..250 of the second.
    assert_eq!((step.count, step.total_ps, step.self_ps), (2, 80 + 50, 30 + 50));
    assert_eq!((step.min_ps, step.max_ps, step.average_ps), (100, 100, 100.0));

    let op = row(&s.by_name, "op");
    // Clipped 10 + 40 on A (the kernel's 10 off the second) and 230 on B; whole durations 20, 40, 1000.
    assert_eq!((op.count, op.total_ps, op.self_ps), (3, 280, 10 + 30 + 230));
    assert_eq!((op.min_ps, op.max_ps), (20, 1000));
    assert!((op.average_ps - 1060.0 / 3.0).abs() < 1e-9);
    assert_eq!((op.p50_ps, op.p90_ps, op.p99_ps), (40, 1000, 1000));
    assert!((op.share - 270.0 / 460.0).abs() < 1e-12);

    let kernel = row(&s.by_name, "kernel");
    assert_eq!((kernel.count, kernel.total_ps, kernel.self_ps, kernel.p50_ps), (1, 10, 10, 10));

    // Per track: the sum of self times is the time covered at depth 0.
    let tracks: Vec<(&str, Option<u32>)> = s.by_track.iter().map(|r| (r.name.as_str(), r.track)).collect();
    assert_eq!(tracks, [("B", Some(1)), ("A", Some(0))]);
    let a = row(&s.by_track, "A");
    assert_eq!((a.count, a.total_ps, a.self_ps), (5, 80 + 10 + 40 + 10 + 50, 80 + 50));
    assert!((a.share - 130.0 / 230.0).abs() < 1e-12);
    assert_eq!(row(&s.by_track, "B").share, 1.0);
    // Shares of the names add up to the tracks' busy fraction.
    let shares: f64 = s.by_name.iter().map(|r| r.share).sum();
    assert!((shares - (130.0 + 230.0) / 460.0).abs() < 1e-12);
}

#[test]
fn a_range_inside_one_event_and_unknown_tracks() {
    let (profile, grouping, trace) = (Profile::default(), Grouping::default(), two_tracks());
    let s = range_stats(&profile, &grouping, &trace, &[0, 7], 62, 64);
    assert_eq!(s.tracks, 1, "track 7 does not exist");
    let totals: Vec<(&str, i64, i64)> = s.by_name.iter().map(|r| (r.name.as_str(), r.total_ps, r.self_ps)).collect();
    // Each of step ⊃ op ⊃ kernel covers the 2 ps; only the kernel keeps them as self time.
    assert_eq!(totals, [("kernel", 2, 2), ("op", 2, 0), ("step", 2, 0)]);
}

#[test]
fn per_name_counts_on_a_real_profile_match_a_direct_count() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb"
    );
    let bytes = std::fs::read(path).expect("fixture");
    let profile = proflens_format::load_xspace(&bytes, &Default::default(), &mut |_| {}).expect("fixture decodes");
    let grouping = group_events(&profile);
    let trace = Trace::new(&profile, &grouping);
    let all: Vec<&Track> = trace.sections.iter().flat_map(|s| &s.tracks).collect();
    let ids: Vec<u32> = (0..all.len() as u32).collect();
    let span = all
        .iter()
        .filter_map(|t| track_events(&profile, t).span_ps())
        .fold((i64::MAX, i64::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    // The whole span, then its middle third.
    let third = (span.1 - span.0) / 3;
    for (a, b) in [span, (span.0 + third, span.1 - third)] {
        let mut direct: HashMap<&str, u64> = HashMap::new();
        for t in &all {
            let ev = track_events(&profile, t);
            for i in (0..ev.len()).filter(|&i| ev.start_ps.at(i) <= b && ev.end_ps(i) >= a) {
                *direct.entry(event_name(&profile, &grouping, t, i)).or_default() += 1;
            }
        }
        let s = range_stats(&profile, &grouping, &trace, &ids, a, b);
        let counted: HashMap<&str, u64> = s.by_name.iter().map(|r| (r.name.as_str(), r.count)).collect();
        assert_eq!(counted, direct);
        assert!(direct.values().sum::<u64>() > 1000, "a real range");
        let by_track: u64 = s.by_track.iter().map(|r| r.count).sum();
        assert_eq!(by_track, direct.values().sum::<u64>());
        for r in s.by_name.iter().chain(&s.by_track) {
            assert!(r.self_ps <= r.total_ps && r.total_ps <= r.count as i64 * (b - a), "{r:?}");
            assert!(r.min_ps <= r.p50_ps && r.p50_ps <= r.p90_ps && r.p90_ps <= r.p99_ps && r.p99_ps <= r.max_ps);
            assert!((0.0..=1.0 + 1e-9).contains(&r.share), "{r:?}");
        }
    }
}
