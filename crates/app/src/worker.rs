//! The analysis worker: holds the opened files, decoded profiles and their
//! analyses, and answers [`Request`]s. Runs in a dedicated Web Worker with its own instance
//! of this wasm; decoding is synchronous here, so the page stays responsive
//! and cancelling is `Worker.terminate()`.

use std::cell::RefCell;
use std::rc::Rc;

use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::passes::input_pipeline::HardwareType;
use proflens_analysis::tools::memory_profile::MemoryProfile;
use proflens_analysis::tools::pod_viewer::PodViewer;
use proflens_analysis::passes::kineto::KinetoIndex;
use proflens_analysis::tools::tf_data::TfDataAnalysis;
use proflens_analysis::passes::xla_ops::XlaOpDb;
use proflens_format::legacy::{self, LegacyTool};
use proflens_format::logdir::{self, HostFiles};
use proflens_format::logdir_index;
use proflens_format::{Limits, Progress};
use proflens_model::hlo::HloModule;
use proflens_model::Origin;
use proflens_model::Profile;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    DedicatedWorkerGlobalScope, File, FileReaderSync, MessageEvent, XmlHttpRequest, XmlHttpRequestResponseType,
};

use crate::protocol::{self, LoadStats, Request, Response, RunEntry, SkippedEntry, ToolView, TraceAnswer, TraceQuery};
use crate::tools::trace_viewer::queries::{self as trace_queries, TraceData};
use crate::tools::Tool;

/// The demo profile: one host of a small TensorFlow custom training loop.
const DEMO_PROFILE: &[u8] =
    include_bytes!("../../../tests/data/xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb");
pub const DEMO_RUN: &str = "custom_loop (demo)";
pub const DEMO_HOST: &str = "vm";
/// Run name for files that sit in no folder.
const LOOSE_RUN: &str = "Selected files";
/// Decoded profiles (with their analyses) kept for quick switching between hosts.
const CACHE_SIZE: usize = 2;
/// Least time between two progress messages.
const PROGRESS_INTERVAL_MS: f64 = 50.0;

enum Source {
    Files(Vec<(String, File)>),
    /// A log directory served on the page's origin: its URL and the files'
    /// paths below it, as its index lists them.
    Logdir {
        base: String,
        paths: Vec<String>,
    },
    Demo,
}

struct HostEntry {
    run: String,
    host: String,
    /// Indices into the source's files (0 for the demo).
    files: HostFiles,
}

/// A decoded host: its profile, what loading it cost and, once a step-based
/// tool asked for it, its analysis (computed once, shared by those tools).
#[derive(Clone)]
struct Decoded {
    /// Index into the source's files.
    file: usize,
    profile: Rc<Profile>,
    load: LoadStats,
    analysis: Option<Rc<HostAnalysis>>,
    /// The trace viewer's timeline and how long it took to build (ms).
    trace: Option<(Rc<TraceData>, f64)>,
    /// The memory profile, once asked for.
    memory: Option<Rc<MemoryProfile>>,
    /// The tf.data bottleneck analysis, once asked for.
    tf_data: Option<Rc<TfDataAnalysis>>,
    /// The XLA modules' HLO, once a tool asked.
    hlo: Option<Rc<Hlo>>,
    /// The device's XLA ops, once an XLA tool asked.
    xla_ops: Option<Rc<XlaOpDb>>,
    /// A PyTorch trace's events by role, once a PyTorch tool asked.
    kineto: Option<Rc<KinetoIndex>>,
}

/// The HLO of a profile's XLA programs.
struct Hlo {
    modules: Vec<HloModule>,
    /// Why some modules' HLO could not be read.
    errors: Vec<String>,
}

struct State {
    source: Option<Source>,
    hosts: Vec<HostEntry>,
    /// Most recently used first.
    cache: Vec<Decoded>,
    /// The last run analysed as a whole: (run, combined analysis).
    all_hosts: Option<(String, Rc<HostAnalysis>)>,
    /// The last run's pod viewer over all its hosts: (run, view).
    all_hosts_pod: Option<(String, Rc<PodViewer>)>,
}

thread_local! {
    static STATE: RefCell<State> = const {
        RefCell::new(State { source: None, hosts: Vec::new(), cache: Vec::new(), all_hosts: None, all_hosts_pod: None })
    };
}

/// The host-selector entry that stands for every host of a run together.
pub const ALL_HOSTS: &str = "All hosts";

/// Installs the message handler and says `ready`.
pub fn install() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        let reply = match protocol::open_envelope(&event.data()) {
            Ok((request, files)) => handle(request, files),
            Err(e) => Some(Response::Error {
                message: format!("Proflens sent its analysis worker a message it could not read ({e})."),
            }),
        };
        if let Some(reply) = reply {
            post(&reply);
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&Response::Ready);
}

fn post(response: &Response) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let message = match protocol::to_js(response) {
        Ok(m) => m,
        Err(e) => match protocol::to_js(&Response::Error {
            message: format!("Proflens could not pass a result from its analysis worker ({e})."),
        }) {
            Ok(m) => m,
            Err(_) => return,
        },
    };
    // Posting a plain object cannot fail; nothing to tell anyone if it does.
    let _ = scope.post_message(&message);
}

