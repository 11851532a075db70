//! A comparison of two sides (hosts, or every host of a run): both sides are
//! loaded through the same host contexts as the tools (so what a tool view
//! computed is reused), compared by `proflens_analysis::compare`, and the
//! comparison goes to the page as the message's model.

use proflens_analysis::compare;
use proflens_analysis::context::Request as ToolRequest;

use super::hosts::Hosts;
use super::{post, post_with, progress, wasm_memory_bytes};
use crate::protocol::{self, Response, MODEL};

/// Compares `tool` on the baseline with the candidate and posts the
/// comparison; the answer when there is none.
pub fn answer(
    hosts: &Hosts,
    base_run: String,
    base_host: String,
    run: String,
    host: String,
    tool: String,
) -> Option<Response> {
    let failed = |message: String| Some(Response::Error { message });
    let (base, candidate) = match (hosts.side(&base_run, &base_host), hosts.side(&run, &host)) {
        (Ok(base), Ok(candidate)) => (base, candidate),
        (Err(e), _) | (_, Err(e)) => return failed(e),
    };
    progress(None, &format!("Comparing {} with {}", candidate.label, base.label));
    let comparison = match compare::compare(&tool, &base, &candidate, &ToolRequest::default()) {
        Ok(comparison) => comparison,
        Err(e) => return failed(sentence(&format!("The comparison failed: {e}"))),
    };
    // The candidate is the host chosen in the selectors: tell the page what
    // its tools are, as a tool's answer does.
    if let Some(tools) = hosts.known_tools(&run, &host) {
        post(&Response::HostTools { run: run.clone(), host: host.clone(), tools });
    }
    let model = match protocol::to_js(&comparison) {
        Ok(model) => model,
        Err(e) => return failed(format!("Proflens could not pass the comparison on from its analysis worker ({e}).")),
    };
    let response = Response::Compare {
        base_run,
        base_host,
        run,
        host,
        tool: comparison.tool.clone(),
        wasm_memory_bytes: wasm_memory_bytes(),
    };
    post_with(&response, MODEL, &model)
}

/// Ends `text` with a full stop unless it has one.
fn sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sentences_end_once() {
        assert_eq!(super::sentence("no steps"), "no steps.");
        assert_eq!(super::sentence("no steps. "), "no steps.");
    }
}
