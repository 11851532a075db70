//! "Profile info": what a host's profile contains — planes, lines, event
//! counts, time spans and the collector's own errors and warnings.

mod tool;

pub use tool::{InfoPage, InfoTool};

use proflens_model::{Plane, Profile};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Host names recorded inside the file.
    pub hostnames: Vec<String>,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    /// Wall-clock start of the capture, ns since the Unix epoch, when recorded.
    pub start_time_ns: Option<u64>,
    /// Length of the capture in ps: the recorded window, else the event span.
    pub duration_ps: Option<i64>,
    pub events: u64,
    pub planes: Vec<PlaneInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlaneInfo {
    pub id: i64,
    pub name: String,
    pub events: u64,
    /// Plane-level stats (device capabilities, versions...), values as text.
    pub stats: Vec<StatEntry>,
    pub lines: Vec<LineInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatEntry {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineInfo {
    pub id: i64,
    pub name: String,
    /// Present when it differs from the name.
    pub display_name: Option<String>,
    pub events: u64,
    /// First event start and last event end, ps from the capture start.
    pub start_ps: Option<i64>,
    pub end_ps: Option<i64>,
}

pub fn host_info(profile: &Profile) -> HostInfo {
    let span = profile.span_ps();
    let window = match (profile.origin_ns, profile.stop_ns) {
        (Some(start), Some(stop)) if stop >= start => {
            i64::try_from(stop - start).ok().map(|ns| ns.saturating_mul(1000))
        }
        _ => None,
    };
    HostInfo {
        hostnames: profile.hostnames.clone(),
        errors: profile.errors.clone(),
        warnings: profile.warnings.clone(),
        start_time_ns: profile.origin_ns,
        duration_ps: window.or(span.map(|(s, e)| e.saturating_sub(s))),
        events: profile.event_count() as u64,
        planes: profile.planes.iter().map(|p| plane_info(profile, p)).collect(),
    }
}

fn plane_info(profile: &Profile, plane: &Plane) -> PlaneInfo {
    let stats = plane
        .stats
        .iter()
        .map(|s| StatEntry {
            name: profile.str(s.key).to_string(),
            value: plane.stats.value(s, &profile.strings).to_string(),
        })
        .collect();
    let lines = plane
        .lines
        .iter()
        .map(|line| {
            let name = profile.str(line.name).to_string();
            let display_name = line.display_name.map(|d| profile.str(d).to_string()).filter(|d| *d != name);
            let span = line.events.span_ps();
            LineInfo {
                id: line.id,
                name,
                display_name,
                events: line.events.len() as u64,
                start_ps: span.map(|s| s.0),
                end_ps: span.map(|s| s.1),
            }
        })
        .collect();
    PlaneInfo {
        id: plane.id,
        name: profile.str(plane.name).to_string(),
        events: plane.event_count() as u64,
        stats,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_model::{Events, Interner, Line, StatList, Stats};

    #[test]
    fn counts_and_spans() {
        let mut strings = Interner::new();
        let mut plane_stats = Stats::default();
        plane_stats.push_int(strings.intern("core_count"), 108);
        plane_stats.end_owner();
        let events = Events { start_ps: [1_000, 2_000].into(), duration_ps: [5_000, 10].into(), ..Events::default() };
        let line = Line {
            id: 3,
            display_id: 3,
            name: strings.intern("Stream #3"),
            display_name: None,
            timestamp_ps: 0,
            events,
        };
        let plane = Plane {
            id: 0,
            name: strings.intern("/device:GPU:0"),
            lines: vec![line],
            stats: StatList(plane_stats),
            ..Plane::default()
        };
        let profile =
            Profile { strings, planes: vec![plane], origin_ns: Some(10), stop_ns: Some(20), ..Profile::default() };
        let info = host_info(&profile);
        assert_eq!(info.events, 2);
        assert_eq!(info.duration_ps, Some(10_000));
        assert_eq!(info.planes[0].stats, vec![StatEntry { name: "core_count".into(), value: "108".into() }]);
        assert_eq!((info.planes[0].lines[0].start_ps, info.planes[0].lines[0].end_ps), (Some(1_000), Some(6_000)));
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(json["planes"][0]["name"], "/device:GPU:0");
    }
}
