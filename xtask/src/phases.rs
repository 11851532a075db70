//! The phases of `cargo xtask test`, timed: each runs through [`Phases::run`],
//! and [`Phases::table`] is the time of each, printed at the end of the run,
//! also when a phase failed (the phases done so far, the failed one marked).

use std::time::{Duration, Instant};

/// The phases run so far, in order: name, wall time, whether it succeeded.
#[derive(Debug, Default)]
pub struct Phases {
    done: Vec<(String, Duration, bool)>,
}

impl Phases {
    /// Runs `phase` and records how long it took and whether it failed.
    pub fn run<T>(&mut self, name: &str, phase: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        let start = Instant::now();
        let result = phase();
        self.record(name, start.elapsed(), result.is_ok());
        result
    }

    fn record(&mut self, name: &str, took: Duration, ok: bool) {
        self.done.push((name.to_string(), took, ok));
    }

    /// The phases run so far as a table: one line each with its time in
    /// seconds and in minutes, `FAILED` after the one that failed, and the total.
    pub fn table(&self) -> String {
        let width = self.done.iter().map(|(name, ..)| name.len()).chain([5]).max().unwrap_or(5);
        let line = |name: &str, took: Duration, note: &str| {
            let secs = took.as_secs_f64();
            let clock = format!("{}:{:02}", took.as_secs() / 60, took.as_secs() % 60);
            format!("  {name:<width$}  {secs:>7.1} s  {clock:>6}{note}\n")
        };
        let mut out = String::from("xtask: time of each phase\n");
        for (name, took, ok) in &self.done {
            out += &line(name, *took, if *ok { "" } else { "  FAILED" });
        }
        out += &line("total", self.done.iter().map(|(_, took, _)| *took).sum(), "");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_the_phases_their_times_the_failed_one_and_the_total() {
        let mut phases = Phases::default();
        phases.record("fmt", Duration::from_millis(1_240), true);
        phases.record("browser tests in Chromium", Duration::from_secs(401), true);
        phases.record("browser tests in Firefox", Duration::from_millis(62_040), false);
        assert_eq!(
            phases.table(),
            "xtask: time of each phase\n\
             \x20 fmt                            1.2 s    0:01\n\
             \x20 browser tests in Chromium    401.0 s    6:41\n\
             \x20 browser tests in Firefox      62.0 s    1:02  FAILED\n\
             \x20 total                        464.3 s    7:44\n"
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
}
