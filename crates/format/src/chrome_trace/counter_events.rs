//! Counter events (`"ph":"C"`): each numeric arg is a sample of a series,
//! named `name.key`, or `name` when the event has one numeric arg (as
//! chrome://tracing and Perfetto name them).

use super::builder::PlaneAcc;
use super::{ArgValue, RawEvent};

/// Adds the samples of counter event `e` at `time_ps` to `plane`; `scope`
/// keeps series of different processes apart when they share a plane.
pub(crate) fn push(plane: &mut PlaneAcc, e: &RawEvent, time_ps: i64, scope: &str) {
    let numeric: Vec<(&str, f64)> = e.args().filter_map(|(k, v)| Some((k, number(v)?))).collect();
    let single = numeric.len() == 1;
    for (key, value) in numeric {
        let name = e.name();
        plane.counter_sample(
            &format!("{scope}\u{0}{name}\u{0}{key}"),
            || if single { name.to_string() } else { format!("{name}.{key}") },
            "",
            time_ps,
            value,
        );
    }
}

/// A counter value: a number, or number text (XProf writes args as strings).
fn number(v: &ArgValue) -> Option<f64> {
    match v {
        ArgValue::Str(s) => s.trim().parse::<f64>().ok(),
        other => other.as_f64(),
    }
    .filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::super::decode;

    #[test]
    fn generic_counter_events_become_series_per_arg() {
        let json = r#"{"traceEvents":[
          {"ph":"M","pid":1,"name":"process_name","args":{"name":"/host:CPU"}},
          {"ph":"X","pid":1,"tid":2,"ts":0,"dur":10,"name":"work"},
          {"ph":"C","pid":1,"ts":5,"name":"mem","args":{"used":"100","free":28.5}},
          {"ph":"C","pid":1,"ts":2,"name":"mem","args":{"used":50,"free":78.5}},
          {"ph":"C","pid":1,"ts":3,"name":"queue","args":{"depth":7}},
          {"ph":"C","pid":1,"ts":4,"name":"queue","args":{"depth":"n/a"}}
        ]}"#;
        let p = decode(json.as_bytes(), &mut |_| {}).unwrap();
        let plane = &p.planes[0];
        let names: Vec<&str> = plane.counters.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["mem.free", "mem.used", "queue"]);
        let used = &plane.counters[1];
        assert_eq!(used.times_ps, vec![2_000_000, 5_000_000], "sorted by time");
        assert_eq!(used.values, vec![50.0, 100.0]);
        assert_eq!(plane.counters[2].values, vec![7.0], "text that is no number is skipped");
    }
}
