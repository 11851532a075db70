//! The [`Tool`] trait: what every tool of [`crate::registry`] is, and the
//! request, output and error types it speaks. The CLI and the app's worker
//! call tools only through [`crate::registry::run`], so both show the same
//! numbers for the same host.

use super::HostContext;
use crate::passes::kineto::gpu_frame;
use proflens_format::legacy::LegacyTool;
use proflens_model::Origin;
use serde_json::Value;
use std::rc::Rc;

/// One tool: XProf's id and label, what it reads, and how it runs on one
/// host ("map") and on all hosts or ranks of a run together ("reduce").
pub trait Tool: Sync {
    /// XProf's name of the tool (`overview_page`): the CLI's argument, the
    /// app's URL and selector value.
    fn id(&self) -> &'static str;
    /// The name people read (`Overview`).
    fn label(&self) -> &'static str;
    /// The files the tool can show.
    fn inputs(&self) -> Inputs;
    /// The formats its output can be written in.
    fn formats(&self) -> &'static [Format] {
        &[Format::Json, Format::Csv, Format::Xprof]
    }
    /// About how many bytes the tool holds at once per event of the host,
    /// beyond the decoded events and what earlier tools kept, to refuse it
    /// where memory is bounded ([`HostContext::ensure_room`]). The default
    /// covers the tools that keep a few numbers per event, measured with a
    /// counting allocator: 34 bytes for the op and kernel stats of a 1.0 GB
    /// Kineto trace, 31 for its trace viewer and 25 for its memory profile
    /// (their grouping included); for an XSpace, see [`working_bytes_per_event`].
    fn working_bytes_per_event(&self, held: Held) -> u64 {
        working_bytes_per_event(held)
    }
    /// The tool on one host.
    fn run(&self, host: &HostContext, request: &Request) -> Result<Output, ToolError>;
    /// The tool over every host (or PyTorch rank) of a run; the tools whose
    /// [`Inputs`] say neither `all_hosts` nor `all_ranks` describe one host.
    fn combine(&self, _hosts: &[Rc<HostContext>], _request: &Request) -> Result<Output, ToolError> {
        Err(ToolError::OneHost)
    }
}

/// What a host holds when a tool is weighed: what the tool still needs
/// depends on it.
#[derive(Debug, Clone, Copy)]
pub struct Held {
    /// The events' format.
    pub origin: Origin,
    /// Grouping (an XSpace's largest pass) is done and kept.
    pub grouped: bool,
    /// The GPU side's frame of a PyTorch trace
    /// ([`crate::passes::kineto::gpu_frame`]) is built and kept.
    pub gpu_frame: bool,
}

impl Held {
    /// What an analysis over the GPU side's frame holds at once per event,
    /// given `own`, its own work beside the kept frame: only that once the
    /// host keeps the frame, so that the frame is counted once, as the
    /// pass; before, the more of building the frame and of the kept frame
    /// with the tool's work beside it (the build's lists are gone by then).
    pub fn over_gpu_frame(&self, own: u64) -> u64 {
        if self.gpu_frame {
            own
        } else {
            gpu_frame::FRAME_BUILD_BYTES_PER_EVENT.max(gpu_frame::FRAME_BYTES_PER_EVENT + own)
        }
    }
}

/// [`Tool::working_bytes_per_event`]'s default. An XSpace's tools need
/// grouping first, which holds the most
/// ([`proflens_format::load_source::XSPACE_WORKING_BYTES_PER_EVENT`]);
/// once it is kept, the rest took at most 3.6 bytes an event more (the
/// trace viewer's index, 72.5 M events in headless Chromium).
pub fn working_bytes_per_event(held: Held) -> u64 {
    match held.origin {
        Origin::XSpace if held.grouped => 8,
        Origin::XSpace => proflens_format::load_source::XSPACE_WORKING_BYTES_PER_EVENT,
        Origin::Kineto | Origin::ChromeTrace => 40,
    }
}

