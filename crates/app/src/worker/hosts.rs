//! The hosts of the open source: one [`HostContext`] each, which decodes
//! the host when a tool first asks and keeps every pass over it. The contexts
//! are the worker's cache; this module only decides how many hosts keep their
//! events in memory ([`LOADED`]: the others are unloaded, their small results
//! kept). Files opened to compare join the open hosts ([`Hosts::add`]),
//! which keep their contexts. A run's hosts together are a `RunContext`, which keeps what
//! combining them gave.
//!
//! Nothing here knows a tool: they are looked up and run through
//! [`proflens_analysis::registry`].

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use proflens_analysis::compare::Side;
use proflens_analysis::context::{Hooks, HostContext, Output, Request, RunContext, Tool, ToolError};
use proflens_analysis::rank_summary::Summary;
use proflens_analysis::registry;

use super::source::FoundHost;
use super::summary_files;
use crate::protocol::ALL_HOSTS;
use web_sys::File;

/// Hosts whose events always stay in memory, for quick switching between
/// them (and so that both sides of a comparison of two hosts stay loaded).
const LOADED: usize = 2;
/// More recent hosts stay loaded while their files add up to this much (a
/// host's events take about three times its file): the trace viewer's "All
/// hosts" reads every open host at each window, and reloading one takes
/// seconds, so the hosts on screen stay loaded as long as memory allows.
const LOADED_FILE_BYTES: u64 = 512 << 20;

/// A host's files as picked or dropped, with their paths.
pub type PickedFiles = Vec<(String, File)>;

struct Host {
    run: String,
    name: String,
    context: Rc<HostContext>,
    /// The tools with something to show for the host, once known.
    tools: RefCell<Option<Vec<String>>>,
    /// Its files as picked (for an extra worker to summarise it).
    blobs: PickedFiles,
    /// Whether extra workers were asked to summarise it already (a host
    /// they could not summarise is left to this worker).
    farmed_out: Cell<bool>,
}

pub struct Hosts {
    list: Vec<Host>,
    /// Which hosts were used last; shared with the hosts' hooks, which see
    /// a host start loading.
    recent: Rc<Recent>,
    /// Every run with its hosts, for the tools that combine them.
    runs: Vec<RunContext>,
    /// The tools that combine the hosts of a run, by run.
    combined_tools: RefCell<Vec<(String, Vec<String>)>>,
    progress: fn(Option<f64>, &str),
}

/// The hosts last used, most recent first, and every host's context (weak:
/// the contexts own the hooks that hold this) to unload the others.
#[derive(Default)]
struct Recent {
    order: RefCell<Vec<usize>>,
    contexts: RefCell<Vec<Weak<HostContext>>>,
}

/// What a host's context tells the worker: progress goes to the page, and
/// a host that starts loading counts as used.
struct HostHooks {
    recent: Weak<Recent>,
    index: usize,
    progress: fn(Option<f64>, &str),
}

impl Hooks for HostHooks {
    fn progress(&self, fraction: Option<f64>, label: &str) {
        if let Some(recent) = self.recent.upgrade() {
            recent.touch(self.index);
        }
        (self.progress)(fraction, label);
    }

    fn now_ms(&self) -> f64 {
        super::timings::now_ms()
    }

    /// 4 GiB less the bytes in use: room the allocator freed inside the
    /// wasm memory counts as left, since it is used again.
    fn memory_left(&self) -> Option<u64> {
        Some(proflens_format::load_source::BROWSER_MEMORY_BYTES.saturating_sub(super::heap::in_use()))
    }

    fn pass_done(&self, pass: &'static str) {
        super::timings::note_pass_memory(pass);
    }
}

impl Hosts {
    /// A context for each host found; `progress` tells the page of long work.
    pub fn new(found: Vec<FoundHost>, progress: fn(Option<f64>, &str)) -> Hosts {
        let mut hosts = Hosts {
            list: Vec::new(),
            recent: Rc::default(),
            runs: Vec::new(),
            combined_tools: RefCell::default(),
            progress,
        };
        hosts.add(found);
        hosts
    }

