//! Where each step's typed events are, without a copy of them: a byte per
//! event read (its [`SpanType`], or none), and per step the runs of events
//! on a line that hold its events. A step's events are gathered from the
//! columns only when its time is split, one step at a time, so the pass
//! holds a byte per event rather than 24 (a copy of every event's type and
//! times in per-step lists was the largest thing the overview held).

use crate::passes::step_spans::SpanType;
use proflens_model::Profile;
use rustc_hash::FxHashMap;

/// The type byte of an event that is no step event.
const NOT_A_SPAN: u8 = u8::MAX;

/// Events `from..to` of line `line` of plane `plane`; those of them with a
/// type belong to the run's step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Run {
    plane: u32,
    line: u32,
    from: u32,
    to: u32,
}

/// The step event type of each event read, by plane, line and event.
pub(crate) struct SpanColumns {
    planes: Vec<Vec<Vec<u8>>>,
}

impl SpanColumns {
    pub(crate) fn new(profile: &Profile) -> SpanColumns {
        SpanColumns { planes: vec![Vec::new(); profile.planes.len()] }
    }

    /// The typed events of `runs`, appended to `out` as (type, start, end),
    /// less those inside an earlier event of the same type on their run:
    /// such an event changes no piece's type (the one holding it is active
    /// all the while, and the same type sorts alike at equal times), and
    /// leaving them out leaves a few events per step line of nested ops.
    pub(crate) fn gather(
        &self,
        profile: &Profile,
        runs: &[Run],
        open: &mut Vec<(u8, i64, i64)>,
        out: &mut Vec<(SpanType, i64, i64)>,
    ) {
        for run in runs {
            let (p, l) = (run.plane as usize, run.line as usize);
            let (types, events) = (&self.planes[p][l], &profile.planes[p].lines[l].events);
            let (from, to) = (run.from as usize, run.to as usize);
            open.clear();
            for (i, &ty) in (from..to).zip(&types[from..to]) {
                if ty == NOT_A_SPAN {
                    continue;
                }
                let (start, end) = (events.start_ps.at(i), events.end_ps(i));
                // Events come in start order: those ended before this one never hold another.
                while open.last().is_some_and(|&(_, _, open_end)| open_end < start) {
                    open.pop();
                }
                let held = open.iter().any(|&(t, s, e)| t == ty && s <= start && end <= e);
                if !held {
                    out.push((SpanType::from_index(usize::from(ty)), start, end));
                    open.push((ty, start, end));
                }
            }
        }
    }
}

/// Runs of each step (by a step slot) while the events of one plane are read.
pub(crate) struct RunWriter<'a> {
    columns: &'a mut SpanColumns,
    plane: usize,
    line: usize,
    /// The step slot and run index that the line's last typed event went to.
    current: Option<(usize, usize)>,
}

impl<'a> RunWriter<'a> {
    pub(crate) fn new(columns: &'a mut SpanColumns, profile: &Profile, plane: usize) -> RunWriter<'a> {
        columns.planes[plane] = profile.planes[plane].lines.iter().map(|_| Vec::new()).collect();
        RunWriter { columns, plane, line: 0, current: None }
    }

    /// Starts line `line` of `events` events.
    pub(crate) fn start_line(&mut self, line: usize, events: usize) {
        self.columns.planes[self.plane][line] = vec![NOT_A_SPAN; events];
        self.line = line;
        self.current = None;
    }

    /// Event `i` of the current line is of type `ty` and belongs to the step
    /// in `slot`, whose runs are `runs`.
    pub(crate) fn push(&mut self, slot: usize, runs: &mut Vec<Run>, i: usize, ty: SpanType) {
        self.columns.planes[self.plane][self.line][i] = ty as u8;
        let to = i as u32 + 1;
        match self.current {
            // No other step's event since: the run grows over the events between.
            Some((s, r)) if s == slot => runs[r].to = to,
            _ => {
                runs.push(Run { plane: self.plane as u32, line: self.line as u32, from: i as u32, to });
                self.current = Some((slot, runs.len() - 1));
            }
        }
    }
}

/// Step slots by group while events are read: events come in runs of one
/// group, so the last group's slot is kept at hand, and a hash map finds the
/// others (a map lookup per event was a tenth of the pass).
pub(crate) struct StepSlots<T> {
    slots: FxHashMap<i64, usize>,
    pub(crate) steps: Vec<(i64, T)>,
    last: Option<(i64, usize)>,
}

impl<T: Default> StepSlots<T> {
    pub(crate) fn new() -> StepSlots<T> {
        StepSlots { slots: FxHashMap::default(), steps: Vec::new(), last: None }
    }

