//! The hosts of the open source: one [`HostContext`] each, which decodes
//! the host when a tool first asks and keeps every pass over it. The contexts
//! are the worker's cache; this module only decides how many hosts keep their
//! events in memory ([`LOADED`]: the others are unloaded, their small results
//! kept). A run's hosts together are a `RunContext`, which keeps what
//! combining them gave.
//!
//! Nothing here knows a tool: they are looked up and run through
//! [`proflens_analysis::registry`].

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use proflens_analysis::context::{Hooks, HostContext, Output, Request, RunContext, Tool, ToolError};
use proflens_analysis::registry;

use super::source::FoundHost;
use crate::protocol::ALL_HOSTS;

/// Hosts whose events stay in memory, for quick switching between them.
const LOADED: usize = 2;

struct Host {
    run: String,
    name: String,
    context: Rc<HostContext>,
    /// The tools with something to show for the host, once known.
    tools: RefCell<Option<Vec<String>>>,
}

pub struct Hosts {
    list: Vec<Host>,
    /// The hosts last used (indices into `list`), most recent first.
    recent: RefCell<Vec<usize>>,
    /// Every run with its hosts, for the tools that combine them.
    runs: Vec<RunContext>,
    /// The tools that combine the hosts of a run, by run.
    combined_tools: RefCell<Vec<(String, Vec<String>)>>,
}

/// What a host's context tells the worker: progress goes to the page, and
/// a host that starts loading counts as used.
struct HostHooks {
    hosts: Weak<Hosts>,
    index: usize,
    progress: fn(Option<f64>, &str),
}

impl Hooks for HostHooks {
    fn progress(&self, fraction: Option<f64>, label: &str) {
        if let Some(hosts) = self.hosts.upgrade() {
            hosts.touch(self.index);
        }
        (self.progress)(fraction, label);
    }

    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }
}

impl Hosts {
    /// A context for each host found; `progress` tells the page of long work.
    pub fn new(found: Vec<FoundHost>, progress: fn(Option<f64>, &str)) -> Rc<Hosts> {
        Rc::new_cyclic(|me| {
            let list: Vec<Host> = found
                .into_iter()
                .enumerate()
                .map(|(index, host)| {
                    let hooks = Rc::new(HostHooks { hosts: me.clone(), index, progress });
                    Host {
                        context: Rc::new(HostContext::new(host.name.clone(), host.files, hooks)),
                        run: host.run,
                        name: host.name,
                        tools: RefCell::new(None),
                    }
                })
                .collect();
            let mut runs: Vec<RunContext> = Vec::new();
            for host in &list {
                match runs.iter_mut().find(|r| r.name == host.run) {
                    Some(run) => run.hosts.push(host.context.clone()),
                    None => runs.push(RunContext::new(host.run.clone(), vec![host.context.clone()])),
                }
            }
            Hosts { list, recent: RefCell::default(), runs, combined_tools: RefCell::default() }
        })
    }

    /// The context of one host, counted as used.
    pub fn context(&self, run: &str, host: &str) -> Result<Rc<HostContext>, String> {
        let index = self
            .list
            .iter()
            .position(|h| h.run == run && h.name == host)
            .ok_or_else(|| format!("There is no host “{host}” in run “{run}” among the opened files."))?;
        self.touch(index);
        Ok(self.list[index].context.clone())
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

    /// Host `index` is in use: it goes first among the recent ones, and the
    /// hosts beyond the [`LOADED`] most recent let go of their events.
    fn touch(&self, index: usize) {
        let Ok(mut recent) = self.recent.try_borrow_mut() else { return };
        if recent.first() == Some(&index) {
            return;
        }
        recent.retain(|&i| i != index);
        recent.insert(0, index);
        for &old in recent.iter().skip(LOADED) {
            if let Some(host) = self.list.get(old) {
                host.context.unload();
            }
        }
        recent.truncate(LOADED);
    }
}

fn ids(tools: Vec<&'static dyn Tool>) -> Vec<String> {
    tools.into_iter().map(|t| t.id().to_string()).collect()
}
