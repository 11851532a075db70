// TEMP: digest of grouping for equivalence checks (not committed).
use std::hash::{Hash, Hasher};
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(profile) =
            proflens_format::load_profile_named(&path, &bytes, &proflens_format::Limits::default(), &mut |_| {})
        else {
            println!("skip {path}");
            continue;
        };
        let g = proflens_analysis::passes::grouping::group_events(&profile);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for p in &g.planes {
            for l in p {
                l.group.hash(&mut h);
                l.flags.hash(&mut h);
            }
        }
        g.names.hash(&mut h);
        let db = proflens_analysis::passes::steps::step_db(&profile, &g, true);
        format!("{:?}", db).hash(&mut h);

        println!("{:016x} {} {}", h.finish(), g.names.len(), path);
    }
}
