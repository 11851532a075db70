//! nvidia-smi's CSV log (`nvidia-smi --query-gpu=timestamp,index,
//! utilization.gpu,memory.used,power.draw --format=csv -lms 100`) as counter
//! series next to a profile: one series per GPU and column.
//!
//! ```text
//! timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]
//! 2026/11/20 10:00:00.123, 0, 45 %, 1234 MiB, 250.00 W
//! ```
//!
//! Timestamps carry no zone: nvidia-smi writes the machine's local time.
//! They are read as UTC (write the log with `TZ=UTC` to align it with a
//! profile, whose clock is UTC); a log of another zone comes out shifted by
//! that zone's offset, the same for every sample. Times become ps from the
//! profile's `origin_ns`; without one, from the log's first sample.
//! `memory.*` columns in MiB become bytes; `[N/A]` cells are skipped.

use proflens_model::{Counter, Profile};

/// Whether `text` starts as nvidia-smi's CSV log: a header whose first
/// column is `timestamp` and that has a GPU query column.
pub fn is_log(text: &str) -> bool {
    let header = text.trim_start_matches('\u{feff}').lines().next().unwrap_or("");
    header.split(',').next().is_some_and(|c| c.trim() == "timestamp")
        && ["utilization.gpu", "memory.used", "power.draw"].iter().any(|k| header.contains(k))
}

/// The series of the log, per GPU (its `index` column, else 0): (GPU, counter).
pub fn parse(text: &str, origin_ns: Option<u64>) -> Result<Vec<(i64, Counter)>, String> {
    if !is_log(text) {
        return Err("not an nvidia-smi CSV log (its header must start with timestamp)".to_string());
    }
    let mut lines = text.trim_start_matches('\u{feff}').lines();
    let header: Vec<(String, String)> = lines.next().unwrap_or("").split(',').map(column).collect();
    let index_col = header.iter().position(|(name, _)| name == "index");
    let mut series: Vec<((i64, usize), Counter)> = Vec::new();
    let mut origin = origin_ns.map(i128::from);
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let Some(ns) = cells.first().and_then(|t| timestamp_ns(t)) else { continue };
        let t0 = *origin.get_or_insert(ns);
        let Ok(time_ps) = i64::try_from((ns - t0).saturating_mul(1000)) else { continue };
        let gpu = index_col.and_then(|c| cells.get(c)).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
        for (c, (name, unit)) in header.iter().enumerate().skip(1) {
            if Some(c) == index_col {
                continue;
            }
            let Some(mut value) = cells.get(c).and_then(|v| number(v)) else { continue };
            let mut unit = unit.as_str();
            if unit == "MiB" {
                value *= 1024.0 * 1024.0;
                unit = "B";
            }
            let at = match series.iter().position(|(k, _)| *k == (gpu, c)) {
                Some(at) => at,
                None => {
                    series.push(((gpu, c), Counter::new(format!("{name} (GPU {gpu})"), unit)));
                    series.len() - 1
                }
            };
            series[at].1.push(time_ps, value);
        }
    }
    if series.is_empty() {
        return Err("the nvidia-smi log has no samples".to_string());
    }
    Ok(series
        .into_iter()
        .map(|((gpu, _), mut c)| {
            c.sort();
            (gpu, c)
        })
        .collect())
}

/// Adds the log's series to `profile`: each GPU's on its `/device:GPU:<n>`
/// plane when the profile has it, else on the first plane (the host's).
/// Returns how many series were added.
pub fn attach(profile: &mut Profile, text: &str) -> Result<usize, String> {
    let series = parse(text, profile.origin_ns)?;
    if profile.planes.is_empty() {
        return Err("the profile has no planes for the nvidia-smi log".to_string());
    }
    let count = series.len();
    for (gpu, counter) in series {
        let name = format!("/device:GPU:{gpu}");
        let plane = profile.planes.iter().position(|p| profile.strings.get(p.name) == name);
        let host = profile.planes.iter().position(|p| profile.strings.get(p.name) == "/host:CPU");
        profile.planes[plane.or(host).unwrap_or(0)].counters.push(counter);
    }
    Ok(count)
}

/// `utilization.gpu [%]` → (`utilization.gpu`, `%`).
fn column(text: &str) -> (String, String) {
    let text = text.trim();
    match text.split_once('[') {
        Some((name, unit)) => (name.trim().to_string(), unit.trim_end_matches(']').trim().to_string()),
        None => (text.to_string(), String::new()),
    }
}

/// `45 %`, `1234 MiB`, `250.00 W` → the number; `[N/A]` → none.
fn number(cell: &str) -> Option<f64> {
    cell.split_whitespace().next()?.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `2026/11/20 10:00:00.123` (read as UTC) → ns since the Unix epoch.
fn timestamp_ns(text: &str) -> Option<i128> {
    let (date, time) = text.trim().split_once(' ')?;
    let mut d = date.split(['/', '-']).map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.trim().split(':');
    let (h, min) = (t.next()?.parse::<i64>().ok()?, t.next()?.parse::<i64>().ok()?);
    let sec = t.next()?;
    let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
    let s = whole.parse::<i64>().ok()?;
    let frac_ns = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().take(9).collect();
        digits.parse::<i64>().ok()? * 10i64.pow(9 - digits.len() as u32)
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || h > 23 || min > 59 || s > 60 {
        return None;
    }
    let seconds = days_from_civil(y, m, day) * 86_400 + h * 3600 + min * 60 + s;
    Some(i128::from(seconds) * 1_000_000_000 + i128::from(frac_ns))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n\
        2026/11/20 10:00:00.100, 0, 45 %, 1234 MiB, 250.00 W\n\
        2026/11/20 10:00:00.100, 1, 0 %, 2 MiB, [N/A]\n\
        2026/11/20 10:00:00.200, 0, 50 %, 1300 MiB, 260.50 W\n";

    #[test]
    fn dates_are_utc_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(timestamp_ns("1970/01/02 00:00:01.5"), Some(86_401_500_000_000));
        assert_eq!(timestamp_ns("2000/03/01 00:00:00.000"), Some(951_868_800 * 1_000_000_000));
        assert_eq!(timestamp_ns("2026/13/01 00:00:00"), None);
    }

    #[test]
    fn a_log_becomes_series_per_gpu_and_column() {
        assert!(is_log(LOG));
        assert!(!is_log("a,b\n1,2\n"));
        let origin = timestamp_ns("2026/11/20 10:00:00.000").map(|ns| ns as u64);
        let series = parse(LOG, origin).unwrap();
        let names: Vec<(i64, &str, &str)> =
            series.iter().map(|(g, c)| (*g, c.name.as_str(), c.unit.as_str())).collect();
        assert_eq!(
            names,
            [
                (0, "utilization.gpu (GPU 0)", "%"),
                (0, "memory.used (GPU 0)", "B"),
                (0, "power.draw (GPU 0)", "W"),
                (1, "utilization.gpu (GPU 1)", "%"),
                (1, "memory.used (GPU 1)", "B")
            ]
        );
        let util = &series[0].1;
        assert_eq!(util.times_ps, vec![100_000_000_000, 200_000_000_000], "ps after the profile's origin");
        assert_eq!(util.values, vec![45.0, 50.0]);
        assert_eq!(series[1].1.values[0], 1234.0 * 1024.0 * 1024.0);
        assert_eq!(series[2].1.values, vec![250.0, 260.5]);
        // Without an origin the log starts at 0.
        assert_eq!(parse(LOG, None).unwrap()[0].1.times_ps[0], 0);
    }
}
