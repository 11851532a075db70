//! Checks of the demo list (`demos`), apart from it: xtask includes that file.

use crate::demos::*;

#[test]
fn every_demo_file_exists_and_is_named_for_a_host() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for demo in DEMOS {
        assert!(!demo.files.is_empty(), "{}", demo.id);
        for file in demo.files {
            assert!(root.join(file.source).is_file(), "{} is missing", file.source);
            assert!(file.served.ends_with(".gz") && file.name.ends_with(".gz"), "{}", file.served);
            // A served name is one element id: only safe characters.
            assert!(file.served.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
        }
        let discovered = proflens_format::logdir::discover(
            demo.files.iter().map(|f| listed_path(demo, f)).collect::<Vec<_>>().iter().map(String::as_str),
            "unused",
        );
        let runs: Vec<&str> = discovered.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(runs, vec![demo.run], "{}", demo.id);
        assert_eq!(discovered.runs[0].hosts.len(), demo.files.len(), "{}", demo.id);
        if let Some(tool) = demo.tool {
            assert!(proflens_analysis::registry::find(tool).is_some(), "{tool}");
        }
    }
}

#[test]
fn unknown_names_open_the_default() {
    assert_eq!(find("").id, DEFAULT);
    assert_eq!(find("nope").id, DEFAULT);
    assert_eq!(find("jax").id, "jax");
    let ids: Vec<&str> = DEMOS.iter().map(|d| d.id).collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids, unique);
}
