//! Flow arrows: the events linked to a selected one — a host launch and the
//! device kernel it started (same `correlation_id`), a producer and its
//! consumers (same `_pt`/`_p` and `_ct`/`_c` context), and the two ends of
//! each hop of a trace-event flow (`_fo` → `_fi`, written by the Chrome
//! trace importers: Kineto's `fwdbwd`, any file's `s`/`t`/`f` flows).

use super::search::EventRef;
use super::{Trace, TrackSource};
use crate::common::schema::{StatKeys, StatPicker};
use proflens_format::chrome_trace::{FLOW_IN, FLOW_OUT};
use proflens_model::{Events, Profile, StatKind, StatValue, StrId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinkKind {
    /// The selected event launched the other (host → device).
    LaunchedKernel,
    /// The other event launched the selected one.
    LaunchedBy,
    /// The selected event produced what the other consumed.
    Consumer,
    /// The other event produced what the selected one consumed.
    Producer,
    /// A trace-event flow goes from the selected event to the other; the
    /// number is the flow's text (`"<category> <hop>"`) as a string id,
    /// see [`flow_category`].
    FlowTo(u32),
    /// A trace-event flow comes from the other event to the selected one.
    FlowFrom(u32),
}

/// The category of a flow link's flow (`fwdbwd` for Kineto's forward →
/// backward flows), or `None` for other kinds.
pub fn flow_category(profile: &Profile, kind: LinkKind) -> Option<&str> {
    let (LinkKind::FlowTo(id) | LinkKind::FlowFrom(id)) = kind else { return None };
    let text = profile.strings.get(StrId(id));
    Some(text.rsplit_once(' ').map_or(text, |(cat, _)| cat))
}

/// The flow stat keys, if the file has flows.
fn flow_keys(profile: &Profile) -> Option<(Option<StrId>, Option<StrId>)> {
    let keys = (profile.strings.lookup(FLOW_OUT), profile.strings.lookup(FLOW_IN));
    (keys.0.is_some() || keys.1.is_some()).then_some(keys)
}

/// The flows of event `i`: (outgoing, flow text) for each flow stat.
fn flows_of(events: &Events, i: usize, keys: (Option<StrId>, Option<StrId>)) -> impl Iterator<Item = (bool, u32)> + '_ {
    events.stats.of(i).filter(|s| s.kind == StatKind::Str).filter_map(move |s| {
        let out = Some(s.key) == keys.0;
        (out || Some(s.key) == keys.1).then_some((out, s.bits as u32))
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub to: EventRef,
    pub kind: LinkKind,
}

const CORRELATION: usize = 0;
const PRODUCER_TYPE: usize = 1;
const PRODUCER_ID: usize = 2;
const CONSUMER_TYPE: usize = 3;
const CONSUMER_ID: usize = 4;

/// (correlation id, producer (type, id), consumer (type, id)) of an event.
type LinkKeys = (Option<i64>, Option<(i64, u64)>, Option<(i64, u64)>);

fn link_keys(values: &[Option<StatValue<'_>>]) -> LinkKeys {
    let int = |s: usize| values[s].and_then(|v| v.as_i64());
    let uint = |s: usize| values[s].and_then(|v| v.as_u64());
    (int(CORRELATION), int(PRODUCER_TYPE).zip(uint(PRODUCER_ID)), int(CONSUMER_TYPE).zip(uint(CONSUMER_ID)))
}

/// The link keys of every event that has one, gathered in one scan of the
/// file's lines so that each selection's links are hash lookups (a scan per
/// click took most of a second on 10M events).
#[derive(Debug, Default)]
pub struct LinkIndex {
    /// (correlation id, event, plane), sorted: a launch and its kernel sit
    /// on different planes.
    by_correlation: Vec<(i64, EventRef, u32)>,
    /// (context produced, event), sorted.
    by_produced: Vec<((i64, u64), EventRef)>,
    /// (context consumed, event), sorted.
    by_consumed: Vec<((i64, u64), EventRef)>,
    /// (flow text, event) of the sources of flow hops, sorted.
    by_flow_out: Vec<(u32, EventRef)>,
    /// (flow text, event) of the targets of flow hops, sorted.
    by_flow_in: Vec<(u32, EventRef)>,
}

/// The entries of a sorted index whose key is `key`.
fn with_key<K: Ord + Copy, T>(index: &[T], key: K, key_of: impl Fn(&T) -> K) -> &[T] {
    let start = index.partition_point(|e| key_of(e) < key);
    let end = start + index[start..].partition_point(|e| key_of(e) == key);
    &index[start..end]
}

impl LinkIndex {
    pub fn new(profile: &Profile, trace: &Trace) -> LinkIndex {
        let picker = link_picker(profile);
        let mut values = [None; 5];
        let mut index = LinkIndex::default();
        let flows = flow_keys(profile);
        for (t, track) in trace.sections.iter().flat_map(|s| &s.tracks).enumerate() {
            let TrackSource::Line(p, l) = track.source else { continue };
            let (plane, line) = (&profile.planes[p], &profile.planes[p].lines[l]);
            for i in 0..line.events.len() {
                picker.pick(profile, plane, line, i, &mut values);
                let (correlation, produces, consumes) = link_keys(&values);
                let at = EventRef { track: t as u32, event: i as u32 };
                if let Some(c) = correlation {
                    index.by_correlation.push((c, at, p as u32));
                }
                if let Some(k) = produces {
                    index.by_produced.push((k, at));
                }
                if let Some(k) = consumes {
                    index.by_consumed.push((k, at));
                }
                if let Some(keys) = flows {
                    for (out, flow) in flows_of(&line.events, i, keys) {
                        if out { &mut index.by_flow_out } else { &mut index.by_flow_in }.push((flow, at));
                    }
                }
            }
        }
        // One sorted list per key kind: no allocation per key.
        index.by_correlation.sort_unstable();
        index.by_produced.sort_unstable();
        index.by_consumed.sort_unstable();
        index.by_flow_out.sort_unstable();
        index.by_flow_in.sort_unstable();
        index
    }

    /// Every event linked to `at` (at most `limit`, in track and event
    /// order): the launch or kernels with its correlation id on another
    /// plane, else the consumers of what it produces, else the producers of
    /// what it consumes, else the other ends of its flows.
    pub fn links(&self, profile: &Profile, trace: &Trace, at: EventRef, limit: usize) -> Vec<Link> {
        let tracks: Vec<_> = trace.sections.iter().flat_map(|s| &s.tracks).collect();
        let Some(TrackSource::Line(sp, sl)) = tracks.get(at.track as usize).map(|t| &t.source) else {
            return Vec::new();
        };
        let (plane, line) = (&profile.planes[*sp], &profile.planes[*sp].lines[*sl]);
        if at.event as usize >= line.events.len() {
            return Vec::new();
        }
        let mut values = [None; 5];
        link_picker(profile).pick(profile, plane, line, at.event as usize, &mut values);
        let (correlation, produces, consumes) = link_keys(&values);
        let launch = if profile.str(plane.name) == crate::common::schema::HOST_PLANE {
            LinkKind::LaunchedKernel
        } else {
            LinkKind::LaunchedBy
        };
        // The first kind found for an event wins, in this order.
        let mut found: BTreeMap<EventRef, LinkKind> = BTreeMap::new();
        if let Some(c) = correlation {
            for &(_, to, p) in with_key(&self.by_correlation, c, |e| e.0) {
                if p as usize != *sp {
                    found.entry(to).or_insert(launch);
                }
            }
        }
        if let Some(k) = produces {
            for &(_, to) in with_key(&self.by_consumed, k, |e| e.0) {
                found.entry(to).or_insert(LinkKind::Consumer);
            }
        }
        if let Some(k) = consumes {
            for &(_, to) in with_key(&self.by_produced, k, |e| e.0) {
                found.entry(to).or_insert(LinkKind::Producer);
            }
        }
        if let Some(keys) = flow_keys(profile) {
            for (out, flow) in flows_of(&line.events, at.event as usize, keys) {
                let (others, kind) = if out {
                    (&self.by_flow_in, LinkKind::FlowTo(flow))
                } else {
                    (&self.by_flow_out, LinkKind::FlowFrom(flow))
                };
                for &(_, to) in with_key(others, flow, |e| e.0) {
                    found.entry(to).or_insert(kind);
                }
            }
        }
        found.into_iter().filter(|(to, _)| *to != at).take(limit).map(|(to, kind)| Link { to, kind }).collect()
    }
}

fn link_picker(profile: &Profile) -> StatPicker {
    let keys = StatKeys::new(profile);
    StatPicker::new(
        profile,
        &[keys.correlation_id, keys.producer_type, keys.producer_id, keys.consumer_type, keys.consumer_id],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::grouping::Grouping;
    use crate::passes::trace::event_name;

    /// Kineto's `fwdbwd` flows of a real DDP training step (A100): every
    /// forward op with a flow links to its backward op, both ways.
    #[test]
    fn kineto_fwdbwd_flows_link_forward_ops_to_backward_ops() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/kineto/kineto-a100-ddp-nccl/nccl_data.json.gz");
        let bytes = std::fs::read(path).expect("fixture");
        let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).expect("decoded");
        let grouping = Grouping::default();
        let trace = Trace::new(&profile, &grouping);
        let index = LinkIndex::new(&profile, &trace);
        let tracks: Vec<_> = trace.sections.iter().flat_map(|s| &s.tracks).collect();
        let name = |at: EventRef| event_name(&profile, &grouping, tracks[at.track as usize], at.event as usize);
        let mut hops = Vec::new();
        for &(_, from) in &index.by_flow_out {
            let links = index.links(&profile, &trace, from, 10);
            let to: Vec<_> = links.iter().filter(|l| matches!(l.kind, LinkKind::FlowTo(_))).collect();
            assert_eq!(to.len(), 1, "{}: {links:?}", name(from));
            assert_eq!(flow_category(&profile, to[0].kind), Some("fwdbwd"));
            // And back: the backward op's links name the forward op.
            let back = index.links(&profile, &trace, to[0].to, 10);
            assert!(back.iter().any(|l| l.to == from && matches!(l.kind, LinkKind::FlowFrom(_))), "{back:?}");
            hops.push((name(from).to_string(), name(to[0].to).to_string()));
        }
        // The file's 543 fwdbwd flows (its ac2g launch flows stay correlation ids).
        assert_eq!(hops.len(), 543);
        for (forward, backward) in &hops {
            assert!(forward.starts_with("aten::"), "{forward} → {backward}");
            assert!(backward.contains("Backward"), "{forward} → {backward}");
        }
        let conv = ("aten::convolution".to_string(), "ConvolutionBackward0".to_string());
        assert!(hops.contains(&conv), "{:?}", &hops[..5]);
    }
}
