//! A host decoded in parts on several threads (`Hooks::threads`, which the
//! CLI sets to the cores for a host alone) answers every tool with the same
//! JSON as one thread: every registry tool on every raw XSpace fixture,
//! opened from disk as the CLI opens it, in 1 and 3 parts (tests/split_decode.rs
//! compares the decoded models in 1, 2, 3 and 7 parts).

use crate::common;

use common::{data, untimed};
use proflens_analysis::context::{Format, Hooks, HostContext, HostFile, Request};
use proflens_analysis::registry;
use std::path::Path;
use std::rc::Rc;

struct Threads(usize);

impl Hooks for Threads {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn threads(&self) -> usize {
        self.0
    }
}

fn host(path: &Path, threads: usize) -> Rc<HostContext> {
    let file = path.to_path_buf();
    let read = Box::new(move || proflens_format::source::open_file(&file));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    Rc::new(HostContext::new("host", vec![HostFile { path: name, tool: None, read }], Rc::new(Threads(threads))))
}

/// Every tool on `rel` in one thread and in three: the same text, or both fail.
fn tools_answer_alike(path: &Path) {
    let rel = path.display();
    let (one, three) = (host(path, 1), host(path, 3));
    let mut compared = 0;
    for tool in registry::TOOLS {
        let answer = |host: &Rc<HostContext>| {
            registry::run(*tool, std::slice::from_ref(host), &Request::default()).and_then(|o| o.text(Format::Json))
        };
        match (answer(&one), answer(&three)) {
            (Ok(a), Ok(b)) => {
                assert!(
                    untimed(a.as_bytes()) == untimed(b.as_bytes()),
                    "{rel} {}: one thread and three differ",
                    tool.id()
                );
                compared += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{rel} {}", tool.id()),
            (a, b) => panic!("{rel} {}: {:?} vs {:?}", tool.id(), a.err(), b.err()),
        }
    }
    assert!(compared > 5, "{rel}: {compared} outputs compared");
}

/// The raw XSpace fixtures the registry test runs (`common::fixtures`),
/// every `SHARDS`-th from `shard`: a few tests, run on all cores.
fn shard(shard: usize) -> Vec<std::path::PathBuf> {
    const SHARDS: usize = 3;
    let raw: Vec<_> = common::fixtures().into_iter().filter(|p| p.to_string_lossy().ends_with(".xplane.pb")).collect();
    assert!(raw.len() >= 9, "{} raw XSpace fixtures", raw.len());
    raw.into_iter().skip(shard).step_by(SHARDS).collect()
}

#[test]
fn fixtures_answer_alike_in_parts_0() {
    shard(0).iter().for_each(|p| tools_answer_alike(p));
}

#[test]
fn fixtures_answer_alike_in_parts_1() {
    shard(1).iter().for_each(|p| tools_answer_alike(p));
}

#[test]
fn fixtures_answer_alike_in_parts_2() {
    shard(2).iter().for_each(|p| tools_answer_alike(p));
}

#[test]
fn gpu_h200_answers_alike_in_parts() {
    tools_answer_alike(&data("gpu_h200/jax_trace/plugins/profile/2026_11_26_04_55_16/vm.xplane.pb"));
}
