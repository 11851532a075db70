//! The hosts of one run together, for the tools that combine them (XProf's
//! "all hosts", or every rank of a PyTorch job), and the results kept for
//! it; and [`Kept`], the tool results a host or a run keeps.

use super::{HostContext, Output, Request};
use std::cell::RefCell;
use std::rc::Rc;

/// Tool results, by tool and request, most recent first.
pub struct Kept {
    outputs: RefCell<Vec<(&'static str, Request, Rc<Output>)>>,
    limit: usize,
}

impl Kept {
    pub fn new(limit: usize) -> Kept {
        Kept { outputs: RefCell::default(), limit }
    }

    /// A tool's result, if it was kept.
    pub fn get(&self, tool: &str, request: &Request) -> Option<Rc<Output>> {
        self.outputs.borrow().iter().find(|(t, r, _)| *t == tool && r == request).map(|(_, _, o)| o.clone())
    }

    /// Keeps a result; the oldest beyond the limit goes.
    pub fn keep(&self, tool: &'static str, request: &Request, output: Rc<Output>) {
        let mut outputs = self.outputs.borrow_mut();
        outputs.insert(0, (tool, request.clone(), output));
        outputs.truncate(self.limit);
    }
}

/// Every host of a run, and what combining them gave.
pub struct RunContext {
    pub name: String,
    pub hosts: Vec<Rc<HostContext>>,
    /// Combined results: each costs a pass over every host, some of which
    /// may have to load their events again.
    pub kept: Kept,
}

impl RunContext {
    pub fn new(name: impl Into<String>, hosts: Vec<Rc<HostContext>>) -> RunContext {
        RunContext { name: name.into(), hosts, kept: Kept::new(KEPT_PER_RUN) }
    }
}

/// Combined results kept per run.
const KEPT_PER_RUN: usize = 8;