/// The answer to a request; `None` when it was posted already (an export,
/// whose file goes beside the message).
fn handle(request: Request, files: Vec<File>) -> Option<Response> {
    Some(match request {
        Request::Open { paths } => {
            let named: Vec<(String, File)> = paths.into_iter().zip(files).collect();
            open_files(named)
        }
        Request::OpenDemo => STATE.with_borrow_mut(|state| {
            state.source = Some(Source::Demo);
            state.cache.clear();
            state.all_hosts = None;
            state.all_hosts_pod = None;
            state.hosts =
                vec![HostEntry { run: DEMO_RUN.to_string(), host: DEMO_HOST.to_string(), files: HostFiles::Events(0) }];
            Response::Logdir {
                runs: vec![RunEntry { name: DEMO_RUN.to_string(), hosts: vec![DEMO_HOST.to_string()] }],
                skipped: Vec::new(),
            }
        }),
        Request::OpenLogdirUrl { logdir } => open_logdir_url(&logdir),
        Request::Tool { run, host, tool, module } => match tool_view(&run, &host, tool, module.as_deref()) {
            Ok(view) => Response::Tool { run, host, view },
            Err(message) => Response::Error { message },
        },
        Request::Trace { run, host, seq, query } => return trace_query(run, host, seq, query),
    })
}

/// Answers a trace-viewer query from the host's cached timeline.
fn trace_query(run: String, host: String, seq: u32, query: TraceQuery) -> Option<Response> {
    let data = decoded(&run, &host).map(|d| (d.profile.clone(), trace_of(&d).0));
    let answer = |answer: TraceAnswer| Some(Response::Trace { run: run.clone(), host: host.clone(), seq, answer });
    let (profile, data) = match data {
        Ok(found) => found,
        Err(message) => return answer(TraceAnswer::Failed { message }),
    };
    let started = js_sys::Date::now();
    match query {
        TraceQuery::Window { tracks, start_ps, end_ps, width_px } => {
            let mut window = trace_queries::window(&profile, &data, &tracks, start_ps, end_ps, width_px);
            window.compute_ms = js_sys::Date::now() - started;
            answer(TraceAnswer::Window { window: Box::new(window) })
        }
        TraceQuery::Event { track, event } => answer(trace_queries::event(&profile, &data, track, event)),
        TraceQuery::Links { track, event } => answer(trace_queries::links_of(&profile, &data, track, event)),
        TraceQuery::Search { pattern, regex, limit } => {
            answer(trace_queries::search(&profile, &data, &pattern, regex, limit))
        }
        TraceQuery::Summary { tracks, start_ps, end_ps } => {
            answer(trace_queries::summary(&profile, &data, &tracks, start_ps, end_ps))
        }
        TraceQuery::Export { range } => {
            let mut out = ChunkWriter::default();
            let written =
                trace_queries::export(&profile, &data, range, &mut out).and_then(|n| out.finish().map(|b| (n, b)));
            let (events, blob) = match written {
                Ok(found) => found,
                Err(e) => {
                    return answer(TraceAnswer::Failed { message: format!("The trace could not be exported ({e}).") })
                }
            };
            let file_name = format!("{}{}.trace.json", host, if range.is_some() { ".selection" } else { "" });
            let response =
                Response::Trace { run, host, seq, answer: TraceAnswer::Export { file_name, events, bytes: out.total } };
            match protocol::to_js(&response) {
                Ok(message) => {
                    let _ = js_sys::Reflect::set(&message, &JsValue::from_str("blob"), &blob);
                    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
                    let _ = scope.post_message(&message);
                    None
                }
                Err(e) => Some(Response::Error { message: format!("Proflens could not pass the export on ({e}).") }),
            }
        }
    }
}

/// Collects written bytes into a `Blob` a few MiB at a time, so that a
/// trace of any size never sits whole in wasm memory.
#[derive(Default)]
struct ChunkWriter {
    chunks: Vec<js_sys::Uint8Array>,
    buffer: Vec<u8>,
    total: u64,
}

impl ChunkWriter {
    const CHUNK: usize = 4 << 20;

    fn flush_chunk(&mut self) {
        if !self.buffer.is_empty() {
            self.chunks.push(js_sys::Uint8Array::from(self.buffer.as_slice()));
            self.buffer.clear();
        }
    }

    fn finish(&mut self) -> std::io::Result<web_sys::Blob> {
        self.flush_chunk();
        let parts: js_sys::Array = self.chunks.drain(..).map(JsValue::from).collect();
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("application/json");
        web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
            .map_err(|_| std::io::Error::other("the browser refused to make the file"))
    }
}

