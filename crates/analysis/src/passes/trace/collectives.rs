//! Cross-host flows: one collective as each rank of a job ran it, where the
//! file links them. PyTorch's `record_param_comms` events carry the
//! collective's name, its process group and its sequence number in that
//! group (`"Collective name"`, `"Process Group Name"`, `"Seq"`): the same
//! three on two ranks are one collective. Events without a sequence number
//! are not matched (their order is no id: sampled traces drop some).

use super::search::EventRef;
use super::{track_events, Trace, TrackSource};
use proflens_model::Profile;

const NAME: &str = "Collective name";
const GROUP: &str = "Process Group Name";
const SEQ: &str = "Seq";

/// What names one collective across ranks: name, process group, sequence.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CollectiveKey {
    pub name: String,
    pub group: String,
    pub seq: String,
}

/// The collective an event is, if the file says.
pub fn key_of(profile: &Profile, trace: &Trace, at: EventRef) -> Option<CollectiveKey> {
    let track = trace.sections.iter().flat_map(|s| &s.tracks).nth(at.track as usize)?;
    let TrackSource::Line(p, l) = track.source else { return None };
    key_at(profile, p, l, at.event as usize)
}

/// The event of `trace` that is the collective `key`, if this host ran it.
pub fn find(profile: &Profile, trace: &Trace, key: &CollectiveKey) -> Option<EventRef> {
    for (t, track) in trace.sections.iter().flat_map(|s| &s.tracks).enumerate() {
        let TrackSource::Line(p, l) = track.source else { continue };
        for i in 0..track_events(profile, track).len() {
            if key_at(profile, p, l, i).as_ref() == Some(key) {
                return Some(EventRef { track: t as u32, event: i as u32 });
            }
        }
    }
    None
}

/// The key of event `i` of line `l` of plane `p`, from its stats.
fn key_at(profile: &Profile, p: usize, l: usize, i: usize) -> Option<CollectiveKey> {
    let events = &profile.planes[p].lines[l].events;
    let (mut name, mut group, mut seq) = (None, String::new(), None);
    for s in events.stats.of(i) {
        match profile.str(s.key) {
            NAME => name = Some(events.stats.value(s, &profile.strings).to_string()),
            GROUP => group = events.stats.value(s, &profile.strings).to_string(),
            SEQ => seq = Some(events.stats.value(s, &profile.strings).to_string()),
            _ => {}
        }
    }
    Some(CollectiveKey { name: name?, group, seq: seq? })
}
