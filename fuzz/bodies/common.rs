//! What the end-to-end fuzz bodies share: a host made of fuzzed bytes, every
//! tool of the registry on it in every format, the trace viewer's queries,
//! and a small reader and protobuf writer for the structure-aware bodies.
//!
//! Included with `#[path]` both by the fuzz targets (`fuzz/fuzz_targets/`)
//! and by the corpus replay test (`tests/fuzz_replay.rs`), so that what is
//! fuzzed and what is replayed cannot drift apart.
#![allow(dead_code)]

use proflens_analysis::context::{Format, GroupBy, Hooks, HostContext, HostFile, Request, Tool};
use proflens_analysis::passes::trace::export::write_chrome_trace;
use proflens_analysis::passes::trace::links::LinkIndex;
use proflens_analysis::passes::trace::range_stats::range_stats;
use proflens_analysis::passes::trace::search::{search, EventRef, Pattern};
use proflens_analysis::passes::trace::window::visible;
use proflens_analysis::passes::trace::{event_details, event_name, track_events};
use proflens_analysis::registry;
use proflens_format::legacy::LegacyTool;
use std::rc::Rc;

/// No progress, a clock that stands still.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// A host whose one file, named `path`, holds `data`; `tool` as discovery
/// would name it (None: a file of events).
pub fn host(path: &str, tool: Option<LegacyTool>, data: &[u8]) -> Rc<HostContext> {
    let bytes = data.to_vec();
    let file = HostFile {
        path: path.to_string(),
        tool,
        read: Box::new(move || Ok(proflens_format::source::in_memory(bytes.clone()))),
    };
    Rc::new(HostContext::new("host", vec![file], Rc::new(NoHooks)))
}

/// Every tool of the registry on `host` (the ones it has nothing for too:
/// their refusal is a path as well), in every format each writes, then the
/// tools that combine hosts on the host twice, then the trace viewer's
/// queries. Any result is fine; only a panic, a hang or a huge allocation is
/// a finding.
pub fn run_everything(host: &Rc<HostContext>) {
    let _ = registry::available(host);
    let hosts = [host.clone()];
    for tool in registry::TOOLS {
        run_in_every_format(*tool, &hosts);
    }
    // The op profile grouped by category, in XProf's JSON.
    if let Some(tool) = registry::find("op_profile") {
        let request = Request { format: Format::Xprof, group_by: GroupBy::Category, ..Request::default() };
        if let Ok(output) = registry::run(tool, &hosts, &request) {
            let _ = output.text(Format::Xprof);
        }
    }
    // The memory viewer on every module by name, and on one that is not there.
    if let (Some(tool), Ok(hlo)) = (registry::find("memory_viewer"), host.hlo()) {
        let mut names: Vec<Option<String>> = hlo.modules.iter().take(4).map(|m| Some(m.display_name())).collect();
        names.push(Some("no such module".into()));
        for module in names {
            for format in [Format::Json, Format::Csv, Format::Xprof] {
                let request = Request { format, module: module.clone(), ..Request::default() };
                if let Ok(output) = registry::run(tool, &hosts, &request) {
                    let _ = output.text(format);
                }
            }
        }
        // The other memory spaces (colors) of each module.
        for module in hlo.modules.iter().take(4) {
            for color in [1, 2, -1] {
                let _ = proflens_analysis::tools::memory_viewer::memory_viewer(module, color);
            }
        }
    }
    // "All hosts": the same host twice (its passes are computed once).
    let twice = [host.clone(), host.clone()];
    for tool in registry::available_combined(&twice) {
        run_in_every_format(tool, &twice);
    }
    trace_queries(host);
}

/// `tool` on `hosts` in every format it writes; any result is fine.
pub fn run_in_every_format(tool: &dyn Tool, hosts: &[Rc<HostContext>]) {
    for &format in tool.formats() {
        let request = Request { format, ..Request::default() };
        if let Ok(output) = registry::run(tool, hosts, &request) {
            let _ = output.text(format);
        }
    }
}

/// Most tracks and events per track the queries look at: enough to reach
/// every kind of track without making each run slow.
const QUERY_TRACKS: usize = 64;
const QUERY_EVENTS: usize = 8;

