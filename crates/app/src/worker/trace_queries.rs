//! The answers to the trace viewer's queries about one host's timeline (a
//! window of boxes, one event, its links, search, a range summary, export).
//! They read the host's [`TraceIndex`] and grouping from its context, the one
//! place they are kept: pure functions of those, no web types here.

use std::collections::HashMap;
use std::io::{self, Write};

use proflens_analysis::common::tf_op::{self, OpCategory};
use proflens_analysis::passes::grouping::Grouping;
use proflens_analysis::passes::trace::counters::visible_samples;
use proflens_analysis::passes::trace::export::write_chrome_trace;
use proflens_analysis::passes::trace::flame::flame;
use proflens_analysis::passes::trace::index::TraceIndex;
use proflens_analysis::passes::trace::links::{flow_category, LinkIndex, LinkKind};
use proflens_analysis::passes::trace::range_stats::range_stats;
use proflens_analysis::passes::trace::search::{search as find, EventRef, Pattern};
use proflens_analysis::passes::trace::window::visible;
use proflens_analysis::passes::trace::{event_details, event_name, track_counter, track_events, TrackSource};
use proflens_model::Profile;

use crate::protocol::boxes::{pack, pack_hits, DrawBox};
use crate::protocol::samples;
use crate::protocol::{
    Bytes, EventAt, TraceAnswer, TraceEvent, TraceHit, TraceLink, TraceWindow, TrackBoxes, MAX_HITS, SEARCH_LIST,
};

/// Most events linked to one that the details pane lists.
const LINK_LIMIT: usize = 200;
/// Most pixels a window may be drawn on: bounds the boxes of one answer.
const MAX_WIDTH_PX: u32 = 16_384;

/// One host's timeline, as its context holds it: what every query reads.
#[derive(Clone, Copy)]
pub struct Timeline<'a> {
    pub profile: &'a Profile,
    pub grouping: &'a Grouping,
    pub index: &'a TraceIndex,
}

impl Timeline<'_> {
    /// Where event `event` of track `track` is drawn.
    pub fn hit(&self, track: u32, event: u32) -> Option<TraceHit> {
        let (t, _) = self.index.track(track)?;
        let columns = track_events(self.profile, t);
        let i = event as usize;
        (i < columns.len()).then(|| TraceHit {
            track,
            event,
            start_ps: columns.start_ps.at(i),
            end_ps: columns.end_ps(i),
            depth: columns.depth.get(i).copied().unwrap_or(0),
        })
    }
}

/// The boxes of `tracks` in `[start_ps, end_ps]` drawn `width_px` wide.
pub fn window(t: Timeline, tracks: &[u32], start_ps: i64, end_ps: i64, width_px: u32) -> TraceWindow {
    let width_px = width_px.clamp(1, MAX_WIDTH_PX);
    let ps_per_px = (end_ps.saturating_sub(start_ps)).max(1) as f64 / width_px as f64;
    let mut names: Vec<String> = Vec::new();
    let mut name_ids: HashMap<&str, u32> = HashMap::new();
    let mut out = Vec::with_capacity(tracks.len());
    for &id in tracks {
        let Some((track, meta)) = t.index.track(id) else { continue };
        if let Some(counter) = track_counter(track) {
            let reduced = visible_samples(counter, start_ps, end_ps, ps_per_px);
            out.push(TrackBoxes { track: id, boxes: Bytes::default(), samples: Bytes(samples::pack(&reduced)) });
            continue;
        }
        let columns = track_events(t.profile, track);
        let rects = visible(columns, meta.max_duration, start_ps, end_ps, ps_per_px);
        let boxes: Vec<DrawBox> = rects
            .iter()
            .map(|r| {
                let name = event_name(t.profile, t.grouping, track, r.event as usize);
                let next = names.len() as u32;
                let name = *name_ids.entry(name).or_insert_with(|| {
                    names.push(name.to_string());
                    next
                });
                DrawBox {
                    start_ps: r.start_ps,
                    end_ps: r.end_ps,
                    event: r.event,
                    merged: r.merged,
                    name,
                    depth: r.depth,
                }
            })
            .collect();
        out.push(TrackBoxes { track: id, boxes: Bytes(pack(&boxes)), samples: Bytes::default() });
    }
    TraceWindow { start_ps, end_ps, width_px, tracks: out, names, compute_ms: 0.0 }
}