impl Inputs {
    /// Whether the tool can read tool files of `kind`.
    pub fn reads(&self, kind: &LegacyTool) -> bool {
        self.tool_files.contains(kind) || self.reads_tool_files.contains(kind)
    }
}

/// What a tool reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inputs {
    /// Events that are not a PyTorch trace: an XSpace, or Chrome trace JSON.
    pub xspace: bool,
    /// A PyTorch profiler (Kineto) trace, one rank at a time. A tool with
    /// `all_ranks` but not this (stragglers) reads a job's ranks together only.
    pub kineto: bool,
    /// TensorBoard's legacy per-tool files that hold this tool's numbers.
    pub tool_files: &'static [LegacyTool],
    /// Tool files the tool reads beside the one tool that shows each (the
    /// Advisor reads the input pipeline's and the overview's).
    pub reads_tool_files: &'static [LegacyTool],
    /// The trace (`<host>.trace.json.gz`) beside a host's legacy tool files.
    pub tool_set_trace: bool,
    /// Combines the hosts of a run (XProf's "all hosts").
    pub all_hosts: bool,
    /// Combines the ranks of a PyTorch job.
    pub all_ranks: bool,
}

/// How a result is written: the view model, a CSV table, XProf's JSON, or
/// HolisticTraceAnalysis's numbers in the shape of its goldens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Json,
    Csv,
    Xprof,
    Hta,
    /// Plain text (the graph viewer's HLO text).
    Txt,
    /// An SVG drawing (the graph viewer's graph).
    Svg,
    /// A short Markdown report (the Advisor's, for a pull request).
    Md,
}

impl Format {
    /// The name the CLI takes (`--format xprof`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Xprof => "xprof",
            Format::Hta => "hta",
            Format::Txt => "txt",
            Format::Svg => "svg",
            Format::Md => "md",
        }
    }
}

/// How the op profile groups ops in XProf's JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupBy {
    /// Program → category → op (XProf's default).
    #[default]
    Program,
    /// Category → op.
    Category,
}

/// What the caller asks of a tool beyond the host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The format the output will be written in: tools whose XProf JSON
    /// differs from what Proflens shows (inferred steps) compute XProf's then.
    pub format: Format,
    /// The memory viewer's XLA module (`name(program id)` or the plain name).
    pub module: Option<String>,
    pub group_by: GroupBy,
    /// PyTorch analyses that follow HTA: keep the last `ProfilerStep` and
    /// what it launched (HTA's `include_last_profiler_step=True`); HTA's
    /// default, and Proflens's, leaves it out as often incomplete.
    pub include_last_step: bool,
    /// Graph viewer: the instruction to draw the graph around (default: the
    /// entry's root), the hops around it (default 3) and whether fusions
    /// stay single nodes (XProf's `merge_fusion`).
    pub node: Option<String>,
    pub graph_width: Option<u32>,
    pub merge_fusion: bool,
    /// Critical path: the one step (its place among the host steps, HTA's
    /// instance id) whose path is found; the others are listed without
    /// theirs. `None`: every step's. A page shows one step at a time, and
    /// every step's path of a long trace is about the trace's size.
    pub step: Option<usize>,
    /// Critical path: HTA's `annotation` — the iterations are the host
    /// events whose name contains it (`""`: the whole trace). `None`:
    /// `ProfilerStep`, or on a trace without it Proflens's choice
    /// (`passes::kineto::iterations`).
    pub annotation: Option<String>,
}

/// A tool's result: its view model and the name of the view that renders it.
pub struct Output {
    /// The app's view for the model (`overview_page`, `pytorch_overview`…).
    pub view: &'static str,
    pub model: Box<dyn Rendered>,
}

impl Output {
    pub fn new(view: &'static str, model: impl Rendered + 'static) -> Output {
        Output { view, model: Box::new(model) }
    }

