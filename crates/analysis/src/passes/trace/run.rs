//! Several hosts (or PyTorch ranks) on one timeline: where each host's
//! sections and tracks sit among the run's, and the offset that puts its
//! times on the run's clock. Pure mapping; each host keeps its own
//! [`TraceIndex`](super::index::TraceIndex), and queries about the run are
//! split by host, asked in the host's own numbers and shifted back.

use serde::{Deserialize, Serialize};

/// One host's part of a run's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostSpan {
    pub name: String,
    /// Added to the host's times (ps from its own origin) to put them on the
    /// run's clock: its capture start minus the earliest host's.
    pub offset_ps: i64,
    /// Its sections are `first_section..first_section + sections` of the run's.
    pub first_section: u32,
    pub sections: u32,
    /// Its tracks are `first_track..first_track + tracks`: the host's own
    /// track `t` is the run's `first_track + t`.
    pub first_track: u32,
    pub tracks: u32,
    pub events: u64,
}

impl HostSpan {
    /// The run's track id of this host's track `local`.
    pub fn global(&self, local: u32) -> u32 {
        self.first_track + local
    }
}

/// Each host's offset on the run's clock, from each host's wall-clock start
/// (`Profile::origin_ns`; hosts without one are taken to start with the
/// earliest). XSpace: the capture start; Kineto: `baseTimeNanoseconds`.
pub fn offsets_ps(origins_ns: &[Option<u64>]) -> Vec<i64> {
    let earliest = origins_ns.iter().flatten().copied().min();
    origins_ns
        .iter()
        .map(|o| match (o, earliest) {
            (Some(o), Some(e)) => i64::try_from(o - e).unwrap_or(i64::MAX / 2_000).saturating_mul(1000),
            _ => 0,
        })
        .collect()
}

/// The host of a run's track, and the track's id on that host.
pub fn host_of_track(hosts: &[HostSpan], track: u32) -> Option<(usize, u32)> {
    let h = hosts.partition_point(|h| h.first_track <= track).checked_sub(1)?;
    let local = track - hosts[h].first_track;
    (local < hosts[h].tracks).then_some((h, local))
}

/// The host of a run's section.
pub fn host_of_section(hosts: &[HostSpan], section: u32) -> Option<usize> {
    let h = hosts.partition_point(|h| h.first_section <= section).checked_sub(1)?;
    (section - hosts[h].first_section < hosts[h].sections).then_some(h)
}

/// A run's tracks grouped by host, as each host numbers them; hosts in
/// order, tracks in the order given. Ids of no host are left out.
pub fn split_tracks(hosts: &[HostSpan], tracks: &[u32]) -> Vec<(usize, Vec<u32>)> {
    let mut by_host: Vec<(usize, Vec<u32>)> = Vec::new();
    for &t in tracks {
        let Some((h, local)) = host_of_track(hosts, t) else { continue };
        match by_host.iter_mut().find(|(x, _)| *x == h) {
            Some((_, list)) => list.push(local),
            None => by_host.push((h, vec![local])),
        }
    }
    by_host.sort_by_key(|(h, _)| *h);
    by_host
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(name: &str, first_section: u32, sections: u32, first_track: u32, tracks: u32) -> HostSpan {
        HostSpan { name: name.into(), offset_ps: 0, first_section, sections, first_track, tracks, events: 0 }
    }

    #[test]
    fn offsets_from_the_earliest_capture_start() {
        assert_eq!(offsets_ps(&[Some(1_000), Some(250), None]), vec![750_000, 0, 0]);
        assert_eq!(offsets_ps(&[None, None]), vec![0, 0]);
    }

    #[test]
    fn tracks_and_sections_map_to_their_host() {
        let hosts = [span("a", 0, 2, 0, 5), span("b", 2, 1, 5, 3), span("c", 3, 0, 8, 0)];
        assert_eq!(host_of_track(&hosts, 0), Some((0, 0)));
        assert_eq!(host_of_track(&hosts, 4), Some((0, 4)));
        assert_eq!(host_of_track(&hosts, 5), Some((1, 0)));
        assert_eq!(host_of_track(&hosts, 7), Some((1, 2)));
        assert_eq!(host_of_track(&hosts, 8), None);
        assert_eq!(host_of_section(&hosts, 1), Some(0));
        assert_eq!(host_of_section(&hosts, 2), Some(1));
        assert_eq!(host_of_section(&hosts, 3), None);
        assert_eq!(split_tracks(&hosts, &[6, 1, 9, 0]), vec![(0, vec![1, 0]), (1, vec![1])]);
        assert_eq!(hosts[1].global(2), 7);
    }
}
