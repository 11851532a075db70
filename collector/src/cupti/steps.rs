//! Step groups of a CUPTI capture, decided at capture time as TensorFlow's
//! GPU profiler does before saving (readers then take `group_id` from the
//! file): each NVTX step range is a group; a CUDA call inside it on the same
//! thread joins it, and so does the kernel or copy with that call's
//! correlation id. A call on a thread that marks no steps joins the step it
//! falls in, when a single thread marks them: PyTorch's backward pass
//! launches its kernels from the autograd engine's thread while the thread
//! that opened `train N` waits in `loss.backward()` (seen on an H200: 186 of
//! 426 GPU activities were otherwise in no step).

use super::records::Record;
use std::collections::HashMap;

/// NVTX range names that mark training steps (`train 3`, `step#3`,
/// `ProfilerStep#3`…), compared without case.
const STEP_LABELS: [&str; 6] = ["train", "step", "profilerstep", "train_step", "training_step", "iteration"];

#[derive(Debug, Default)]
pub struct Groups {
    /// Group of a record, by its index in the capture.
    by_record: HashMap<usize, i64>,
    /// Group of a launch's correlation id.
    by_correlation: HashMap<u32, i64>,
    /// Step names by group id (`train 3`).
    pub names: Vec<String>,
}

impl Groups {
    /// The group of record `i` (host records directly, device ones by correlation).
    pub fn of(&self, i: usize, record: &Record) -> Option<i64> {
        if let Some(&g) = self.by_record.get(&i) {
            return Some(g);
        }
        let correlation = match record {
            Record::Kernel(k) => k.correlation_id,
            Record::Memcpy(m) => m.correlation_id,
            Record::Memset(m) => m.correlation_id,
            _ => return None,
        };
        self.by_correlation.get(&correlation).copied()
    }
}

/// A step range: (start, end, group) on one thread.
type Span = (u64, u64, i64);

pub fn group(records: &[Record]) -> Groups {
    let mut groups = Groups::default();
    let mut steps: Vec<(u64, usize, String)> = records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r {
            Record::Nvtx(n) => step_of(&n.name).map(|(label, num)| (n.start_ns, i, format!("{label} {num}"))),
            _ => None,
        })
        .collect();
    steps.sort();
    let mut by_thread: HashMap<u32, Vec<Span>> = HashMap::new();
    for (g, (_, i, name)) in steps.into_iter().enumerate() {
        let g = g as i64;
        if let Record::Nvtx(n) = &records[i] {
            by_thread.entry(n.thread_id).or_default().push((n.start_ns, n.end_ns, g));
        }
        groups.by_record.insert(i, g);
        groups.names.push(name);
    }
    // The one thread that marks steps, if only one does: other threads' calls join its steps by time.
    let only_stepper = (by_thread.len() == 1).then(|| by_thread.values().next()).flatten();
    for (i, record) in records.iter().enumerate() {
        let (thread, start, end) = match record {
            Record::Api(a) => (a.thread_id, a.start_ns, a.end_ns),
            Record::Nvtx(n) if !groups.by_record.contains_key(&i) => (n.thread_id, n.start_ns, n.end_ns),
            _ => continue,
        };
        let Some(spans) = by_thread.get(&thread).or(only_stepper) else { continue };
        // The innermost enclosing step: the latest-starting one that contains the call.
        let Some(&(_, _, g)) = spans.iter().filter(|(s, e, _)| *s <= start && end <= *e).max_by_key(|(s, _, _)| *s)
        else {
            continue;
        };
        groups.by_record.insert(i, g);
        if let Record::Api(a) = record {
            groups.by_correlation.insert(a.correlation_id, g);
        }
    }
    groups
}

/// `train 3` → ("train", 3): a label from [`STEP_LABELS`], one separator
/// (space, `#`, `_`, `:` or `-`, or none), and a step number.
pub fn step_of(name: &str) -> Option<(&str, i64)> {
    let digits = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (head, number) = name.split_at(digits);
    let number: i64 = number.parse().ok()?;
    let label = head.strip_suffix([' ', '#', '_', ':', '-']).unwrap_or(head).trim();
    STEP_LABELS.iter().any(|l| l.eq_ignore_ascii_case(label)).then_some((label, number))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cupti::records::{ApiCall, ApiDomain, NvtxRange};

    #[test]
    fn step_names() {
        assert_eq!(step_of("train 3"), Some(("train", 3)));
        assert_eq!(step_of("step 12"), Some(("step", 12)));
        assert_eq!(step_of("ProfilerStep#7"), Some(("ProfilerStep", 7)));
        assert_eq!(step_of("Step_0"), Some(("Step", 0)));
        assert_eq!(step_of("train"), None);
        assert_eq!(step_of("forward 3"), None);
        assert_eq!(step_of("3"), None);
    }

    fn nvtx(name: &str, thread: u32, start: u64, end: u64) -> Record {
        Record::Nvtx(NvtxRange { name: name.into(), domain: None, start_ns: start, end_ns: end, thread_id: thread })
    }

    fn api(thread: u32, start: u64, correlation: u32) -> Record {
        Record::Api(ApiCall {
            domain: ApiDomain::Driver,
            name: "cuLaunchKernel".into(),
            cbid: 307,
            start_ns: start,
            end_ns: start + 5,
            process_id: 1,
            thread_id: thread,
            correlation_id: correlation,
            return_value: 0,
            device_id: None,
        })
    }

    #[test]
    fn calls_join_the_step_of_their_thread() {
        let records = [
            nvtx("train 1", 1, 100, 200),
            nvtx("train 0", 1, 0, 100),
            api(1, 10, 5),  // in train 0
            api(1, 150, 6), // in train 1
            api(2, 150, 7), // another thread (autograd's): the step it falls in
            nvtx("forward", 1, 120, 180),
            api(2, 250, 8), // after every step
        ];
        let g = group(&records);
        assert_eq!(g.names, ["train 0", "train 1"]);
        assert_eq!(g.of(1, &records[1]), Some(0));
        assert_eq!(g.of(2, &records[2]), Some(0));
        assert_eq!(g.of(3, &records[3]), Some(1));
        assert_eq!(g.of(4, &records[4]), Some(1));
        assert_eq!(g.of(5, &records[5]), Some(1));
        assert_eq!(g.of(6, &records[6]), None);
        assert_eq!(g.by_correlation.get(&6), Some(&1));
        assert_eq!(g.by_correlation.get(&7), Some(&1));
    }

    #[test]
    fn with_several_step_threads_other_threads_join_none() {
        // Two threads mark their own steps (one per GPU, say): a third thread's
        // call overlaps both, so it is in neither.
        let records = [nvtx("train 0", 1, 0, 100), nvtx("train 0", 2, 0, 100), api(3, 50, 9), api(2, 60, 10)];
        let g = group(&records);
        assert_eq!(g.of(2, &records[2]), None);
        assert_eq!(g.of(3, &records[3]), Some(1));
    }
}
