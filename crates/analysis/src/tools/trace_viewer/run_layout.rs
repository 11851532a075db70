//! "All hosts": the layouts of a run's hosts (or a job's ranks) joined into
//! one timeline on the run's clock. Each host is mapped on its own (load,
//! take its layout and step ends, let the context unload it), so a run of
//! any number of hosts holds a host or two at a time.

use super::{layout, TraceLayout};
use crate::context::{HostContext, ToolError};
use crate::passes::trace::run::{offsets_ps, HostSpan};
use crate::passes::trace::stragglers::{step_ends, stragglers, StepEnd};
use std::rc::Rc;

/// What one host gives the run's timeline.
pub struct HostPart {
    pub name: String,
    /// Its wall-clock start (`Profile::origin_ns`).
    pub origin_ns: Option<u64>,
    pub layout: TraceLayout,
    pub steps: Vec<StepEnd>,
}

impl HostPart {
    /// A host's part, from its context (decodes it if it is not loaded).
    pub fn of(host: &HostContext) -> Result<HostPart, ToolError> {
        let (profile, index, grouping) = (host.profile()?, host.trace()?, host.grouping()?);
        Ok(HostPart {
            name: host.name().to_string(),
            origin_ns: profile.origin_ns,
            layout: layout(&profile, &index),
            steps: step_ends(&profile, &grouping, &index.trace),
        })
    }
}

/// The trace viewer's layout of every host of a run.
pub fn combine(hosts: &[Rc<HostContext>]) -> Result<TraceLayout, ToolError> {
    let parts = hosts.iter().map(|h| HostPart::of(h)).collect::<Result<Vec<_>, _>>()?;
    Ok(run_layout(parts))
}

/// The hosts' layouts as one: sections named "host — section" in host
/// order, track ids renumbered across hosts, times shifted by each host's
/// offset, and the stragglers of the steps the hosts share.
pub fn run_layout(parts: Vec<HostPart>) -> TraceLayout {
    let offsets = offsets_ps(&parts.iter().map(|p| p.origin_ns).collect::<Vec<_>>());
    let mut out = TraceLayout {
        sections: Vec::new(),
        start_ps: i64::MAX,
        end_ps: i64::MIN,
        events: 0,
        build_ms: 0.0,
        hosts: Vec::new(),
        stragglers: Vec::new(),
    };
    let mut first_track = 0u32;
    let mut steps = Vec::with_capacity(parts.len());
    for (part, offset_ps) in parts.into_iter().zip(offsets) {
        let l = part.layout;
        let tracks: u32 = l.sections.iter().map(|s| s.tracks.len() as u32).sum();
        out.hosts.push(HostSpan {
            name: part.name.clone(),
            offset_ps,
            first_section: out.sections.len() as u32,
            sections: l.sections.len() as u32,
            first_track,
            tracks,
            events: l.events,
        });
        for mut section in l.sections {
            section.name = format!("{} — {}", part.name, section.name);
            for t in &mut section.tracks {
                t.id += first_track;
            }
            out.sections.push(section);
        }
        if l.events > 0 {
            out.start_ps = out.start_ps.min(l.start_ps.saturating_add(offset_ps));
            out.end_ps = out.end_ps.max(l.end_ps.saturating_add(offset_ps));
        }
        out.events += l.events;
        out.build_ms += l.build_ms;
        first_track += tracks;
        steps.push((part.steps, offset_ps));
    }
    if out.start_ps > out.end_ps {
        (out.start_ps, out.end_ps) = (0, 0);
    }
    out.stragglers = stragglers(&steps);
    out
}