    /// The view model as its own type, when it is a `T`.
    pub fn model_as<T: 'static>(&self) -> Option<&T> {
        self.model.as_ref().as_any().downcast_ref()
    }

    /// (Not in wasm: the page and the worker render models themselves, so the
    /// XProf, HTA and Markdown writers stay out of the worker's size budget.)
    /// The output in `format`, as the CLI writes it.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn text(&self, format: Format) -> Result<String, ToolError> {
        let pretty =
            |v: &Value| serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(|e| ToolError::Failed(e.to_string()));
        match format {
            Format::Json => pretty(&self.model.json()?),
            Format::Xprof => match self.model.xprof_text() {
                Some(text) => text,
                None => pretty(&self.model.xprof()?),
            },
            Format::Hta => pretty(&self.model.hta()?),
            Format::Csv => self.model.csv(),
            Format::Txt => self.model.txt(),
            Format::Svg => self.model.svg(),
            Format::Md => self.model.md(),
        }
    }
}

/// A view model in the three output formats. The app receives the whole
/// model ([`AsSerialize`]); `json` is what `--format json` prints.
pub trait Rendered: AsSerialize {
    /// `--format json`: by default the whole view model.
    fn json(&self) -> Result<Value, ToolError> {
        serde_json::to_value(self.as_serialize()).map_err(|e| ToolError::Failed(e.to_string()))
    }
    /// `--format csv`: the tool's main table.
    fn csv(&self) -> Result<String, ToolError> {
        Err(ToolError::NoFormat("it has no table to write as CSV; use --format json or xprof".into()))
    }
    /// `--format xprof`: XProf 2.24's JSON for the tool.
    #[cfg(not(target_arch = "wasm32"))]
    fn xprof(&self) -> Result<Value, ToolError> {
        Err(ToolError::NoFormat("XProf has no JSON for it; use --format json or csv".into()))
    }
    /// `--format xprof` when XProf's output is text, not JSON (the graph
    /// viewer's long_txt): written as it is.
    #[cfg(not(target_arch = "wasm32"))]
    fn xprof_text(&self) -> Option<Result<String, ToolError>> {
        None
    }
    /// `--format txt`: plain text.
    fn txt(&self) -> Result<String, ToolError> {
        Err(ToolError::NoFormat("it has no text output; use --format json".into()))
    }
    /// `--format svg`: a drawing.
    fn svg(&self) -> Result<String, ToolError> {
        Err(ToolError::NoFormat("it has no drawing; use --format json".into()))
    }
    /// `--format md`: a Markdown report.
    #[cfg(not(target_arch = "wasm32"))]
    fn md(&self) -> Result<String, ToolError> {
        Err(ToolError::NoFormat("it has no Markdown report; use --format json".into()))
    }
    /// `--format hta`: HolisticTraceAnalysis 0.5.0's numbers, shaped as the
    /// goldens made from its API (PyTorch analyses that HTA has).
    #[cfg(not(target_arch = "wasm32"))]
    fn hta(&self) -> Result<Value, ToolError> {
        Err(ToolError::NoFormat("HTA has no analysis like it; use --format json or csv".into()))
    }
    /// The warnings and errors the view shows about its data (the page's
    /// diagnostics box): the CLI repeats them on stderr, whatever the format,
    /// so a CSV or a table read by a script does not hide them.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A view model as a serde value of any serializer (the CLI's JSON, the
/// worker's JS objects).
pub trait AsSerialize {
    fn as_serialize(&self) -> &dyn erased_serde::Serialize;
    /// The model as itself, for code that reads a tool's numbers (comparing
    /// two profiles) rather than rendering them.
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: serde::Serialize + 'static> AsSerialize for T {
    fn as_serialize(&self) -> &dyn erased_serde::Serialize {
        self
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Why a tool has no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// The tool describes one host at a time; the caller names the choice.
    OneHost,
    /// The output has no such format; the sentence says why and what to use.
    NoFormat(String),
    /// A sentence for the user: nothing to show, a bad file…
    Failed(String),
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::OneHost => f.write_str("it describes one host at a time"),
            ToolError::NoFormat(why) | ToolError::Failed(why) => f.write_str(why),
        }
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> ToolError {
        ToolError::Failed(message)
    }
}
