//! Small synthetic profiles for the op metrics tests (and the framework op
//! stats tests, which build on the same DBs).

use super::{OpMetrics, OpMetricsDb};
use proflens_model::{EventMetadata, Events, Interner, Line, MetaIdx, Plane, Profile, StatList, Stats};

/// A stat value for the synthetic profiles.
pub(crate) enum V {
    I(i64),
    S(&'static str),
    B(Vec<u8>),
}

fn push(strings: &mut Interner, stats: &mut Stats, key: &str, v: &V) {
    let key = strings.intern(key);
    match v {
        V::I(i) => stats.push_int(key, *i),
        V::S(s) => {
            let id = strings.intern(s);
            stats.push_str(key, id);
        }
        V::B(b) => stats.push_bytes(key, b.clone()),
    }
}

/// A synthetic event: metadata, start ps, duration ps, stats.
pub(crate) type Ev = (MetaIdx, i64, i64, Vec<(&'static str, V)>);

/// Builds small profiles: planes of metadata and lines of sorted events.
#[derive(Default)]
pub(crate) struct Builder {
    pub strings: Interner,
    pub planes: Vec<Plane>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder { strings: Interner::new(), planes: Vec::new() }
    }

    pub fn plane(&mut self, name: &str) -> usize {
        let name = self.strings.intern(name);
        self.planes.push(Plane { id: self.planes.len() as i64, name, ..Plane::default() });
        self.planes.len() - 1
    }

    pub fn plane_stat(&mut self, p: usize, key: &str, v: V) {
        self.plane_stats(p, &[(key, v)]);
    }

    /// Sets the plane's stats (replacing any).
    pub fn plane_stats(&mut self, p: usize, stats: &[(&str, V)]) {
        let mut list = Stats::default();
        for (key, v) in stats {
            push(&mut self.strings, &mut list, key, v);
        }
        list.end_owner();
        self.planes[p].stats = StatList(list);
    }

    pub fn meta(&mut self, p: usize, name: &str, display: Option<&str>, stats: &[(&str, V)]) -> MetaIdx {
        let mut list = Stats::default();
        for (k, v) in stats {
            push(&mut self.strings, &mut list, k, v);
        }
        list.end_owner();
        let plane = &mut self.planes[p];
        let idx = plane.event_metadata.len() as MetaIdx;
        let name = self.strings.intern(name);
        let display_name = display.map(|d| self.strings.intern(d));
        self.planes[p].event_metadata.push(EventMetadata {
            id: i64::from(idx) + 1,
            name,
            display_name,
            stats: StatList(list),
            children: Vec::new(),
        });
        idx
    }

    /// Events as (metadata, start ps, duration ps, stats), already sorted.
    pub fn line(&mut self, p: usize, id: i64, name: &str, events: Vec<Ev>) {
        let mut ev = Events::default();
        for (meta, start, duration, stats) in &events {
            ev.start_ps.push(*start);
            ev.duration_ps.push(*duration);
            ev.metadata.push(*meta);
            for (k, v) in stats {
                push(&mut self.strings, &mut ev.stats, k, v);
            }
            ev.stats.end_owner();
        }
        ev.depth = proflens_model::nesting_depths(&ev.start_ps, &ev.duration_ps);
        let name = self.strings.intern(name);
        self.planes[p].lines.push(Line { id, display_id: id, name, display_name: None, timestamp_ps: 0, events: ev });
    }

    pub fn build(self) -> Profile {
        Profile { strings: self.strings, planes: self.planes, ..Profile::default() }
    }
}

pub(crate) fn op<'a>(db: &'a OpMetricsDb, name: &str) -> &'a OpMetrics {
    db.ops.iter().find(|o| o.name == name).unwrap_or_else(|| panic!("op {name} missing from {db:?}"))
}

/// `MemoryAccessBreakdown` with HBM read 100, HBM write 20 and VMEM read 8.
pub(crate) fn breakdown_bytes() -> Vec<u8> {
    let entry = |op: u8, space: u8, bytes: u8| vec![0x0a, 6, 0x08, op, 0x10, space, 0x18, bytes];
    [entry(1, 1, 100), entry(2, 1, 20), entry(1, 3, 8)].concat()
}