impl std::io::Write for ChunkWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        self.total += bytes.len() as u64;
        if self.buffer.len() >= Self::CHUNK {
            self.flush_chunk();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The host's timeline for the trace viewer: built once, cached beside the
/// profile. Returns it with the time building it took (ms).
fn trace_of(decoded: &Decoded) -> (Rc<TraceData>, f64) {
    let hlo = hlo_of(decoded);
    cached(
        decoded,
        |d| &mut d.trace,
        "Building the timeline",
        || {
            let started = js_sys::Date::now();
            (Rc::new(TraceData::new(&decoded.profile, &hlo.modules)), js_sys::Date::now() - started)
        },
    )
}

/// A host's result computed once and kept beside its profile in the cache
/// (`slot` says where); `label` is the progress shown while it is computed.
fn cached<T: Clone>(
    decoded: &Decoded,
    slot: fn(&mut Decoded) -> &mut Option<T>,
    label: &str,
    compute: impl FnOnce() -> T,
) -> T {
    if let Some(found) = slot(&mut decoded.clone()).clone() {
        return found;
    }
    progress_now(None, label);
    let value = compute();
    STATE.with_borrow_mut(|state| {
        if let Some(entry) = state.cache.iter_mut().find(|d| d.file == decoded.file) {
            *slot(entry) = Some(value.clone());
        }
    });
    value
}

/// The view model of `tool` for one host: decodes and analyses the host
/// when that is not cached yet.
fn tool_view(run: &str, host: &str, tool: Tool, module: Option<&str>) -> Result<ToolView, String> {
    if host == ALL_HOSTS {
        return all_hosts_view(run, tool);
    }
    let files = host_files(run, host)?;
    if let HostFiles::Tools { tools, trace } = &files {
        post_host_tools(run, host, legacy_tools(tools, trace.is_some()));
        if let Some(&(_, file)) = tools.iter().find(|(t, _)| app_tool(*t) == Some(tool)) {
            return legacy_view(file);
        }
        if trace.is_none() || !matches!(tool, Tool::TraceViewer | Tool::Info) {
            let names = tool_labels(tools);
            return Err(format!(
                "Host “{host}” has TensorBoard tool files for {} only; the {} needs a profile (*.xplane.pb).",
                names.join(", "),
                tool.label()
            ));
        }
    }
    let decoded = match decoded(run, host) {
        Ok(decoded) => decoded,
        Err(e) => {
            // A TensorBoard tool file in JSON, named like a trace, shown in its own tool.
            let by_content = match files {
                HostFiles::Events(file) => legacy_by_content(file, tool, |found| {
                    post_host_tools(run, host, found.into_iter().collect());
                }),
                HostFiles::Tools { .. } => None,
            };
            return by_content.unwrap_or(Err(e));
        }
    };
    let kineto = decoded.profile.origin == Origin::Kineto;
    post_host_tools(run, host, if kineto { PYTORCH_TOOLS.to_vec() } else { Tool::ALL.to_vec() });
    if kineto {
        if let Some(view) = pytorch_view(tool, vec![(host.to_string(), kineto_of(&decoded))]) {
            return view;
        }
    }
    Ok(match tool {
        Tool::Info => {
            progress_now(None, "Summarising");
            ToolView::Info { info: proflens_analysis::tools::info::host_info(&decoded.profile), load: decoded.load }
        }
        Tool::OverviewPage => {
            let analysis = analysis_of(&decoded);
            progress_now(None, "Preparing the overview");
            ToolView::OverviewPage { page: Box::new(analysis.overview()) }
        }
        Tool::InputPipelineAnalyzer => {
            let analysis = analysis_of(&decoded);
            progress_now(None, "Analysing the input pipeline");
            ToolView::InputPipelineAnalyzer { analysis: Box::new(analysis.input_pipeline()) }
        }
        Tool::FrameworkOpStats => {
            let analysis = analysis_of(&decoded);
            progress_now(None, "Collecting op statistics");
            ToolView::FrameworkOpStats { stats: Box::new(analysis.framework_op_stats()) }
        }
        Tool::KernelStats => {
            let analysis = analysis_of(&decoded);
            ToolView::KernelStats { kernels: analysis.kernels.clone(), hardware: analysis.environment.hardware_type }
        }
        Tool::MemoryProfile => ToolView::MemoryProfile { profile: Box::new((*memory_of(&decoded)).clone()) },
        Tool::PodViewer => {
            let analysis = analysis_of(&decoded);
            let pod = proflens_analysis::tools::pod_viewer::pod_viewer(&[(analysis.as_ref(), host.to_string())]);
            ToolView::PodViewer { pod: Box::new(pod) }
        }
        Tool::TfDataBottleneckAnalysis => {
            ToolView::TfDataBottleneckAnalysis { analysis: Box::new((*tf_data_of(&decoded, host)).clone()) }
        }
        Tool::OpProfile => {
            let names = proflens_analysis::passes::xla_ops::program_names(&hlo_of(&decoded).modules);
            let profile = proflens_analysis::tools::op_profile::op_profile(&xla_ops_of(&decoded), &names);
            ToolView::OpProfile { profile: Box::new(profile) }
        }
        Tool::HloStats => {
            ToolView::HloStats { stats: Box::new(proflens_analysis::tools::hlo_stats::hlo_stats(&xla_ops_of(&decoded))) }
        }
        Tool::MemoryViewer => memory_viewer_view(&hlo_of(&decoded), module),
        Tool::TraceViewer => {
            let (data, build_ms) = trace_of(&decoded);
            let layout = trace_queries::layout(&decoded.profile, &data, build_ms, wasm_memory_bytes());
            ToolView::TraceViewer { layout: Box::new(layout) }
        }
    })
}

/// The tools that combine every host of a run.
const ALL_HOSTS_TOOLS: [Tool; 6] = [
    Tool::OverviewPage,
    Tool::InputPipelineAnalyzer,
    Tool::FrameworkOpStats,
    Tool::KernelStats,
    Tool::PodViewer,
    Tool::TfDataBottleneckAnalysis,
];

/// The tools that combine every rank of a PyTorch job.
const ALL_RANKS_TOOLS: [Tool; 3] = [Tool::OverviewPage, Tool::FrameworkOpStats, Tool::KernelStats];

/// A tool over every host of a run, as XProf's "all hosts".
fn all_hosts_view(run: &str, tool: Tool) -> Result<ToolView, String> {
    // The ranks of a PyTorch job, side by side.
    if let Some(first) = hosts_of(run).first() {
        let events = matches!(host_files(run, first)?, HostFiles::Events(_));
        let kineto = events && decoded(run, first)?.profile.origin == Origin::Kineto;
        if events {
            post_host_tools(run, ALL_HOSTS, if kineto { ALL_RANKS_TOOLS.to_vec() } else { ALL_HOSTS_TOOLS.to_vec() });
        }
        if kineto {
            let mut ranks = Vec::new();
            for host in hosts_of(run) {
                ranks.push((host.clone(), kineto_of(&decoded(run, &host)?)));
            }
            if let Some(view) = pytorch_view(tool, ranks) {
                return view;
            }
        }
    }
    let analysis = || all_hosts_analysis(run);
    Ok(match tool {
        Tool::Info => return Err("Profile info describes one host at a time: choose a host above.".to_string()),
        Tool::TraceViewer => return Err("The trace viewer shows one host at a time: choose a host above.".to_string()),
        Tool::MemoryProfile => {
            return Err("The memory profile shows one host's allocators at a time: choose a host above.".to_string())
        }
        Tool::OpProfile | Tool::HloStats | Tool::MemoryViewer => {
            return Err(format!("The {} shows one host's XLA programs at a time: choose a host above.", tool.label()))
        }
        Tool::OverviewPage => ToolView::OverviewPage { page: Box::new(analysis()?.overview()) },
        Tool::InputPipelineAnalyzer => {
            ToolView::InputPipelineAnalyzer { analysis: Box::new(analysis()?.input_pipeline()) }
        }
        Tool::FrameworkOpStats => ToolView::FrameworkOpStats { stats: Box::new(analysis()?.framework_op_stats()) },
        Tool::KernelStats => {
            let analysis = analysis()?;
            ToolView::KernelStats { kernels: analysis.kernels.clone(), hardware: analysis.environment.hardware_type }
        }
        Tool::PodViewer => ToolView::PodViewer { pod: Box::new((*all_hosts_pod_viewer(run)?).clone()) },
        Tool::TfDataBottleneckAnalysis => {
            // Every host's pipelines, the most input-bound host first (XProf's cross-host step).
            let mut analyses = Vec::new();
            for host in hosts_of(run) {
                analyses.push((*tf_data_of(&decoded(run, &host)?, &host)).clone());
            }
            ToolView::TfDataBottleneckAnalysis { analysis: Box::new(proflens_analysis::tools::tf_data::combine(analyses)) }
        }
    })
}

/// The hosts of a run, in the selector's order.
fn hosts_of(run: &str) -> Vec<String> {
    STATE.with_borrow(|s| s.hosts.iter().filter(|h| h.run == run).map(|h| h.host.clone()).collect())
}

/// Every host of the run analysed, then combined (cached for the last run).
fn all_hosts_analysis(run: &str) -> Result<Rc<HostAnalysis>, String> {
    if let Some(cached) = STATE.with_borrow(|s| s.all_hosts.as_ref().filter(|(r, _)| r == run).map(|(_, a)| a.clone()))
    {
        return Ok(cached);
    }
    let hosts = hosts_of(run);
    let mut analyses = Vec::with_capacity(hosts.len());
    for host in &hosts {
        analyses.push(analysis_of(&decoded(run, host)?));
    }
    progress_now(None, "Combining the hosts");
    let combined = Rc::new(HostAnalysis::combine(&analyses.iter().map(|a| a.as_ref()).collect::<Vec<_>>()));
    STATE.with_borrow_mut(|s| s.all_hosts = Some((run.to_string(), combined.clone())));
    Ok(combined)
}

/// The host's analysis (grouping, steps, op metrics): one pass, cached beside
/// the profile and shared by every step-based tool.
fn analysis_of(decoded: &Decoded) -> Rc<HostAnalysis> {
    let hlo = hlo_of(decoded);
    cached(
        decoded,
        |d| &mut d.analysis,
        "Analysing steps and ops",
        || Rc::new(HostAnalysis::with_hlo(&decoded.profile, &hlo.modules)),
    )
}

/// The pod viewer over every host of the run, each host under its name in
/// the host selector (cached for the last run).
fn all_hosts_pod_viewer(run: &str) -> Result<Rc<PodViewer>, String> {
    if let Some(cached) =
        STATE.with_borrow(|s| s.all_hosts_pod.as_ref().filter(|(r, _)| r == run).map(|(_, p)| p.clone()))
    {
        return Ok(cached);
    }
    let hosts = hosts_of(run);
    let mut analyses = Vec::with_capacity(hosts.len());
    for host in hosts {
        analyses.push((analysis_of(&decoded(run, &host)?), host));
    }
    progress_now(None, "Comparing the hosts step by step");
    let named: Vec<(&HostAnalysis, String)> = analyses.iter().map(|(a, h)| (a.as_ref(), h.clone())).collect();
    let pod = Rc::new(proflens_analysis::tools::pod_viewer::pod_viewer(&named));
    STATE.with_borrow_mut(|s| s.all_hosts_pod = Some((run.to_string(), pod.clone())));
    Ok(pod)
}

/// The host's memory profile: computed once, cached beside the profile.
fn memory_of(decoded: &Decoded) -> Rc<MemoryProfile> {
    cached(
        decoded,
        |d| &mut d.memory,
        "Following the allocators",
        || {
            let grouping = proflens_analysis::passes::grouping::group_events(&decoded.profile);
            Rc::new(proflens_analysis::tools::memory_profile::memory_profile(&decoded.profile, &grouping))
        },
    )
}

/// The tools that show PyTorch traces, in the selector's order.
const PYTORCH_TOOLS: [Tool; 6] =
    [Tool::OverviewPage, Tool::FrameworkOpStats, Tool::KernelStats, Tool::MemoryProfile, Tool::TraceViewer, Tool::Info];

/// The tools of PyTorch traces (`ranks`: one index per rank): `None` for
/// those that take the XSpace path (trace viewer, memory profile, info).
fn pytorch_view(tool: Tool, ranks: Vec<(String, Rc<KinetoIndex>)>) -> Option<Result<ToolView, String>> {
    use proflens_analysis::passes::kineto::{operators, overview};
    let indexes: Vec<&KinetoIndex> = ranks.iter().map(|(_, i)| i.as_ref()).collect();
    Some(Ok(match tool {
        Tool::TraceViewer | Tool::MemoryProfile | Tool::Info => return None,
        Tool::OverviewPage => {
            progress_now(None, "Breaking the steps down");
            let refs: Vec<(String, &KinetoIndex)> = ranks.iter().map(|(h, i)| (h.clone(), i.as_ref())).collect();
            ToolView::PytorchOverview { overview: Box::new(overview::multi_rank(&refs)) }
        }
        Tool::FrameworkOpStats => ToolView::OperatorStats { rows: operators::operator_stats_of_ranks(&indexes) },
        Tool::KernelStats => {
            ToolView::KernelStats { kernels: operators::kernel_stats_of_ranks(&indexes), hardware: HardwareType::Gpu }
        }
        other => {
            let labels: Vec<&str> = PYTORCH_TOOLS.iter().map(|t| t.label()).collect();
            return Some(Err(format!(
                "The {} is a TensorFlow/JAX tool; a PyTorch trace has these: {}.",
                other.label(),
                labels.join(", ")
            )));
        }
    }))
}

/// The PyTorch trace's index: built once, cached beside the profile.
fn kineto_of(decoded: &Decoded) -> Rc<KinetoIndex> {
    cached(decoded, |d| &mut d.kineto, "Indexing the PyTorch trace", || Rc::new(KinetoIndex::new(&decoded.profile)))
}

/// The app's tool for a legacy tool file.
fn app_tool(tool: LegacyTool) -> Option<Tool> {
    Tool::from_id(tool.xprof_tool())
}

/// The tools of a host's legacy files (with a trace: the trace viewer and
/// profile info too), in the selector's order.
fn legacy_tools(tools: &[(LegacyTool, usize)], trace: bool) -> Vec<Tool> {
    let mut found: Vec<Tool> = tools.iter().filter_map(|(t, _)| app_tool(*t)).collect();
    if trace {
        found.extend([Tool::TraceViewer, Tool::Info]);
    }
    found.sort_by_key(|t| Tool::ALL.iter().position(|a| a == t));
    found.dedup();
    found
}

fn tool_labels(tools: &[(LegacyTool, usize)]) -> Vec<&'static str> {
    legacy_tools(tools, false).into_iter().map(Tool::label).collect()
}

