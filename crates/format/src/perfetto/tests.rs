//! The reader on the SYNTHETIC traces of [`super::synthetic`]: every
//! expected value follows from the encoding rules the module docs cite.

use super::synthetic::{self, Msg};
use super::*;
use crate::chrome_trace::{FLOW_IN, FLOW_OUT};
use crate::sniff::{sniff, FileKind};
use proflens_model::{Origin, Plane, StatValue};

fn read(bytes: &[u8]) -> Result<Profile, Error> {
    decode(bytes, &mut |_| {})
}

/// (line, event, start ps, duration ps, depth) of a plane's events.
fn events(p: &Profile, plane: &Plane) -> Vec<(String, String, i64, i64, u16)> {
    let mut out = Vec::new();
    for line in &plane.lines {
        let ev = &line.events;
        for i in 0..ev.len() {
            let meta = &plane.event_metadata[ev.metadata[i] as usize];
            let name = p.str(meta.name).to_string();
            out.push((p.str(line.name).to_string(), name, ev.start_ps.at(i), ev.duration_ps.at(i), ev.depth[i]));
        }
    }
    out
}

/// The stats of the first event named `name` of `plane`, as text.
fn stats(p: &Profile, plane: &Plane, name: &str) -> Vec<(String, String)> {
    for line in &plane.lines {
        let ev = &line.events;
        for i in 0..ev.len() {
            if p.str(plane.event_metadata[ev.metadata[i] as usize].name) == name {
                return ev
                    .stats
                    .of(i)
                    .map(|s| {
                        let value = match ev.stats.value(s, &p.strings) {
                            StatValue::Str(t) => t.to_string(),
                            other => format!("{other:?}"),
                        };
                        (p.str(s.key).to_string(), value)
                    })
                    .collect();
            }
        }
    }
    panic!("no event {name}");
}

fn stat<'a>(stats: &'a [(String, String)], key: &str) -> Option<&'a str> {
    stats.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

const US: i64 = 1_000_000;

