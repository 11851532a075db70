//! Runs whose capture windows overlap in wall-clock time, to combine as one
//! run: a multi-host JAX job writes each host under a run folder of its own,
//! named by the time that host's capture started
//! (`plugins/profile/2026_01_01_00_00_01/hostA.xplane.pb`,
//! `…/2026_01_01_00_00_03/hostB.xplane.pb`: vllm-project/tpu-inference#2521),
//! so one job's hosts land in runs seconds apart. Runs whose windows overlap
//! captured at the same time; runs that do not are separate captures.

use super::HostContext;
use std::rc::Rc;

/// What joins the names of combined runs (`RUN1+RUN2`).
pub const SEPARATOR: char = '+';

/// The name of the runs `names` combined.
pub fn combined_name(names: &[&str]) -> String {
    names.join(&SEPARATOR.to_string())
}

/// A run's window: from its hosts' earliest start to their latest end, ns
/// since the Unix epoch (decodes each host the first time); `None` when a
/// host records no wall-clock time.
pub fn run_window(hosts: &[Rc<HostContext>]) -> Result<Option<(u64, u64)>, String> {
    let mut window: Option<(u64, u64)> = None;
    for host in hosts {
        let Some((start, end)) = host.wall_window_ns()? else { return Ok(None) };
        window = Some(window.map_or((start, end), |(s, e)| (s.min(start), e.max(end))));
    }
    Ok(window)
}

/// The groups of runs (indexes into `windows`, two or more each, earliest
/// first) whose windows overlap, directly or through a run between them;
/// runs without a window join none.
pub fn overlapping(windows: &[Option<(u64, u64)>]) -> Vec<Vec<usize>> {
    let mut order: Vec<(usize, (u64, u64))> =
        windows.iter().enumerate().filter_map(|(i, w)| Some((i, (*w)?))).collect();
    order.sort_by_key(|&(i, (start, _))| (start, i));
    let mut groups: Vec<(Vec<usize>, u64)> = Vec::new();
    for (i, (start, end)) in order {
        match groups.last_mut() {
            Some((members, group_end)) if start <= *group_end => {
                members.push(i);
                *group_end = (*group_end).max(end);
            }
            _ => groups.push((vec![i], end)),
        }
    }
    groups.into_iter().map(|(members, _)| members).filter(|m| m.len() > 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_that_overlap_directly_or_through_another_are_one_group() {
        let w = |s, e| Some((s, e));
        // 0 and 2 overlap, 3 overlaps 2 (not 0), 1 is later, 4 has no clock, 5 touches 1's end.
        let windows = [w(10, 20), w(100, 110), w(15, 30), w(25, 40), None, w(110, 120)];
        assert_eq!(overlapping(&windows), vec![vec![0, 2, 3], vec![1, 5]]);
        assert_eq!(overlapping(&[w(1, 2), w(3, 4)]), Vec::<Vec<usize>>::new());
        assert_eq!(combined_name(&["a", "b"]), "a+b");
    }
}
