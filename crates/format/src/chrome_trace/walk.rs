//! The mappings read a trace's events in passes, never by index: a first
//! pass ([`Survey`]) gathers what must be known before any event is placed
//! (the first time, thread and process names, flow phases, whether it is a
//! PyTorch trace), a second places the events. So the events need not all
//! be in memory: a parsed file's list is walked twice, and a file too big
//! to hold is read twice from its source ([`super::stream`]).

use super::event_walk::EventWalk;
use super::flows::Point;
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
    pub flow_points: Vec<Point>,
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
                    self.thread_names.insert((e.pid().text, e.tid().text), name.trim().to_string());
                }
            }
            self.names.see(e);
        }
        if n < 100_000 && !self.kineto_cat {
            self.kineto_cat = KINETO_CATS.contains(&e.cat());
        }
        if let Some(point) = Point::of(n, e) {
            self.flow_points.push(point);
        }
    }
}
