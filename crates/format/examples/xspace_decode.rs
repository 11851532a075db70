//! Times the slice XSpace decoder alone on one file (best of N), in MB/s:
//! `cargo run --release -p proflens-format --example xspace_decode -- FILE [N]`.
//! For profiling the decode without the tools `proflens bench` also runs.
//! `--digest FILE…` prints a hash of each file's decoded model, every string
//! resolved (ids follow the metadata maps' hash order), to compare builds.

use proflens_model::{Profile, StatList, StrId};
use std::hash::{Hash, Hasher};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--digest") {
        for path in &args[1..] {
            let bytes = std::fs::read(path).expect("readable file");
            let text = match proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}) {
                Ok(p) => dump(&p),
                Err(e) => format!("error: {e}"),
            };
            let mut h = std::hash::DefaultHasher::new();
            text.hash(&mut h);
            println!("{:016x} {} {path}", h.finish(), text.len());
        }
        return;
    }
    let path = args.first().expect("usage: xspace_decode FILE [REPEATS]");
    let repeats: u32 = args.get(1).map_or(5, |n| n.parse().expect("a number of repeats"));
    let bytes = std::fs::read(path).expect("readable file");
    let mut best = f64::INFINITY;
    let mut events = 0;
    for _ in 0..repeats.max(1) {
        let start = std::time::Instant::now();
        let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).expect("decodes");
        best = best.min(start.elapsed().as_secs_f64());
        events = profile.event_count();
        drop(std::hint::black_box(profile));
    }
    let mb = bytes.len() as f64 / 1e6;
    println!("{path}: {mb:.1} MB, {events} events, best {:.1} ms, {:.0} MB/s", best * 1e3, mb / best);
}

/// The model as text, every string resolved.
fn dump(p: &Profile) -> String {
    use std::fmt::Write;
    let mut out = format!("{:?} {:?} {:?} {:?} {:?}\n", p.errors, p.warnings, p.hostnames, p.origin_ns, p.stop_ns);
    let s = |id: StrId| p.str(id).to_string();
    let list = |stats: &StatList| -> Vec<(String, String)> {
        stats.iter().map(|st| (s(st.key), format!("{:?}", stats.value(st, &p.strings)))).collect()
    };
    for plane in &p.planes {
        writeln!(out, "plane {} {} {:?}", plane.id, s(plane.name), list(&plane.stats)).unwrap();
        for m in &plane.event_metadata {
            let display = m.display_name.map(s);
            writeln!(out, " meta {} {} {display:?} {:?} {:?}", m.id, s(m.name), list(&m.stats), m.children).unwrap();
        }
        for line in &plane.lines {
            let e = &line.events;
            let display = line.display_name.map(s);
            writeln!(out, " line {} {} {} {display:?} {}", line.id, line.display_id, s(line.name), line.timestamp_ps)
                .unwrap();
            writeln!(out, "  {:?} {:?} {:?} {:?} {:?}", e.start_ps, e.duration_ps, e.metadata, e.depth, e.aggregated)
                .unwrap();
            for i in 0..e.stats.owners() {
                let stats: Vec<_> =
                    e.stats.of(i).map(|st| (s(st.key), format!("{:?}", e.stats.value(st, &p.strings)))).collect();
                writeln!(out, "  {i} {stats:?}").unwrap();
            }
        }
    }
    out
}
