//! Graph viewer's text against XProf 2.24's goldens
//! (`graph_viewer.<module>.long_txt.txt`, parameters `type=long_txt`,
//! `show_metadata=0`): every module of every fixture that has one.
//!
//! Tolerance: none. The text must be byte-equal to the golden; no
//! normalisation at all (not even of the trailing blank line, which XProf
//! writes and so do we).

use proflens_analysis::hlo::print::module_text;
use proflens_tests::{data_dir, load};
use std::path::Path;

/// (profile under tests/data, golden folder under tests/data/goldens)
const FIXTURES: &[(&str, &str)] = &[
    ("xspace/jax_mlp/plugins/profile/2026_11_22_09_04_56/vm.xplane.pb", "jax_mlp"),
    ("xspace/custom_loop_xla/plugins/profile/2026_11_22_09_04_39/vm.xplane.pb", "custom_loop_xla"),
    ("xspace/external/tpu_inference_2.xplane.pb", "jax-tpu-v6e-inference-xplane"),
    ("xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax-mi300x-conv-xplane-jax06"),
    ("xspace/external/tw003.xplane.pb", "jax-mi300x-gemm-xplane"),
];

/// The golden's text; the large ones are stored gzipped.
fn golden_text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        proflens_format::inflate::gunzip(&bytes, 1 << 24, &mut |_| {}).unwrap()
    } else {
        bytes
    };
    String::from_utf8(bytes).unwrap()
}

/// The module names of a fixture's long_txt goldens, with their files.
fn goldens(folder: &str) -> Vec<(String, std::path::PathBuf)> {
    let dir = data_dir().join("goldens").join(folder);
    let mut out: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name()?.to_str()?.to_string();
            let module = name.strip_prefix("graph_viewer.")?.split(".long_txt.txt").next()?.to_string();
            Some((module, path))
        })
        .collect();
    out.sort();
    out
}

fn first_difference(ours: &str, theirs: &str) -> String {
    for (n, (a, b)) in ours.lines().zip(theirs.lines()).enumerate() {
        if a != b {
            return format!("line {}:\n ours:   {a}\n theirs: {b}", n + 1);
        }
    }
    format!("lengths differ: ours {} lines, theirs {}", ours.lines().count(), theirs.lines().count())
}

#[test]
fn every_long_txt_golden_is_byte_equal() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (profile_path, folder) in FIXTURES {
        let profile = load(&data_dir().join(profile_path)).unwrap();
        let modules = proflens_format::hlo::hlo_modules(&profile);
        for (name, path) in goldens(folder) {
            let module = modules.modules.iter().find(|m| m.display_name() == name);
            let Some(module) = module else {
                failures.push(format!("{folder}: no module {name}"));
                continue;
            };
            let ours = module_text(module);
            let theirs = golden_text(&path);
            checked += 1;
            if ours != theirs {
                failures.push(format!("{folder}/{name}: {}", first_difference(&ours, &theirs)));
            }
        }
    }
    // 1 + 1 + 4 + 8 + 16 goldens.
    assert_eq!(checked + failures.iter().filter(|f| f.contains(": no module")).count(), 30);
    assert!(failures.is_empty(), "{} of 30 differ:\n{}", failures.len(), failures.join("\n"));
}
