//! Track descriptors (track_descriptor.proto) and where each track's events
//! go: as a trace-event file says it, a process (`pid`) and a thread
//! (`tid`), which the trace importer turns into a plane and a line.
//!
//! * a track with a thread descriptor is that thread;
//! * a track under a thread's track (its parent, or further up) shares the
//!   thread's line when it has no name of its own or the thread's name, as
//!   Kineto's writer gives every activity a child track named as its thread
//!   (libkineto PerfettoTraceBuilder::createChildTrack); with a name of its
//!   own it is a line of its own in the thread's process, as Perfetto's UI
//!   shows it as a track of its own;
//! * any other track under a process (or the process's own track) is a line
//!   of its own in that process;
//! * a track under no process is a line of the `global` pseudo-process.
//!
//! A descriptor emitted again (an update) replaces the fields it sets.

use super::field::{bytes_of, text, varint};
use crate::wire::fields;
use crate::Error;
use rustc_hash::FxHashMap;
use serde_json::Value;

// TrackDescriptor fields.
const UUID: u64 = 1;
const NAME: u64 = 2;
const PROCESS: u64 = 3;
const THREAD: u64 = 4;
const PARENT_UUID: u64 = 5;
const COUNTER: u64 = 8;
const STATIC_NAME: u64 = 10;

/// Ancestors followed at most (parent links may form a cycle in bad input).
const MAX_ANCESTORS: usize = 64;

/// The pseudo-process of tracks under no process.
pub(crate) const GLOBAL_PID: &str = "global";

#[derive(Debug, Default, Clone)]
pub(crate) struct Track {
    pub name: String,
    pub parent: Option<u64>,
    /// `ProcessDescriptor`: pid and name.
    pub process: Option<(i64, String)>,
    /// `ThreadDescriptor`: pid, tid and name.
    pub thread: Option<(i64, i64, String)>,
    pub counter: Option<CounterTrack>,
}

/// A `CounterDescriptor`: values may be deltas, and are in units of a multiplier.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CounterTrack {
    pub incremental: bool,
    pub multiplier: f64,
}

/// Where a track's events go, as trace-event fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The pid: a number, or `"global"`.
    pub pid: Value,
    /// The tid: a number, or `"track <uuid>"` for a track's own line.
    pub tid: Value,
    pub line_name: String,
}

#[derive(Default)]
pub(crate) struct Tracks {
    by_uuid: FxHashMap<u64, Track>,
}

impl Tracks {
    /// Adds (or updates) the track a `TrackDescriptor` describes.
    pub fn describe(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let mut uuid = 0;
        let mut update = Track::default();
        let mut seen = [false; 5];
        for field in fields(bytes, "track descriptor") {
            let field = field?;
            match field.number {
                UUID => uuid = varint(&field.value).unwrap_or(0),
                NAME | STATIC_NAME => {
                    update.name = bytes_of(&field.value).map(text).unwrap_or_default();
                    seen[0] = true;
                }
                PARENT_UUID => {
                    update.parent = varint(&field.value);
                    seen[1] = true;
                }
                PROCESS => {
                    update.process = bytes_of(&field.value).map(process).transpose()?;
                    seen[2] = true;
                }
                THREAD => {
                    update.thread = bytes_of(&field.value).map(thread).transpose()?;
                    seen[3] = true;
                }
                COUNTER => {
                    update.counter = bytes_of(&field.value).map(counter).transpose()?;
                    seen[4] = true;
                }
                _ => {}
            }
        }
        let track = self.by_uuid.entry(uuid).or_default();
        if seen[0] {
            track.name = update.name;
        }
        if seen[1] {
            track.parent = update.parent;
        }
        if seen[2] {
            track.process = update.process;
        }
        if seen[3] {
            track.thread = update.thread;
        }
        if seen[4] {
            track.counter = update.counter;
        }
        Ok(())
    }

    pub fn get(&self, uuid: u64) -> Option<&Track> {
        self.by_uuid.get(&uuid)
    }

    /// Processes' names by pid; of several descriptors of one pid (Kineto's
    /// writer gives its own process pid 0, as a device 0 has), the first name
    /// in text order, so that the choice does not depend on hashing.
    pub fn process_names(&self) -> Vec<(i64, String)> {
        let mut names: Vec<(i64, String)> =
            self.by_uuid.values().filter_map(|t| t.process.clone()).filter(|(_, n)| !n.is_empty()).collect();
        names.sort();
        names.dedup_by_key(|(pid, _)| *pid);
        names
    }

    /// Where the events of track `uuid` go; see the module docs.
    pub fn place(&self, uuid: u64) -> Place {
        let own_line = |pid: Value| {
            let name = match self.by_uuid.get(&uuid).map(|t| t.name.as_str()) {
                Some(n) if !n.is_empty() => n.to_string(),
                _ if uuid == 0 => "Global".to_string(),
                _ => format!("track {uuid}"),
            };
            Place { pid, tid: Value::String(format!("track {uuid}")), line_name: name }
        };
        let global = || Value::from(GLOBAL_PID);
        let Some(own) = self.by_uuid.get(&uuid) else { return own_line(global()) };
        let mut at = Some(uuid);
        for _ in 0..MAX_ANCESTORS {
            let Some(track) = at.and_then(|u| self.by_uuid.get(&u)) else { break };
            if let Some((pid, tid, thread_name)) = &track.thread {
                let line_name = if thread_name.is_empty() { track.name.clone() } else { thread_name.clone() };
                let shares = at == Some(uuid) || own.name.is_empty() || own.name == line_name || own.name == track.name;
                return if shares {
                    Place { pid: Value::from(*pid), tid: Value::from(*tid), line_name }
                } else {
                    own_line(Value::from(*pid))
                };
            }
            if let Some((pid, _)) = &track.process {
                return own_line(Value::from(*pid));
            }
            at = track.parent;
        }
        own_line(global())
    }
}

fn process(bytes: &[u8]) -> Result<(i64, String), Error> {
    let (mut pid, mut name) = (0, String::new());
    for field in fields(bytes, "process descriptor") {
        let field = field?;
        match field.number {
            1 => pid = varint(&field.value).unwrap_or(0) as i32 as i64,
            6 => name = bytes_of(&field.value).map(text).unwrap_or_default(),
            _ => {}
        }
    }
    Ok((pid, name))
}

fn thread(bytes: &[u8]) -> Result<(i64, i64, String), Error> {
    let (mut pid, mut tid, mut name) = (0, 0, String::new());
    for field in fields(bytes, "thread descriptor") {
        let field = field?;
        match field.number {
            1 => pid = varint(&field.value).unwrap_or(0) as i32 as i64,
            2 => tid = varint(&field.value).unwrap_or(0) as i32 as i64,
            5 => name = bytes_of(&field.value).map(text).unwrap_or_default(),
            _ => {}
        }
    }
    Ok((pid, tid, name))
}

fn counter(bytes: &[u8]) -> Result<CounterTrack, Error> {
    let mut c = CounterTrack { incremental: false, multiplier: 1.0 };
    for field in fields(bytes, "counter descriptor") {
        let field = field?;
        match field.number {
            4 => c.multiplier = varint(&field.value).map_or(1.0, |m| (m as i64) as f64),
            5 => c.incremental = varint(&field.value).is_some_and(|v| v != 0),
            _ => {}
        }
    }
    if c.multiplier == 0.0 {
        c.multiplier = 1.0;
    }
    Ok(c)
}
