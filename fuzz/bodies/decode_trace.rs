//! Any bytes through the general loader (XSpace or trace-event JSON, raw or
//! gzip), then the PyTorch views: an error or a profile, never a panic.

use proflens_format::{load_profile, Limits};

pub fn run(data: &[u8]) {
    let limits = Limits { max_input_bytes: 8 << 20, max_decompressed_bytes: 64 << 20 };
    if let Ok(profile) = load_profile(data, &limits, &mut |_| {}) {
        let index = proflens_analysis::passes::kineto::KinetoIndex::new(&profile);
        let _ = proflens_analysis::tools::overview::pytorch::overview(&index);
        let _ = proflens_analysis::tools::framework_op_stats::pytorch::operator_stats(&index);
    }
}
