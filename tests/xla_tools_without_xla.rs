//! XLA tools on profiles that record no XLA program: XProf 2.24's empty
//! answers, with no error. On the BERT GPU run the op profile (both
//! groupings), HLO op stats and the memory viewer of XProf's placeholder
//! module `NO_MODULE` equal the goldens exactly (tolerance 0: every value is
//! a whole number or text). The CPU-only TensorFlow fixtures have no
//! golden for these tools (XProf lists op_profile and hlo_stats for them but
//! the fixtures were not converted with them); there the answers follow
//! XProf's source (op_stats_to_op_profile.cc returns before building a tree
//! when the device ran nothing), checked for their shape.

use proflens_analysis::context::{Format, GroupBy, Request};
use proflens_analysis::registry;
use proflens_tests::{data_dir, host_context, table_rows};
use serde_json::{json, Value};
use std::path::PathBuf;

const BERT: &str = "xspace/external/34.83.195.179_6003.xplane.pb";

fn golden(name: &str) -> Value {
    let path = data_dir().join("goldens/tf-gpu-multiworker-bert-xplane").join(name);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// `tool` on one host as `--format xprof` writes it (and must not fail).
fn xprof(file: &str, tool: &str, request: Request) -> Value {
    let host = host_context("host", &data_dir().join(file));
    let request = Request { format: Format::Xprof, ..request };
    let output = registry::run(registry::find(tool).unwrap(), &[host], &request)
        .unwrap_or_else(|e| panic!("{file} {tool}: {e}"));
    serde_json::from_str(&output.text(Format::Xprof).unwrap()).unwrap()
}

#[test]
fn bert_op_profile_is_xprof_s_idle_only_tree() {
    let ours = xprof(BERT, "op_profile", Request::default());
    assert_eq!(ours, golden("op_profile.34.83.195.179_6003.json"));
    let by_category = xprof(BERT, "op_profile", Request { group_by: GroupBy::Category, ..Request::default() });
    assert_eq!(by_category, golden("op_profile.34.83.195.179_6003.by_category.json"));
}

#[test]
fn bert_hlo_stats_has_xprof_s_columns_and_no_rows() {
    let ours = xprof(BERT, "hlo_stats", Request::default());
    let theirs = golden("hlo_stats.34.83.195.179_6003.json");
    assert_eq!(table_rows(&theirs).len(), 0);
    assert_eq!(ours, theirs);
}

#[test]
fn bert_memory_viewer_is_an_empty_document() {
    let theirs = golden("memory_viewer.NO_MODULE.34.83.195.179_6003.json");
    assert_eq!(theirs, json!({}));
    assert_eq!(xprof(BERT, "memory_viewer", Request::default()), theirs);
    // XProf's placeholder module is accepted by name.
    let placeholder = Request { module: Some("NO_MODULE".into()), ..Request::default() };
    assert_eq!(xprof(BERT, "memory_viewer", placeholder), theirs);
}

fn cpu_fixtures() -> Vec<String> {
    let dir = data_dir().join("xspace");
    let found: Vec<PathBuf> = ["custom_loop", "keras_fit", "input_bound"]
        .iter()
        .flat_map(|case| proflens_tests::xplane_files(&dir.join(case)))
        .collect();
    assert_eq!(found.len(), 3);
    found.iter().map(|p| p.strip_prefix(data_dir()).unwrap().display().to_string()).collect()
}

#[test]
fn cpu_profiles_without_xla_get_empty_answers() {
    let hlo_columns = golden("hlo_stats.34.83.195.179_6003.json")["cols"].clone();
    let unset = json!({ "name": "", "children": [], "numChildren": 0 });
    for file in cpu_fixtures() {
        let hlo = xprof(&file, "hlo_stats", Request::default());
        assert_eq!((&hlo["cols"], table_rows(&hlo).len()), (&hlo_columns, 0), "{file}");
        let op = xprof(&file, "op_profile", Request::default());
        assert_eq!(op["deviceType"], "CPU_ONLY", "{file}");
        assert_eq!((&op["byProgram"], &op["byProgramExcludeIdle"]), (&unset, &unset), "{file}");
        assert_eq!(xprof(&file, "memory_viewer", Request::default()), json!({}), "{file}");
    }
}

/// A named module that does not exist is still an error, not an empty answer.
#[test]
fn an_unknown_module_is_still_an_error() {
    let host = host_context("host", &data_dir().join(BERT));
    let request = Request { module: Some("jit_f(1)".into()), ..Request::default() };
    let got = registry::run(registry::find("memory_viewer").unwrap(), &[host], &request);
    assert!(got.is_err());
}