fn tool_label(tool: LegacyTool) -> &'static str {
    app_tool(tool).map_or(tool.file_stem(), Tool::label)
}

/// The opened file's path (its name for messages and name-based recognition).
fn file_name(file: usize) -> String {
    STATE
        .with_borrow(|state| match &state.source {
            Some(Source::Files(files)) => files.get(file).map(|(p, _)| p.clone()),
            Some(Source::Logdir { paths, .. }) => paths.get(file).cloned(),
            _ => None,
        })
        .unwrap_or_default()
}

/// `file` as the legacy tool file it is, if it is one for `tool`;
/// `recognised` learns which tool it is for, whatever `tool` is.
fn legacy_by_content(
    file: usize,
    tool: Tool,
    recognised: impl FnOnce(Option<Tool>),
) -> Option<Result<ToolView, String>> {
    let bytes = read_bytes(file).ok()?;
    let name = file_name(file);
    let found = legacy::recognise(&name, &bytes, &Limits::default())?;
    recognised(app_tool(found));
    (app_tool(found) == Some(tool)).then(|| legacy_view_of(&name, &bytes))
}

/// Tells the page which tools have something to show for a host.
fn post_host_tools(run: &str, host: &str, tools: Vec<Tool>) {
    post(&Response::HostTools { run: run.to_string(), host: host.to_string(), tools });
}

