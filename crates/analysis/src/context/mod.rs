//! [`HostContext`]: one host's files and every shared pass over them,
//! each computed at most once, when a tool first asks, and kept until the
//! host is unloaded. It is the only cache: the CLI, the app's worker and
//! the trace viewer's queries all read passes through it.

mod given_parts;
pub mod overlap;
mod room;
mod run;
pub mod summary;
mod timed_source;
mod tool;

pub use run::{Kept, RunContext};
pub use tool::{
    working_bytes_per_event, AsSerialize, Format, GroupBy, Held, Inputs, Output, Rendered, Request, Tool, ToolError,
};

use crate::hlo::gpu::GpuHlo;
use crate::passes::grouping::{group_events, Grouping};
use crate::passes::host_analysis::HostAnalysis;
use crate::passes::kineto::gpu_frame::GpuFrame;
use crate::passes::kineto::KinetoIndex;
use crate::passes::trace::index::TraceIndex;
use crate::passes::xla_ops::{xla_ops, XlaOpDb};
use proflens_format::legacy::{LegacyFile, LegacyTool};
use proflens_format::source::{read_all, read_head, ByteSource};
use proflens_format::{Limits, Progress};
use proflens_model::hlo::HloModule;
use proflens_model::{Origin, Profile};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Opens one file (on disk, a browser `File`, bytes fetched from a URL…)
/// to be read a piece at a time: profiles decode without holding the file.
pub type ReadFile = Box<dyn Fn() -> Result<Box<dyn ByteSource>, String>>;

/// One file of a host, as discovery named it.
pub struct HostFile {
    /// The path the file was opened as (its name decides its kind first).
    pub path: String,
    /// A legacy tool file's tool, when the name says so.
    pub tool: Option<LegacyTool>,
    pub read: ReadFile,
}

/// What the caller sees of long work: a fraction when it can tell how far
/// it is, and a label of the phase.
pub trait Hooks {
    fn progress(&self, fraction: Option<f64>, label: &str);
    /// Milliseconds from any fixed origin (the wasm target has no `Instant`).
    fn now_ms(&self) -> f64;
    /// A host just loaded its events: the owner of the hosts may unload
    /// others to bound memory (see [`HostContext::unload`]).
    fn loaded(&self, _host: &str) {}
    /// Bytes the analysis can still allocate, where that is bounded (a
    /// browser worker: 4 GiB less its wasm memory); `None` where it is not.
    fn memory_left(&self) -> Option<u64> {
        None
    }
    /// A shared pass (one of [`PASSES`]) just ran: where memory is
    /// measured, the owner notes what the pass took.
    fn pass_done(&self, _pass: &'static str) {}
    /// How many threads one host's passes may use at once: a raw XSpace is
    /// decoded in as many parts, each on its thread, into the profile one
    /// thread decodes (`proflens_format::load_parts::decode_parts`). 1 (the
    /// default) decodes as it streams, on this thread; the CLI gives a host
    /// that is alone all cores.
    fn threads(&self) -> usize {
        1
    }
}

/// What loading the host's events cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoadStats {
    pub file_bytes: u64,
    /// Reading and decoding, wall-clock ms.
    pub decode_ms: f64,
}

/// The HLO of a profile's XLA programs.
pub struct Hlo {
    pub modules: Vec<HloModule>,
    /// Why some modules could not be read.
    pub errors: Vec<String>,
}

/// The shared passes, in the order [`HostContext::pass_runs`] lists them.
pub const PASSES: [&str; 8] =
    ["decode", "hlo", "grouping", "host_analysis", "xla_ops", "kineto_index", "gpu_frame", "trace_index"];

/// One host: its files, and each pass over them computed at most once per load.
pub struct HostContext {
    name: String,
    files: Vec<HostFile>,
    /// The file of events (XSpace or trace JSON), if the host has one.
    events: Cell<Option<usize>>,
    /// nvidia-smi CSV logs whose samples join the events as counters.
    counter_logs: Vec<usize>,
    hooks: Rc<dyn Hooks>,
    profile: Slot<Profile>,
    load: Cell<Option<LoadStats>>,
    /// The events' wall-clock window once decoded ([`HostContext::wall_window_ns`]), kept when they are unloaded.
    window: Cell<Option<Option<(u64, u64)>>>,
    /// Legacy tool files: (tool, file index, the file once decoded).
    tool_files: RefCell<Vec<(LegacyTool, usize, Option<Decoded>)>>,
    hlo: Slot<Hlo>,
    grouping: Slot<Grouping>,
    analysis: Slot<HostAnalysis>,
    /// The analysis was given (a host summary), not computed from events.
    given: Cell<bool>,
    /// Per-rank parts of the tools of all ranks, given by a rank summary
    /// (`given_parts`).
    rank_parts: given_parts::Parts,
    xla_ops: Slot<XlaOpDb>,
    kineto: Slot<KinetoIndex>,
    gpu_frame: Slot<GpuFrame>,
    trace: Slot<TraceIndex>,
    /// Tools' results on this host, by tool and request.
    outputs: Kept,
    runs: RefCell<[u32; PASSES.len()]>,
    /// Wall-clock ms each pass took, summed over its runs (decode without the file read).
    pass_ms: RefCell<[f64; PASSES.len()]>,
    /// Wall-clock ms spent reading the file of events, summed over loads.
    read_ms: Cell<f64>,
}

