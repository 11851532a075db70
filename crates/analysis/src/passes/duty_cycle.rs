//! TPU duty cycle: how much of the time the TensorCores (and SparseCores)
//! were busy, as XProf's overview reports it (`device_duty_cycle_percent`).
//!
//! Follows XProf's xplane_to_op_stats.cc (`ConstructDutyCycleTracker`) and
//! its DutyCycleTracker / DutyCycleCombiner: on each TPU plane, every `XLA
//! Ops` event is busy time unless its HLO category is off duty (infeed,
//! outfeed, host send/recv and their dones, megacore fusion), every `Sparse
//! Core Ops` event is busy time, and `XLA Modules` / `Sparse Core Modules`
//! events only widen the measured span. Cores of one chip (the plane's
//! `core_details.local_chip_id`) count as one: their busy intervals are
//! merged and their spans joined; planes without core details count alone.
//! Busy and idle time then add up over chips.

use crate::common::schema::{event_stat, plane_stat, TPU_PLANE_PREFIX};
use proflens_format::wire::{fields, Value};
use proflens_model::{Plane, Profile, StatValue};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Busy and idle device time, summed over chips, ps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DutyCycle {
    pub busy_ps: u64,
    pub idle_ps: u64,
}

impl DutyCycle {
    /// Busy share of the measured time, percent (0 when nothing was measured).
    pub fn percent(&self) -> f64 {
        let total = self.busy_ps.saturating_add(self.idle_ps);
        if total == 0 {
            0.0
        } else {
            100.0 * self.busy_ps as f64 / total as f64
        }
    }

    /// Several hosts' duty cycles as one (XProf adds the op stats' times).
    pub fn add(&mut self, other: &DutyCycle) {
        self.busy_ps = self.busy_ps.saturating_add(other.busy_ps);
        self.idle_ps = self.idle_ps.saturating_add(other.idle_ps);
    }
}

/// HLO categories whose time does not count as busy (XProf's `IsOffDutyOp`).
fn is_off_duty(category: &str) -> bool {
    matches!(
        category,
        "infeed" | "outfeed" | "host send" | "host send-done" | "host recv" | "host recv-done" | "megacore fusion"
    )
}

/// One chip's (or one plane's) busy intervals and measured span.
#[derive(Default)]
struct Tracker {
    busy: Vec<(i64, i64)>,
    span: Option<(i64, i64)>,
}

impl Tracker {
    fn add(&mut self, begin: i64, end: i64, busy: bool) {
        self.span = Some(self.span.map_or((begin, end), |(a, b)| (a.min(begin), b.max(end))));
        if busy {
            self.busy.push((begin, end));
        }
    }

    fn join(&mut self, other: Tracker) {
        self.busy.extend(other.busy);
        if let Some((a, b)) = other.span {
            self.add(a, b, false);
        }
    }

    /// (busy, idle) ps: the busy intervals merged, the rest of the span idle.
    fn times(mut self) -> (u64, u64) {
        self.busy.sort_unstable();
        let mut busy = 0u64;
        let mut current: Option<(i64, i64)> = None;
        for (b, e) in self.busy {
            match current {
                Some((cb, ce)) if b <= ce => current = Some((cb, ce.max(e))),
                _ => {
                    if let Some((cb, ce)) = current {
                        busy = busy.saturating_add(u64::try_from(ce.saturating_sub(cb)).unwrap_or(0));
                    }
                    current = Some((b, e));
                }
            }
        }
        if let Some((cb, ce)) = current {
            busy = busy.saturating_add(u64::try_from(ce.saturating_sub(cb)).unwrap_or(0));
        }
        let span = self.span.map_or(0, |(a, b)| u64::try_from(b.saturating_sub(a)).unwrap_or(0));
        (busy, span.saturating_sub(busy))
    }
}

fn plane_tracker(profile: &Profile, plane: &Plane) -> Tracker {
    let category_key = profile.strings.lookup("hlo_category");
    let mut tracker = Tracker::default();
    for line in &plane.lines {
        let kind = match profile.str(line.name) {
            "XLA Ops" => 0,
            "Sparse Core Ops" => 1,
            "XLA Modules" | "Sparse Core Modules" => 2,
            _ => continue,
        };
        let ev = &line.events;
        for i in 0..ev.len() {
            let busy = match kind {
                0 => !event_stat(profile, plane, line, i, category_key)
                    .and_then(|v| v.as_str().map(is_off_duty))
                    .unwrap_or(false),
                1 => true,
                _ => false,
            };
            tracker.add(ev.start_ps.at(i), ev.end_ps(i), busy);
        }
    }
    tracker
}

