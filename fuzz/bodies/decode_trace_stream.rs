//! Any bytes as trace JSON (raw or gzip), decoded twice: from a slice
//! (`load_profile_named`) and streamed from a source read 61 bytes at a time
//! (`load_source::load_with_chunk`, the JSON scanner and its passes). The two
//! must agree — the same kind of error (the stream names a byte where the
//! slice names a line and column), or the same planes, lines, events and
//! warnings — and neither may panic, hang or allocate without bound.

use proflens_format::load_source::load_with_chunk;
use proflens_format::{load_profile_named, Limits};

pub fn run(data: &[u8]) {
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    let owned = data.to_vec();
    let slice = load_profile_named("rank0.pt.trace.json", data, &limits, &mut |_| {});
    let stream = load_with_chunk("rank0.pt.trace.json", &owned, &limits, 61, &mut |_| {});
    match (slice, stream) {
        (Err(a), Err(b)) => assert_eq!(std::mem::discriminant(&a), std::mem::discriminant(&b), "{a} / {b}"),
        (Ok(a), Ok(b)) => {
            assert_eq!(a.planes.len(), b.planes.len());
            for (pa, pb) in a.planes.iter().zip(&b.planes) {
                assert_eq!(a.str(pa.name), b.str(pb.name));
                assert_eq!(pa.lines.len(), pb.lines.len());
                for (la, lb) in pa.lines.iter().zip(&pb.lines) {
                    assert_eq!((la.id, a.str(la.name)), (lb.id, b.str(lb.name)));
                    assert_eq!(la.events.start_ps, lb.events.start_ps);
                    assert_eq!(la.events.duration_ps, lb.events.duration_ps);
                    assert_eq!(la.events.stats.owners(), lb.events.stats.owners());
                }
            }
            assert_eq!((a.origin, a.origin_ns, &a.warnings), (b.origin, b.origin_ns, &b.warnings));
        }
        (a, b) => panic!("slice and stream disagree: {:?} / {:?}", a.err(), b.err()),
    }
}
