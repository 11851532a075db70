//! Several hosts on one timeline: the trace viewer's layout of all hosts
//! (`proflens tool RUN trace_viewer`) and `proflens export-trace RUN` without
//! `--host`, on the two-host BERT run (one fixture under two host names) and
//! on the two ranks of a PyTorch job, whose clocks differ. The expected
//! times are read from the rank files themselves (epoch µs).

use crate::common;

use common::{data, json, proflens};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const HOSTS: [&str; 2] = ["worker0", "worker1"];

/// A run folder with the BERT worker's file under both host names.
fn two_host_run(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-trace-hosts-{tag}-{}", std::process::id()));
    let run = dir.join("plugins/profile/run1");
    std::fs::create_dir_all(&run).unwrap();
    for host in HOSTS {
        std::fs::copy(data("xspace/external/34.83.195.179_6003.xplane.pb"), run.join(format!("{host}.xplane.pb")))
            .unwrap();
    }
    dir
}

fn export(path: &Path, extra: &[&str]) -> Value {
    let out_path = std::env::temp_dir().join(format!(
        "proflens-trace-hosts-{}-{}.json",
        std::process::id(),
        path.file_name().unwrap().to_string_lossy()
    ));
    let mut args = vec!["export-trace", path.to_str().unwrap(), "-o", out_path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = proflens(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out_path);
    v
}

/// Process names by pid.
fn processes(trace: &Value) -> BTreeMap<i64, String> {
    trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .map(|e| (e["pid"].as_i64().unwrap(), e["args"]["name"].as_str().unwrap().to_string()))
        .collect()
}

/// `ts` of the complete events whose name starts with `name`, by process name.
fn starts_of(trace: &Value, name: &str) -> Vec<(String, f64)> {
    let names = processes(trace);
    trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .map(|e| (names[&e["pid"].as_i64().unwrap()].clone(), e["ts"].as_f64().unwrap()))
        .collect()
}

#[test]
fn two_hosts_join_one_layout_and_one_export() {
    let dir = two_host_run("bert");
    let one = json(&["tool", dir.to_str().unwrap(), "trace_viewer", "--host", "worker0"]);
    let all = json(&["tool", dir.to_str().unwrap(), "trace_viewer"]);
    let hosts = all["hosts"].as_array().unwrap();
    assert_eq!(hosts.iter().map(|h| h["name"].as_str().unwrap()).collect::<Vec<_>>(), HOSTS);
    let sections = one["sections"].as_array().unwrap();
    let tracks: u64 = sections.iter().map(|s| s["tracks"].as_array().unwrap().len() as u64).sum();
    assert!(one["hosts"].as_array().unwrap().is_empty());
    // Each host's sections in order, named after it, its tracks numbered after the previous host's.
    assert_eq!(all["sections"].as_array().unwrap().len(), 2 * sections.len());
    for (h, host) in hosts.iter().enumerate() {
        assert_eq!(host["offset_ps"], 0, "the same capture start");
        assert_eq!(host["tracks"].as_u64(), Some(tracks));
        assert_eq!(host["first_track"].as_u64(), Some(h as u64 * tracks));
        let first = host["first_section"].as_u64().unwrap() as usize;
        let section = &all["sections"][first];
        assert_eq!(section["name"], format!("{} — {}", HOSTS[h], sections[0]["name"].as_str().unwrap()));
        assert_eq!(section["tracks"][0]["id"].as_u64(), Some(h as u64 * tracks));
    }
    assert_eq!(all["events"].as_u64(), one["events"].as_u64().map(|n| 2 * n));
    assert_eq!((all["start_ps"].clone(), all["end_ps"].clone()), (one["start_ps"].clone(), one["end_ps"].clone()));
    // Identical hosts finish every step together: a straggler row per step, no lag.
    let stragglers = all["stragglers"].as_array().unwrap();
    assert!(!stragglers.is_empty());
    assert!(stragglers.iter().all(|s| s["lag_first_ps"] == 0 && s["hosts"] == 2));

    // The export of all hosts: one process per (host, plane), pids unique, each host's events.
    let single = export(&dir, &["--host", "worker0"]);
    let both = export(&dir, &[]);
    let (single_procs, procs) = (processes(&single), processes(&both));
    assert_eq!(procs.len(), 2 * single_procs.len());
    for host in HOSTS {
        let mine: BTreeSet<&str> = procs.values().filter_map(|p| p.strip_prefix(&format!("{host} — "))).collect();
        assert_eq!(mine, single_procs.values().map(String::as_str).collect(), "{host}");
    }
    let count = |t: &Value| t["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").count();
    assert_eq!(count(&both), 2 * count(&single));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pytorch_ranks_align_on_their_clocks_and_the_late_rank_is_the_straggler() {
    let dir = data("kineto/kineto-multirank-sampled");
    let all = json(&["tool", dir.to_str().unwrap(), "trace_viewer"]);
    let hosts = all["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2);
    let rank1 = hosts.iter().position(|h| h["name"] == "sampled_rank-1").unwrap() as i64;
    // ProfilerStep#552 in the files (epoch µs): rank 0 at 1682725898686653 for 622928 µs,
    // rank 1 at 1682725898687438 for 630639 µs: rank 1 ends 8,496 µs after rank 0.
    let step = all["stragglers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"].as_str().is_some_and(|n| n.starts_with("ProfilerStep#552")))
        .cloned();
    let step = step.expect("step 552 on both ranks");
    assert_eq!(step["host"].as_i64(), Some(rank1));
    assert_eq!(step["lag_first_ps"].as_i64(), Some(8_496_000_000));
    assert_eq!(step["hosts"], 2);

    // Exported together, the two ranks' step starts keep their distance (785 µs).
    let both = export(&dir, &[]);
    let starts = starts_of(&both, "ProfilerStep#552");
    let of = |rank: &str| starts.iter().find(|(p, _)| p == &format!("{rank} — /host:CPU")).map(|(_, ts)| *ts).unwrap();
    assert!((of("sampled_rank-1") - of("sampled_rank-0") - 785.0).abs() < 1e-6, "{starts:?}");
    let pids: BTreeSet<i64> = processes(&both).keys().copied().collect();
    assert_eq!(pids.len(), processes(&both).len());
    assert!(processes(&both).values().any(|p| p.starts_with("sampled_rank-0 — ")));
}

/// Cross-host flows on a synthetic pair of ranks (tests/data/collectives-synthetic:
/// no real fixture has two ranks whose collectives carry ids): each of rank 0's
/// collectives is found on rank 1 by name, process group and sequence number,
/// although rank 1 ran another group's broadcast first.
#[test]
fn collectives_pair_across_ranks_by_their_ids() {
    use proflens_analysis::hlo::gpu::GpuHlo;
    use proflens_analysis::passes::grouping::group_events;
    use proflens_analysis::passes::trace::collectives::{find, key_of};
    use proflens_analysis::passes::trace::index::TraceIndex;
    use proflens_analysis::passes::trace::search::EventRef;

    let load = |rank: &str| {
        let bytes = std::fs::read(data(&format!("collectives-synthetic/rank-{rank}.json"))).unwrap();
        let profile = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
        let index = TraceIndex::new(&profile, &group_events(&profile), &GpuHlo::new(&[]));
        (profile, index)
    };
    let ((p0, i0), (p1, i1)) = (load("0"), load("1"));
    let start = |index: &TraceIndex, profile: &proflens_model::Profile, at: EventRef| {
        let (track, _) = index.track(at.track).unwrap();
        proflens_analysis::passes::trace::track_events(profile, track).start_ps.at(at.event as usize)
    };
    let mut keys = Vec::new();
    for track in 0..i0.tracks.len() as u32 {
        let (t, _) = i0.track(track).unwrap();
        for event in 0..proflens_analysis::passes::trace::track_events(&p0, t).len() as u32 {
            if let Some(key) = key_of(&p0, &i0.trace, EventRef { track, event }) {
                let on_1 = find(&p1, &i1.trace, &key).expect("rank 1 ran it");
                assert_eq!(key_of(&p1, &i1.trace, on_1).as_ref(), Some(&key));
                // In the files: rank 1's instance starts 300 µs later in its step (its own clock).
                let lag = start(&i1, &p1, on_1) - start(&i0, &p0, EventRef { track, event });
                keys.push((key.name.clone(), key.seq.clone(), lag));
            }
        }
    }
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.iter().all(|(name, _, lag)| name == "allreduce" && *lag == 300_000_000), "{keys:?}");
}
