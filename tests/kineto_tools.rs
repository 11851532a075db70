//! The XProf-style tools on imported PyTorch traces: the trace viewer builds
//! and exports, launch → kernel links resolve, kernel stats and the memory
//! profile read what the importer wrote, and the PyTorch views are
//! consistent with the trace's own numbers.

use proflens_analysis::passes::grouping::group_events;
use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::passes::kineto::{facts, KinetoIndex};
use proflens_analysis::passes::trace::links::{LinkIndex, LinkKind};
use proflens_analysis::passes::trace::search::EventRef;
use proflens_analysis::passes::trace::{export::write_chrome_trace, Trace, TrackSource};
use proflens_analysis::tools::framework_op_stats::pytorch as operators;
use proflens_analysis::tools::kernel_stats::{self, pytorch as torch_kernels};
use proflens_analysis::tools::memory_profile;
use proflens_analysis::tools::overview::{self as tool_overview, pytorch as overview};
use proflens_model::{Origin, Profile};
use serde_json::Value;
use std::path::PathBuf;

fn trace(case: &str, file: &str) -> PathBuf {
    proflens_tests::data_dir().join("kineto").join(case).join(file)
}

fn load(path: &PathBuf) -> Profile {
    let bytes = std::fs::read(path).unwrap();
    proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap()
}

fn bert() -> Profile {
    load(&trace("kineto-h100-hf-inference", "gaunernst_bert-small-uncased__1016001.json.gz"))
}

#[test]
fn trace_viewer_builds_exports_and_reimports() {
    let profile = bert();
    let grouping = group_events(&profile);
    let view = Trace::new(&profile, &grouping);
    let names: Vec<&str> = view.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["/device:GPU:0", "/host:CPU"]);
    assert_eq!(view.sections[0].pid, 1);
    let mut bytes = Vec::new();
    let written = write_chrome_trace(&profile, &grouping, &view, None, &mut bytes).unwrap();
    let json: Value = serde_json::from_slice(&bytes).unwrap();
    let complete = json["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").count();
    assert_eq!(complete as u64, written);
    // Every kernel is on the GPU section's stream track.
    let kernels = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["pid"] == 1 && e["args"]["kernel_details"].is_string())
        .count();
    assert_eq!(kernels, 60);
    // The export is a Chrome trace the generic importer reads back event for event.
    let back = proflens_format::load_profile(&bytes, &Default::default(), &mut |_| {}).unwrap();
    assert_eq!(back.origin, Origin::ChromeTrace);
    assert_eq!(back.event_count() as u64, written);
    assert!(back.plane_by_name("/device:GPU:0").is_some() && back.plane_by_name("/host:CPU").is_some());
}

#[test]
fn a_launch_links_to_its_kernel() {
    let profile = bert();
    let grouping = group_events(&profile);
    let view = Trace::new(&profile, &grouping);
    let tracks: Vec<_> = view.sections.iter().flat_map(|s| &s.tracks).collect();
    let correlation = profile.strings.lookup("correlation_id").unwrap();
    let launch_name = profile.strings.lookup("cudaLaunchKernel").unwrap();
    let (t, e) = tracks
        .iter()
        .enumerate()
        .find_map(|(t, track)| {
            let TrackSource::Line(p, l) = track.source else { return None };
            let plane = &profile.planes[p];
            let ev = &plane.lines[l].events;
            (0..ev.len())
                .find(|&i| {
                    plane.event_metadata[ev.metadata[i] as usize].name == launch_name
                        && ev.stats.of(i).any(|s| s.key == correlation)
                })
                .map(|i| (t, i))
        })
        .expect("a cudaLaunchKernel with a correlation id");
    let found =
        LinkIndex::new(&profile, &view).links(&profile, &view, EventRef { track: t as u32, event: e as u32 }, 10);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, LinkKind::LaunchedKernel);
}

