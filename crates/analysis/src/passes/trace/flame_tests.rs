//! Exact small flame graphs: stacks merged across tracks, clipping, self
//! time, and the folding of narrow frames.

use super::*;
use crate::passes::trace::range_stats::tests::{track, two_tracks};
use crate::passes::trace::Section;

/// (stack as "a;b;c", total, self, folded) per frame, in order.
fn frames(g: &FlameGraph) -> Vec<(String, i64, i64, u32)> {
    let mut stacks: Vec<String> = Vec::new();
    for (i, f) in g.frames.iter().enumerate() {
        let name = &g.names[f.name as usize];
        stacks.push(if i == 0 { name.clone() } else { format!("{};{name}", stacks[f.parent as usize]) });
    }
    g.frames.iter().zip(stacks).map(|(f, s)| (s, f.total_ps, f.self_ps, f.folded)).collect()
}

#[test]
fn stacks_merge_across_tracks_clipped_to_the_range() {
    let (profile, grouping) = (Profile::default(), Grouping::default());
    let g = flame(&profile, &grouping, &two_tracks(), &[0, 1], 20, 250);
    let r = ROOT;
    assert_eq!(
        frames(&g),
        [
            (r.to_string(), 360, 0, 0),
            (format!("{r};op"), 230, 230, 0),
            (format!("{r};step"), 130, 80, 0),
            (format!("{r};step;op"), 50, 40, 0),
            (format!("{r};step;op;kernel"), 10, 10, 0),
        ]
    );
    assert_eq!(g.frames.iter().map(|f| f.depth).collect::<Vec<_>>(), [0, 1, 1, 2, 3]);
}

#[test]
fn narrow_frames_fold_into_other() {
    let (profile, grouping) = (Profile::default(), Grouping::default());
    let t = track("T", &[("big", 0, 1_000_000), ("wide", 0, 500_000), ("tiny", 600_000, 10), ("tiny2", 700_000, 10)]);
    let trace = Trace { sections: vec![Section { name: "s".into(), pid: 1, plane: 0, tracks: vec![t] }] };
    let g = flame(&profile, &grouping, &trace, &[0], 0, 1_000_000);
    assert_eq!(
        frames(&g)[1..],
        [
            (format!("{ROOT};big"), 1_000_000, 500_000 - 20, 0),
            (format!("{ROOT};big;wide"), 500_000, 500_000, 0),
            (format!("{ROOT};big;other"), 20, 20, 2),
        ]
    );
}