/// The `local_chip_id` of a plane's `core_details` stat (a serialized
/// `CoreDetails`, field 4), when the stat is there and well formed.
fn local_chip_id(profile: &Profile, plane: &Plane) -> Option<u64> {
    let key = profile.strings.lookup("core_details");
    let StatValue::Bytes(bytes) = plane_stat(profile, plane, key)? else { return None };
    let mut chip = 0;
    for field in fields(bytes, "core details") {
        let field = field.ok()?;
        if let (4, Value::Varint(v)) = (field.number, field.value) {
            chip = v;
        }
    }
    Some(chip)
}

/// The duty cycle of a profile's TPUs; all zero without TPU planes.
pub fn duty_cycle(profile: &Profile) -> DutyCycle {
    let mut chips: BTreeMap<u64, Tracker> = BTreeMap::new();
    let mut out = DutyCycle::default();
    for plane in profile.planes.iter().filter(|p| profile.str(p.name).starts_with(TPU_PLANE_PREFIX)) {
        let tracker = plane_tracker(profile, plane);
        match local_chip_id(profile, plane) {
            Some(chip) => chips.entry(chip).or_default().join(tracker),
            None => {
                let (busy_ps, idle_ps) = tracker.times();
                out.add(&DutyCycle { busy_ps, idle_ps });
            }
        }
    }
    for tracker in chips.into_values() {
        let (busy_ps, idle_ps) = tracker.times();
        out.add(&DutyCycle { busy_ps, idle_ps });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_busy_intervals_within_the_span() {
        let mut t = Tracker::default();
        t.add(0, 100, false);
        t.add(10, 30, true);
        t.add(20, 40, true);
        t.add(60, 70, true);
        assert_eq!(t.times(), (40, 60));
    }

    #[test]
    fn cores_of_one_chip_count_once() {
        // XProf's duty_cycle_combiner_test: core 0 busy 10..20, core 1 busy 20..30.
        let mut core0 = Tracker::default();
        core0.add(10, 20, true);
        core0.add(20, 30, false);
        let mut core1 = Tracker::default();
        core1.add(10, 20, false);
        core1.add(20, 30, true);
        core0.join(core1);
        assert_eq!(core0.times(), (20, 0));
    }

    #[test]
    fn planes_of_one_chip_merge_and_off_duty_ops_are_idle() {
        use crate::passes::op_metrics::test_builder::{Builder, V};
        // CoreDetails with local_chip_id (field 4) = 7.
        let chip7 = V::B(vec![0x20, 7]);
        let mut b = Builder::new();
        let core = |b: &mut Builder, name: &str, chip: Option<V>, busy: (i64, i64), category: &'static str| {
            let p = b.plane(name);
            if let Some(chip) = chip {
                b.plane_stat(p, "core_details", chip);
            }
            let module = b.meta(p, "jit_f", None, &[]);
            let op = b.meta(p, "fusion", None, &[("hlo_category", V::S(category))]);
            b.line(p, 1, "XLA Modules", vec![(module, 0, 100, vec![])]);
            b.line(p, 2, "XLA Ops", vec![(op, busy.0, busy.1, vec![])]);
        };
        core(&mut b, "/device:TPU:0", Some(V::B(vec![0x20, 7])), (10, 20), "loop fusion");
        core(&mut b, "/device:TPU:1", Some(chip7), (20, 30), "convolution");
        // A lone core whose only op waits for infeed: all of its span is idle.
        core(&mut b, "/device:TPU:2", None, (0, 50), "infeed");
        let d = duty_cycle(&b.build());
        // Chip 7: busy 10..50 of 0..100; core 2: busy 0 of 100.
        assert_eq!(d, DutyCycle { busy_ps: 40, idle_ps: 160 });
    }

    #[test]
    fn off_duty_categories() {
        assert!(is_off_duty("infeed") && is_off_duty("megacore fusion") && is_off_duty("host recv-done"));
        assert!(!is_off_duty("copy-done") && !is_off_duty("all-reduce"));
        assert_eq!(DutyCycle::default().percent(), 0.0);
        assert_eq!(DutyCycle { busy_ps: 3, idle_ps: 1 }.percent(), 75.0);
    }
}
