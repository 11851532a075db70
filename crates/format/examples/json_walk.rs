//! Times reading trace JSON, best of N, as one JSON line:
//!
//! * `json_walk FILE [N]`: serde_json's validating walk of the bytes
//!   (`from_slice::<IgnoredAny>`), the floor a JSON reader that checks the
//!   whole file can hope for (tests/bench/json_decode.py compares with it);
//! * `json_walk --decode FILE [N]`: Proflens's decode of the file held in
//!   memory (what `proflens bench`'s `decode` phase times, without the CLI's
//!   host context), for profiling the decoder alone;
//! * `json_walk --stream FILE [N]`: the streamed decode (what files over
//!   128 MiB and the browser use), reading the file from disk.

use proflens_format::{load_source, source, Limits};
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mode = if args.first().is_some_and(|a| a.starts_with("--")) { args.remove(0) } else { "--walk".into() };
    let Some(path) = args.first().cloned() else {
        eprintln!("usage: json_walk [--walk|--decode|--stream] FILE [REPEATS]");
        std::process::exit(2);
    };
    let repeats: u32 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(3).max(1);
    // The streamed mode reads from disk; the others hold the file.
    let bytes =
        if mode == "--stream" { Vec::new() } else { std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")) };
    let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let mut best = f64::INFINITY;
    for _ in 0..repeats {
        let start = Instant::now();
        match mode.as_str() {
            "--walk" => {
                serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).expect("valid JSON");
            }
            "--decode" => {
                let file = source::in_memory(bytes.clone());
                let profile = load_source::load_profile_source(&path, &*file, &Limits::default(), &mut |_| {});
                std::hint::black_box(profile.expect("a profile"));
            }
            "--stream" => {
                let file = source::open_file(std::path::Path::new(&path)).expect("readable");
                let profile = load_source::load_with_chunk(&path, &*file, &Limits::default(), 1 << 20, &mut |_| {});
                std::hint::black_box(profile.expect("a profile"));
            }
            other => panic!("unknown mode {other}"),
        }
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
    }
    let mb_s = len as f64 / 1e6 / (best / 1000.0);
    println!("{{\"mode\":\"{}\",\"bytes\":{},\"ms\":{best:.1},\"mb_s\":{mb_s:.1}}}", &mode[2..], len);
}