    /// The slot of `group`, made when it is new.
    pub(crate) fn slot(&mut self, group: i64) -> usize {
        match self.last {
            Some((g, slot)) if g == group => slot,
            _ => {
                let next = self.steps.len();
                let slot = *self.slots.entry(group).or_insert(next);
                if slot == next {
                    self.steps.push((group, T::default()));
                }
                self.last = Some((group, slot));
                slot
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proflens_model::{Events, Line, Plane};

    fn profile(spans: &[(i64, i64)]) -> Profile {
        let mut events = Events::new();
        for &(s, d) in spans {
            events.start_ps.push(s);
            events.duration_ps.push(d);
            events.metadata.push(0);
            events.depth.push(0);
        }
        let line = Line { events, ..Line::default() };
        Profile { planes: vec![Plane { lines: vec![line], ..Plane::default() }], ..Profile::default() }
    }

    #[test]
    fn runs_hold_a_steps_events_and_skip_the_others() {
        let profile = profile(&[(0, 1), (10, 1), (20, 1), (30, 1), (40, 1), (50, 1)]);
        let mut columns = SpanColumns::new(&profile);
        let mut slots: StepSlots<Vec<Run>> = StepSlots::new();
        {
            let mut writer = RunWriter::new(&mut columns, &profile, 0);
            writer.start_line(0, 6);
            // Step 7: events 0, 1 and 4; event 2 is no step event; step 8: event 3.
            for (i, group) in [(0, 7), (1, 7), (3, 8), (4, 7)] {
                let slot = slots.slot(group);
                writer.push(slot, &mut slots.steps[slot].1, i, SpanType::HostCompute);
            }
        }
        let gathered = |group: i64| {
            let runs = &slots.steps.iter().find(|s| s.0 == group).expect("step").1;
            let mut out = Vec::new();
            columns.gather(&profile, runs, &mut Vec::new(), &mut out);
            out.iter().map(|e| e.1).collect::<Vec<_>>()
        };
        assert_eq!(gathered(7), [0, 10, 40]);
        assert_eq!(gathered(8), [30]);
    }

    #[test]
    fn events_inside_one_of_their_type_are_left_out() {
        use SpanType::{HostCompute, HostWaitInput};
        let spans = [(0, 100), (10, 10), (30, 10), (35, 3), (35, 3), (100, 0), (200, 5)];
        let types = [HostCompute, HostCompute, HostWaitInput, HostCompute, HostWaitInput, HostCompute, HostCompute];
        let profile = profile(&spans);
        let mut columns = SpanColumns::new(&profile);
        let mut runs = Vec::new();
        let mut writer = RunWriter::new(&mut columns, &profile, 0);
        writer.start_line(0, spans.len());
        for (i, &ty) in types.iter().enumerate() {
            writer.push(0, &mut runs, i, ty);
        }
        let mut out = Vec::new();
        columns.gather(&profile, &runs, &mut Vec::new(), &mut out);
        // Kept: the outer compute, the wait in it, and the compute after; the
        // compute at 100 (zero length, at the outer one's end) is inside it.
        let expected = [(HostCompute, 0, 100), (HostWaitInput, 30, 40), (HostCompute, 200, 205)];
        assert_eq!(out, expected);
    }
}
