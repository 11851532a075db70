//! Hosts analysed in parallel (`--jobs`): each thread opens a host of its
//! own from its files (`HostSpec`; contexts are single-threaded), computes
//! what is asked (an XSpace host's analysis, a PyTorch rank's part of a
//! tool of all ranks), and hands back plain data; the host's events are
//! dropped with the thread's context, so at most `jobs` hosts' events are
//! in memory.

use crate::hosts::{HostSpec, Run};
use proflens_analysis::context::summary::COMBINED_FROM_SUMMARIES;
use proflens_analysis::context::{Hooks, HostContext};
use proflens_analysis::passes::host_analysis::HostAnalysis;
use proflens_analysis::rank_summary::{Part, COMBINED_FROM_RANK_SUMMARIES};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// `--jobs`, or one thread per core.
pub fn jobs(requested: Option<usize>) -> usize {
    requested.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// `f` on every spec, in `jobs` threads, each taking the next host when it is
/// done with one; the results in the specs' order.
pub fn map_hosts<T: Send>(specs: &[&HostSpec], jobs: usize, f: impl Fn(&HostSpec, &HostContext) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..specs.len()).map(|_| None).collect());
    // The cores left over by the hosts at once go to each host's own threads.
    let at_once = jobs.min(specs.len()).max(1);
    let threads = (crate::hosts::threads() / at_once).max(1);
    std::thread::scope(|scope| {
        for _ in 0..at_once.min(specs.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(spec) = specs.get(i) else { break };
                let hooks: Rc<dyn Hooks> = Rc::new(ThreadHooks { started: Instant::now(), threads });
                let value = f(spec, &spec.context(hooks));
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(value);
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|r| r.expect("every host ran")).collect()
}

/// Before a tool combines the hosts of a run: with more than one job, the
/// analyses of the XSpace hosts that have none yet are computed in parallel
/// and given to the hosts, for the tools that combine only analyses. A host
/// whose analysis fails is left alone: the tool then meets its error as
/// with one job.
///
/// Likewise the PyTorch ranks' parts of a tool of all ranks, for the
/// default request (`include_last` false: the parts of a rank summary).
pub fn analyse_hosts(tool: &str, run: &Run, hosts: &[Rc<HostContext>], jobs: usize, include_last: bool) {
    if jobs < 2 || hosts.len() < 2 {
        return;
    }
    if !include_last && COMBINED_FROM_RANK_SUMMARIES.contains(&tool) {
        rank_parts(tool, run, hosts, jobs);
    }
    if !COMBINED_FROM_SUMMARIES.contains(&tool) {
        return;
    }
    let todo: Vec<(usize, &HostSpec)> = hosts
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.analysis_given())
        .filter_map(|(i, h)| {
            let at = run.hosts.iter().position(|r| Rc::ptr_eq(r, h))?;
            let spec = &run.specs[at];
            spec.has_xspace().then_some((i, spec))
        })
        .collect();
    let specs: Vec<&HostSpec> = todo.iter().map(|(_, s)| *s).collect();
    let analyses = map_hosts(&specs, jobs, |_, host| analysis_of(host));
    for ((i, _), analysis) in todo.iter().zip(analyses) {
        if let Some(analysis) = analysis {
            hosts[*i].give_analysis(analysis);
        }
    }
}

/// `tool`'s part of each rank that has no rank summary, computed in
/// parallel and given to the rank; a rank whose part fails (or a host that
/// is no PyTorch trace) is left alone, to meet its error as with one job.
fn rank_parts(tool: &str, run: &Run, hosts: &[Rc<HostContext>], jobs: usize) {
    let todo: Vec<(usize, &HostSpec)> = hosts
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.has_rank_parts() && !h.analysis_given())
        .filter_map(|(i, h)| {
            let at = run.hosts.iter().position(|r| Rc::ptr_eq(r, h))?;
            let spec = &run.specs[at];
            (!spec.has_xspace() && !spec.files.is_empty()).then_some((i, spec))
        })
        .collect();
    let specs: Vec<&HostSpec> = todo.iter().map(|(_, s)| *s).collect();
    let parts = map_hosts(&specs, jobs, |_, host| {
        if !host.is_kineto().ok()? {
            return None;
        }
        Part::of(tool, host)?.ok()
    });
    for ((i, _), part) in todo.iter().zip(parts) {
        if let Some(part) = part {
            part.give(&hosts[*i]);
        }
    }
}

/// A host's analysis, unless it fails or the host is a PyTorch trace.
fn analysis_of(host: &HostContext) -> Option<HostAnalysis> {
    if host.is_kineto().ok()? {
        return None;
    }
    host.analysis().ok().map(|a| HostAnalysis::clone(&a))
}

/// A thread's host: wall-clock time, no progress shown.
struct ThreadHooks {
    started: Instant,
    threads: usize,
}

impl Hooks for ThreadHooks {
    fn progress(&self, _: Option<f64>, _: &str) {}

    fn threads(&self) -> usize {
        self.threads
    }

    fn now_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }
}
