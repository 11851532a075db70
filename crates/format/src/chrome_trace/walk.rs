//! The mappings read a trace's events in passes, never by index: a first
//! pass ([`Survey`]) gathers what must be known before any event is placed
//! (the first time, thread and process names, flow phases, whether it is a
//! PyTorch trace), a second places the events. So the events need not all
//! be in memory: a parsed file's list is walked twice, and a file too big
//! to hold is read twice from its source ([`super::stream`]).

use super::event_walk::EventWalk;
use super::flows::{FlowPoints, LAUNCH_FLOW_CATS};
use super::names::Names;
use super::RawEvent;
use crate::Error;
use rustc_hash::FxHashMap;

/// Categories only the PyTorch profiler writes (current and 1.9 names).
const KINETO_CATS: [&str; 9] =
    ["cpu_op", "cuda_runtime", "kernel", "gpu_memcpy", "python_function", "Operator", "Runtime", "Kernel", "Memcpy"];

/// What the first pass learns of the events.
#[derive(Default)]
pub(crate) struct Survey {
    pub count: usize,
    /// The first time of an event the PyTorch mapping keeps (`X`/`i` of a
    /// numeric pid: the `Spans` pseudo-process is dropped), and of one the
    /// generic mapping keeps.
    pub kineto_t0: Option<i128>,
    pub generic_t0: Option<i128>,
    /// `thread_name` metadata per (pid, tid), as the PyTorch mapping names lines.
    pub thread_names: FxHashMap<(String, String), String>,
    /// Process and thread names and sort indexes, as the generic mapping uses them.
    pub names: Names,
    /// Whether one of the first 100,000 events has a PyTorch-only category.
    pub kineto_cat: bool,
    /// The flow phases, in file order.
    pub flow_points: FlowPoints,
}

impl Survey {
    /// The survey of every event of `walk`.
    pub fn of(walk: &mut dyn EventWalk) -> Result<Survey, Error> {
        let mut survey = Survey::default();
        walk.each(&mut |n, e| survey.see(n, e))?;
        Ok(survey)
    }

    pub fn see(&mut self, n: usize, e: &RawEvent) {
        self.count = n + 1;
        let ph = e.ph();
        let min = |slot: &mut Option<i128>, ts: i128| *slot = Some(slot.map_or(ts, |t: i128| t.min(ts)));
        if let Some(ts) = e.ts_ps() {
            if matches!(ph, "X" | "i" | "I" | "B" | "b") {
                min(&mut self.generic_t0, ts);
            }
            if matches!(ph, "X" | "i" | "I") && e.pid().numeric {
                min(&mut self.kineto_t0, ts);
            }
        }
        if ph == "M" {
            if e.name() == "thread_name" {
                if let Some(name) = e.arg_str("name") {
                    self.thread_names
                        .insert((e.pid().text.into_owned(), e.tid().text.into_owned()), name.trim().to_string());
                }
            }
            self.names.see(e);
        }
        if n < 100_000 && !self.kineto_cat {
            self.kineto_cat = KINETO_CATS.contains(&e.cat());
        }
        // Once the trace is known to be PyTorch's, its launch flows are not
        // kept: that mapping links launches by correlation id (most of a
        // Kineto trace's flow phases are these).
        if !(self.kineto_cat && LAUNCH_FLOW_CATS.contains(&e.cat())) {
            self.flow_points.see(n, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_flows_are_not_kept_once_the_trace_is_known_to_be_pytorchs() {
        let flow = |ph: &str, cat: &str, id: u32| {
            format!(r#"{{"ph":"{ph}","cat":"{cat}","name":"n","id":{id},"pid":1,"tid":2,"ts":5}}"#)
        };
        let survey = |events: &[String]| {
            let parsed: Vec<RawEvent> = events.iter().map(|e| serde_json::from_str(e).unwrap()).collect();
            Survey::of(&mut parsed.as_slice()).unwrap()
        };
        let op = r#"{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":1,"dur":9}"#.to_string();
        let launches = [flow("s", "ac2g", 1), flow("f", "ac2g", 1)];
        let backward = flow("s", "fwdbwd", 2);
        // Before a PyTorch category is seen, every flow phase is kept: the
        // mapping is not known yet.
        let unknown = survey(&[launches[0].clone(), launches[1].clone(), backward.clone(), op.clone()]);
        assert_eq!(unknown.flow_points.len(), 3);
        assert!(unknown.kineto_cat);
        // After it, launch flows are left out; other flows are kept.
        let known = survey(&[op, launches[0].clone(), launches[1].clone(), backward]);
        assert_eq!(known.flow_points.len(), 1);
    }
}