/// The trace viewer's queries as the app's worker asks them: windows of
/// boxes, one event's details and links, search, a range summary, export.
pub fn trace_queries(host: &HostContext) {
    let (Ok(profile), Ok(grouping), Ok(index)) = (host.profile(), host.grouping(), host.trace()) else {
        return;
    };
    let trace = &index.trace;
    let _ = write_chrome_trace(&profile, &grouping, trace, None, &mut std::io::sink());
    let (a, b) = index.span;
    let middle = a / 2 + b / 2;
    let _ = write_chrome_trace(&profile, &grouping, trace, Some((a, middle)), &mut std::io::sink());

    let tracks: Vec<u32> = (0..index.tracks.len().min(QUERY_TRACKS) as u32).collect();
    let links = LinkIndex::new(&profile, trace);
    for &id in &tracks {
        let Some((track, meta)) = index.track(id) else { continue };
        let events = track_events(&profile, track);
        for (start, end) in [(a, b), (a, middle), (middle, b)] {
            let ps_per_px = (end.saturating_sub(start)).max(1) as f64 / 1000.0;
            let _ = visible(events, meta.max_duration, start, end, ps_per_px);
        }
        let n = events.len();
        let some = (0..n.min(QUERY_EVENTS)).chain(n.checked_sub(1));
        for i in some {
            let _ = event_name(&profile, &grouping, track, i);
            let _ = event_details(&profile, &grouping, track, i);
            let _ = links.links(&profile, trace, EventRef { track: id, event: i as u32 }, 200);
        }
        // An event that is not there.
        let _ = links.links(&profile, trace, EventRef { track: id, event: n as u32 }, 200);
    }
    for (text, regex) in [("a", false), ("op", false), (r"^[A-Z].*(Op|:)\d*$", true)] {
        if let Ok(pattern) = Pattern::new(text, regex) {
            let _ = search(&profile, &grouping, trace, &pattern, 100);
        }
    }
    let _ = range_stats(&profile, &grouping, trace, &tracks, a, b);
    let _ = range_stats(&profile, &grouping, trace, &tracks, middle, middle);
    let _ = range_stats(&profile, &grouping, trace, &[u32::MAX], a, b);
}

/// Reads choices out of fuzzed bytes; past the end every choice is zero, so
/// any input builds something.
pub struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, at: 0 }
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u64(&mut self) -> u64 {
        let mut b = [0; 8];
        for x in &mut b {
            *x = self.u8();
        }
        u64::from_le_bytes(b)
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.u8() as usize % n
    }

    pub fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }

    /// An id: mostly small (so that references meet, and cycles form), at
    /// times an edge value.
    pub fn id(&mut self) -> i64 {
        match self.u8() {
            0..=229 => i64::from(self.u8() % 8),
            230..=239 => -1,
            240..=247 => i64::from(self.u16()),
            248..=251 => i64::MAX,
            252..=253 => i64::MIN,
            _ => self.u64() as i64,
        }
    }

    /// A size, time or count: small, round, huge or negative.
    pub fn amount(&mut self) -> i64 {
        match self.u8() {
            0..=159 => i64::from(self.u16()),
            160..=199 => 1 << (self.u8() % 48),
            200..=219 => i64::from(self.u8()),
            220..=229 => 0,
            230..=237 => -i64::from(self.u16()),
            238..=243 => i64::MAX - i64::from(self.u8()),
            244..=247 => i64::MIN + i64::from(self.u8()),
            _ => self.u64() as i64,
        }
    }

    /// A length of a list: at most `max`.
    pub fn len(&mut self, max: usize) -> usize {
        self.below(max + 1)
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }
}

/// A protobuf message written field by field (for the HLO protos, whose
/// generated types are private to proflens-format).
#[derive(Default)]
pub struct Pb(pub Vec<u8>);

impl Pb {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire));
    }

    /// int64, int32, bool, enum (two's complement, as protobuf writes them).
    pub fn int(&mut self, field: u32, v: i64) -> &mut Pb {
        self.key(field, 0);
        self.varint(v as u64);
        self
    }

    pub fn bytes(&mut self, field: u32, v: &[u8]) -> &mut Pb {
        self.key(field, 2);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
        self
    }

    pub fn str(&mut self, field: u32, v: &str) -> &mut Pb {
        self.bytes(field, v.as_bytes())
    }

    pub fn double(&mut self, field: u32, v: f64) -> &mut Pb {
        self.key(field, 1);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn msg(&mut self, field: u32, build: impl FnOnce(&mut Pb)) -> &mut Pb {
        let mut inner = Pb::default();
        build(&mut inner);
        self.bytes(field, &inner.0)
    }

    /// A packed repeated int64.
    pub fn packed(&mut self, field: u32, values: &[i64]) -> &mut Pb {
        let mut inner = Pb::default();
        for &v in values {
            inner.varint(v as u64);
        }
        self.bytes(field, &inner.0)
    }
}
