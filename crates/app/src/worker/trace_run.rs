//! The trace viewer's queries about "All hosts": the run's timeline is the
//! hosts' layouts joined ([`TraceLayout::hosts`]), so a query is split by
//! host, asked of each host's own timeline in its own numbers (track ids,
//! ps from its own origin) and answered back on the run's: tracks
//! renumbered, times shifted by the host's offset. Only the hosts a query
//! names are loaded (the window: the hosts on screen), so hosts load as
//! they come into view and the host cache keeps the last few.

use std::collections::HashMap;

use proflens_analysis::context::Request as ToolRequest;
use proflens_analysis::passes::trace::collectives::{find, key_of};
use proflens_analysis::passes::trace::export_run::{write_run_chrome_trace, HostPlacement};
use proflens_analysis::passes::trace::flame::FlameBuilder;
use proflens_analysis::passes::trace::range_stats::RangeGather;
use proflens_analysis::passes::trace::run::{host_of_track, split_tracks, HostSpan};
use proflens_analysis::passes::trace::search::EventRef;
use proflens_analysis::registry;
use proflens_analysis::tools::trace_viewer::TraceLayout;

use super::hosts::Hosts;
use super::trace_queries::{self as queries, Timeline};
use crate::protocol::boxes::{pack, pack_hits, unpack, unpack_hits};
use crate::protocol::samples;
use crate::protocol::{
    Bytes, Response, TraceAnswer, TraceHit, TraceLink, TraceQuery, TraceWindow, TrackBoxes, ALL_HOSTS, SEARCH_LIST,
};

/// Other hosts searched for the same collective as a selected event: each
/// search may load a host, so a selection reads a few, the nearest in order.
const COLLECTIVE_HOSTS: usize = 8;

/// The answer to a query about every host of `run`.
pub fn answer(hosts: &Hosts, run: String, seq: u32, query: TraceQuery) -> Option<Response> {
    let started = js_sys::Date::now();
    let spans = match run_hosts(hosts, &run) {
        Ok(spans) => spans,
        Err(message) => return Some(reply(run, seq, TraceAnswer::Failed { message })),
    };
    let r = Run { hosts, run: &run, spans: &spans };
    let answer = match query {
        TraceQuery::Window { tracks, start_ps, end_ps, width_px } => {
            match r.window(&tracks, start_ps, end_ps, width_px) {
                Ok(mut window) => {
                    window.compute_ms = js_sys::Date::now() - started;
                    TraceAnswer::Window { window: Box::new(window) }
                }
                Err(message) => TraceAnswer::Failed { message },
            }
        }
        TraceQuery::Event { track, event } => r.on_host(track, |t, local| queries::event(t, local, event)),
        TraceQuery::Links { track, event } => r.links(track, event),
        TraceQuery::Search { pattern, regex, limit } => r.search(&pattern, regex, limit),
        TraceQuery::Summary { tracks, start_ps, end_ps } => r.summary(&tracks, start_ps, end_ps),
        TraceQuery::Flame { tracks, start_ps, end_ps } => r.flame(&tracks, start_ps, end_ps),
        TraceQuery::Neighbour { track, event, forward } => {
            r.on_host(track, |t, local| super::trace_neighbour::neighbour(t, local, event, forward))
        }
        TraceQuery::Export { range } => return r.export(seq, range),
        TraceQuery::Locate { .. } => TraceAnswer::Failed {
            message: "An analysis's event is shown on its own host's timeline: choose that host above.".to_string(),
        },
    };
    Some(reply(run, seq, answer))
}

fn reply(run: String, seq: u32, answer: TraceAnswer) -> Response {
    Response::Trace { run, host: ALL_HOSTS.to_string(), seq, answer }
}

/// The run's hosts on its timeline (the trace viewer's combined layout,
/// which the run's context keeps).
fn run_hosts(hosts: &Hosts, run: &str) -> Result<Vec<HostSpan>, String> {
    let tool = registry::find("trace_viewer").ok_or("The trace viewer is missing.")?;
    let output = hosts.run(run, ALL_HOSTS, tool, &ToolRequest::default(), |_| {}).map_err(|e| e.to_string())?;
    let layout = output.model_as::<TraceLayout>().ok_or("The run's timeline is not a trace layout.")?;
    Ok(layout.hosts.clone())
}

