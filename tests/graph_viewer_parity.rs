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

/// The graph around every instruction of the CPU training step (fusions
/// expanded and merged): the centre is drawn, no two nodes overlap, every
/// edge goes down from its operand to its user.
#[test]
fn graphs_around_every_instruction_are_drawn_cleanly() {
    use proflens_analysis::tools::graph_viewer::{graph_viewer, Graph};
    let profile = load(&data_dir().join(FIXTURES[0].0)).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile).modules;
    let module = modules.iter().find(|m| m.display_name() == "jit_train_step(30)").unwrap();
    let check = |g: &Graph, what: &str| {
        for (i, a) in g.nodes.iter().enumerate() {
            for b in &g.nodes[i + 1..] {
                let apart =
                    a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
                assert!(apart, "{what}: {} and {} overlap", a.name, b.name);
            }
        }
        for e in &g.edges {
            let (from, to) = (&g.nodes[e.from], &g.nodes[e.to]);
            assert!(from.y + from.height < to.y, "{what}: edge {} -> {} goes up", from.name, to.name);
        }
    };
    let mut drawn = 0;
    for (_, instr) in module.instructions() {
        for merge in [false, true] {
            let page = graph_viewer(vec![], module, Some(&instr.name), 2, merge);
            let g = page.graph.as_ref().unwrap_or_else(|| panic!("no graph around {}", instr.name));
            let what = format!("{} (merge {merge})", instr.name);
            let centred = g.nodes.iter().any(|n| n.center && n.name == instr.name)
                || g.clusters.iter().any(|c| c.center && c.name == instr.name);
            assert!(centred, "{what}: the centre is not drawn");
            check(g, &what);
            drawn += 1;
        }
    }
    assert!(drawn > 400, "{drawn}");
    // Merged fusions draw fewer nodes than expanded ones around a fusion.
    let expanded = graph_viewer(vec![], module, Some("add_reduce_fusion"), 1, false).graph.unwrap();
    let merged = graph_viewer(vec![], module, Some("add_reduce_fusion"), 1, true).graph.unwrap();
    assert!(merged.clusters.is_empty() && !expanded.clusters.is_empty());
    assert!(merged.nodes.len() < expanded.nodes.len());
    assert!(graph_viewer(vec![], module, Some("no such op"), 2, false).failed.is_some());
}
