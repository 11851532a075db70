//! The tools a host can be viewed with. Each tool is one module with one view;
//! the header's tool selector lists [`Tool::ALL`].

pub mod info;

use leptos::prelude::*;

use crate::state::Shown;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Info,
}

impl Tool {
    /// In the order the selector shows them; the first is the default.
    pub const ALL: &'static [Tool] = &[Tool::Info];

    /// The value in the selector and the URL hash.
    pub fn id(self) -> &'static str {
        match self {
            Tool::Info => "info",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Tool::Info => "Profile info",
        }
    }

    pub fn from_id(id: &str) -> Option<Tool> {
        Tool::ALL.iter().copied().find(|t| t.id() == id)
    }
}

impl Default for Tool {
    fn default() -> Self {
        Tool::ALL[0]
    }
}

/// The view of `tool` for the host on screen.
pub fn tool_view(tool: Tool, shown: Shown) -> AnyView {
    match tool {
        Tool::Info => view! { <info::InfoView shown=shown/> }.into_any(),
    }
}