#[test]
fn kernel_stats_read_the_imported_kernel_details() {
    let profile = bert();
    let rows = proflens_analysis::passes::kernels::kernel_stats(&profile);
    assert_eq!(rows.iter().map(|r| r.occurrences).sum::<u64>(), 60);
    // Exact: 307.197 µs in facts.json.
    assert_eq!(rows.iter().map(|r| r.total_ns).sum::<u64>(), 307_197);
    let top = &rows[0];
    assert!(top.name.contains("cutlass_80_wmma_tensorop_bf16_s161616gemm"), "{}", top.name);
    assert_eq!((top.occurrences, top.total_ns, top.registers_per_thread), (17, 98_718, 88));
    assert_eq!((top.block, top.grid), ([128, 1, 1], [40, 2, 1]));
    // The PyTorch table names the launching op and keeps the same totals.
    let torch = torch_kernels::kernel_stats(&KinetoIndex::new(&profile));
    assert_eq!(torch.iter().map(|r| r.total_ns).sum::<u64>(), 307_197);
    assert_eq!(torch[0].op_name, "aten::addmm");
    let xprof = kernel_stats::to_xprof_json(&torch);
    assert_eq!(xprof["rows"].as_array().unwrap().len(), torch.len());
}

#[test]
fn memory_profile_reads_the_memory_events() {
    let profile = bert();
    let view = memory_profile::memory_profile(&profile, &group_events(&profile));
    let gpu = &view.allocators["GPU_0"];
    // The largest `Total Allocated` of the trace's [memory] events.
    let peak = {
        let raw =
            std::fs::read(trace("kineto-h100-hf-inference", "gaunernst_bert-small-uncased__1016001.json.gz")).unwrap();
        let json = proflens_format::inflate::gunzip(&raw, 1 << 30, &mut |_| {}).unwrap();
        let v: Value = serde_json::from_slice(&json).unwrap();
        v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["name"] == "[memory]" && e["args"]["Device Type"] == 1)
            .filter_map(|e| e["args"]["Total Allocated"].as_i64())
            .max()
            .unwrap()
    };
    assert_eq!(gpu.peak.heap_allocated_bytes, peak);
    assert_eq!(gpu.peak_bytes_usage_lifetime, peak);
    assert!(gpu.allocations > 0 && gpu.deallocations > 0);
    // The full timeline keeps every [memory] event of the GPU allocator.
    let timeline = proflens_analysis::passes::kineto::memory::memory_timeline(&profile);
    let series = timeline.allocators.iter().find(|a| a.allocator == "GPU_0").unwrap();
    assert_eq!(series.peak_allocated_bytes, peak);
    assert_eq!(series.points.len() as u64, gpu.allocations + gpu.deallocations);
    assert!(series.points.windows(2).all(|w| w[0].time_ps <= w[1].time_ps));
    assert!(series.points.iter().all(|p| p.reserved_bytes >= p.allocated_bytes && p.delta_bytes != 0));
}

#[test]
fn every_fixture_runs_every_host_tool_without_panicking() {
    let dir = proflens_tests::data_dir().join("kineto");
    let mut count = 0;
    for case in std::fs::read_dir(&dir).unwrap() {
        for f in std::fs::read_dir(case.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            if !path.to_string_lossy().ends_with(".json.gz") {
                continue;
            }
            let profile = load(&path);
            let analysis = HostAnalysis::new(&profile);
            let _ = tool_overview::page_of(&analysis, false);
            let _ = proflens_analysis::tools::framework_op_stats::stats_of(&analysis);
            let index = KinetoIndex::new(&profile);
            let ov = overview::overview(&index);
            // The roles split each step's window exactly.
            for s in &ov.steps {
                let parts =
                    s.kernel_ps + s.memcpy_ps + s.memset_ps + s.runtime_ps + s.dataloader_ps + s.cpu_op_ps + s.other_ps;
                assert_eq!(parts, s.window_ps, "{}", path.display());
                assert!(s.window_ps >= s.cpu_duration_ps);
            }
            assert_eq!(ov.whole_trace, facts(&index).steps.is_empty(), "{}", path.display());
            let ops = operators::operator_stats(&index);
            for op in &ops {
                assert!(op.host_self_ps <= op.host_total_ps && op.device_self_ps <= op.device_total_ps, "{op:?}");
            }
            count += 1;
        }
    }
    assert!(count >= 8, "{count}");
}

