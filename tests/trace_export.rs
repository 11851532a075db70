//! Trace export on every XSpace fixture: valid Chrome Trace Event JSON whose
//! complete events are exactly the file's events plus the derived tracks.

use proflens_analysis::hlo::gpu::GpuHlo;
use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::trace::{export::write_chrome_trace, Trace, TrackSource};
use proflens_tests::{data_dir, load, xplane_files};
use serde_json::Value;

#[test]
fn every_fixture_exports_all_its_events() {
    let files = xplane_files(&data_dir().join("xspace"));
    assert_eq!(files.len(), 9);
    for file in files {
        let profile = load(&file).unwrap();
        let grouping = group_events(&profile);
        let trace = Trace::new(&profile, &grouping);
        let derived: usize = trace
            .sections
            .iter()
            .flat_map(|s| &s.tracks)
            .filter_map(|t| match &t.source {
                TrackSource::Derived(d) => Some(d.events.len()),
                TrackSource::Line(..) | TrackSource::Counter(_) => None,
            })
            .sum();
        let mut bytes = Vec::new();
        let written = write_chrome_trace(&profile, &grouping, &trace, None, &mut bytes).unwrap();
        let json: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let events = json["traceEvents"].as_array().unwrap();
        let complete: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(complete.len() as u64, written);
        assert_eq!(complete.len(), profile.event_count() + derived, "{}", file.display());
        // Every complete event names its process and thread in metadata events.
        let named: std::collections::HashSet<(i64, i64)> = events
            .iter()
            .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
            .map(|e| (e["pid"].as_i64().unwrap(), e["tid"].as_i64().unwrap()))
            .collect();
        assert!(complete.iter().all(|e| named.contains(&(e["pid"].as_i64().unwrap(), e["tid"].as_i64().unwrap()))));
        assert!(complete.iter().all(|e| e["dur"].as_f64().unwrap() > 0.0 && e["ts"].is_number()));
    }
}

