//! Whether a tool's working data fits in the memory left: a browser
//! worker's wasm memory ends at 4 GiB, and a tool that runs past it stops
//! the worker and loses the host's decoded events. A tool that would not
//! fit is refused first, with the numbers, and the host stays open.

use super::{Held, HostContext, Tool, ToolError};
use proflens_format::error::{human_bytes, millions};

impl HostContext {
    /// Refuses `tool` when it holds about
    /// [`Tool::working_bytes_per_event`] for each of the host's events at
    /// once and the hooks say less memory is left
    /// ([`super::Hooks::memory_left`]). Before the events are loaded there
    /// is nothing to weigh: the load's own estimate guards that.
    pub fn ensure_room(&self, tool: &dyn Tool) -> Result<(), ToolError> {
        let (Some(left), Some(profile)) = (self.hooks.memory_left(), self.profile.borrow().clone()) else {
            return Ok(());
        };
        let events = profile.event_count() as u64;
        let held = Held {
            origin: profile.origin,
            grouped: self.grouping.borrow().is_some(),
            gpu_frame: self.gpu_frame.borrow().is_some(),
        };
        let need = events.saturating_mul(tool.working_bytes_per_event(held));
        if need <= left {
            return Ok(());
        }
        Err(ToolError::Failed(format!(
            "{} needs about {} more memory for the ~{} events of “{}”, and only {} is left to this page's analysis (a browser tab's worker holds at most 4 GiB), so it was not run. The host stays open for the other tools; the CLI has no such limit (`proflens tool FILE TOOL`).",
            tool.label(),
            human_bytes(need),
            millions(events),
            self.name,
            human_bytes(left)
        )))
    }
}