/// A TensorBoard tool file shown in the matching tool.
fn legacy_view(file: usize) -> Result<ToolView, String> {
    progress_now(None, "Reading the tool file");
    legacy_view_of(&file_name(file), &read_bytes(file)?)
}

fn legacy_view_of(name: &str, bytes: &[u8]) -> Result<ToolView, String> {
    use proflens_analysis::common::legacy::LegacyView;
    let decoded = legacy::decode(name, bytes, &Limits::default()).map_err(|e| e.to_string())?;
    let view = proflens_analysis::common::legacy::view(&decoded).map_err(|e| e.to_string())?;
    let shown = match view {
        LegacyView::Overview(page) => ToolView::OverviewPage { page },
        LegacyView::InputPipeline(analysis) => ToolView::InputPipelineAnalyzer { analysis },
        LegacyView::FrameworkOpStats(stats) => ToolView::FrameworkOpStats { stats: Box::new(stats) },
        LegacyView::KernelStats(kernels) => ToolView::KernelStats { kernels, hardware: HardwareType::Gpu },
        LegacyView::PodViewer(pod) => ToolView::PodViewer { pod: Box::new(pod) },
        LegacyView::MemoryProfile(profile) => ToolView::MemoryProfile { profile: Box::new(profile) },
        LegacyView::OpProfile(profile) => ToolView::OpProfile { profile },
        LegacyView::MemoryViewer(viewer) => ToolView::MemoryViewer {
            modules: vec![viewer.module_name.clone()],
            module: viewer.module_name.clone(),
            viewer: Some(viewer),
            failed: None,
        },
    };
    Ok(shown)
}

