//! Flow arrows: the events linked to a selected one — a host launch and the
//! device kernel it started (same `correlation_id`), a producer and its
//! consumers (same `_pt`/`_p` and `_ct`/`_c` context).

use super::search::EventRef;
use super::{Trace, TrackSource};
use crate::schema::{StatKeys, StatPicker};
use proflens_model::{Profile, StatValue};
use serde::{Deserialize, Serialize};

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

/// Every event linked to `at` (at most `limit`), scanning the file's lines once.
pub fn links(profile: &Profile, trace: &Trace, at: EventRef, limit: usize) -> Vec<Link> {
    let keys = StatKeys::new(profile);
    let picker = StatPicker::new(
        profile,
        &[keys.correlation_id, keys.producer_type, keys.producer_id, keys.consumer_type, keys.consumer_id],
    );
    let mut values = [None; 5];
    let tracks: Vec<_> = trace.sections.iter().flat_map(|s| &s.tracks).collect();
    let Some(TrackSource::Line(sp, sl)) = tracks.get(at.track as usize).map(|t| &t.source) else { return Vec::new() };
    let (sp, sl) = (*sp, *sl);
    let plane = &profile.planes[sp];
    let line = &plane.lines[sl];
    if at.event as usize >= line.events.len() {
        return Vec::new();
    }
    picker.pick(profile, plane, line, at.event as usize, &mut values);
    let (correlation, produces, consumes) = link_keys(&values);
    if correlation.is_none() && produces.is_none() && consumes.is_none() {
        return Vec::new();
    }
    let selected_on_host = profile.str(plane.name) == crate::schema::HOST_PLANE;
    let mut out = Vec::new();
    for (t, track) in tracks.iter().enumerate() {
        let TrackSource::Line(p, l) = track.source else { continue };
        let plane = &profile.planes[p];
        let line = &plane.lines[l];
        for i in 0..line.events.len() {
            if (t as u32, i as u32) == (at.track, at.event) {
                continue;
            }
            picker.pick(profile, plane, line, i, &mut values);
            let (c, pr, co) = link_keys(&values);
            let to = EventRef { track: t as u32, event: i as u32 };
            if correlation.is_some() && c == correlation && p != sp {
                let kind = if selected_on_host { LinkKind::LaunchedKernel } else { LinkKind::LaunchedBy };
                out.push(Link { to, kind });
            } else if produces.is_some() && co == produces {
                out.push(Link { to, kind: LinkKind::Consumer });
            } else if consumes.is_some() && pr == consumes {
                out.push(Link { to, kind: LinkKind::Producer });
            }
            if out.len() >= limit {
                return out;
            }
        }
    }
    out
}