/// Details of one event.
pub fn event(t: Timeline, track: u32, event: u32) -> TraceAnswer {
    let gone = || TraceAnswer::Failed { message: "That event is not in this profile.".to_string() };
    let (Some((on, _)), Some(at)) = (t.index.track(track), t.hit(track, event)) else {
        return gone();
    };
    let Some(details) = event_details(t.profile, t.grouping, on, event as usize) else {
        return gone();
    };
    let category = category(details.long_name.as_deref().unwrap_or(&details.name));
    // A line's track holds the line's events in order: the index is the line's.
    let model_at = match on.source {
        TrackSource::Line(plane, line) => Some(EventAt { plane, line, index: event as usize }),
        TrackSource::Derived(_) | TrackSource::Counter(_) => None,
    };
    TraceAnswer::Event { event: Box::new(TraceEvent { at, details, category, track_name: on.name.clone(), model_at }) }
}

/// The event at a model position (plane, line, index in the line), as
/// [`event`] gives it: the track of that line holds the line's events in order.
pub fn locate(t: Timeline, at: EventAt) -> TraceAnswer {
    let track = t.index.tracks.iter().enumerate().position(|(id, _)| {
        t.index
            .track(id as u32)
            .is_some_and(|(track, _)| matches!(track.source, TrackSource::Line(p, l) if (p, l) == (at.plane, at.line)))
    });
    match (track, u32::try_from(at.index)) {
        (Some(track), Ok(event)) => self::event(t, track as u32, event),
        _ => TraceAnswer::Failed { message: "That event is not in this host's timeline.".to_string() },
    }
}

/// The events linked to one: launches and kernels, producers and consumers.
pub fn links_of(t: Timeline, track: u32, event: u32) -> TraceAnswer {
    let trace = &t.index.trace;
    let index = t.index.links.get_or_init(|| LinkIndex::new(t.profile, trace));
    let links = index
        .links(t.profile, trace, EventRef { track, event }, LINK_LIMIT)
        .into_iter()
        .filter_map(|link| {
            let to = t.hit(link.to.track, link.to.event)?;
            let (other, _) = t.index.track(link.to.track)?;
            Some(TraceLink {
                to,
                kind: match link.kind {
                    LinkKind::LaunchedKernel => "launched".to_string(),
                    LinkKind::LaunchedBy => "launched by".to_string(),
                    LinkKind::Consumer => "consumer".to_string(),
                    LinkKind::Producer => "producer".to_string(),
                    LinkKind::FlowTo(_) | LinkKind::FlowFrom(_) => {
                        let way = if matches!(link.kind, LinkKind::FlowTo(_)) { "flow to" } else { "flow from" };
                        format!("{way} {}", flow_category(t.profile, link.kind).unwrap_or_default())
                    }
                },
                name: event_name(t.profile, t.grouping, other, link.to.event as usize).to_string(),
            })
        })
        .collect();
    TraceAnswer::Links { track, event, links }
}

/// What the op-name parser makes of an event name, in words.
pub fn category(name: &str) -> Option<String> {
    let op = tf_op::parse(name);
    let with_type = |what: &str| {
        if op.op_type.is_empty() {
            what.to_string()
        } else {
            format!("{what} · {}", op.op_type)
        }
    };
    Some(match op.category {
        OpCategory::Unknown => return None,
        OpCategory::TensorFlow => with_type("TensorFlow op"),
        OpCategory::Jax => with_type("JAX op"),
        OpCategory::TfData => "tf.data iterator".to_string(),
        OpCategory::MemcpyHToD => "Memory copy, host to device".to_string(),
        OpCategory::MemcpyDToH => "Memory copy, device to host".to_string(),
        OpCategory::MemcpyDToD => "Memory copy, device to device".to_string(),
        OpCategory::MemcpyHToH => "Memory copy, host to host".to_string(),
    })
}

