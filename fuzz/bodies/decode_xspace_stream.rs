//! Any bytes, raw or gzip, decoded twice: from a slice (`load_profile_named`)
//! and streamed from a source read 61 bytes at a time (`load_source::load_with_chunk`).
//! The two must agree — the same error sentence, or the same planes, lines
//! and events — and neither may panic, hang or allocate without bound.

use proflens_format::load_source::load_with_chunk;
use proflens_format::{load_profile_named, Limits};

pub fn run(data: &[u8]) {
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    let owned = data.to_vec();
    let slice = load_profile_named("vm.xplane.pb", data, &limits, &mut |_| {});
    let stream = load_with_chunk("vm.xplane.pb", &owned, &limits, 61, &mut |_| {});
    match (slice, stream) {
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (Ok(a), Ok(b)) => {
            assert_eq!(a.planes.len(), b.planes.len());
            for (pa, pb) in a.planes.iter().zip(&b.planes) {
                assert_eq!(a.str(pa.name), b.str(pb.name));
                assert_eq!(pa.lines.len(), pb.lines.len());
                for (la, lb) in pa.lines.iter().zip(&pb.lines) {
                    assert_eq!((la.id, la.timestamp_ps), (lb.id, lb.timestamp_ps));
                    assert_eq!(la.events.start_ps, lb.events.start_ps);
                    assert_eq!(la.events.duration_ps, lb.events.duration_ps);
                    assert_eq!(la.events.metadata, lb.events.metadata);
                }
            }
            assert_eq!(
                (a.origin_ns, a.stop_ns, &a.errors, &a.warnings),
                (b.origin_ns, b.stop_ns, &b.errors, &b.warnings)
            );
        }
        (a, b) => panic!("slice and stream disagree: {:?} / {:?}", a.err(), b.err()),
    }
}
