//! Planes and lines filled one event at a time, in any order, then sorted
//! into the model's columns (the trace-event order is not the model's).

use super::ArgValue;
use crate::xspace::finish_events;
use proflens_model::{Counter, EventMetadata, Interner, Line, MetaIdx, Plane, StatList, Stats, StrId};
use rustc_hash::FxHashMap;
use serde_json::Value;

/// One plane under construction.
pub(crate) struct PlaneAcc {
    pub id: i64,
    name: StrId,
    stats: Stats,
    metadata: Vec<EventMetadata>,
    meta_index: FxHashMap<(StrId, Option<StrId>, StrId), MetaIdx>,
    lines: Vec<Line>,
    line_index: FxHashMap<String, usize>,
    counters: Vec<Counter>,
    counter_index: FxHashMap<String, usize>,
    /// Sort keys of lines that have one (`thread_sort_index`); the others
    /// sort by id.
    line_sort: FxHashMap<usize, i64>,
}

impl PlaneAcc {
    pub fn new(id: i64, name: &str, strings: &mut Interner) -> PlaneAcc {
        PlaneAcc {
            id,
            name: strings.intern(name),
            stats: Stats::default(),
            metadata: Vec::new(),
            meta_index: FxHashMap::default(),
            lines: Vec::new(),
            line_index: FxHashMap::default(),
            counters: Vec::new(),
            counter_index: FxHashMap::default(),
            line_sort: FxHashMap::default(),
        }
    }

    /// Appends a sample to the counter known by `key`, created as `name`
    /// (in `unit`) on first use; samples may come in any order.
    pub fn counter_sample(&mut self, key: &str, name: impl FnOnce() -> String, unit: &str, time_ps: i64, value: f64) {
        let c = match self.counter_index.get(key) {
            Some(&c) => c,
            None => {
                self.counters.push(Counter::new(name(), unit));
                self.counter_index.insert(key.to_string(), self.counters.len() - 1);
                self.counters.len() - 1
            }
        };
        self.counters[c].push(time_ps, value);
    }

    /// A plane-level stat (device capabilities, run information).
    pub fn stats(&mut self) -> &mut Stats {
        &mut self.stats
    }

    /// The metadata of events named `name` (shown as `display`) of trace
    /// category `cat`; the category is kept as the metadata stat `cat`.
    pub fn metadata(&mut self, name: &str, display: Option<&str>, cat: &str, strings: &mut Interner) -> MetaIdx {
        let key = (strings.intern(name), display.map(|d| strings.intern(d)), strings.intern(cat));
        if let Some(&idx) = self.meta_index.get(&key) {
            return idx;
        }
        let idx = self.metadata.len() as MetaIdx;
        let mut stats = Stats::default();
        if !cat.is_empty() {
            stats.push_str(strings.intern("cat"), key.2);
        }
        stats.end_owner();
        self.metadata.push(EventMetadata {
            id: i64::from(idx) + 1,
            name: key.0,
            display_name: key.1,
            stats: StatList(stats),
            children: Vec::new(),
        });
        self.meta_index.insert(key, idx);
        idx
    }

    /// The line known by `key`, created with `id` and `name` on first use.
    pub fn line(&mut self, key: &str, make: impl FnOnce() -> (i64, String), strings: &mut Interner) -> usize {
        if let Some(&l) = self.line_index.get(key) {
            return l;
        }
        let (mut id, name) = make();
        // Line ids must be unique in a plane; a clash (the same tid in two
        // processes) moves the newcomer above the 32-bit range.
        while self.lines.iter().any(|line| line.id == id) {
            id = id.wrapping_add(1 << 32);
        }
        self.lines.push(Line { id, display_id: id, name: strings.intern(&name), ..Line::default() });
        self.line_index.insert(key.to_string(), self.lines.len() - 1);
        self.lines.len() - 1
    }

    /// Puts a line at `sort` among the line ids (lower first).
    pub fn sort_line(&mut self, line: usize, sort: i64) {
        self.line_sort.insert(line, sort);
    }

    pub fn rename_line(&mut self, line: usize, name: &str, strings: &mut Interner) {
        if let Some(l) = self.lines.get_mut(line) {
            l.name = strings.intern(name);
        }
    }

    /// Appends an event; `fill` pushes its stats.
    pub fn event(
        &mut self,
        line: usize,
        start_ps: i64,
        duration_ps: i64,
        meta: MetaIdx,
        fill: impl FnOnce(&mut Stats),
    ) {
        let Some(l) = self.lines.get_mut(line) else { return };
        let ev = &mut l.events;
        ev.start_ps.push(start_ps);
        ev.duration_ps.push(duration_ps.max(0));
        ev.metadata.push(meta);
        fill(&mut ev.stats);
        ev.stats.end_owner();
    }

    /// Sorted columns, nesting depths, lines in sort-key (else id) order.
    pub fn finish(mut self) -> Plane {
        self.stats.end_owner();
        for line in &mut self.lines {
            finish_events(&mut line.events);
        }
        for counter in &mut self.counters {
            counter.sort();
        }
        let mut keyed: Vec<((i64, i64), Line)> = std::mem::take(&mut self.lines)
            .into_iter()
            .enumerate()
            .map(|(i, l)| ((self.line_sort.get(&i).copied().unwrap_or(l.id), l.id), l))
            .collect();
        keyed.sort_by_key(|(key, _)| *key);
        self.lines = keyed.into_iter().map(|(_, l)| l).collect();
        Plane {
            id: self.id,
            name: self.name,
            lines: self.lines,
            event_metadata: self.metadata,
            stats: StatList(self.stats),
            counters: self.counters,
        }
    }
}

/// Pushes an event arg as a stat, as [`push_json`] does for its JSON value.
pub(crate) fn push_arg(stats: &mut Stats, key: StrId, value: &ArgValue, numeric_strings: bool, strings: &mut Interner) {
    match value {
        ArgValue::Null => {}
        ArgValue::Bool(b) => stats.push_int(key, i64::from(*b)),
        ArgValue::Int(i) => stats.push_int(key, *i),
        ArgValue::UInt(u) => stats.push_uint(key, *u),
        ArgValue::Float(f) => stats.push_double(key, *f),
        ArgValue::Str(s) => match s.parse::<i64>() {
            Ok(i) if numeric_strings => stats.push_int(key, i),
            _ => stats.push_str(key, strings.intern(s)),
        },
        ArgValue::Json(v) => push_json(stats, key, v, numeric_strings, strings),
        // Without its spaces, the compact text push_json would write.
        ArgValue::JsonText(text) => stats.push_str(key, strings.intern(&super::args::compact(text))),
    }
}

/// Pushes a JSON arg as a stat: integers as integers, other numbers as
/// doubles, strings as strings (`numeric_strings`: integer text as an
/// integer, for producers that write every arg as a string), lists and
/// objects as their compact JSON text. Nulls are dropped.
pub(crate) fn push_json(stats: &mut Stats, key: StrId, value: &Value, numeric_strings: bool, strings: &mut Interner) {
    match value {
        Value::Null => {}
        Value::Bool(b) => stats.push_int(key, i64::from(*b)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                stats.push_int(key, i);
            } else if let Some(u) = n.as_u64() {
                stats.push_uint(key, u);
            } else {
                stats.push_double(key, n.as_f64().unwrap_or(0.0));
            }
        }
        Value::String(s) => match s.parse::<i64>() {
            Ok(i) if numeric_strings => stats.push_int(key, i),
            _ => stats.push_str(key, strings.intern(s)),
        },
        Value::Array(_) | Value::Object(_) => stats.push_str(key, strings.intern(&value.to_string())),
    }
}