/// The host's XLA modules: decoded once, cached beside the profile.
fn hlo_of(decoded: &Decoded) -> Rc<Hlo> {
    cached(
        decoded,
        |d| &mut d.hlo,
        "Reading the XLA programs",
        || {
            let found = proflens_format::hlo::hlo_modules(&decoded.profile);
            Rc::new(Hlo { errors: found.errors.iter().map(|e| e.to_string()).collect(), modules: found.modules })
        },
    )
}

/// The host's XLA ops: computed once, cached beside the profile.
fn xla_ops_of(decoded: &Decoded) -> Rc<XlaOpDb> {
    let hlo = hlo_of(decoded);
    cached(
        decoded,
        |d| &mut d.xla_ops,
        "Measuring the XLA ops",
        || {
            let grouping = proflens_analysis::passes::grouping::group_events(&decoded.profile);
            Rc::new(proflens_analysis::passes::xla_ops::xla_ops(&decoded.profile, &grouping, &hlo.modules))
        },
    )
}

/// The memory viewer of `module` (default: the module with the most memory).
fn memory_viewer_view(hlo: &Hlo, module: Option<&str>) -> ToolView {
    use proflens_analysis::tools::memory_viewer::{memory_viewer, select_module};
    let modules: Vec<String> = hlo.modules.iter().map(|m| m.display_name()).collect();
    let chosen = select_module(&hlo.modules, module).or_else(|| select_module(&hlo.modules, None));
    let Some(chosen) = chosen else {
        let failed = match hlo.errors.first() {
            Some(e) => format!("The profile's XLA programs could not be read: {e}"),
            None => "This profile records no XLA program (no HLO in its /host:metadata plane), so there is no buffer assignment to show.".to_string(),
        };
        return ToolView::MemoryViewer { modules, module: String::new(), viewer: None, failed: Some(failed) };
    };
    progress_now(None, "Laying out the buffers");
    let name = chosen.display_name();
    match memory_viewer(chosen, 0) {
        Ok(viewer) => ToolView::MemoryViewer { modules, module: name, viewer: Some(Box::new(viewer)), failed: None },
        Err(e) => ToolView::MemoryViewer {
            modules,
            module: name.clone(),
            viewer: None,
            failed: Some(format!("The buffers of {name} cannot be shown: {e}")),
        },
    }
}

/// The host's tf.data bottleneck analysis: computed once, cached beside the profile.
fn tf_data_of(decoded: &Decoded, host: &str) -> Rc<TfDataAnalysis> {
    cached(
        decoded,
        |d| &mut d.tf_data,
        "Analysing the tf.data pipelines",
        || Rc::new(proflens_analysis::tools::tf_data::analyze(&decoded.profile, host)),
    )
}

