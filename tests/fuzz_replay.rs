//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`, minimised
//! with libFuzzer's `-set_cover_merge=1`, fuzz/README.md) and the inputs that once crashed a target
//! (`fuzz/crashes-found/<target>/`) through the very bodies the fuzz
//! targets run (`fuzz/bodies/`, included here by path): a panic in any of
//! them fails the test and names the file.

#[path = "../fuzz/bodies/build.rs"]
pub(crate) mod build;
#[path = "../fuzz/bodies/common.rs"]
pub(crate) mod common;
#[path = "../fuzz/bodies/decode_hlo.rs"]
mod decode_hlo;
#[path = "../fuzz/bodies/decode_legacy.rs"]
mod decode_legacy;
#[path = "../fuzz/bodies/decode_nvidia_smi.rs"]
mod decode_nvidia_smi;
#[path = "../fuzz/bodies/decode_perfetto.rs"]
mod decode_perfetto;
#[path = "../fuzz/bodies/decode_summary.rs"]
mod decode_summary;
#[path = "../fuzz/bodies/decode_tar.rs"]
mod decode_tar;
#[path = "../fuzz/bodies/decode_tpu_trace.rs"]
mod decode_tpu_trace;
#[path = "../fuzz/bodies/decode_trace.rs"]
mod decode_trace;
#[path = "../fuzz/bodies/decode_trace_stream.rs"]
mod decode_trace_stream;
#[path = "../fuzz/bodies/decode_xspace.rs"]
mod decode_xspace;
#[path = "../fuzz/bodies/decode_xspace_stream.rs"]
mod decode_xspace_stream;
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

/// Every fuzz target, replayed by a test of its name (the tests run in
/// parallel, one target each).
const TARGETS: &[&str] = &[
    "decode_xspace",
    "decode_xspace_stream",
    "decode_trace",
    "decode_trace_stream",
    "decode_legacy",
    "decode_tpu_trace",
    "decode_perfetto",
    "decode_nvidia_smi",
    "decode_hlo",
    "decode_summary",
    "decode_tar",
    "tools_xspace",
    "tools_trace",
    "tools_legacy",
    "tools_hlo",
    "tools_xspace_built",
];

macro_rules! replay_tests {
    ($($target:ident),* $(,)?) => {
        $(
            #[test]
            fn $target() {
                replay(stringify!($target), $target::run);
            }
        )*
    };
}

replay_tests!(
    decode_xspace,
    decode_xspace_stream,
    decode_trace,
    decode_trace_stream,
    decode_legacy,
    decode_tpu_trace,
    decode_perfetto,
    decode_nvidia_smi,
    decode_hlo,
    decode_summary,
    decode_tar,
    tools_xspace,
    tools_trace,
    tools_legacy,
    tools_hlo,
    tools_xspace_built,
);

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

/// Runs every file of `fuzz/corpus/<target>/` and `fuzz/crashes-found/<target>/`
/// through the target's body; fails naming the files that panicked.
fn replay(target: &str, body: fn(&[u8])) {
    let started = Instant::now();
    let corpus = files(&fuzz_dir().join("corpus").join(target));
    assert!(!corpus.is_empty(), "fuzz/corpus/{target} is empty");
    let inputs: Vec<PathBuf> =
        corpus.into_iter().chain(files(&fuzz_dir().join("crashes-found").join(target))).collect();
    let mut failed = Vec::new();
    for path in &inputs {
        let data = std::fs::read(path).expect("readable corpus file");
        if std::panic::catch_unwind(|| body(&data)).is_err() {
            failed.push(path.display().to_string());
        }
    }
    eprintln!("{target}: {} inputs in {:.1} s", inputs.len(), started.elapsed().as_secs_f64());
    assert!(
        failed.is_empty(),
        "{} of {} inputs panicked in {target}:\n{}",
        failed.len(),
        inputs.len(),
        failed.join("\n")
    );
}

#[test]
fn every_fuzz_target_is_replayed() {
    let targets: Vec<String> = files(&fuzz_dir().join("fuzz_targets"))
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(targets.len(), TARGETS.len(), "fuzz targets {targets:?}, replayed {TARGETS:?}");
    for t in &targets {
        assert!(TARGETS.contains(&t.as_str()), "fuzz target {t} is not replayed here");
    }
}
