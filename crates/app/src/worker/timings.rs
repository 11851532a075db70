//! What one tool answer cost in the worker, for the web benchmark
//! (`cargo xtask bench-web`, `tests/browser/bench_web.mjs`): the file read,
//! each shared pass that ran for the request, the tool itself and the
//! conversion of its model to a JS value. It travels beside the answer in
//! the message's [`TIMINGS`] field; the page does not read it.

use std::cell::RefCell;
use std::rc::Rc;

use proflens_analysis::context::{HostContext, PASSES};
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

/// The field of a tool answer's message that holds its [`ToolTimings`].
pub const TIMINGS: &str = "timings";

/// One request's costs, wall-clock ms (`performance.now()` in the worker).
#[derive(Serialize)]
pub struct ToolTimings {
    /// The whole run of the tool: reads, passes and the tool's own work.
    pub run_ms: f64,
    /// Reading the files of events (FileReaderSync, or a synchronous fetch),
    /// the reads a streamed decode makes included.
    pub file_read_ms: f64,
    /// Each shared pass that ran for this request, in `PASSES` order
    /// (`decode` without the reads); passes computed before are not listed.
    pub passes: Vec<PassMs>,
    /// The tool's own work: `run_ms` less the read and the passes.
    pub tool_ms: f64,
    /// Converting the view model to a JS value (`serde-wasm-bindgen`).
    pub to_js_ms: f64,
    /// When the answer was posted, ms since the Unix epoch
    /// (`performance.timeOrigin + performance.now()`), comparable with the page's clock.
    pub sent_at_ms: f64,
    /// The worker's wasm memory after the answer (it never shrinks).
    pub wasm_memory_bytes: u64,
    /// The most the worker's allocations held at once during the request.
    pub heap_peak_bytes: u64,
}

#[derive(Serialize)]
pub struct PassMs {
    pub pass: &'static str,
    pub ms: f64,
    /// The most the worker's allocations held at once during the pass.
    pub heap_peak_bytes: Option<u64>,
    /// The wasm memory after the pass: above the heap's peak, what the
    /// allocator could not fit into room it had freed.
    pub wasm_memory_bytes: Option<u64>,
}

/// What a pass took, noted when it ended: (pass, heap peak, wasm memory).
type PassMemory = (&'static str, u64, u64);

thread_local! {
    static PASS_MEMORY: RefCell<Vec<PassMemory>> = const { RefCell::new(Vec::new()) };
}

/// Notes the heap's peak since the last note (or the request's start) and
/// the wasm memory, as what `pass` took.
pub fn note_pass_memory(pass: &'static str) {
    let noted = (pass, super::heap::take_peak(), super::wasm_memory_bytes());
    PASS_MEMORY.with(|log| log.borrow_mut().push(noted));
}

/// The hosts' cumulative read and pass times at one moment.
pub struct Snapshot {
    at: f64,
    read_ms: f64,
    pass_ms: [f64; PASSES.len()],
}

impl Snapshot {
    /// The snapshot a request starts from: the heap's peak and the passes'
    /// memory are counted from here.
    pub fn start(contexts: &[Rc<HostContext>]) -> Snapshot {
        super::heap::take_peak();
        PASS_MEMORY.with(|log| log.borrow_mut().clear());
        Snapshot::take(contexts)
    }

    pub fn take(contexts: &[Rc<HostContext>]) -> Snapshot {
        let mut pass_ms = [0.0; PASSES.len()];
        for context in contexts {
            for (i, (_, ms)) in context.pass_ms().into_iter().enumerate() {
                pass_ms[i] += ms;
            }
        }
        Snapshot { at: now_ms(), read_ms: contexts.iter().map(|c| c.read_ms()).sum(), pass_ms }
    }

    /// When it was taken (`performance.now()`).
    pub fn at(&self) -> f64 {
        self.at
    }

    /// What happened between `self` and `after`, with the model's conversion time.
    pub fn until(&self, after: &Snapshot, to_js_ms: f64, wasm_memory_bytes: u64) -> ToolTimings {
        let noted = PASS_MEMORY.with(|log| std::mem::take(&mut *log.borrow_mut()));
        let heap_peak_bytes = noted.iter().map(|n| n.1).max().unwrap_or(0).max(super::heap::take_peak());
        let run_ms = after.at - self.at;
        let file_read_ms = after.read_ms - self.read_ms;
        let passes: Vec<PassMs> = PASSES
            .iter()
            .zip(self.pass_ms.iter().zip(after.pass_ms.iter()))
            .filter(|(_, (before, after))| after > before)
            .map(|(pass, (before, after))| PassMs { pass, ms: after - before, ..pass_memory(pass, &noted) })
            .collect();
        let tool_ms = run_ms - file_read_ms - passes.iter().map(|p| p.ms).sum::<f64>();
        ToolTimings {
            run_ms,
            file_read_ms,
            passes,
            tool_ms,
            to_js_ms,
            sent_at_ms: epoch_ms(),
            wasm_memory_bytes,
            heap_peak_bytes,
        }
    }
}

/// The memory `pass` took, from the notes (the largest peak, the last
/// wasm memory, where it ran for several hosts).
fn pass_memory(pass: &'static str, noted: &[PassMemory]) -> PassMs {
    let runs = || noted.iter().filter(|n| n.0 == pass);
    PassMs {
        pass,
        ms: 0.0,
        heap_peak_bytes: runs().map(|n| n.1).max(),
        wasm_memory_bytes: runs().next_back().map(|n| n.2),
    }
}

fn performance() -> Option<web_sys::Performance> {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .filter(|p| !p.is_undefined())
        .map(JsCast::unchecked_into)
}

/// `performance.now()` (sub-millisecond where the browser allows), else `Date.now()`.
pub fn now_ms() -> f64 {
    performance().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// Ms since the Unix epoch on the clock the page shares.
fn epoch_ms() -> f64 {
    performance().map(|p| p.time_origin() + p.now()).unwrap_or_else(js_sys::Date::now)
}