#[test]
fn resnet_pt19_overview_matches_its_steps() {
    let profile = load(&trace("kineto-v100-resnet50-pt19", "worker0.1623143089861.pt.trace.json.gz"));
    let ov = overview::overview(&KinetoIndex::new(&profile));
    let steps: Vec<(i64, i64)> = ov.steps.iter().map(|s| (s.step, s.cpu_duration_ps / 1_000_000)).collect();
    // facts.json: ProfilerStep#5..#10 (Operator category in PyTorch 1.9).
    assert_eq!(steps, [(5, 176_078), (6, 173_992), (7, 176_918), (8, 181_259), (9, 176_468), (10, 164_261)]);
    // A GPU-heavy training step: kernels take most of every step.
    assert!(ov.steps.iter().all(|s| s.gpu_utilization_pct > 40.0), "{:?}", ov.steps);
    // Memory events of the 1.9 schema (no totals) still give an allocator timeline.
    let mem = memory_profile::memory_profile(&profile, &group_events(&profile));
    assert!(mem.allocators.contains_key("GPU_0"), "{:?}", mem.allocators.keys().collect::<Vec<_>>());
}

#[test]
fn damaged_traces_fail_cleanly_or_analyse_without_panicking() {
    let raw =
        std::fs::read(trace("kineto-h100-hf-inference", "gaunernst_bert-small-uncased__1016001.json.gz")).unwrap();
    let json = proflens_format::inflate::gunzip(&raw, 1 << 30, &mut |_| {}).unwrap();
    // Cuts anywhere are errors (never a half-read profile).
    for i in 1..40 {
        let cut = json.len() * i / 40;
        let err = proflens_format::load_profile(&json[..cut], &Default::default(), &mut |_| {});
        assert!(err.is_err(), "cut at {cut}");
    }
    // Bytes overwritten with characters that often keep the JSON valid
    // (digits, minus, quotes) give odd values: the views must still run.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..60 {
        let mut damaged = json.clone();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % damaged.len() as u64) as usize;
            damaged[at] = b"9-0\"e."[(seed >> 40) as usize % 6];
        }
        if let Ok(profile) = proflens_format::load_profile(&damaged, &Default::default(), &mut |_| {}) {
            let index = KinetoIndex::new(&profile);
            let _ = overview::overview(&index);
            let _ = operators::operator_stats(&index);
            let _ = torch_kernels::kernel_stats(&index);
            let grouping = group_events(&profile);
            let _ = Trace::new(&profile, &grouping);
        }
    }
}

/// JAX writes `vm.trace.json.gz` (XProf's legacy Chrome trace) beside
/// `vm.xplane.pb`: imported, it holds the XSpace's host events, one for one.
#[test]
fn a_legacy_chrome_trace_has_the_events_of_its_xspace() {
    let dir = proflens_tests::data_dir();
    let chrome = load(&dir.join("chrome_trace/jax_mlp.vm.trace.json.gz"));
    assert_eq!(chrome.origin, Origin::ChromeTrace);
    let xspace = proflens_tests::load(&proflens_tests::xplane_files(&dir.join("xspace/jax_mlp"))[0]).unwrap();
    let events = |p: &Profile, plane: &str| p.plane_by_name(plane).map_or(0, |p| p.event_count());
    assert_eq!(events(&chrome, "/host:CPU"), events(&xspace, "/host:CPU"));
    assert!(events(&chrome, "/host:CPU") > 20_000);
    // The same names, as often.
    let names = |p: &Profile| {
        let mut counts = std::collections::BTreeMap::<String, usize>::new();
        if let Some(plane) = p.plane_by_name("/host:CPU") {
            for line in &plane.lines {
                for &m in &line.events.metadata {
                    *counts.entry(p.str(plane.event_metadata[m as usize].name).to_string()).or_default() += 1;
                }
            }
        }
        counts
    };
    assert_eq!(names(&chrome), names(&xspace));
}