struct Run<'a> {
    hosts: &'a Hosts,
    run: &'a str,
    spans: &'a [HostSpan],
}

/// A hit of a host, put on the run's timeline.
fn shifted(span: &HostSpan, hit: TraceHit) -> TraceHit {
    TraceHit {
        track: span.global(hit.track),
        start_ps: hit.start_ps.saturating_add(span.offset_ps),
        end_ps: hit.end_ps.saturating_add(span.offset_ps),
        ..hit
    }
}

impl Run<'_> {
    /// `f` on host `h`'s timeline.
    fn with_host<T>(&self, h: usize, f: impl FnOnce(Timeline) -> T) -> Result<T, String> {
        let context = self.hosts.context(self.run, &self.spans[h].name)?;
        let (index, profile, grouping) = (context.trace()?, context.profile()?, context.grouping()?);
        Ok(f(Timeline { profile: &profile, grouping: &grouping, index: &index }))
    }

    /// An answer about one event, asked of its host and put on the run's timeline.
    fn on_host(&self, track: u32, f: impl FnOnce(Timeline, u32) -> TraceAnswer) -> TraceAnswer {
        let Some((h, local)) = host_of_track(self.spans, track) else {
            return TraceAnswer::Failed { message: "That event is not in this run.".to_string() };
        };
        let span = &self.spans[h];
        let answer = match self.with_host(h, |t| f(t, local)) {
            Ok(answer) => answer,
            Err(message) => return TraceAnswer::Failed { message },
        };
        match answer {
            TraceAnswer::Event { mut event } => {
                event.at = shifted(span, event.at);
                event.details.start_ps = event.details.start_ps.saturating_add(span.offset_ps);
                event.track_name = format!("{} — {}", span.name, event.track_name);
                // A file position names no host: a link to it would not reopen on "All hosts".
                event.model_at = None;
                TraceAnswer::Event { event }
            }
            TraceAnswer::Links { event, mut links, .. } => {
                for link in &mut links {
                    link.to = shifted(span, link.to);
                }
                TraceAnswer::Links { track, event, links }
            }
            other => other,
        }
    }

    /// The event's links on its host, and the same collective on the other
    /// hosts, where the file names it ([`key_of`]).
    fn links(&self, track: u32, event: u32) -> TraceAnswer {
        let mut answer = self.on_host(track, |t, local| queries::links_of(t, local, event));
        let (TraceAnswer::Links { links, .. }, Some((h, local))) = (&mut answer, host_of_track(self.spans, track))
        else {
            return answer;
        };
        let at = EventRef { track: local, event };
        let Ok(Some(key)) = self.with_host(h, |t| key_of(t.profile, &t.index.trace, at)) else { return answer };
        let mut others: Vec<usize> = (0..self.spans.len()).filter(|&o| o != h).collect();
        others.sort_by_key(|&o| o.abs_diff(h));
        for o in others.into_iter().take(COLLECTIVE_HOSTS) {
            let span = &self.spans[o];
            let found =
                self.with_host(o, |t| find(t.profile, &t.index.trace, &key).and_then(|e| t.hit(e.track, e.event)));
            if let Ok(Some(hit)) = found {
                let name = format!("{} (“{} {}” #{})", span.name, key.name, key.group, key.seq);
                links.push(TraceLink { to: shifted(span, hit), kind: "same collective".to_string(), name });
            }
        }
        answer
    }

    /// Each host's boxes of its tracks, shifted, with one list of names.
    fn window(&self, tracks: &[u32], start_ps: i64, end_ps: i64, width_px: u32) -> Result<TraceWindow, String> {
        let mut names: Vec<String> = Vec::new();
        let mut name_ids: HashMap<String, u32> = HashMap::new();
        let mut out = Vec::with_capacity(tracks.len());
        for (h, local) in split_tracks(self.spans, tracks) {
            let span = &self.spans[h];
            let (a, b) = (start_ps.saturating_sub(span.offset_ps), end_ps.saturating_sub(span.offset_ps));
            let window = self.with_host(h, |t| queries::window(t, &local, a, b, width_px))?;
            let ids: Vec<u32> = window
                .names
                .into_iter()
                .map(|name| {
                    let next = names.len() as u32;
                    *name_ids.entry(name).or_insert_with_key(|name| {
                        names.push(name.clone());
                        next
                    })
                })
                .collect();
            for track in window.tracks {
                let mut boxes = unpack(&track.boxes.0);
                for b in &mut boxes {
                    b.start_ps = b.start_ps.saturating_add(span.offset_ps);
                    b.end_ps = b.end_ps.saturating_add(span.offset_ps);
                    b.name = ids.get(b.name as usize).copied().unwrap_or(0);
                }
                let mut values = samples::unpack(&track.samples.0);
                for v in &mut values {
                    v.time_ps = v.time_ps.saturating_add(span.offset_ps);
                }
                out.push(TrackBoxes {
                    track: span.global(track.track),
                    boxes: Bytes(pack(&boxes)),
                    samples: Bytes(samples::pack(&values)),
                });
            }
        }
        Ok(TraceWindow { start_ps, end_ps, width_px, tracks: out, names, compute_ms: 0.0 })
    }

    /// Every host's matches, in time order on the run's clock, the first `limit`.
    fn search(&self, pattern: &str, regex: bool, limit: u32) -> TraceAnswer {
        // Each hit with its name while listed (a host names only its first matches).
        let mut hits: Vec<(TraceHit, Option<String>)> = Vec::new();
        let mut total = 0u64;
        for (h, span) in self.spans.iter().enumerate() {
            match self.with_host(h, |t| queries::search(t, pattern, regex, limit)) {
                Ok(TraceAnswer::Search { hits: found, total: n, names }) => {
                    let mut names = names.into_iter();
                    hits.extend(unpack_hits(&found.0).into_iter().map(|hit| (shifted(span, hit), names.next())));
                    total += n;
                }
                Ok(other) => return other,
                Err(message) => return TraceAnswer::Failed { message },
            }
        }
        hits.sort_by_key(|(h, _)| (h.start_ps, h.track));
        hits.truncate(limit as usize);
        let names = hits.iter().take(SEARCH_LIST).map(|(_, name)| name.clone().unwrap_or_default()).collect();
        let hits: Vec<TraceHit> = hits.into_iter().map(|(hit, _)| hit).collect();
        TraceAnswer::Search { hits: Bytes(pack_hits(&hits)), total, names }
    }

    /// The range's statistics over the hosts' tracks, each host on its clock.
    fn summary(&self, tracks: &[u32], start_ps: i64, end_ps: i64) -> TraceAnswer {
        let mut gather = RangeGather::new(start_ps, end_ps);
        for (h, local) in split_tracks(self.spans, tracks) {
            let span = &self.spans[h];
            let added = self.with_host(h, |t| {
                gather.add(t.profile, t.grouping, &t.index.trace, &local, span.offset_ps, |l| span.global(l))
            });
            if let Err(message) = added {
                return TraceAnswer::Failed { message };
            }
        }
        TraceAnswer::Summary { stats: Box::new(gather.finish()) }
    }

    /// The flame graph of the range over the hosts' tracks: stacks merge across hosts.
    fn flame(&self, tracks: &[u32], start_ps: i64, end_ps: i64) -> TraceAnswer {
        let mut builder = FlameBuilder::new(start_ps, end_ps);
        for (h, local) in split_tracks(self.spans, tracks) {
            let offset = self.spans[h].offset_ps;
            let added = self.with_host(h, |t| builder.add(t.profile, t.grouping, &t.index.trace, &local, offset));
            if let Err(message) = added {
                return TraceAnswer::Failed { message };
            }
        }
        TraceAnswer::Flame { flame: Box::new(builder.finish()) }
    }

    /// Every host as one Chrome trace (one process per host and plane).
    fn export(&self, seq: u32, range: Option<(i64, i64)>) -> Option<Response> {
        let placements: Vec<HostPlacement> =
            self.spans.iter().map(|s| HostPlacement { name: s.name.clone(), offset_ps: s.offset_ps }).collect();
        let range = range.map(|(a, b)| (a.min(b), a.max(b)));
        let mut write_host = |h: usize, window: Option<(i64, i64)>, w: &mut dyn std::io::Write| {
            self.with_host(h, |t| queries::export(t, window, w)).map_err(std::io::Error::other)?
        };
        let written = |w: &mut dyn std::io::Write| write_run_chrome_trace(&placements, range, &mut write_host, w);
        let name = format!("{}.all-hosts", self.run);
        super::trace::export_with(self.run.to_string(), ALL_HOSTS.to_string(), seq, range.is_some(), &name, written)
    }
}
