//! A PyTorch rank's per-rank parts, given by its rank summary
//! (`crate::rank_summary`): what each tool of all ranks reduces the rank
//! to before combining the ranks (the "map" of map-then-reduce). A tool
//! that finds its part here combines without decoding the rank's trace.
//!
//! The parts are kept by tool id and type-erased: the context sits below
//! the tools (`lib.rs`'s layers), so it cannot name their types; each tool
//! asks for its own type back ([`HostContext::rank_part`]).

use super::HostContext;
use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

/// The parts given, by tool id.
#[derive(Default)]
pub struct Parts(RefCell<Vec<(&'static str, Rc<dyn Any>)>>);

impl HostContext {
    /// Gives the host `tool`'s part of a rank summary (replacing one given before).
    pub fn give_rank_part(&self, tool: &'static str, part: Rc<dyn Any>) {
        let mut parts = self.rank_parts.0.borrow_mut();
        parts.retain(|(t, _)| *t != tool);
        parts.push((tool, part));
    }

    /// `tool`'s part, when a rank summary gave one of type `T`. Parts are
    /// those of the default request: a tool asked for the last profiler
    /// step too reads the trace (`include_last` true gives none).
    pub fn rank_part<T: 'static>(&self, tool: &str, include_last: bool) -> Option<Rc<T>> {
        if include_last {
            return None;
        }
        let parts = self.rank_parts.0.borrow();
        let (_, part) = parts.iter().find(|(t, _)| *t == tool)?;
        part.clone().downcast::<T>().ok()
    }

    /// Whether a rank summary gave the host its parts.
    pub fn has_rank_parts(&self) -> bool {
        !self.rank_parts.0.borrow().is_empty()
    }
}
