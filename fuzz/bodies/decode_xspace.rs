//! Any bytes, raw or gzip, must decode or fail with an error — never panic,
//! hang or allocate without bound.

use proflens_format::{load_xspace, Limits};

pub fn run(data: &[u8]) {
    // Small limits keep each run fast; the logic under test is the same.
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    if let Ok(profile) = load_xspace(data, &limits, &mut |_| {}) {
        let _ = profile.event_count();
    }
}
