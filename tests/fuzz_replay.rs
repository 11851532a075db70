//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`, minimised
//! with `cargo fuzz cmin`) and the inputs that once crashed a target
//! (`fuzz/crashes-found/<target>/`) through the very bodies the fuzz
//! targets run (`fuzz/bodies/`, included here by path): a panic in any of
//! them fails the test and names the file.

#[path = "../fuzz/bodies/build.rs"]
mod build;
#[path = "../fuzz/bodies/common.rs"]
mod common;
#[path = "../fuzz/bodies/decode_hlo.rs"]
mod decode_hlo;
#[path = "../fuzz/bodies/decode_legacy.rs"]
mod decode_legacy;
#[path = "../fuzz/bodies/decode_trace.rs"]
mod decode_trace;
#[path = "../fuzz/bodies/decode_xspace.rs"]
mod decode_xspace;
#[path = "../fuzz/bodies/tools_hlo.rs"]
mod tools_hlo;
#[path = "../fuzz/bodies/tools_legacy.rs"]
mod tools_legacy;
#[path = "../fuzz/bodies/tools_trace.rs"]
mod tools_trace;
#[path = "../fuzz/bodies/tools_xspace.rs"]
mod tools_xspace;
#[path = "../fuzz/bodies/tools_xspace_built.rs"]
mod tools_xspace_built;

use std::path::{Path, PathBuf};
use std::time::Instant;

/// A fuzz target's body: any bytes, any outcome but a panic.
type Body = fn(&[u8]);

/// Every fuzz target by name, with its body.
const TARGETS: &[(&str, Body)] = &[
    ("decode_xspace", decode_xspace::run),
    ("decode_trace", decode_trace::run),
    ("decode_legacy", decode_legacy::run),
    ("decode_hlo", decode_hlo::run),
    ("tools_xspace", tools_xspace::run),
    ("tools_trace", tools_trace::run),
    ("tools_legacy", tools_legacy::run),
    ("tools_hlo", tools_hlo::run),
    ("tools_xspace_built", tools_xspace_built::run),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of `dir`, sorted; none when it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> =
        entries.map(|e| e.expect("readable corpus entry").path()).filter(|p| p.is_file()).collect();
    out.sort();
    out
}

/// Runs every file of `fuzz/<folder>/<target>/` through its target's body;
/// the files that panicked, and how many ran.
fn replay(folder: &str) -> (Vec<String>, usize) {
    let mut failed = Vec::new();
    let mut ran = 0;
    for (target, body) in TARGETS {
        let started = Instant::now();
        let inputs = files(&fuzz_dir().join(folder).join(target));
        for path in &inputs {
            let data = std::fs::read(path).expect("readable corpus file");
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                failed.push(format!("{target}: {}", path.display()));
            }
        }
        ran += inputs.len();
        eprintln!("{folder}/{target}: {} inputs in {:.1} s", inputs.len(), started.elapsed().as_secs_f64());
    }
    (failed, ran)
}

#[test]
fn every_target_has_its_body_and_corpus() {
    let targets: Vec<String> = files(&fuzz_dir().join("fuzz_targets"))
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    let known: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
    assert_eq!(targets.len(), known.len(), "fuzz targets {targets:?}, replayed {known:?}");
    for t in &targets {
        assert!(known.contains(&t.as_str()), "fuzz target {t} is not replayed here");
        assert!(!files(&fuzz_dir().join("corpus").join(t)).is_empty(), "fuzz/corpus/{t} is empty");
    }
}

#[test]
fn the_corpus_replays_without_a_panic() {
    let (failed, ran) = replay("corpus");
    assert!(ran > 0, "no corpus under {}", fuzz_dir().display());
    assert!(failed.is_empty(), "{} of {ran} inputs panicked:\n{}", failed.len(), failed.join("\n"));
}

#[test]
fn the_crashes_found_replay_without_a_panic() {
    let (failed, ran) = replay("crashes-found");
    assert!(failed.is_empty(), "{} of {ran} inputs panicked:\n{}", failed.len(), failed.join("\n"));
}
