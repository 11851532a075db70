//! Decoding every real XSpace fixture: counts must equal the reference parse
//! (`xplane_summary.json`, made with the protobuf library by the fixtures'
//! authors) or the numbers stated in ../shared/fixtures/external/README.md.

use proflens_analysis::tools::info::{host_info, HostInfo};
use proflens_tests::{data_dir, load, xplane_files};
use serde_json::Value;
use std::path::Path;

const CASES: [&str; 5] = ["custom_loop", "custom_loop_xla", "input_bound", "jax_mlp", "keras_fit"];

fn info_of(path: &Path) -> HostInfo {
    host_info(&load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn tf_and_jax_fixtures_match_their_reference_parse() {
    for case in CASES {
        let dir = data_dir().join("xspace").join(case);
        let files = xplane_files(&dir);
        assert_eq!(files.len(), 1, "{case}");
        let profile = load(&files[0]).unwrap();
        let info = host_info(&profile);
        let summary: Value = serde_json::from_slice(&std::fs::read(dir.join("xplane_summary.json")).unwrap()).unwrap();

        assert_eq!(info.events, summary["total_events"].as_u64().unwrap(), "{case}: total events");
        assert_eq!(info.hostnames, vec!["vm".to_string()], "{case}");
        assert!(info.errors.is_empty() && info.warnings.is_empty(), "{case}");
        let planes = summary["planes"].as_array().unwrap();
        assert_eq!(info.planes.len(), planes.len(), "{case}: planes");
        for (ours, theirs) in info.planes.iter().zip(planes) {
            let what = format!("{case} {}", ours.name);
            assert_eq!(ours.name, theirs["name"].as_str().unwrap(), "{what}");
            assert_eq!(ours.lines.len() as u64, theirs["num_lines"].as_u64().unwrap(), "{what}: lines");
            assert_eq!(ours.events, theirs["num_events"].as_u64().unwrap(), "{what}: events");
            let model_plane = profile.planes.iter().find(|p| profile.str(p.name) == ours.name).unwrap();
            assert_eq!(
                model_plane.event_metadata.len() as u64,
                theirs["num_event_metadata"].as_u64().unwrap(),
                "{what}: event metadata"
            );
            let lines = theirs["lines"].as_array().unwrap();
            for (line, reference) in ours.lines.iter().zip(lines) {
                assert_eq!(line.name, reference["name"].as_str().unwrap(), "{what}");
                assert_eq!(line.id, reference["id"].as_i64().unwrap(), "{what}");
                assert_eq!(line.events, reference["num_events"].as_u64().unwrap(), "{what} {}", line.name);
                if line.events > 0 {
                    let span = line.end_ps.unwrap() - line.start_ps.unwrap();
                    assert_eq!(span, reference["span_ps"].as_i64().unwrap(), "{what} {}: span", line.name);
                }
            }
        }
        // Times are relative to the recorded capture start, which the model keeps.
        let env = planes.iter().find(|p| p["name"] == "Task Environment").unwrap();
        assert!(env["plane_stats_used"].to_string().contains("profile_start_time"), "{case}");
        let start = info.start_time_ns.expect("capture start recorded");
        assert!(start > 1_700_000_000_000_000_000, "{case}: start {start} is a 2023+ wall-clock time");
        let duration_ms = info.duration_ps.unwrap() as f64 / 1e9;
        assert!(duration_ms > 10.0 && duration_ms < 60_000.0, "{case}: {duration_ms} ms");
    }
}

fn plane<'a>(info: &'a HostInfo, name: &str) -> &'a proflens_analysis::tools::info::PlaneInfo {
    info.planes.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("plane {name}"))
}

#[test]
fn gpu_multiworker_bert_counts() {
    // README: /host:CPU 22 lines and 15,354 events; GPU:1 has 19 MemcpyH2D;
    // GPU:0..7 carry device-cap plane stats; a `Steps` line on GPU:4.
    let info = info_of(&data_dir().join("xspace/external/34.83.195.179_6003.xplane.pb"));
    let host = plane(&info, "/host:CPU");
    assert_eq!((host.lines.len(), host.events), (22, 15_354));
    let gpu1 = plane(&info, "/device:GPU:1");
    assert_eq!(gpu1.events, 19);
    for i in 0..8 {
        let gpu = plane(&info, &format!("/device:GPU:{i}"));
        let stat_names: Vec<_> = gpu.stats.iter().map(|s| s.name.as_str()).collect();
        for cap in ["clock_rate", "core_count", "memory_bandwidth", "memory_size", "compute_cap_major"] {
            assert!(stat_names.contains(&cap), "GPU:{i} lacks {cap}: {stat_names:?}");
        }
    }
    assert!(plane(&info, "/device:GPU:4").lines.iter().any(|l| l.name == "Steps"));
}