#[test]
fn a_tool_that_would_not_fit_in_the_memory_left_is_refused_and_the_host_stays_open() {
    use proflens_analysis::context::{HostContext, Request};
    use proflens_analysis::passes::kineto::{gpu_frame, hta};
    use proflens_analysis::registry;
    use std::rc::Rc;
    let path = trace("kineto-h100-hf-inference", "gaunernst_bert-small-uncased__1016001.json.gz");
    let events = bert().event_count() as u64;
    let host = |left: u64| vec![proflens_tests::host_context_with_room("bert", &path, left)];
    let run =
        |hosts: &[Rc<HostContext>], id: &str| registry::run(registry::find(id).unwrap(), hosts, &Request::default());
    let bytes = proflens_format::error::human_bytes;
    // Room for the analyses of launched GPU work (which read only the GPU
    // side, the steps and the launches), not for HTA's whole frame, which
    // the critical path still reads.
    let (gpu, frame) = (gpu_frame::WORKING_BYTES_PER_EVENT, hta::WORKING_BYTES_PER_EVENT);
    assert!(gpu < frame, "the GPU side's frame is the smaller");
    let tight = host(events * (frame - 1));
    tight[0].profile().unwrap();
    run(&tight, "kernel_stats").unwrap();
    run(&tight, "kernel_launch_stats").unwrap();
    let refused = run(&tight, "critical_path").err().expect("refused").to_string();
    let expected = format!("Critical path needs about {} more memory", bytes(events * frame));
    assert!(refused.starts_with(&expected), "{refused}");
    assert!(refused.contains(&format!("only {} is left", bytes(events * (frame - 1)))), "{refused}");
    assert!(refused.contains("“bert”") && refused.contains("so it was not run"), "{refused}");
    // The host is still open: the tools that fit still run, from what was kept.
    run(&tight, "framework_op_stats").unwrap();
    // Just short of the GPU side's room, its analyses are refused too.
    let short = host(events * gpu - 1);
    short[0].profile().unwrap();
    let refused = run(&short, "kernel_launch_stats").err().expect("refused").to_string();
    let expected = format!("Kernel launch stats needs about {} more memory", bytes(events * gpu));
    assert!(refused.starts_with(&expected), "{refused}");
    // With room, every one of them runs.
    let roomy = host(4 << 30);
    run(&roomy, "overview_page").unwrap();
    run(&roomy, "kernel_launch_stats").unwrap();
    run(&roomy, "critical_path").unwrap();
}

#[test]
fn the_gpu_side_s_frame_is_counted_once_as_the_host_s_pass() {
    use proflens_analysis::context::Request;
    use proflens_analysis::passes::kineto::gpu_frame;
    use proflens_analysis::registry;
    let path = trace("kineto-h100-hf-inference", "gaunernst_bert-small-uncased__1016001.json.gz");
    let events = bert().event_count() as u64;
    // Room for the kernel launch stats' own work, not for the frame beside it.
    let room = events * gpu_frame::LAUNCH_STATS_BYTES_PER_EVENT;
    let host = vec![proflens_tests::host_context_with_room("bert", &path, room)];
    host[0].profile().unwrap();
    let run = |id: &str| registry::run(registry::find(id).unwrap(), &host, &Request::default());
    let refused = run("kernel_launch_stats").err().expect("the frame is not kept yet").to_string();
    assert!(refused.contains("needs about"), "{refused}");
    // Once the host keeps the frame, each analysis over it needs its own
    // work only, and none builds the frame again.
    host[0].gpu_frame().unwrap();
    for id in ["kernel_launch_stats", "idle_time_breakdown", "queue_length", "memory_bandwidth"] {
        run(id).unwrap_or_else(|e| panic!("{id}: {e}"));
    }
    assert!(host[0].pass_runs().contains(&("gpu_frame", 1)));
}

#[test]
fn the_gpu_side_analyses_fit_where_hta_s_whole_frame_did_not() {
    use proflens_analysis::context::{Format, Request};
    use proflens_analysis::passes::kineto::gpu_frame;
    use proflens_analysis::registry;
    let path = trace("kineto-h100-hf-inference", "gaunernst_bert-small-uncased__1016001.json.gz");
    let events = bert().event_count() as u64;
    // What the whole frame was weighed at before these analyses read the
    // GPU side only (170 bytes an event): with just the GPU side's room they
    // were refused; now they run, with the same rows as with all the room.
    const WHOLE_FRAME_BEFORE: u64 = 170;
    let room = events * gpu_frame::WORKING_BYTES_PER_EVENT;
    assert!(room < events * WHOLE_FRAME_BEFORE);
    let tight = vec![proflens_tests::host_context_with_room("bert", &path, room)];
    let roomy = vec![proflens_tests::host_context_with_room("bert", &path, 4 << 30)];
    tight[0].profile().unwrap();
    for id in ["kernel_launch_stats", "idle_time_breakdown", "queue_length", "memory_bandwidth"] {
        let tool = registry::find(id).unwrap();
        let fit = registry::run(tool, &tight, &Request::default()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let all = registry::run(tool, &roomy, &Request::default()).unwrap();
        assert_eq!(fit.text(Format::Json).unwrap(), all.text(Format::Json).unwrap(), "{id}");
    }
}
