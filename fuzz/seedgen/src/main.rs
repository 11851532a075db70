//! `cargo run --release -- <tests/data> <fuzz/corpus>`: small cuts of the
//! real fixtures as fuzz seeds. XSpaces keep every plane and line but only
//! their first events (and the metadata those name) and their smallest XLA
//! program; trace JSON keeps its first events; HLO seeds are the programs'
//! `xla.HloProto` bytes.

use proflens_format::proto::{x_stat, XSpace};
use prost::Message;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

const EVENTS_PER_LINE: usize = 6;
const TRACE_EVENTS: usize = 80;
const MAX_SEED: usize = 64 << 10;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (data, out) = (PathBuf::from(&args[1]), PathBuf::from(&args[2]));
    let mut files = Vec::new();
    walk(&data, &mut files);
    files.sort();
    for f in &files {
        let name = f.to_string_lossy().to_string();
        if name.contains("goldens") || name.ends_with(".md") {
            continue;
        }
        let bytes = std::fs::read(f).unwrap();
        let short = f.strip_prefix(&data).unwrap().to_string_lossy().replace('/', "_");
        if name.ends_with(".xplane.pb") && !name.contains("/bad/") {
            let Ok(space) = XSpace::decode(bytes.as_slice()) else { continue };
            let (cut, hlos) = cut_xspace(space);
            write(&out.join("tools_xspace"), &short, &cut);
            write(&out.join("decode_xspace"), &short, &cut);
            for (i, h) in hlos.iter().enumerate() {
                write(&out.join("tools_hlo"), &format!("{short}.hlo{i}"), h);
                write(&out.join("decode_hlo"), &format!("{short}.hlo{i}"), h);
            }
        } else if name.contains("/kineto/") || name.contains("/chrome_trace/") {
            let raw = gunzip(&bytes);
            if let Some(cut) = cut_trace(&raw) {
                write(&out.join("tools_trace"), &short.replace(".gz", ""), &cut);
                write(&out.join("decode_trace"), &short.replace(".gz", ""), &cut);
            }
        } else if name.contains("/legacy/") {
            if bytes.len() <= MAX_SEED {
                write(&out.join("tools_legacy"), &short, &bytes);
                write(&out.join("decode_legacy"), &short, &bytes);
                // A tool JSON named like a trace.
                if short.ends_with(".json.gz") {
                    write(&out.join("tools_trace"), &short, &bytes);
                }
            }
        } else if name.contains("/bad/") && bytes.len() <= MAX_SEED {
            for t in ["tools_xspace", "decode_xspace", "tools_trace", "decode_trace"] {
                write(&out.join(t), &short, &bytes);
            }
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out)
        } else {
            out.push(p)
        }
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    if bytes.len() > MAX_SEED {
        eprintln!("skip {name}: {} bytes", bytes.len());
        return;
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let flags = bytes[3];
        let mut at = 10;
        if flags & 4 != 0 {
            at += 2 + u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
        }
        for bit in [8, 16] {
            if flags & bit != 0 {
                while bytes[at] != 0 {
                    at += 1;
                }
                at += 1;
            }
        }
        if flags & 2 != 0 {
            at += 2;
        }
        miniz_oxide::inflate::decompress_to_vec(&bytes[at..]).unwrap()
    } else {
        bytes.to_vec()
    }
}

/// First events of every line; the metadata they name; the smallest HLO
/// module. Returns the cut and the HLO protos (at most 3, smallest first).
fn cut_xspace(mut space: XSpace) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut hlos: Vec<Vec<u8>> = Vec::new();
    for plane in &mut space.planes {
        if plane.name == "/host:metadata" {
            let mut ids: Vec<(usize, i64)> = plane
                .event_metadata
                .iter()
                .map(|(id, m)| (m.stats.iter().map(|s| s.encoded_len()).sum::<usize>(), *id))
                .collect();
            ids.sort();
            for (_, id) in ids.iter().take(3) {
                for s in &plane.event_metadata[id].stats {
                    if let Some(x_stat::Value::BytesValue(b)) = &s.value {
                        if b.len() > 16 {
                            hlos.push(b.clone());
                        }
                    }
                }
            }
            let keep: HashSet<i64> = ids.iter().take(1).map(|(_, id)| *id).collect();
            plane.event_metadata.retain(|id, _| keep.contains(id));
        }
        plane.lines.truncate(24);
        let mut used = HashSet::new();
        for line in &mut plane.lines {
            line.events.truncate(EVENTS_PER_LINE);
            for e in &line.events {
                used.insert(e.metadata_id);
            }
        }
        if plane.name != "/host:metadata" {
            plane.event_metadata.retain(|id, _| used.contains(id));
        }
    }
    let mut cut = space.encode_to_vec();
    if cut.len() > MAX_SEED {
        // Drop the HLO and try again.
        for plane in &mut space.planes {
            if plane.name == "/host:metadata" {
                plane.event_metadata.clear();
            }
        }
        cut = space.encode_to_vec();
    }
    (cut, hlos)
}

/// The trace's first events (metadata events kept), other keys as they are.
fn cut_trace(raw: &[u8]) -> Option<Vec<u8>> {
    let mut v: serde_json::Value = serde_json::from_slice(raw).ok()?;
    if let Some(events) = v.get_mut("traceEvents").and_then(|e| e.as_array_mut()) {
        let meta: Vec<_> = events.iter().filter(|e| e["ph"] == "M").take(40).cloned().collect();
        let rest: Vec<_> = events.iter().filter(|e| e["ph"] != "M").take(TRACE_EVENTS).cloned().collect();
        *events = meta.into_iter().chain(rest).collect();
    }
    serde_json::to_vec(&v).ok()
}
