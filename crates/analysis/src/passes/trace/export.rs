//! Chrome Trace Event JSON (what Perfetto and about:tracing open), streamed
//! to a writer so that millions of events need no intermediate document.

use super::{event_name, track_counter, track_events, Trace, TrackSource};
use crate::passes::grouping::Grouping;
use proflens_model::Counter;
use proflens_model::Profile;
use rustc_hash::FxHashSet;
use std::io::{self, Write};

/// Stats the trace viewer hides (XProf's list): grouping plumbing and costs; and the
/// flow stats of the Chrome trace importers (their links are not exported).
const HIDDEN_STATS: [&str; 10] = ["_pt", "_p", "_ct", "_c", "_r", "_fo", "_fi", "flops", "program_id", "symbol_id"];

/// Writes the trace, or only the events overlapping `window` (ps), and
/// returns the number of complete (`X`) events written.
pub fn write_chrome_trace(
    profile: &Profile,
    grouping: &Grouping,
    trace: &Trace,
    window: Option<(i64, i64)>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    out.write_all(br#"{"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":["#)?;
    let mut first = true;
    let mut sep = |out: &mut dyn Write| -> io::Result<()> {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        Ok(())
    };
    let mut written = 0u64;
    for section in &trace.sections {
        let pid = section.pid;
        sep(out)?;
        write!(out, r#"{{"ph":"M","pid":{pid},"name":"process_name","args":{{"name":{}}}}}"#, json(&section.name))?;
        sep(out)?;
        write!(out, r#"{{"ph":"M","pid":{pid},"name":"process_sort_index","args":{{"sort_index":{pid}}}}}"#)?;
        let mut tids: FxHashSet<i64> = FxHashSet::default();
        let taken: FxHashSet<i64> = section.tracks.iter().map(|t| t.tid).collect();
        let mut next_free = section.tracks.iter().map(|t| t.tid).max().unwrap_or(0).saturating_add(1);
        for (index, track) in section.tracks.iter().enumerate() {
            if let Some(counter) = track_counter(track) {
                write_counter(pid, counter, window, &mut sep, out)?;
                continue;
            }
            // Tracks keep their ids; a clash (derived tracks of several streams) gets a fresh one:
            // past the largest id, wrapping past i64::MAX (a display id the file chose), never
            // one that another track has.
            let tid = if tids.insert(track.tid) {
                track.tid
            } else {
                loop {
                    next_free = next_free.wrapping_add(1);
                    if !taken.contains(&next_free) && tids.insert(next_free) {
                        break next_free;
                    }
                }
            };
            sep(out)?;
            write!(
                out,
                r#"{{"ph":"M","pid":{pid},"tid":{tid},"name":"thread_name","args":{{"name":{}}}}}"#,
                json(&track.name)
            )?;
            sep(out)?;
            write!(
                out,
                r#"{{"ph":"M","pid":{pid},"tid":{tid},"name":"thread_sort_index","args":{{"sort_index":{index}}}}}"#
            )?;
            let events = track_events(profile, track);
            for i in 0..events.len() {
                let (start, end) = (events.start_ps.at(i), events.end_ps(i));
                if let Some((t0, t1)) = window {
                    if end < t0 || start > t1 {
                        continue;
                    }
                }
                sep(out)?;
                write!(
                    out,
                    r#"{{"ph":"X","pid":{pid},"tid":{tid},"ts":{},"dur":{},"name":{}"#,
                    micros(start),
                    micros(events.duration_ps.at(i).max(1)),
                    json(event_name(profile, grouping, track, i))
                )?;
                if let TrackSource::Line(p, l) = track.source {
                    write_args(profile, p, l, i, out)?;
                }
                out.write_all(b"}")?;
                written += 1;
            }
        }
    }
    out.write_all(b"]}\n")?;
    Ok(written)
}

/// A counter as `"ph":"C"` events of the section's process, one per sample
/// (arg `value`), or those in `window` and the one holding at its start.
fn write_counter(
    pid: u32,
    counter: &Counter,
    window: Option<(i64, i64)>,
    sep: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (from, to) = match window {
        Some((t0, t1)) => (
            counter.times_ps.partition_point(|&t| t <= t0).saturating_sub(1),
            counter.times_ps.partition_point(|&t| t <= t1),
        ),
        None => (0, counter.len()),
    };
    let name = json(&counter.name);
    for i in from..to {
        let value = counter.values[i];
        if !value.is_finite() {
            continue;
        }
        sep(out)?;
        write!(
            out,
            r#"{{"ph":"C","pid":{pid},"ts":{},"name":{name},"args":{{"value":{value}}}}}"#,
            micros(counter.times_ps[i])
        )?;
    }
    Ok(())
}

fn write_args(profile: &Profile, p: usize, l: usize, i: usize, out: &mut dyn Write) -> io::Result<()> {
    let plane = &profile.planes[p];
    let events = &plane.lines[l].events;
    let meta = &plane.event_metadata[events.metadata[i] as usize];
    let mut args: Vec<(&str, String)> = meta
        .stats
        .iter()
        .map(|s| (profile.str(s.key), meta.stats.value(s, &profile.strings).to_string()))
        .chain(events.stats.of(i).map(|s| (profile.str(s.key), events.stats.value(s, &profile.strings).to_string())))
        .filter(|(k, _)| !HIDDEN_STATS.contains(k))
        .collect();
    let raw = profile.str(meta.name);
    if meta.display_name.is_some_and(|d| profile.str(d) != raw) {
        args.push(("long_name", raw.to_string()));
    }
    if args.is_empty() {
        return Ok(());
    }
    args.sort_by(|a, b| a.0.cmp(b.0));
    args.dedup_by(|a, b| a.0 == b.0);
    out.write_all(br#","args":{"#)?;
    for (n, (k, v)) in args.iter().enumerate() {
        if n > 0 {
            out.write_all(b",")?;
        }
        write!(out, "{}:{}", json(k), json(v))?;
    }
    out.write_all(b"}")
}

/// ps as µs with full precision.
pub(super) fn micros(ps: i64) -> String {
    let sign = if ps < 0 { "-" } else { "" };
    let abs = ps.unsigned_abs();
    let (whole, frac) = (abs / 1_000_000, abs % 1_000_000);
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        let digits = format!("{frac:06}");
        format!("{sign}{whole}.{}", digits.trim_end_matches('0'))
    }
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_keep_every_picosecond() {
        assert_eq!(micros(1_500_000), "1.5");
        assert_eq!(micros(7), "0.000007");
        assert_eq!(micros(2_000_000), "2");
        assert_eq!(micros(-1), "-0.000001");
        assert_eq!(micros(-2_500_000), "-2.5");
    }

    /// Found by the `tools_xspace_built` fuzz target: a line whose display id
    /// is `i64::MAX`, and another track with the same id, overflowed the
    /// fresh id (`fuzz/crashes-found/tools_xspace_built/`).
    #[test]
    fn clashing_ids_at_the_top_get_fresh_distinct_ids() {
        use super::super::{Section, Track};
        let track = |tid| Track { name: "t".into(), tid, source: TrackSource::Derived(Box::default()) };
        let tracks = vec![track(i64::MAX), track(i64::MAX), track(i64::MIN), track(i64::MAX)];
        let trace = Trace { sections: vec![Section { name: "s".into(), pid: 1, plane: 0, tracks }] };
        let mut out = Vec::new();
        write_chrome_trace(&Profile::default(), &Grouping::default(), &trace, None, &mut out).expect("written");
        let json: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        let mut tids: Vec<i64> = json["traceEvents"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .map(|e| e["tid"].as_i64().expect("tid"))
            .collect();
        assert_eq!(tids.len(), 4);
        tids.sort_unstable();
        tids.dedup();
        assert_eq!(tids.len(), 4, "{tids:?}");
    }
}
