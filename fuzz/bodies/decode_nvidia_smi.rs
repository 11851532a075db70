//! Any bytes as an nvidia-smi CSV log beside a profile: sniffed, parsed on
//! the profile's clock and without one, and joined to a profile's planes:
//! an error or counters, never a panic.

use proflens_format::nvidia_smi;
use proflens_model::{Plane, Profile};

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = nvidia_smi::is_log(&text);
    let _ = nvidia_smi::parse(&text, None);
    let _ = nvidia_smi::parse(&text, Some(u64::MAX));
    let mut profile = Profile { origin_ns: Some(1_763_600_000_000_000_000), ..Profile::default() };
    let _ = nvidia_smi::attach(&mut profile, &text);
    for name in ["/host:CPU", "/device:GPU:0"] {
        let name = profile.strings.intern(name);
        profile.planes.push(Plane { name, ..Plane::default() });
    }
    let _ = nvidia_smi::attach(&mut profile, &text);
}