pub fn search(t: Timeline, pattern: &str, regex: bool, limit: u32) -> TraceAnswer {
    if pattern.is_empty() {
        return TraceAnswer::Search { hits: Bytes::default(), total: 0, names: Vec::new() };
    }
    let pattern = match Pattern::new(pattern, regex) {
        Ok(p) => p,
        Err(message) => return TraceAnswer::Failed { message },
    };
    let (found, total) = find(t.profile, t.grouping, &t.index.trace, &pattern, limit.min(MAX_HITS) as usize);
    let hits: Vec<TraceHit> = found.iter().filter_map(|(_, at)| t.hit(at.track, at.event)).collect();
    let names = hits
        .iter()
        .take(SEARCH_LIST)
        .map(|h| {
            t.index.track(h.track).map_or_else(String::new, |(track, _)| {
                event_name(t.profile, t.grouping, track, h.event as usize).to_string()
            })
        })
        .collect();
    TraceAnswer::Search { hits: Bytes(pack_hits(&hits)), total, names }
}

pub fn summary(t: Timeline, tracks: &[u32], start_ps: i64, end_ps: i64) -> TraceAnswer {
    let stats = range_stats(t.profile, t.grouping, &t.index.trace, tracks, start_ps, end_ps);
    TraceAnswer::Summary { stats: Box::new(stats) }
}

pub fn flame_of(t: Timeline, tracks: &[u32], start_ps: i64, end_ps: i64) -> TraceAnswer {
    TraceAnswer::Flame { flame: Box::new(flame(t.profile, t.grouping, &t.index.trace, tracks, start_ps, end_ps)) }
}

