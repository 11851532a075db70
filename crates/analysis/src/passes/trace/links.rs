//! Flow arrows: the events linked to a selected one — a host launch and the
//! device kernel it started (same `correlation_id`), a producer and its
//! consumers (same `_pt`/`_p` and `_ct`/`_c` context).

use super::search::EventRef;
use super::{Trace, TrackSource};
use crate::common::schema::{StatKeys, StatPicker};
use proflens_model::{Profile, StatValue};
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
    /// (correlation id, event, plane), sorted: a launch and its kernel sit
    /// on different planes.
    by_correlation: Vec<(i64, EventRef, u32)>,
    /// (context produced, event), sorted.
    by_produced: Vec<((i64, u64), EventRef)>,
    /// (context consumed, event), sorted.
    by_consumed: Vec<((i64, u64), EventRef)>,
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
            }
        }
        // One sorted list per key kind: no allocation per key.
        index.by_correlation.sort_unstable();
        index.by_produced.sort_unstable();
        index.by_consumed.sort_unstable();
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
