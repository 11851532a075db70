//! A tar archive of traces (tests/data/tar, synthetic: the two ranks of
//! tests/data/collectives-synthetic packed by GNU tar) opens as one run
//! with a host per member, the same as the folder of its traces.

use crate::common::{data, json, proflens};
use serde_json::Value;

fn arg(rel: &str) -> String {
    data(rel).to_str().unwrap().to_string()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The runs' names and their hosts' names and planes, as `info` prints them.
fn runs(v: &Value) -> Vec<(String, Vec<(String, Value)>)> {
    let run = |r: &Value| {
        let hosts = r["hosts"].as_array().unwrap().iter();
        let hosts = hosts.map(|h| (h["name"].as_str().unwrap().to_string(), h["planes"].clone())).collect();
        (r["name"].as_str().unwrap().to_string(), hosts)
    };
    v["runs"].as_array().unwrap().iter().map(run).collect()
}

#[test]
fn a_tar_gz_of_ranks_is_one_run_like_the_folder_of_its_traces() {
    let folder = runs(&json(&["info", &arg("collectives-synthetic")]));
    let archive = runs(&json(&["info", &arg("tar/ranks.tar.gz")]));
    assert_eq!(archive.len(), 1);
    assert_eq!(archive[0].0, "ranks.tar.gz");
    // rank-1 is gzipped in the archive: the same host, the same events.
    assert_eq!(archive[0].1, folder[0].1);
    let hosts: Vec<&str> = archive[0].1.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(hosts, ["rank-0", "rank-1"]);
    // A tool over both hosts, and over one, reads the members where they lie.
    // Without the time its build took, which differs from run to run.
    let trace = |path: &str, more: &[&str]| {
        let mut v = json(&[&["tool", path, "trace_viewer"], more].concat());
        v.as_object_mut().unwrap().remove("build_ms");
        v
    };
    assert_eq!(trace(&arg("tar/ranks.tar.gz"), &[]), trace(&arg("collectives-synthetic"), &[]));
    let one = trace(&arg("tar/ranks-pax.tar"), &["--host", "rank-1"]);
    assert_eq!(one, trace(&arg("collectives-synthetic"), &["--host", "rank-1"]));
}

#[test]
fn a_pax_tar_names_its_run_by_its_folder_and_says_what_it_left_out() {
    let out = proflens(&["info", &arg("tar/ranks-pax.tar")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = runs(&v);
    assert_eq!((got.len(), got[0].0.as_str(), got[0].1.len()), (1, "ranks", 2));
    let said = stderr(&out);
    assert!(said.contains("skipped ranks-pax.tar/ranks/notes-xxx") && said.contains(": not a profile"), "{said}");
}

#[test]
fn damaged_and_misnamed_archives_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("proflens-archives-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pax = std::fs::read(data("tar/ranks-pax.tar")).unwrap();
    let cut = dir.join("cut.tar");
    std::fs::write(&cut, &pax[..3000]).unwrap();
    let out = proflens(&["info", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cut.tar: The profile is truncated (the tar archive ends inside"),
        "{}",
        stderr(&out)
    );
    let not_tar = dir.join("x.tar");
    std::fs::write(&not_tar, b"hello").unwrap();
    let out = proflens(&["info", not_tar.to_str().unwrap()]);
    assert!(stderr(&out).contains("named as a tar archive, but its content is not one"), "{}", stderr(&out));
    // Named as nothing, the content decides.
    let renamed = dir.join("ranks.bin");
    std::fs::write(&renamed, &pax).unwrap();
    let v = json(&["info", renamed.to_str().unwrap()]);
    assert_eq!(runs(&v)[0].1.len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