fn open_files(files: Vec<(String, File)>) -> Response {
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    // JSON is a profile only if it holds trace events or a tool's output:
    // a look at the start of each JSON file decides, before it is listed.
    let rejected: Vec<(usize, &'static str)> = files
        .iter()
        .enumerate()
        .filter(|(_, (path, _))| {
            let name = path.rsplit('/').next().unwrap_or(path);
            logdir::trace_host_name(name).is_some() && legacy::tool_file(name).is_none()
        })
        .filter_map(|(i, (_, file))| match read_head(file) {
            Some(head) => proflens_format::sniff::check_json_head(&head).err().map(|why| (i, why)),
            None => Some((i, "could not be read")),
        })
        .collect();
    if rejected.is_empty() || paths.len() == 1 {
        return open_source(&paths, Source::Files(files));
    }
    // Runs are named from the accepted files only; the others are listed as skipped.
    let listed: Vec<String> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| if rejected.iter().any(|(r, _)| *r == i) { String::new() } else { p.clone() })
        .collect();
    match open_source(&listed, Source::Files(files)) {
        Response::Logdir { runs, mut skipped } => {
            for (file, why) in &rejected {
                skipped.push(SkippedEntry { path: paths[*file].clone(), reason: why.to_string() });
            }
            Response::Logdir { runs, skipped }
        }
        other => other,
    }
}

/// The first bytes of a file, for a look at what it is.
fn read_head(file: &File) -> Option<Vec<u8>> {
    let head = file.slice_with_i32_and_i32(0, proflens_format::sniff::JSON_HEAD_BYTES as i32).ok()?;
    let buffer = FileReaderSync::new().ok()?.read_as_array_buffer(&head).ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Lists the runs of a served log directory from its `proflens-index.json`.
fn open_logdir_url(logdir: &str) -> Response {
    let base = logdir.trim_end_matches('/').to_string();
    let index_url = format!("{base}/{}", logdir_index::FILE_NAME);
    let index = match fetch_bytes(&index_url) {
        Ok(bytes) => bytes,
        Err(e) => return Response::Error { message: format!("The log directory's index {index_url} could not be read: {e}. Write it with `proflens-collect index LOGDIR`.") },
    };
    match logdir_index::paths(&index) {
        Ok(paths) => open_source(&paths, Source::Logdir { base, paths: paths.clone() }),
        Err(e) => Response::Error { message: format!("{index_url} is not a Proflens index: {e}.") },
    }
}

/// Runs and hosts of the files at `paths`, kept as the worker's source.
fn open_source(paths: &[String], source: Source) -> Response {
    let found = logdir::discover_any(paths.iter().map(String::as_str), LOOSE_RUN);
    let mut hosts: Vec<HostEntry> = found
        .runs
        .iter()
        .flat_map(|run| {
            run.hosts.iter().map(|h| HostEntry { run: run.name.clone(), host: h.name.clone(), files: h.files.clone() })
        })
        .collect();
    // Runs of several hosts offer them all together first, as XProf does.
    let mut runs: Vec<RunEntry> = found
        .runs
        .iter()
        .map(|r| {
            let all = (r.hosts.len() > 1).then(|| ALL_HOSTS.to_string());
            RunEntry {
                name: r.name.clone(),
                hosts: all.into_iter().chain(r.hosts.iter().map(|h| h.name.clone())).collect(),
            }
        })
        .collect();
    let mut skipped: Vec<SkippedEntry> =
        found.skipped.iter().map(|s| SkippedEntry { path: s.path.clone(), reason: s.reason.to_string() }).collect();
    // One file of any name: let content sniffing decide whether it is a profile.
    if hosts.is_empty() && paths.len() == 1 {
        let host = loose_host_name(&paths[0]);
        hosts.push(HostEntry { run: LOOSE_RUN.to_string(), host: host.clone(), files: HostFiles::Events(0) });
        runs = vec![RunEntry { name: LOOSE_RUN.to_string(), hosts: vec![host] }];
        skipped.clear();
    }
    STATE.with_borrow_mut(|state| {
        state.source = Some(source);
        state.hosts = hosts;
        state.cache.clear();
        state.all_hosts = None;
        state.all_hosts_pod = None;
    });
    Response::Logdir { runs, skipped }
}

/// `dir/name.ext` → `name`; a name that is all extension stays whole.
fn loose_host_name(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => name[..dot].to_string(),
        _ if name.is_empty() => "file".to_string(),
        _ => name.to_string(),
    }
}

/// The files of a host of the opened source.
fn host_files(run: &str, host: &str) -> Result<HostFiles, String> {
    STATE
        .with_borrow(|state| state.hosts.iter().find(|h| h.run == run && h.host == host).map(|h| h.files.clone()))
        .ok_or_else(|| format!("There is no host “{host}” in run “{run}” among the opened files."))
}

