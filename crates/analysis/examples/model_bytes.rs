// TEMP
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let p =
        proflens_format::load_profile_named(&path, &bytes, &proflens_format::Limits::default(), &mut |_| {}).unwrap();
    let (mut ev, mut evcap, mut st, mut lines, mut metas, mut mstats) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    let mut lens = vec![];
    for pl in &p.planes {
        metas += pl.event_metadata.len();
        for m in &pl.event_metadata {
            mstats += m.stats.iter().count();
        }
        for l in &pl.lines {
            lines += 1;
            let e = &l.events;
            ev += e.len();
            evcap += e.start_ps.capacity();
            let n = e.stats.owners();
            st += if n > 0 { e.stats.range_of(n - 1).end } else { 0 };
            lens.push(e.len());
        }
    }
    lens.sort();
    println!(
        "events {ev} cap {evcap} stats {st} lines {lines} metas {metas} meta_stats {mstats} strings {}",
        p.strings.len()
    );
    println!("largest lines {:?}", &lens[lens.len().saturating_sub(8)..]);
}