    /// Adds hosts (of runs not open yet: the caller keeps run names apart);
    /// the hosts already open keep what they computed.
    pub fn add(&mut self, found: Vec<FoundHost>) {
        for host in found {
            let index = self.list.len();
            let hooks = Rc::new(HostHooks { recent: Rc::downgrade(&self.recent), index, progress: self.progress });
            let context = Rc::new(HostContext::new(host.name.clone(), host.files, hooks));
            if let Some(summary) = host.summary {
                summary_files::give(&context, summary);
            }
            self.recent.contexts.borrow_mut().push(Rc::downgrade(&context));
            match self.runs.iter_mut().find(|r| r.name == host.run) {
                Some(run) => run.hosts.push(context.clone()),
                None => self.runs.push(RunContext::new(host.run.clone(), vec![context.clone()])),
            }
            self.list.push(Host {
                run: host.run,
                name: host.name,
                context,
                tools: RefCell::new(None),
                blobs: host.blobs,
                farmed_out: Cell::new(false),
            });
        }
    }

    /// The names of the open runs.
    pub fn run_names(&self) -> Vec<String> {
        self.runs.iter().map(|r| r.name.clone()).collect()
    }

    /// One side of a comparison: a host, or every host of the run for
    /// [`ALL_HOSTS`]; each counted as used.
    pub fn side(&self, run: &str, host: &str) -> Result<Side, String> {
        let label = format!("{run} / {host}");
        if host != ALL_HOSTS {
            return Ok(Side { label, hosts: vec![self.context(run, host)?] });
        }
        let hosts = self.run_context(run).map_err(|e| e.to_string())?.hosts.clone();
        Ok(Side { label, hosts })
    }

    /// The context of one host, counted as used.
    pub fn context(&self, run: &str, host: &str) -> Result<Rc<HostContext>, String> {
        let index = self
            .list
            .iter()
            .position(|h| h.run == run && h.name == host)
            .ok_or_else(|| format!("There is no host “{host}” in run “{run}” among the opened files."))?;
        self.recent.touch(index);
        Ok(self.list[index].context.clone())
    }

    /// The contexts a request on (`run`, `host`) reads (every host of the
    /// run for [`ALL_HOSTS`]), not counted as used: for the benchmark's timings.
    pub fn contexts_of(&self, run: &str, host: &str) -> Vec<Rc<HostContext>> {
        let wanted = |h: &&Host| h.run == run && (host == ALL_HOSTS || h.name == host);
        self.list.iter().filter(wanted).map(|h| h.context.clone()).collect()
    }

    /// The hosts of `run` an extra worker could summarise: XSpace files
    /// picked or dropped, with no analysis yet, not asked for before. With
    /// each its name and files; the run's number of hosts beside. PyTorch
    /// ranks are not farmed out: a rank given parts that way could not be
    /// opened alone afterwards (its tool list never came;
    /// tests/browser/stragglers.test.mjs), so they are read here, or from
    /// rank summaries found beside their traces.
    pub fn to_summarize(&self, run: &str) -> (Vec<(String, PickedFiles)>, usize) {
        use proflens_format::logdir;
        let of_run: Vec<&Host> = self.list.iter().filter(|h| h.run == run).collect();
        let summarised = |h: &&&Host| {
            let events = h.blobs.iter().find(|(path, _)| !logdir::is_counter_log(path));
            events.is_some_and(|(path, _)| logdir::host_name(path.rsplit('/').next().unwrap_or(path)).is_some())
        };
        let todo = of_run
            .iter()
            .filter(|h| !h.farmed_out.get() && !h.context.has_analysis() && !h.context.has_rank_parts())
            .filter(summarised)
            .map(|h| (h.name.clone(), h.blobs.clone()))
            .collect();
        (todo, of_run.len())
    }

    /// Gives hosts of `run` the summaries extra workers computed (`None`:
    /// the worker failed, and this worker meets the error itself); none of
    /// them is asked for again.
    pub fn give_summaries(&self, run: &str, summaries: Vec<(String, Option<Summary>)>) {
        for (name, summary) in summaries {
            let Some(host) = self.list.iter().find(|h| h.run == run && h.name == name) else { continue };
            host.farmed_out.set(true);
            let fresh = |s: &Summary| match s {
                Summary::Host(_) => !host.context.has_analysis(),
                Summary::Rank(_) => !host.context.has_rank_parts(),
            };
            if let Some(summary) = summary.filter(fresh) {
                if let Err(why) = summary.give(&host.context) {
                    summary_files::warn(&format!("Proflens: the summary of {name} is not used ({why})"));
                }
            }
        }
    }