fn decoded(run: &str, host: &str) -> Result<Decoded, String> {
    let file = match host_files(run, host)? {
        HostFiles::Events(file) | HostFiles::Tools { trace: Some(file), .. } => file,
        HostFiles::Tools { tools, trace: None } => {
            let names = tool_labels(&tools);
            return Err(format!(
                "Host “{host}” has only TensorBoard tool files ({}), no events: choose one of those tools.",
                names.join(", ")
            ));
        }
    };
    let cached = STATE.with_borrow_mut(|state| {
        let pos = state.cache.iter().position(|d| d.file == file)?;
        let entry = state.cache.remove(pos);
        state.cache.insert(0, entry.clone());
        Some(entry)
    });
    if let Some(found) = cached {
        return Ok(found);
    }

    progress_now(Some(0.0), "Reading the file");
    let started = js_sys::Date::now();
    let bytes = read_bytes(file)?;
    let mut last_post = f64::NEG_INFINITY;
    let mut on_progress = |p: Progress| {
        let now = js_sys::Date::now();
        if now - last_post >= PROGRESS_INTERVAL_MS {
            last_post = now;
            progress_now(Some(p.fraction()), phase_label(&p));
        }
    };
    let profile = match proflens_format::load_profile(&bytes, &Limits::default(), &mut on_progress) {
        Ok(profile) => profile,
        // A TensorBoard tool file in JSON whose name did not say so.
        Err(e) => {
            let name = file_name(file);
            return Err(match legacy::recognise(&name, &bytes, &Limits::default()) {
                Some(tool) => format!(
                    "“{name}” is TensorBoard's {} output, not a trace: choose the {} tool.",
                    tool.file_stem(),
                    tool_label(tool)
                ),
                None => e.to_string(),
            });
        }
    };
    let load = LoadStats {
        file_bytes: bytes.len() as u64,
        decode_ms: js_sys::Date::now() - started,
        wasm_memory_bytes: wasm_memory_bytes(),
    };
    drop(bytes);
    let entry = Decoded {
        file,
        profile: Rc::new(profile),
        load,
        analysis: None,
        trace: None,
        memory: None,
        tf_data: None,
        hlo: None,
        xla_ops: None,
        kineto: None,
    };
    STATE.with_borrow_mut(|state| {
        state.cache.insert(0, entry.clone());
        state.cache.truncate(CACHE_SIZE);
    });
    Ok(entry)
}

/// Size of this worker's wasm memory: it only grows, so it is the peak so far.
fn wasm_memory_bytes() -> u64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map(|m| m.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as u64)
        .unwrap_or(0)
}

fn read_bytes(file: usize) -> Result<Vec<u8>, String> {
    let served = STATE.with_borrow(|state| match &state.source {
        Some(Source::Logdir { base, paths }) => paths.get(file).map(|p| format!("{base}/{p}")),
        _ => None,
    });
    if let Some(url) = served {
        return fetch_bytes(&url).map_err(|e| format!("The profile {url} could not be fetched: {e}."));
    }
    let source = STATE.with_borrow(|state| match &state.source {
        Some(Source::Demo) => Ok(None),
        Some(Source::Logdir { .. }) => Err("The file of this host is no longer listed.".to_string()),
        Some(Source::Files(files)) => files
            .get(file)
            .map(|(path, f)| Some((path.clone(), f.clone())))
            .ok_or_else(|| "The file of this host is no longer open.".to_string()),
        None => Err("No files are open.".to_string()),
    })?;
    let Some((path, file)) = source else {
        return Ok(DEMO_PROFILE.to_vec());
    };
    let unreadable = || {
        format!("The file “{path}” could not be read: it may have been moved, changed or deleted since it was opened. Open it again.")
    };
    let reader = FileReaderSync::new().map_err(|_| unreadable())?;
    let buffer = reader.read_as_array_buffer(&file).map_err(|_| unreadable())?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// GET on the page's origin. A worker may wait for the answer (synchronous
/// requests are allowed off the main thread), which keeps decoding simple.
fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let request = XmlHttpRequest::new().map_err(|_| "the browser refused the request".to_string())?;
    request.open_with_async("GET", url, false).map_err(|_| "the address is not valid".to_string())?;
    request.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
    request.send().map_err(|_| "the server could not be reached".to_string())?;
    let status = request.status().unwrap_or(0);
    if status != 200 {
        return Err(format!("the server answered {status}"));
    }
    let body = request.response().map_err(|_| "the answer could not be read".to_string())?;
    Ok(js_sys::Uint8Array::new(&body).to_vec())
}

fn phase_label(p: &Progress) -> &'static str {
    match p {
        Progress::Inflating { .. } => "Decompressing",
        Progress::Parsing => "Reading the protobuf",
        Progress::Building { .. } => "Building the model",
    }
}

/// Tells the page which phase is under way (`None`: how far cannot be told).
fn progress_now(fraction: Option<f64>, label: &str) {
    post(&Response::Progress { fraction: fraction.map(|f| f.clamp(0.0, 1.0)), phase_label: label.to_string() });
}

#[cfg(test)]
mod tests {
    use super::loose_host_name;

    #[test]
    fn loose_names() {
        assert_eq!(loose_host_name("dir/vm.bin"), "vm");
        assert_eq!(loose_host_name("random"), "random");
        assert_eq!(loose_host_name(".hidden"), ".hidden");
        assert_eq!(loose_host_name("a.b.c"), "a.b");
    }
}
