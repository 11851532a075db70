//! A host's capture window read from its XSpace file without decoding it:
//! the Task Environment plane's `profile_start_time` / `profile_stop_time`
//! (ns since the Unix epoch), which the profiler records for every capture.
//! The walk reads each top-level field's tag and length, and the first bytes
//! of each plane for its name, so that runs can be compared in time before
//! any host is opened (a multi-host JAX job's run folders).

use crate::proto::XPlane;
use crate::sniff::read_varint;
use crate::source::ByteSource;
use prost::Message;

/// A plane's first bytes: its id and name come first (fields 1 and 2).
const PLANE_HEAD_BYTES: u64 = 256;

/// The most read of the Task Environment plane (a real one is under a KiB).
const MAX_ENV_PLANE_BYTES: u64 = 1 << 20;

/// The capture window of the raw XSpace in `source`; `None` when it is
/// gzip, not an XSpace, or records none.
pub fn of_source(source: &dyn ByteSource) -> Option<(u64, u64)> {
    let total = source.len();
    let mut pos = 0u64;
    while pos < total {
        let (tag, after) = varint_at(source, pos)?;
        let (len, start) = varint_at(source, after)?;
        if tag & 7 != 2 || !(1..=4).contains(&(tag >> 3)) || len > total - start {
            return None;
        }
        if tag >> 3 == 1 && plane_name(source, start, len)? == crate::xspace::TASK_ENVIRONMENT_PLANE {
            if len > MAX_ENV_PLANE_BYTES {
                return None;
            }
            let mut bytes = vec![0; len as usize];
            source.read_at(start, &mut bytes).ok()?;
            let plane = XPlane::decode(&bytes[..]).ok()?;
            let (start_ns, stop_ns) = crate::xspace::capture_window(&[&plane]);
            let start_ns = start_ns?;
            return Some((start_ns, stop_ns.filter(|&stop| stop >= start_ns)?));
        }
        pos = start + len;
    }
    None
}

/// A varint at `pos`, and where it ends.
fn varint_at(source: &dyn ByteSource, pos: u64) -> Option<(u64, u64)> {
    let mut buf = [0u8; 10];
    let n = (source.len() - pos).min(10) as usize;
    source.read_at(pos, &mut buf[..n]).ok()?;
    let (value, used) = read_varint(&buf[..n], 0)?;
    Some((value, pos + used as u64))
}

/// The name of the plane at `start` (`len` bytes), from its first bytes.
fn plane_name(source: &dyn ByteSource, start: u64, len: u64) -> Option<String> {
    let mut head = vec![0; len.min(PLANE_HEAD_BYTES) as usize];
    source.read_at(start, &mut head).ok()?;
    let mut pos = 0;
    while pos < head.len() {
        let (tag, after) = read_varint(&head, pos)?;
        match (tag >> 3, tag & 7) {
            (1, 0) => pos = read_varint(&head, after)?.1,
            (2, 2) => {
                let (n, from) = read_varint(&head, after)?;
                let name = head.get(from..from.checked_add(usize::try_from(n).ok()?)?)?;
                return Some(String::from_utf8_lossy(name).into_owned());
            }
            _ => return Some(String::new()),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(rel: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel);
        let bytes = std::fs::read(path).unwrap();
        crate::inflate::gunzip(&bytes, u64::MAX, &mut |_| {}).unwrap_or(bytes)
    }

    #[test]
    fn the_window_is_the_decoded_profiles() {
        for rel in [
            "gpu_h100/multi/p2/plugins/profile/2026_11_26_10_42_20/vm.xplane.pb.gz",
            "xspace/jax_mlp/plugins/profile/2026_11_22_09_04_56/vm.xplane.pb",
            "xspace/external/34.83.195.179_6003.xplane.pb",
        ] {
            let bytes = profile(rel);
            let decoded = crate::load_xspace(&bytes, &crate::Limits::default(), &mut |_| {}).unwrap();
            let want = decoded.origin_ns.zip(decoded.stop_ns).filter(|(start, stop)| stop >= start);
            let recorded = crate::xspace::TASK_ENVIRONMENT_PLANE;
            assert_eq!(of_source(&bytes), want, "{rel} ({recorded} plane)");
        }
        // Not an XSpace, or cut: no window, no panic.
        assert_eq!(of_source(&b"{\"traceEvents\": []}".to_vec()), None);
        let bytes = profile("xspace/jax_mlp/plugins/profile/2026_11_22_09_04_56/vm.xplane.pb");
        for cut in [1, 7, 100, bytes.len() / 2] {
            let _ = of_source(&bytes[..cut].to_vec());
        }
    }
}