type Slot<T> = RefCell<Option<Rc<T>>>;
/// A legacy tool file once read: its content, or why it could not be read.
type Decoded = Result<Rc<LegacyFile>, String>;

impl HostContext {
    /// A host named `name` (as discovery named it) with its files: legacy
    /// tool files by name, at most one file of events.
    pub fn new(name: impl Into<String>, files: Vec<HostFile>, hooks: Rc<dyn Hooks>) -> HostContext {
        // Counter logs (`*.csv`) beside the events are read with them.
        let is_log = |f: &HostFile| proflens_format::logdir::is_counter_log(&f.path);
        let events = files.iter().position(|f| f.tool.is_none() && !is_log(f));
        let counter_logs = (0..files.len()).filter(|&i| files[i].tool.is_none() && is_log(&files[i])).collect();
        let tool_files = files.iter().enumerate().filter_map(|(i, f)| Some((f.tool?, i, None))).collect();
        HostContext {
            name: name.into(),
            files,
            events: Cell::new(events),
            counter_logs,
            hooks,
            profile: Slot::default(),
            load: Cell::new(None),
            window: Cell::new(None),
            tool_files: RefCell::new(tool_files),
            hlo: Slot::default(),
            grouping: Slot::default(),
            analysis: Slot::default(),
            given: Cell::new(false),
            rank_parts: given_parts::Parts::default(),
            xla_ops: Slot::default(),
            kineto: Slot::default(),
            gpu_frame: Slot::default(),
            trace: Slot::default(),
            outputs: Kept::new(KEPT_OUTPUTS),
            runs: RefCell::new([0; PASSES.len()]),
            pass_ms: RefCell::new([0.0; PASSES.len()]),
            read_ms: Cell::new(0.0),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the host has a file of events (not only legacy tool files),
    /// or a summary of one.
    pub fn has_events(&self) -> bool {
        self.events.get().is_some() || self.given.get() || self.has_rank_parts()
    }

    /// Gives the host its analysis computed elsewhere (its summary file,
    /// another thread or worker): [`HostContext::analysis`] then answers
    /// without decoding the events, and the host counts as XSpace (summaries
    /// are of XSpace hosts only). Tools that need the events still load them.
    pub fn give_analysis(&self, analysis: HostAnalysis) {
        *self.analysis.borrow_mut() = Some(Rc::new(analysis));
        self.given.set(true);
    }

    /// Whether the analysis is known (given, or computed here): the tools
    /// of all hosts then need none of the host's events.
    pub fn has_analysis(&self) -> bool {
        self.analysis.borrow().is_some()
    }

    /// Whether the analysis was given rather than computed here.
    pub fn analysis_given(&self) -> bool {
        self.given.get()
    }

    /// The legacy tool files of the host, by tool (before any is read).
    pub fn tool_file_kinds(&self) -> Vec<LegacyTool> {
        self.tool_files.borrow().iter().map(|(t, _, _)| *t).collect()
    }

    /// The host's legacy file for `tool`, decoded once.
    pub fn tool_file(&self, tool: LegacyTool) -> Option<Decoded> {
        let (at, file) = {
            let files = self.tool_files.borrow();
            let at = files.iter().position(|(t, _, _)| *t == tool)?;
            if let Some(decoded) = &files[at].2 {
                return Some(decoded.clone());
            }
            (at, files[at].1)
        };
        self.hooks.progress(None, "Reading the tool file");
        let path = &self.files[file].path;
        let decoded = self
            .read_whole(file)
            .and_then(|bytes| {
                proflens_format::legacy::decode(path, &bytes, &Limits::default()).map_err(|e| e.to_string())
            })
            .map(Rc::new);
        self.tool_files.borrow_mut()[at].2 = Some(decoded.clone());
        Some(decoded)
    }

    /// Takes the file of events as the legacy tool file its content says it
    /// is (a TensorBoard tool JSON named like a trace): the host then has
    /// that tool file and no events. `None` when it is no tool file.
    pub fn events_as_tool_file(&self) -> Option<LegacyTool> {
        let file = self.events.get()?;
        // Only JSON (raw or gzip) can be a tool file: an XSpace is not read whole to learn it is not.
        let source = (self.files[file].read)().ok()?;
        let head = read_head(&*source, 64 << 10).ok()?;
        let kind = proflens_format::sniff::sniff(&proflens_format::json_text(&head));
        if !matches!(kind, proflens_format::FileKind::Json | proflens_format::FileKind::Gzip) {
            return None;
        }
        let bytes = read_all(&*source).ok()?;
        let tool = proflens_format::legacy::recognise(&self.files[file].path, &bytes, &Limits::default())?;
        self.events.set(None);
        self.tool_files.borrow_mut().push((tool, file, None));
        Some(tool)
    }

    /// The host's events, decoded once per load. A file of events that
    /// turns out to be a legacy tool file (JSON named like a trace) becomes
    /// one of the host's tool files, and the host has no events.
    pub fn profile(&self) -> Result<Rc<Profile>, String> {
        if let Some(found) = self.profile.borrow().clone() {
            return Ok(found);
        }
        let Some(file) = self.events.get() else {
            if self.given.get() || self.has_rank_parts() {
                return Err(format!(
                    "Host “{}” has only its summary (*{}); this tool needs the profile's events.",
                    self.name,
                    proflens_format::logdir::SUMMARY_SUFFIX
                ));
            }
            let kinds: Vec<&str> = self.tool_file_kinds().iter().map(|t| t.file_stem()).collect();
            return Err(format!(
                "Host “{}” has only TensorBoard tool files ({}), no events.",
                self.name,
                kinds.join(", ")
            ));
        };
        self.hooks.progress(Some(0.0), "Reading the file");
        let started = self.hooks.now_ms();
        let source = (self.files[file].read)()?;
        let opened = self.hooks.now_ms();
        // A streaming decode reads the file as it goes: its reads are timed apart.
        let timed = timed_source::TimedSource::new(&*source, &*self.hooks);
        let mut last = f64::NEG_INFINITY;
        let hooks = self.hooks.clone();
        let mut on_progress = |p: Progress| {
            let now = hooks.now_ms();
            if now - last >= PROGRESS_INTERVAL_MS {
                last = now;
                hooks.progress(Some(p.fraction()), phase_label(&p));
            }
        };
        let (path, threads) = (&self.files[file].path, self.hooks.threads());
        let profile = proflens_format::load_parts::load_profile_source_parts(
            path,
            &timed,
            &Limits::default(),
            threads,
            &mut on_progress,
        )
        .map_err(|e| e.to_string())?;
        let mut profile = profile;
        // Other CSV files (a table saved beside the profile) are left alone.
        for &log in &self.counter_logs {
            let attached = self.read_whole(log).and_then(|bytes| {
                let text = String::from_utf8_lossy(&bytes);
                match proflens_format::nvidia_smi::is_log(&text) {
                    true => proflens_format::nvidia_smi::attach(&mut profile, &text).map(|_| ()),
                    false => Ok(()),
                }
            });
            if let Err(e) = attached {
                profile.warnings.push(format!("{}: {e}", self.files[log].path));
            }
        }
        self.load.set(Some(LoadStats { file_bytes: source.len(), decode_ms: self.hooks.now_ms() - started }));
        let read_ms = (opened - started) + timed.read_ms();
        self.read_ms.set(self.read_ms.get() + read_ms);
        self.count("decode");
        self.add_ms("decode", self.hooks.now_ms() - started - read_ms);
        self.window.set(Some(profile.wall_window_ns()));
        let profile = Rc::new(profile);
        *self.profile.borrow_mut() = Some(profile.clone());
        self.hooks.loaded(&self.name);
        Ok(profile)
    }

    /// A file's whole content (tool files and logs are read whole).
    fn read_whole(&self, file: usize) -> Result<Vec<u8>, String> {
        let source = (self.files[file].read)()?;
        read_all(&*source).map_err(|e| format!("{}: {e}", self.files[file].path))
    }

    /// The wall-clock span the host's events cover (`Profile::wall_window_ns`):
    /// decodes them the first time, then is kept when they are unloaded.
    pub fn wall_window_ns(&self) -> Result<Option<(u64, u64)>, String> {
        match self.window.get() {
            Some(window) => Ok(window),
            None => Ok(self.profile()?.wall_window_ns()),
        }
    }

    /// What loading the events cost, once they are loaded.
    pub fn load_stats(&self) -> Option<LoadStats> {
        self.load.get()
    }

    /// Whether the events are a PyTorch (Kineto) trace (decodes them).
    pub fn is_kineto(&self) -> Result<bool, String> {
        if self.given.get() && !self.is_loaded() {
            return Ok(false);
        }
        // A rank summary is only ever written for a PyTorch trace.
        if self.has_rank_parts() && !self.is_loaded() {
            return Ok(true);
        }
        Ok(self.profile()?.origin == Origin::Kineto)
    }

    /// The HLO of the profile's XLA programs.
    pub fn hlo(&self) -> Result<Rc<Hlo>, String> {
        let profile = self.profile()?;
        Ok(self.pass(&self.hlo, "hlo", "Reading the XLA programs", || {
            let found = proflens_format::hlo::hlo_modules(&profile);
            Hlo { errors: found.errors.iter().map(|e| e.to_string()).collect(), modules: found.modules }
        }))
    }

    /// The HLO, or why an XLA tool has nothing to show: the profile records
    /// no XLA program, or none of its programs could be read.
    pub fn xla_programs(&self) -> Result<Rc<Hlo>, String> {
        let hlo = self.hlo()?;
        match hlo.errors.first() {
            _ if !hlo.modules.is_empty() => Ok(hlo),
            None => Err(format!("{}: the profile records no XLA program (no HLO in /host:metadata)", self.name)),
            Some(first) => Err(format!(
                "{}: the profile's XLA programs could not be read ({} damaged; the first: {first})",
                self.name,
                hlo.errors.len()
            )),
        }
    }

    /// The HLO of the XLA programs for the tools that answer as XProf does
    /// when a profile records none (op profile, HLO op stats, memory viewer:
    /// empty, not an error); an error only when the programs are damaged.
    pub fn xla_programs_if_any(&self) -> Result<Rc<Hlo>, String> {
        let hlo = self.hlo()?;
        if hlo.modules.is_empty() && hlo.errors.is_empty() {
            return Ok(hlo);
        }
        self.xla_programs()
    }

    /// The events grouped into steps, iterations and launches.
    pub fn grouping(&self) -> Result<Rc<Grouping>, String> {
        let profile = self.profile()?;
        Ok(self.pass(&self.grouping, "grouping", "Grouping the events", || group_events(&profile)))
    }

    /// Steps, op metrics, kernels and the run environment.
    pub fn analysis(&self) -> Result<Rc<HostAnalysis>, String> {
        if let Some(found) = self.analysis.borrow().clone() {
            return Ok(found);
        }
        let (profile, grouping, hlo) = (self.profile()?, self.grouping()?, self.hlo()?);
        Ok(self.pass(&self.analysis, "host_analysis", "Analysing steps and ops", || {
            HostAnalysis::of(&profile, &grouping, &GpuHlo::new(&hlo.modules), &hlo.modules)
        }))
    }

    /// The device's XLA ops joined with their HLO.
    pub fn xla_ops(&self) -> Result<Rc<XlaOpDb>, String> {
        if let Some(found) = self.xla_ops.borrow().clone() {
            return Ok(found);
        }
        let (profile, grouping, hlo) = (self.profile()?, self.grouping()?, self.hlo()?);
        Ok(self.pass(&self.xla_ops, "xla_ops", "Measuring the XLA ops", || xla_ops(&profile, &grouping, &hlo.modules)))
    }

    /// A PyTorch trace's events by role.
    pub fn kineto(&self) -> Result<Rc<KinetoIndex>, String> {
        let profile = self.profile()?;
        Ok(self.pass(&self.kineto, "kineto_index", "Indexing the PyTorch trace", || KinetoIndex::new(&profile)))
    }

    /// A PyTorch trace's events as HTA loads them, cut to what the analyses
    /// of launched GPU work read: built once per load and shared by them
    /// (each built its own before, reading the model four times).
    pub fn gpu_frame(&self) -> Result<Rc<GpuFrame>, String> {
        let profile = self.profile()?;
        Ok(self.pass(&self.gpu_frame, "gpu_frame", "Finding the GPU work and its launches", || GpuFrame::new(&profile)))
    }

    /// The trace viewer's timeline.
    pub fn trace(&self) -> Result<Rc<TraceIndex>, String> {
        if let Some(found) = self.trace.borrow().clone() {
            return Ok(found);
        }
        let (profile, grouping, hlo) = (self.profile()?, self.grouping()?, self.hlo()?);
        let started = self.hooks.now_ms();
        Ok(self.pass(&self.trace, "trace_index", "Building the timeline", || {
            let mut index = TraceIndex::new(&profile, &grouping, &GpuHlo::new(&hlo.modules));
            index.build_ms = self.hooks.now_ms() - started;
            index
        }))
    }

    /// Drops the events and the passes that hold something per event, and
    /// keeps the small results (the host analysis, the XLA ops, decoded tool
    /// files): a run of many hosts keeps few profiles in memory at once. A
    /// later question loads the events again.
    pub fn unload(&self) {
        *self.profile.borrow_mut() = None;
        *self.hlo.borrow_mut() = None;
        *self.grouping.borrow_mut() = None;
        *self.kineto.borrow_mut() = None;
        // Read back from the profile it was built from: it goes with it.
        *self.gpu_frame.borrow_mut() = None;
        *self.trace.borrow_mut() = None;
    }

    /// Whether the events are in memory.
    pub fn is_loaded(&self) -> bool {
        self.profile.borrow().is_some()
    }

    /// A tool's result on this host, if it was kept.
    pub fn output(&self, tool: &str, request: &Request) -> Option<Rc<Output>> {
        self.outputs.get(tool, request)
    }

    /// Keeps a tool's result (the last few) so that coming back to the tool is instant.
    pub fn keep_output(&self, tool: &'static str, request: &Request, output: Rc<Output>) {
        self.outputs.keep(tool, request, output);
    }

    /// How often each of [`PASSES`] ran on this host.
    pub fn pass_runs(&self) -> Vec<(&'static str, u32)> {
        PASSES.iter().copied().zip(self.runs.borrow().iter().copied()).collect()
    }

    /// Wall-clock ms each of [`PASSES`] took on this host, summed over its
    /// runs; `decode` excludes reading the file ([`HostContext::read_ms`]).
    /// Each pass's own work only: the passes it needs are timed apart.
    pub fn pass_ms(&self) -> Vec<(&'static str, f64)> {
        PASSES.iter().copied().zip(self.pass_ms.borrow().iter().copied()).collect()
    }

    /// Wall-clock ms spent reading the file of events, summed over loads.
    pub fn read_ms(&self) -> f64 {
        self.read_ms.get()
    }

    /// Progress for a tool's own work.
    pub fn progress(&self, label: &str) {
        self.hooks.progress(None, label);
    }

    fn pass<T>(&self, slot: &Slot<T>, name: &str, label: &str, compute: impl FnOnce() -> T) -> Rc<T> {
        if let Some(found) = slot.borrow().clone() {
            return found;
        }
        self.hooks.progress(None, label);
        let started = self.hooks.now_ms();
        let value = Rc::new(compute());
        self.count(name);
        self.add_ms(name, self.hooks.now_ms() - started);
        *slot.borrow_mut() = Some(value.clone());
        value
    }

    fn add_ms(&self, name: &str, ms: f64) {
        if let Some(i) = PASSES.iter().position(|p| *p == name) {
            self.pass_ms.borrow_mut()[i] += ms;
            self.hooks.pass_done(PASSES[i]);
        }
    }

    fn count(&self, name: &str) {
        if let Some(i) = PASSES.iter().position(|p| *p == name) {
            self.runs.borrow_mut()[i] += 1;
        }
    }
}

/// Every host's analysis, combined as XProf's "all hosts" (see
/// [`HostAnalysis::combine`]).
pub fn combined_analysis(hosts: &[Rc<HostContext>]) -> Result<HostAnalysis, String> {
    let analyses = hosts.iter().map(|h| h.analysis()).collect::<Result<Vec<_>, _>>()?;
    Ok(HostAnalysis::combine(&analyses.iter().map(|a| a.as_ref()).collect::<Vec<_>>()))
}

/// Every rank's PyTorch index, in the hosts' order.
pub fn kineto_ranks(hosts: &[Rc<HostContext>]) -> Result<Vec<Rc<KinetoIndex>>, String> {
    hosts.iter().map(|h| h.kineto()).collect()
}

/// Tool results kept per host: enough for every tool once.
const KEPT_OUTPUTS: usize = 16;
/// Least time between two progress reports of a decode.
const PROGRESS_INTERVAL_MS: f64 = 50.0;

fn phase_label(p: &Progress) -> &'static str {
    match p {
        Progress::Inflating { .. } => "Decompressing",
        Progress::Parsing => "Reading the protobuf",
        Progress::Building { .. } => "Building the model",
    }
}