#[test]
fn sdk_slices_nest_with_interned_names_and_incremental_times() {
    let p = read(&synthetic::sdk()).unwrap();
    assert_eq!(p.origin, Origin::ChromeTrace);
    let names: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
    assert_eq!(names, ["app (pid 100)"]);
    let plane = &p.planes[0];
    let mut got = events(&p, plane);
    got.sort_by_key(|e| (e.0.clone(), e.2));
    // t0 is `outer`'s start: 1000 + 10 µs on clock 64 = boot 5.010 ms.
    let want = [
        ("main", "outer", 0, 40 * US, 0),
        ("main", "inner", 5 * US, 5 * US, 1),
        ("main", "tick", 20 * US, 0, 1),
        ("main", "reply", 70 * US, 5 * US, 0),
        ("main", "again", 77 * US, US, 0),
        ("main", "last", 90 * US, 0, 0),
        ("requests", "request 1", 50 * US, 10 * US, 0),
        // Never ends: drawn to the last event.
        ("requests", "never ends", 85 * US, 5 * US, 0),
    ];
    let mut want: Vec<(String, String, i64, i64, u16)> =
        want.iter().map(|w| (w.0.to_string(), w.1.to_string(), w.2, w.3, w.4)).collect();
    want.sort_by_key(|e| (e.0.clone(), e.2));
    assert_eq!(got, want);
    // Interned category and annotation names; the end's annotation joins the slice's.
    let outer = stats(&p, plane, "outer");
    assert_eq!(stat(&outer, "size"), Some("Int(42)"));
    assert_eq!(stat(&outer, "dict"), Some(r#"{"a":true,"b":[1,"hello"]}"#));
    assert_eq!(stat(&stats(&p, plane, "inner"), "result"), Some("ok"));
    let outer = plane.event_metadata.iter().find(|m| p.str(m.name) == "outer").unwrap();
    let cat = outer.stats.0.of(0).find(|s| p.str(s.key) == "cat").map(|s| outer.stats.0.value(s, &p.strings));
    assert_eq!(cat, Some(StatValue::Str("app")));
}

#[test]
fn counters_are_scaled_summed_and_sampled_by_other_events() {
    let p = read(&synthetic::sdk()).unwrap();
    let plane = &p.planes[0];
    let series: Vec<(&str, &[i64], &[f64])> =
        plane.counters.iter().map(|c| (c.name.as_str(), &c.times_ps[..], &c.values[..])).collect();
    assert_eq!(
        series,
        [
            // The reply's extra counter value is a sample at its start.
            ("queue depth", &[0, 30 * US, 70 * US][..], &[3.0, 2.5, 9.0][..]),
            // Incremental, unit multiplier 2.
            ("bytes sent", &[10 * US, 20 * US][..], &[200.0, 300.0][..]),
        ]
    );
}

#[test]
fn flows_link_in_time_order_until_terminated() {
    let p = read(&synthetic::sdk()).unwrap();
    let plane = &p.planes[0];
    // Sorted: the stats of one slice come in no set order.
    let flow = |name: &str| -> Vec<(String, String)> {
        let mut ends: Vec<(String, String)> =
            stats(&p, plane, name).into_iter().filter(|(k, _)| k == FLOW_IN || k == FLOW_OUT).collect();
        ends.sort();
        ends
    };
    assert_eq!(flow("outer"), [(FLOW_OUT.to_string(), "flow 1".to_string())]);
    assert_eq!(
        flow("request 1"),
        [(FLOW_IN.to_string(), "flow 1".to_string()), (FLOW_OUT.to_string(), "flow 2".to_string())]
    );
    assert_eq!(flow("reply"), [(FLOW_IN.to_string(), "flow 2".to_string())]);
    // The id starts a new flow after the terminating event: alone, no link.
    assert!(flow("again").is_empty());
}

#[test]
fn what_is_left_out_is_said() {
    let p = read(&synthetic::sdk()).unwrap();
    let all = p.warnings.join("\n");
    for expected in [
        "1 track events were left out: their sequence's incremental state was lost",
        "1 track events were left out: their clock has no snapshot",
        "1 slice ends match no open slice",
        "1 slices never end",
    ] {
        assert!(all.contains(expected), "{expected} not in {all}");
    }
}

#[test]
fn kinetos_writer_reads_generically_with_its_json_args() {
    let p = read(&synthetic::kineto_writer(false)).unwrap();
    // No categories: the PyTorch mapping could not tell kernels from ops.
    assert_eq!(p.origin, Origin::ChromeTrace);
    let names: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
    assert_eq!(names, ["GPU 0 (pid 0)", "python3 (pid 4242)"]);
    let host = &p.planes[1];
    let got = events(&p, host);
    let line = "thread 4243 (python3)".to_string();
    assert_eq!(
        got,
        [
            (line.clone(), "ProfilerStep#1".to_string(), 0, 50 * US, 0),
            (line.clone(), "aten::mm".to_string(), US, 20 * US, 1),
            (line, "cudaLaunchKernel".to_string(), 5 * US, 4 * US, 2),
        ]
    );
    // The metadata annotation's keys are the args again; the writer's extra
    // correlation_id goes where the JSON's own `correlation` is.
    let kernel = stats(&p, &p.planes[0], "gemm_kernel");
    assert_eq!(stat(&kernel, "grid"), Some("[66,1,1]"));
    assert_eq!(stat(&kernel, "correlation"), Some("Int(42)"));
    assert_eq!(stat(&kernel, "metadata"), None);
    assert_eq!(stat(&kernel, "correlation_id"), None);
    assert_eq!(stat(&kernel, FLOW_IN), Some("flow 1"));
    let launch = stats(&p, host, "cudaLaunchKernel");
    assert_eq!(stat(&launch, FLOW_OUT), Some("flow 1"));
    // Metadata instants are no events.
    assert_eq!(p.event_count(), 4);
}

#[test]
fn kineto_traces_with_categories_get_the_pytorch_mapping() {
    let p = read(&synthetic::kineto_writer(true)).unwrap();
    assert_eq!(p.origin, Origin::Kineto);
    let names: Vec<&str> = p.planes.iter().map(|pl| p.str(pl.name)).collect();
    assert_eq!(names, ["/host:CPU", "/device:GPU:0"]);
    // Times are exact to the ns at epoch scale: t0 is the step's start.
    assert_eq!(p.origin_ns, Some(synthetic::T0));
    let gpu = &p.planes[1];
    assert_eq!(p.str(gpu.lines[0].name), "Stream #7(Compute)");
    let kernel = stats(&p, gpu, "gemm_kernel");
    assert_eq!(stat(&kernel, "correlation_id"), Some("Int(42)"));
    assert!(stat(&kernel, "kernel_details").is_some_and(|d| d.contains("grid:66,1,1")), "{kernel:?}");
    let launch = stats(&p, &p.planes[0], "cudaLaunchKernel");
    assert_eq!(stat(&launch, "correlation_id"), Some("Int(42)"));
    // deviceProperties → the device plane's stats; distributedInfo → the host's.
    let plane_stats =
        |plane: &Plane| -> Vec<String> { plane.stats.0.of(0).map(|s| p.str(s.key).to_string()).collect() };
    assert!(plane_stats(gpu).contains(&"core_count".to_string()), "{:?}", plane_stats(gpu));
    let host = plane_stats(&p.planes[0]);
    for key in ["rank", "world_size", "backend", "cupti_version"] {
        assert!(host.contains(&key.to_string()), "{key} not in {host:?}");
    }
}

#[test]
fn sniffing_tells_perfetto_from_xspace_and_json() {
    assert_eq!(sniff(&synthetic::kineto_writer(false)), FileKind::Perfetto);
    assert_eq!(sniff(&synthetic::sdk()), FileKind::Perfetto);
    // A head that cuts the first packet still tells.
    assert_eq!(sniff(&synthetic::sdk()[..20]), FileKind::Perfetto);
    // XSpace: planes have fields 1-6 only.
    assert_eq!(sniff(&[0x0a, 0x00, 0x22, 0x02, b'v', b'm']), FileKind::XSpace);
    assert_eq!(sniff(&[0x0a, 0x04, 0x08, 0x01, 0x12, 0x00]), FileKind::XSpace);
    // A packet whose known field has the wrong wire type is no packet.
    assert_eq!(sniff(&[0x0a, 0x02, 0x40, 0x01]), FileKind::Perfetto);
    assert_ne!(sniff(&[0x0a, 0x03, 0x42, 0x01, 0x00]), FileKind::Perfetto);
    assert_ne!(sniff(&synthetic::trace(vec![Msg::new().varint(11, 1)])), FileKind::Perfetto);
    assert_eq!(sniff(b"\n{\"traceEvents\": []}"), FileKind::Json);
    // Through the loaders: by content, and by name.
    let bytes = synthetic::sdk();
    let loaded = crate::load_profile(&bytes, &Limits::default(), &mut |_| {}).unwrap();
    assert_eq!(loaded.event_count(), 8);
    assert!(crate::load_xspace(&bytes, &Limits::default(), &mut |_| {}).is_err());
    let gz = crate::inflate::gzip(&bytes);
    let named = crate::load_profile_named("run/rank0.pftrace.gz", &gz, &Limits::default(), &mut |_| {}).unwrap();
    assert_eq!(named.event_count(), 8);
    // From a source read in pieces (as the page reads a picked file), by content and by name.
    for name in ["rank0.pftrace", "rank0.bin"] {
        let source = crate::source::in_memory(bytes.clone());
        let read = crate::load_source::load_with_chunk(name, &*source, &Limits::default(), 61, &mut |_| {});
        assert_eq!(read.unwrap().event_count(), 8, "{name}");
    }
    assert_eq!(host_name("a/rank0.perfetto-trace"), Some("rank0"));
    assert!(!is_perfetto_file(".pftrace"));
}

#[test]
fn compressed_packet_bundles_are_read_in_place() {
    let bundled = synthetic::compressed(&synthetic::sdk());
    assert_eq!(sniff(&bundled), FileKind::Perfetto);
    let p = read(&bundled).unwrap();
    let plain = read(&synthetic::sdk()).unwrap();
    assert_eq!(events(&p, &p.planes[0]), events(&plain, &plain.planes[0]));
    // A bundle that does not inflate is a packet that does not decode.
    let broken = synthetic::trace(vec![Msg::new().bytes(50, b"not zlib")]);
    assert!(read(&broken).unwrap_err().to_string().contains("does not inflate"));
}

#[test]
fn folders_of_perfetto_traces_are_one_host_per_file() {
    let found = crate::logdir::discover(["job/rank0.pftrace", "job/rank1.perfetto-trace.gz"], "job");
    let hosts: Vec<&str> = found.runs[0].hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(hosts, ["rank0", "rank1"]);
}

#[test]
fn bad_input_is_an_error() {
    assert_eq!(read(&[]).unwrap_err(), Error::Empty);
    let none = read(&synthetic::trace(vec![Msg::new().varint(10, 1)])).unwrap_err().to_string();
    assert!(none.contains("1 packets and no track events"), "{none}");
    let broken = read(&[0x0a, 0x05, 0x01]).unwrap_err().to_string();
    assert!(broken.contains("Perfetto"), "{broken}");
    // A named file that is not one: the Perfetto reader's own error.
    let named = crate::load_profile_named("x.pftrace", b"\x0a\xff", &Limits::default(), &mut |_| {});
    assert!(named.is_err());
    // A trace cut inside a packet keeps the packets before it.
    let bytes = synthetic::sdk();
    let cut = read(&bytes[..bytes.len() - 3]).unwrap();
    assert!(cut.warnings.iter().any(|w| w.contains("cut short")), "{:?}", cut.warnings);
}

/// Truncations and one-byte changes of the synthetic traces, spread over
/// them (every place would take seconds in a debug build), are a profile or
/// an error, never a panic (the fuzz target `decode_perfetto` does this at
/// random, at length).
#[test]
fn damaged_traces_never_panic() {
    for bytes in [synthetic::kineto_writer(true), synthetic::sdk()] {
        for cut in (0..bytes.len()).step_by(9) {
            let _ = read(&bytes[..cut]);
        }
        for at in (0..bytes.len()).step_by(4) {
            let mut changed = bytes.clone();
            changed[at] = if at % 8 == 0 { 0xff } else { 0x00 };
            let _ = read(&changed);
        }
    }
}

#[test]
fn deep_nesting_and_parent_cycles_are_bounded() {
    // An annotation nested 1,000 deep; tracks that are each other's parents.
    let mut annotation = Msg::new().str(10, "leaf").int(4, 1);
    for _ in 0..1_000 {
        annotation = Msg::new().str(10, "d").msg(11, annotation);
    }
    let cycle = |uuid: u64, parent: u64| Msg::new().msg(60, Msg::new().varint(1, uuid).varint(5, parent));
    let event = Msg::new().varint(9, 3).varint(11, 1).str(23, "x").msg(4, annotation);
    let bytes = synthetic::trace(vec![cycle(1, 2), cycle(2, 1), Msg::new().varint(8, 5).msg(11, event)]);
    let p = read(&bytes).unwrap();
    assert_eq!(p.event_count(), 1);
}

/// The committed fixture (tests/data/perfetto/) is the synthetic Kineto
/// trace; `PROFLENS_WRITE_FIXTURES=1` writes it (and the fuzz seeds) again.
#[test]
fn committed_fixtures_are_the_synthetic_traces() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = [
        ("tests/data/perfetto/synthetic_kineto.pftrace", synthetic::kineto_writer(true)),
        ("tests/data/perfetto/synthetic_sdk.perfetto-trace", synthetic::sdk()),
        ("fuzz/corpus/decode_perfetto/synthetic_kineto", synthetic::kineto_writer(true)),
        ("fuzz/corpus/decode_perfetto/synthetic_kineto_plain", synthetic::kineto_writer(false)),
        ("fuzz/corpus/decode_perfetto/synthetic_sdk", synthetic::sdk()),
    ];
    for (path, bytes) in files {
        let path = root.join(path);
        if std::env::var_os("PROFLENS_WRITE_FIXTURES").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", path.display());
    }
}