/// Writes the Chrome trace JSON; the number of events written.
pub fn export(t: Timeline, range: Option<(i64, i64)>, out: &mut dyn Write) -> io::Result<u64> {
    let range = range.map(|(a, b)| (a.min(b), a.max(b)));
    write_chrome_trace(t.profile, t.grouping, &t.index.trace, range, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::boxes::{unpack, unpack_hits};
    use proflens_analysis::hlo::gpu::GpuHlo;
    use proflens_analysis::passes::grouping::group_events;

    const INPUT_BOUND: &[u8] =
        include_bytes!("../../../../tests/data/xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb");
    const GPU: &[u8] = include_bytes!("../../../../tests/data/xspace/external/34.83.195.179_6003.xplane.pb");

    /// A profile with what its context would hold for the queries.
    struct Fixture {
        profile: Profile,
        grouping: Grouping,
        index: TraceIndex,
    }

    impl Fixture {
        fn of(bytes: &[u8]) -> Fixture {
            let profile =
                proflens_format::load_xspace(bytes, &Default::default(), &mut |_| {}).expect("fixture decodes");
            let grouping = group_events(&profile);
            let index = TraceIndex::new(&profile, &grouping, &GpuHlo::new(&[]));
            Fixture { profile, grouping, index }
        }

        fn t(&self) -> Timeline<'_> {
            Timeline { profile: &self.profile, grouping: &self.grouping, index: &self.index }
        }
    }

    #[test]
    fn window_boxes_stay_within_pixels_and_name_single_events() {
        let f = Fixture::of(INPUT_BOUND);
        let all: Vec<u32> = (0..f.index.tracks.len() as u32).collect();
        let (a, b) = f.index.span;
        let w = window(f.t(), &all, a, b, 500);
        let mut single = 0;
        for t in &w.tracks {
            let boxes = unpack(&t.boxes.0);
            let rows = f.index.tracks[t.track as usize].rows as usize;
            // At most two boxes per pixel and row: a sub-pixel event right after a wide one keeps its own.
            assert!(boxes.len() <= 2 * (500 * rows + rows), "track {} has {} boxes", t.track, boxes.len());
            for b in boxes.iter().filter(|b| b.merged == 1) {
                let (track, _) = f.index.track(t.track).expect("track");
                assert_eq!(w.names[b.name as usize], event_name(&f.profile, &f.grouping, track, b.event as usize));
                single += 1;
            }
        }
        assert!(single > 0);
    }

    #[test]
    fn search_event_summary_and_export() {
        let f = Fixture::of(INPUT_BOUND);
        let TraceAnswer::Search { hits, total, names } = search(f.t(), "EagerPyFunc", false, 10) else {
            panic!("search failed")
        };
        let hits = unpack_hits(&hits.0);
        assert_eq!(names.len(), hits.len());
        assert!(names.iter().all(|n| n.contains("EagerPyFunc")), "{names:?}");
        assert!(total >= 380, "{total}");
        assert_eq!(hits.len(), 10);
        assert!(hits.windows(2).all(|w| w[0].start_ps <= w[1].start_ps));
        assert!(matches!(search(f.t(), "(", true, 10), TraceAnswer::Failed { .. }));

        let TraceAnswer::Event { event: e } = event(f.t(), hits[0].track, hits[0].event) else { panic!("no event") };
        assert!(e.details.name.contains("EagerPyFunc"));
        assert_eq!(e.at, hits[0]);
        // The same event by its model position (the line behind its track).
        let (track, _) = f.index.track(hits[0].track).expect("track");
        let TrackSource::Line(plane, line) = track.source else { panic!("a line's track") };
        let at = EventAt { plane, line, index: hits[0].event as usize };
        let TraceAnswer::Event { event: found } = locate(f.t(), at) else { panic!("not located") };
        assert_eq!(found, e);
        assert_eq!(e.model_at, Some(at), "the event names its model position (for the URL)");
        assert!(matches!(locate(f.t(), EventAt { index: usize::MAX, ..at }), TraceAnswer::Failed { .. }));

        let TraceAnswer::Summary { stats } = summary(f.t(), &[hits[0].track], hits[0].start_ps, hits[0].end_ps) else {
            panic!("no summary")
        };
        assert!(stats.by_name.iter().any(|r| r.name.contains("EagerPyFunc")));
        let TraceAnswer::Flame { flame } = flame_of(f.t(), &[hits[0].track], hits[0].start_ps, hits[0].end_ps) else {
            panic!("no flame graph")
        };
        // The event fills the range: its frame is as wide as the root.
        let root = flame.frames[0].total_ps;
        assert_eq!(root, hits[0].end_ps - hits[0].start_ps);
        assert!(flame
            .frames
            .iter()
            .any(|f| f.total_ps == root && flame.names[f.name as usize].contains("EagerPyFunc")));

        let mut json = Vec::new();
        let n = export(f.t(), Some((hits[0].start_ps, hits[0].end_ps)), &mut json).expect("export");
        assert!(n >= 1);
        let parsed: serde_json::Value = serde_json::from_slice(&json).expect("valid JSON");
        assert!(parsed["traceEvents"].as_array().is_some_and(|e| !e.is_empty()));
    }

    #[test]
    fn a_launch_links_to_its_kernel_and_back() {
        let f = Fixture::of(GPU);
        let TraceAnswer::Search { hits, .. } = search(f.t(), "FillPhiloxRandomKernelLaunch", false, MAX_HITS) else {
            panic!("search failed")
        };
        let launch = unpack_hits(&hits.0)[0];
        let TraceAnswer::Links { links, .. } = links_of(f.t(), launch.track, launch.event) else { panic!("no links") };
        let kernel = links.iter().find(|l| l.kind == "launched").expect("the kernel it launched");
        assert!(kernel.to.start_ps >= launch.start_ps);
        let TraceAnswer::Links { links: back, .. } = links_of(f.t(), kernel.to.track, kernel.to.event) else {
            panic!("no links back")
        };
        assert!(back.iter().any(|l| l.kind == "launched by" && l.to == launch));
    }

    #[test]
    fn categories_in_words() {
        assert_eq!(category("dense/MatMul:MatMul").as_deref(), Some("TensorFlow op · MatMul"));
        assert_eq!(category("Iterator::Root::Map").as_deref(), Some("tf.data iterator"));
        assert_eq!(category("python frame"), None);
    }
}