#[test]
fn amd_and_tpu_counts() {
    // README: MI300X GEMM: only GPU:0 has events, 54 kernels on 2 stream lines.
    let gemm = info_of(&data_dir().join("xspace/external/tw003.xplane.pb"));
    let gpu0 = plane(&gemm, "/device:GPU:0");
    assert_eq!(gpu0.events, 54);
    assert_eq!(gpu0.lines.iter().filter(|l| l.name.starts_with("Stream #")).count(), 2);
    assert!(gemm
        .planes
        .iter()
        .filter(|p| p.name.starts_with("/device:GPU:") && p.name != "/device:GPU:0")
        .all(|p| p.events == 0));
    // README: older JAX on MI300X: GPU:0 has 53 CopyDeviceToDevice events on 4 streams.
    let conv = info_of(&data_dir().join("xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"));
    let gpu0 = plane(&conv, "/device:GPU:0");
    assert_eq!((gpu0.events, gpu0.lines.len()), (53, 4));
    // README: TPU v6e: TPU:0 has 2,317 events, TPU:1..3 1,712 each; /host:CPU 122 lines, 19,270 events.
    let tpu = info_of(&data_dir().join("xspace/external/tpu_inference_2.xplane.pb"));
    assert_eq!(plane(&tpu, "/device:TPU:0").events, 2_317);
    for i in 1..4 {
        assert_eq!(plane(&tpu, &format!("/device:TPU:{i}")).events, 1_712);
    }
    let host = plane(&tpu, "/host:CPU");
    assert_eq!((host.lines.len(), host.events), (122, 19_270));
    let tpu0_lines: Vec<_> = plane(&tpu, "/device:TPU:0").lines.iter().map(|l| l.name.as_str()).collect();
    for expected in ["XLA Modules", "XLA Ops", "Async XLA Ops"] {
        assert!(tpu0_lines.contains(&expected), "{tpu0_lines:?}");
    }
}

#[test]
fn gzip_compressed_profile_decodes_the_same() {
    let path = data_dir().join("xspace/jax_mlp/plugins/profile/2026_11_22_09_04_56/vm.xplane.pb");
    let raw = std::fs::read(&path).unwrap();
    let gz = gzip(&raw);
    let mut phases = Vec::new();
    let profile = proflens_format::load_xspace(&gz, &Default::default(), &mut |p| phases.push(p)).unwrap();
    assert_eq!(host_info(&profile), info_of(&path));
    assert!(matches!(phases.first(), Some(proflens_format::Progress::Inflating { .. })));
    assert!(matches!(phases.last(), Some(proflens_format::Progress::Building { done, total }) if done == total));
    let fractions: Vec<f64> = phases.iter().map(|p| p.fraction()).collect();
    assert!(fractions.windows(2).all(|w| w[0] <= w[1]), "progress never goes back: {fractions:?}");
}

/// gzip of `data` (stored deflate blocks would do; miniz keeps it small).
fn gzip(data: &[u8]) -> Vec<u8> {
    // A gzip member: header, raw deflate, CRC-32 and size, written by the
    // test itself so that the decoder is checked against independent framing.
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_deflate(data));
    out.extend(crc32(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

fn miniz_deflate(data: &[u8]) -> Vec<u8> {
    // Stored (uncompressed) deflate blocks: independent of the decoder's library.
    let mut out = Vec::new();
    let chunks: Vec<&[u8]> = data.chunks(65_535).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let len = chunk.len() as u16;
        out.extend(len.to_le_bytes());
        out.extend((!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn logdir_discovery_on_the_fixture_tree() {
    let root = data_dir().join("xspace");
    let paths: Vec<String> =
        walk(&root).iter().map(|p| p.strip_prefix(&root).unwrap().to_string_lossy().into_owned()).collect();
    let logdir = proflens_format::logdir::discover(paths.iter().map(String::as_str), "files");
    let runs: Vec<_> = logdir.runs.iter().map(|r| r.name.as_str()).collect();
    // Keras's run sits below `train/`; the external files are loose in one folder.
    assert!(runs.contains(&"keras_fit/train/2026_11_22_09_04_23"), "{runs:?}");
    assert!(runs.contains(&"custom_loop/2026_11_22_09_04_34"), "{runs:?}");
    let external = logdir.runs.iter().find(|r| r.name == "external").unwrap();
    assert_eq!(external.hosts.len(), 4);
    assert!(logdir.skipped.iter().any(|s| s.path.contains("events.out.tfevents")));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The streaming decoder (lines and events decoded one at a time) builds the
/// same model as decoding the whole message with prost first.
#[test]
fn streaming_decode_equals_whole_message_decode() {
    use prost::Message;
    for file in xplane_files(&data_dir().join("xspace")) {
        let bytes = std::fs::read(&file).unwrap();
        let streamed = proflens_format::xspace::decode(&bytes, &mut |_| {}).unwrap();
        let whole = proflens_format::proto::XSpace::decode(bytes.as_slice()).unwrap();
        let built = proflens_format::xspace::build(whole, &mut |_| {}).unwrap();
        assert_eq!(host_info(&streamed), host_info(&built), "{}", file.display());
        for (a, b) in streamed.planes.iter().zip(&built.planes) {
            for (la, lb) in a.lines.iter().zip(&b.lines) {
                assert_eq!(la.events.start_ps, lb.events.start_ps);
                assert_eq!(la.events.duration_ps, lb.events.duration_ps);
                assert_eq!(la.events.metadata, lb.events.metadata);
                assert_eq!(la.events.stats.len(), lb.events.stats.len());
            }
        }
    }
}
