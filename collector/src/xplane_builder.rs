//! Building one XPlane: event and stat names interned into the plane's
//! metadata maps, lines by id, events sorted the way readers expect.

use proflens_format::proto::{x_event, x_stat, XEvent, XEventMetadata, XLine, XPlane, XStat, XStatMetadata};
use std::collections::{BTreeMap, HashMap};

/// A stat value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
}

#[derive(Debug)]
pub struct PlaneBuilder {
    plane: XPlane,
    event_ids: HashMap<String, i64>,
    stat_ids: HashMap<String, i64>,
    lines: BTreeMap<i64, XLine>,
}

impl PlaneBuilder {
    pub fn new(id: i64, name: &str) -> PlaneBuilder {
        PlaneBuilder {
            plane: XPlane { id, name: name.to_string(), ..Default::default() },
            event_ids: HashMap::new(),
            stat_ids: HashMap::new(),
            lines: BTreeMap::new(),
        }
    }

    pub fn name(&self) -> &str {
        &self.plane.name
    }

    fn event_id(&mut self, name: &str) -> i64 {
        if let Some(&id) = self.event_ids.get(name) {
            return id;
        }
        // Ids start at 1: some readers treat metadata id 0 as "none".
        let id = self.event_ids.len() as i64 + 1;
        self.event_ids.insert(name.to_string(), id);
        self.plane.event_metadata.insert(id, XEventMetadata { id, name: name.to_string(), ..Default::default() });
        id
    }

    fn stat_id(&mut self, name: &str) -> i64 {
        if let Some(&id) = self.stat_ids.get(name) {
            return id;
        }
        let id = self.stat_ids.len() as i64 + 1;
        self.stat_ids.insert(name.to_string(), id);
        self.plane.stat_metadata.insert(id, XStatMetadata { id, name: name.to_string(), ..Default::default() });
        id
    }

    fn stat(&mut self, name: &str, value: Value) -> XStat {
        let value = match value {
            Value::U64(v) => x_stat::Value::Uint64Value(v),
            Value::I64(v) => x_stat::Value::Int64Value(v),
            Value::F64(v) => x_stat::Value::DoubleValue(v),
            Value::Str(v) => x_stat::Value::StrValue(v),
        };
        XStat { metadata_id: self.stat_id(name), value: Some(value) }
    }

    pub fn plane_stat(&mut self, name: &str, value: Value) {
        let stat = self.stat(name, value);
        self.plane.stats.push(stat);
    }

    /// Makes sure line `id` exists; its name is set on first use.
    pub fn line(&mut self, id: i64, name: &str) {
        self.lines.entry(id).or_insert_with(|| XLine { id, name: name.to_string(), ..Default::default() });
    }

    pub fn rename_line(&mut self, id: i64, name: String) {
        if let Some(line) = self.lines.get_mut(&id) {
            line.name = name;
        }
    }

    /// Adds an event to line `line` (which must exist); times in ps from the line's start.
    pub fn event(&mut self, line: i64, name: &str, offset_ps: i64, duration_ps: i64, stats: Vec<(&str, Value)>) {
        if !self.lines.contains_key(&line) {
            return;
        }
        let metadata_id = self.event_id(name);
        let stats = stats.into_iter().map(|(n, v)| self.stat(n, v)).collect();
        let event = XEvent { metadata_id, duration_ps, stats, data: Some(x_event::Data::OffsetPs(offset_ps)) };
        if let Some(l) = self.lines.get_mut(&line) {
            l.events.push(event);
        }
    }

    /// The plane, every line's events sorted by start, longer first on ties
    /// (so enclosing events precede what they contain).
    pub fn finish(mut self) -> XPlane {
        for mut line in std::mem::take(&mut self.lines).into_values() {
            line.events.sort_by_key(|e| (offset(e), std::cmp::Reverse(e.duration_ps)));
            self.plane.lines.push(line);
        }
        self.plane
    }
}

fn offset(e: &XEvent) -> i64 {
    match e.data {
        Some(x_event::Data::OffsetPs(o)) => o,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_names_and_sorts_events() {
        let mut b = PlaneBuilder::new(3, "/device:GPU:3");
        b.line(7, "Stream #7");
        b.event(7, "k", 200, 10, vec![("correlation_id", Value::U64(5))]);
        b.event(7, "k", 100, 10, vec![("correlation_id", Value::U64(4))]);
        b.event(7, "outer", 100, 50, vec![]);
        b.event(99, "lost", 0, 1, vec![]); // no such line: ignored
        b.plane_stat("core_count", Value::I64(80));
        let p = b.finish();
        assert_eq!(p.event_metadata.len(), 2, "k and outer");
        assert_eq!(p.stat_metadata.len(), 2);
        let names: Vec<&str> =
            p.lines[0].events.iter().map(|e| p.event_metadata[&e.metadata_id].name.as_str()).collect();
        assert_eq!(names, ["outer", "k", "k"]);
        assert_eq!(p.lines.len(), 1);
    }
}
