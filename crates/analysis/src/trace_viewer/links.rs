//! Flow arrows: the events linked to a selected one — a host launch and the
//! device kernel it started (same `correlation_id`), a producer and its
//! consumers (same `_pt`/`_p` and `_ct`/`_c` context).

use super::search::EventRef;
use super::{Trace, TrackSource};
use crate::schema::{StatKeys, StatPicker};
use proflens_model::{Profile, StatValue};
use rustc_hash::FxHashMap;
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
    /// Events by correlation id, with their plane (a launch and its kernel
    /// sit on different planes).
    by_correlation: FxHashMap<i64, Vec<(EventRef, usize)>>,
    /// Events by the context they produce.
    by_produced: FxHashMap<(i64, u64), Vec<EventRef>>,
    /// Events by the context they consume.
    by_consumed: FxHashMap<(i64, u64), Vec<EventRef>>,
}

impl LinkIndex {
    pub fn new(profile: &Profile, trace: &Trace) -> LinkIndex {
        let picker = link_picker(profile);
        let mut values = [None; 5];
        let mut index = LinkIndex::default();
        for (t, track) in trace.sections.iter().flat_map(|s| &s.tracks).enumerate() {
            let TrackSource::Line(p, l) = track.source else { continue };
            let (plane, line) = (&profile.planes[p], &profile.planes[p].lines[l]);
            for i in 0..line.events.len() {
                picker.pick(profile, plane, line, i, &mut values);
                let (correlation, produces, consumes) = link_keys(&values);
                let at = EventRef { track: t as u32, event: i as u32 };
                if let Some(c) = correlation {
                    index.by_correlation.entry(c).or_default().push((at, p));
                }
                if let Some(k) = produces {
                    index.by_produced.entry(k).or_default().push(at);
                }
                if let Some(k) = consumes {
                    index.by_consumed.entry(k).or_default().push(at);
                }
            }
        }
        index
    }

    /// Every event linked to `at` (at most `limit`, in track and event
    /// order): the launch or kernels with its correlation id on another
    /// plane, else the consumers of what it produces, else the producers of
    /// what it consumes.
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
        let launch = if profile.str(plane.name) == crate::schema::HOST_PLANE {
            LinkKind::LaunchedKernel
        } else {
            LinkKind::LaunchedBy
        };
        // The first kind found for an event wins, in this order.
        let mut found: BTreeMap<EventRef, LinkKind> = BTreeMap::new();
        let launches = correlation.and_then(|c| self.by_correlation.get(&c)).into_iter().flatten();
        for &(to, _) in launches.filter(|&&(_, p)| p != *sp) {
            found.entry(to).or_insert(launch);
        }
        for to in produces.and_then(|k| self.by_consumed.get(&k)).into_iter().flatten() {
            found.entry(*to).or_insert(LinkKind::Consumer);
        }
        for to in consumes.and_then(|k| self.by_produced.get(&k)).into_iter().flatten() {
            found.entry(*to).or_insert(LinkKind::Producer);
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