#[test]
fn gpu_planes_get_derived_tracks_only_where_the_file_has_none() {
    // MI300X GEMM (JAX, ungrouped): XLA Ops per stream derived from `hlo_op`.
    let profile = load(&data_dir().join("xspace/external/tw003.xplane.pb")).unwrap();
    let grouping = group_events(&profile);
    let trace = Trace::new(&profile, &grouping);
    let gpu0 = trace.sections.iter().find(|s| s.name == "/device:GPU:0").unwrap();
    let names: Vec<&str> = gpu0.tracks.iter().map(|t| t.name.as_str()).collect();
    assert!(names.iter().any(|n| n.starts_with("XLA Ops")), "{names:?}");
    assert_eq!(trace.sections[0].name, "/device:GPU:0", "devices come first");
    // TF BERT: the file carries Steps and TensorFlow Ops lines; nothing is derived.
    let profile = load(&data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb")).unwrap();
    let grouping = group_events(&profile);
    let trace = Trace::new(&profile, &grouping);
    let derived =
        trace.sections.iter().flat_map(|s| &s.tracks).filter(|t| matches!(t.source, TrackSource::Derived(_))).count();
    assert_eq!(derived, 0);
    assert_eq!(trace.sections.last().unwrap().name, "/host:CPU");
}

#[test]
fn search_and_selection_summary_on_a_real_profile() {
    use proflens_analysis::passes::trace::range_stats::range_stats;
    use proflens_analysis::passes::trace::search::{search, Pattern};
    let profile = load(&xplane_files(&data_dir().join("xspace/input_bound"))[0]).unwrap();
    let grouping = group_events(&profile);
    let trace = Trace::new(&profile, &grouping);
    let (hits, total) = search(&profile, &grouping, &trace, &Pattern::new("eagerpyfunc", false).unwrap(), 10);
    assert_eq!(hits.len(), 10);
    assert!(total >= 380, "{total} EagerPyFunc events");
    assert!(hits.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
    // The listed hits are the earliest of all matches.
    let (all, _) = search(&profile, &grouping, &trace, &Pattern::new("eagerpyfunc", false).unwrap(), usize::MAX);
    assert_eq!(all.len() as u64, total);
    assert_eq!(hits, all[..10].to_vec());
    let (steps, steps_total) = search(&profile, &grouping, &trace, &Pattern::new("^train [0-9]+$", true).unwrap(), 100);
    assert_eq!((steps.len(), steps_total), (12, 12), "train 0 … train 11 (step roots show their step names)");
    let tracks: Vec<u32> = (0..trace.sections.iter().map(|s| s.tracks.len()).sum::<usize>() as u32).collect();
    let (start, end) = profile.span_ps().unwrap();
    let summary = range_stats(&profile, &grouping, &trace, &tracks, start, end).by_name;
    let counted: u64 = summary.iter().map(|s| s.count).sum();
    // Every event of the file, plus the threadpool regions derived from its host lines.
    assert_eq!(counted as usize, trace.event_count(&profile), "the whole range holds every event");
    assert!(trace.event_count(&profile) > profile.event_count());
    assert!(summary.windows(2).all(|w| w[0].total_ps >= w[1].total_ps));
}

#[test]
fn launches_link_to_their_kernels() {
    use proflens_analysis::passes::trace::links::{LinkIndex, LinkKind};
    use proflens_analysis::passes::trace::search::EventRef;
    let profile = load(&data_dir().join("xspace/external/tw003.xplane.pb")).unwrap();
    let grouping = group_events(&profile);
    let trace = Trace::new(&profile, &grouping);
    // The first kernel on GPU:0's first stream track.
    let tracks: Vec<_> = trace.sections.iter().flat_map(|s| &s.tracks).collect();
    let (t, _) = tracks.iter().enumerate().find(|(_, t)| t.name.starts_with("Stream")).unwrap();
    let index = LinkIndex::new(&profile, &trace);
    let found = index.links(&profile, &trace, EventRef { track: t as u32, event: 0 }, 10);
    assert!(!found.is_empty(), "a kernel has its launch");
    assert!(found.iter().all(|l| l.kind == LinkKind::LaunchedBy));
    let launch = found[0].to;
    assert!(tracks[launch.track as usize].name != tracks[t].name);
    // And back: the launch finds the kernel.
    let back = index.links(&profile, &trace, launch, 10);
    assert!(back.iter().any(|l| l.kind == LinkKind::LaunchedKernel && l.to == EventRef { track: t as u32, event: 0 }));
}

#[test]
fn framework_ops_of_xla_kernels_come_from_the_hlo() {
    // JAX kernels on MI300X carry only `tf_op: XlaModule:`; their HLO names the
    // framework op (`jit(dot)/dot_general`), except for instructions without one.
    let profile = load(&data_dir().join("xspace/external/tw003.xplane.pb")).unwrap();
    let grouping = group_events(&profile);
    let framework_names = |trace: &Trace| -> std::collections::BTreeSet<String> {
        trace
            .sections
            .iter()
            .flat_map(|s| &s.tracks)
            .filter(|t| t.name.starts_with("Framework Ops"))
            .filter_map(|t| match &t.source {
                TrackSource::Derived(d) => Some(d.names.clone()),
                TrackSource::Line(..) | TrackSource::Counter(_) => None,
            })
            .flatten()
            .collect()
    };
    let without = framework_names(&Trace::new(&profile, &grouping));
    assert_eq!(without.into_iter().collect::<Vec<_>>(), ["XlaModule:"]);
    let modules = proflens_format::hlo::hlo_modules(&profile).modules;
    let with = framework_names(&Trace::with_hlo(&profile, &grouping, &GpuHlo::new(&modules)));
    assert_eq!(
        with.into_iter().collect::<Vec<_>>(),
        ["XlaModule:", "jit(broadcast_in_dim)/broadcast_in_dim", "jit(dot)/dot_general"],
        "copy.1 names no framework op and keeps its tf_op"
    );
}

/// The index answers as a scan of every event would: same linked events, kinds
/// and order, on a TF GPU profile (launch ↔ kernel, producer ↔ consumer) and a
/// JAX one, for a spread of selected events.
#[test]
fn the_link_index_finds_what_a_full_scan_finds() {
    use proflens_analysis::passes::trace::links::{Link, LinkIndex, LinkKind};
    use proflens_analysis::passes::trace::search::EventRef;
    use proflens_model::StatValue;
    for file in ["34.83.195.179_6003.xplane.pb", "tw003.xplane.pb"] {
        let profile = load(&data_dir().join("xspace/external").join(file)).unwrap();
        let trace = Trace::new(&profile, &group_events(&profile));
        let index = LinkIndex::new(&profile, &trace);
        let key = |name: &str| profile.strings.lookup(name);
        let stat = |p: usize, l: usize, i: usize, k| -> Option<StatValue> {
            proflens_analysis::common::schema::event_stat(
                &profile,
                &profile.planes[p],
                &profile.planes[p].lines[l],
                i,
                k,
            )
        };
        let events: Vec<(EventRef, usize, usize, usize)> = trace
            .sections
            .iter()
            .flat_map(|s| &s.tracks)
            .enumerate()
            .filter_map(|(t, track)| match track.source {
                TrackSource::Line(p, l) => Some((t, p, l)),
                TrackSource::Derived(_) | TrackSource::Counter(_) => None,
            })
            .flat_map(|(t, p, l)| {
                (0..profile.planes[p].lines[l].events.len())
                    .map(move |i| (EventRef { track: t as u32, event: i as u32 }, p, l, i))
            })
            .collect();
        type Keys = (Option<i64>, Option<(i64, u64)>, Option<(i64, u64)>);
        let keys_of = |p: usize, l: usize, i: usize| -> Keys {
            let int = |k: &str| stat(p, l, i, key(k)).and_then(|v| v.as_i64());
            let uint = |k: &str| stat(p, l, i, key(k)).and_then(|v| v.as_u64());
            (int("correlation_id"), int("_pt").zip(uint("_p")), int("_ct").zip(uint("_c")))
        };
        let keyed: Vec<_> = events.iter().filter(|e| keys_of(e.1, e.2, e.3) != (None, None, None)).collect();
        assert!(!keyed.is_empty(), "{file}: events with links");
        let mut kinds = std::collections::BTreeSet::new();
        for &&(at, sp, sl, si) in keyed.iter().step_by((keyed.len() / 150).max(1)) {
            let (c, produces, consumes) = keys_of(sp, sl, si);
            let on_host = profile.str(profile.planes[sp].name) == "/host:CPU";
            let mut expected = Vec::new();
            for &(to, p, l, i) in &events {
                if to == at {
                    continue;
                }
                let (oc, op, oco) = keys_of(p, l, i);
                let kind = if c.is_some() && oc == c && p != sp {
                    Some(if on_host { LinkKind::LaunchedKernel } else { LinkKind::LaunchedBy })
                } else if produces.is_some() && oco == produces {
                    Some(LinkKind::Consumer)
                } else if consumes.is_some() && op == consumes {
                    Some(LinkKind::Producer)
                } else {
                    None
                };
                expected.extend(kind.map(|kind| Link { to, kind }));
            }
            expected.truncate(20);
            let found = index.links(&profile, &trace, at, 20);
            assert_eq!(found, expected, "{file}: links of {at:?}");
            kinds.extend(found.iter().map(|l| format!("{:?}", l.kind)));
        }
        eprintln!(
            "{file}: {} events with links, every {}th checked, kinds {kinds:?}",
            keyed.len(),
            (keyed.len() / 150).max(1)
        );
    }
}
