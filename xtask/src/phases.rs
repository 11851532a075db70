//! The phases of `cargo xtask test`, timed: each runs through [`Phases::run`]
//! (or two at once through [`Phases::run_both`]), and [`Phases::table`] is the
//! time of each, printed at the end of the run, also when a phase failed (the
//! phases done so far, the failed one marked).

use std::time::{Duration, Instant};

/// One phase done: its name, when it started and how long it took, whether it succeeded.
#[derive(Debug)]
struct Done {
    name: String,
    start: Instant,
    took: Duration,
    ok: bool,
}

/// The phases run so far, in the order they started.
#[derive(Debug, Default)]
pub struct Phases {
    done: Vec<Done>,
}

impl Phases {
    /// Runs `phase` and records how long it took and whether it failed.
    pub fn run<T>(&mut self, name: &str, phase: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        let start = Instant::now();
        let result = phase();
        self.record(name, start, start.elapsed(), result.is_ok());
        result
    }

    /// Runs two phases at once, on two threads: on two cores one's
    /// single-threaded stretches (a test binary's long test, a link with LTO)
    /// leave the other core to the other. Each is recorded with its own
    /// time, named as running beside the other.
    pub fn run_both<A, B: Send>(
        &mut self,
        (a_name, a): (&str, impl FnOnce() -> Result<A, String>),
        (b_name, b): (&str, impl FnOnce() -> Result<B, String> + Send),
    ) -> Result<(A, B), String> {
        let start = Instant::now();
        let ((a_took, a_result), (b_took, b_result)) = std::thread::scope(|scope| {
            let b_thread = scope.spawn(|| {
                let result = b();
                (start.elapsed(), result)
            });
            let result = a();
            let a_done = (start.elapsed(), result);
            (a_done, b_thread.join().unwrap_or_else(|_| (start.elapsed(), Err(format!("{b_name} panicked")))))
        });
        self.record(&format!("{a_name} (beside {b_name})"), start, a_took, a_result.is_ok());
        self.record(&format!("{b_name} (beside {a_name})"), start, b_took, b_result.is_ok());
        Ok((a_result?, b_result?))
    }

    fn record(&mut self, name: &str, start: Instant, took: Duration, ok: bool) {
        self.done.push(Done { name: name.to_string(), start, took, ok });
    }

    /// The phases run so far as a table: one line each with its time in
    /// seconds and in minutes, `FAILED` after the one that failed, and the
    /// total: the wall time from the first start to the last end (phases run
    /// beside each other overlap).
    pub fn table(&self) -> String {
        let width = self.done.iter().map(|d| d.name.len()).chain([5]).max().unwrap_or(5);
        let line = |name: &str, took: Duration, note: &str| {
            let secs = took.as_secs_f64();
            let clock = format!("{}:{:02}", took.as_secs() / 60, took.as_secs() % 60);
            format!("  {name:<width$}  {secs:>7.1} s  {clock:>6}{note}\n")
        };
        let mut out = String::from("xtask: time of each phase\n");
        for d in &self.done {
            out += &line(&d.name, d.took, if d.ok { "" } else { "  FAILED" });
        }
        let first = self.done.iter().map(|d| d.start).min();
        let last = self.done.iter().map(|d| d.start + d.took).max();
        let total = first.zip(last).map_or(Duration::ZERO, |(first, last)| last - first);
        out += &line("total", total, "");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_the_phases_their_times_the_failed_one_and_the_wall_time() {
        let mut phases = Phases::default();
        let t0 = Instant::now();
        phases.record("fmt", t0, Duration::from_millis(1_240), true);
        // Two phases beside each other from 1.24 s: the longer one ends the run.
        let t1 = t0 + Duration::from_millis(1_240);
        phases.record("browser tests in Chromium", t1, Duration::from_secs(401), true);
        phases.record("browser tests in Firefox", t1, Duration::from_millis(62_040), false);
        assert_eq!(
            phases.table(),
            "xtask: time of each phase\n\
             \x20 fmt                            1.2 s    0:01\n\
             \x20 browser tests in Chromium    401.0 s    6:41\n\
             \x20 browser tests in Firefox      62.0 s    1:02  FAILED\n\
             \x20 total                        402.2 s    6:42\n"
        );
    }

    #[test]
    fn run_passes_the_result_through_and_records_it() {
        let mut phases = Phases::default();
        assert_eq!(phases.run("ok", || Ok(7)), Ok(7));
        assert_eq!(phases.run("fails", || Err::<(), _>("no".to_string())), Err("no".to_string()));
        let table = phases.table();
        assert!(table.contains("  ok "), "{table}");
        assert!(table.lines().any(|l| l.starts_with("  fails ") && l.ends_with("FAILED")), "{table}");
        assert!(table.lines().last().is_some_and(|l| l.starts_with("  total ")), "{table}");
    }

    #[test]
    fn run_both_runs_the_two_at_once_and_records_each() {
        let mut phases = Phases::default();
        let nap = || {
            std::thread::sleep(Duration::from_millis(300));
            Ok(())
        };
        let both = phases.run_both(("a", nap), ("b", nap));
        assert_eq!(both, Ok(((), ())));
        let table = phases.table();
        assert!(table.contains("  a (beside b) ") && table.contains("  b (beside a) "), "{table}");
        // At once: the wall time is one nap, not two.
        let total: f64 = table.lines().last().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!((0.3..0.55).contains(&total), "{table}");
        // A failure on either side fails the pair, and is marked.
        let failed = phases.run_both(("c", || Ok(())), ("d", || Err::<(), _>("d broke".to_string())));
        assert_eq!(failed, Err("d broke".to_string()));
        assert!(phases.table().lines().any(|l| l.starts_with("  d (beside c)") && l.ends_with("FAILED")));
    }
}