    /// `tool` on one host of `run`; on every host of it for [`ALL_HOSTS`].
    /// `host_tools` learns which tools have something to show there.
    pub fn run(
        &self,
        run: &str,
        host: &str,
        tool: &dyn Tool,
        request: &Request,
        host_tools: impl Fn(Vec<String>),
    ) -> Result<Rc<Output>, ToolError> {
        if host == ALL_HOSTS {
            if let Some(tools) = self.combined_tools(run) {
                host_tools(tools);
            }
            return self.combine(run, tool, request);
        }
        let context = self.context(run, host)?;
        let output = registry::run(tool, std::slice::from_ref(&context), request);
        if let Some(tools) = self.host_tools(run, host) {
            host_tools(tools);
        }
        output
    }

    /// The tools known to have something to show for a host (for
    /// [`ALL_HOSTS`]: combined over its run), when known without decoding more.
    pub fn known_tools(&self, run: &str, host: &str) -> Option<Vec<String>> {
        if host == ALL_HOSTS {
            self.combined_tools(run)
        } else {
            self.host_tools(run, host)
        }
    }

    /// `tool` over every host of `run` (kept in the run's context).
    fn combine(&self, run: &str, tool: &dyn Tool, request: &Request) -> Result<Rc<Output>, ToolError> {
        let run = self.run_context(run)?;
        registry::run_combined(tool, run, request)
    }

    fn run_context(&self, run: &str) -> Result<&RunContext, ToolError> {
        self.runs
            .iter()
            .find(|r| r.name == run)
            .ok_or_else(|| ToolError::Failed(format!("There is no run “{run}” among the opened files.")))
    }

    /// The tools of one host, once they are known without reading more than
    /// was read: the host's tool files say, or its events are in memory.
    fn host_tools(&self, run: &str, host: &str) -> Option<Vec<String>> {
        let host = self.list.iter().find(|h| h.run == run && h.name == host)?;
        if host.tools.borrow().is_none() {
            let context = &host.context;
            if !context.is_loaded() && context.tool_file_kinds().is_empty() {
                return None;
            }
            *host.tools.borrow_mut() = Some(ids(registry::available(context)));
        }
        host.tools.borrow().clone()
    }

    /// The tools that combine the hosts of `run` (decodes its first host);
    /// `None` when they have no events to combine.
    fn combined_tools(&self, run: &str) -> Option<Vec<String>> {
        let known = self.combined_tools.borrow().iter().find(|(r, _)| r == run).map(|(_, t)| t.clone());
        let tools = match known {
            Some(tools) => tools,
            None => {
                let hosts = self.run_context(run).map(|r| r.hosts.as_slice()).unwrap_or_default();
                let tools = ids(registry::available_combined(hosts));
                self.combined_tools.borrow_mut().push((run.to_string(), tools.clone()));
                tools
            }
        };
        (!tools.is_empty()).then_some(tools)
    }
}

impl Recent {
    /// Host `index` is in use: it goes first among the recent ones, and the
    /// hosts beyond the [`LOADED`] most recent, or beyond [`LOADED_FILE_BYTES`]
    /// of files, let go of their events.
    fn touch(&self, index: usize) {
        let Ok(mut recent) = self.order.try_borrow_mut() else { return };
        if recent.first() == Some(&index) {
            return;
        }
        recent.retain(|&i| i != index);
        recent.insert(0, index);
        let contexts = self.contexts.borrow();
        let mut bytes = 0u64;
        let kept = recent
            .iter()
            .take_while(|&&i| {
                let context = contexts.get(i).and_then(Weak::upgrade);
                bytes += context.and_then(|c| c.load_stats()).map_or(0, |s| s.file_bytes);
                bytes <= LOADED_FILE_BYTES
            })
            .count()
            .max(LOADED);
        for &old in recent.iter().skip(kept) {
            if let Some(context) = contexts.get(old).and_then(Weak::upgrade) {
                context.unload();
            }
        }
        recent.truncate(kept);
    }
}

fn ids(tools: Vec<&'static dyn Tool>) -> Vec<String> {
    tools.into_iter().map(|t| t.id().to_string()).collect()
}
