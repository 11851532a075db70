//! The overview (and framework op stats) of a small real profile, run at
//! boot by a worker of its own (`web/loader.js` starts it beside the spare
//! worker and ends it once it answers): the workers share the compiled
//! module and V8's optimised code, so the first profile a user opens runs on
//! optimised code. The models go to the page, which draws them unseen for
//! the same reason (`crate::warm_render`).
//!
//! Why: V8 first runs each wasm function as baseline code and optimises a
//! function only for its later calls (wasm has no on-stack replacement).
//! Decoding, grouping and the host analysis are each one long call per
//! profile, so a cold worker ran all of a user's first profile on baseline
//! code: a 2.07 M event overview took 1.47 s where the same page's second
//! open of it took 0.78 s (headless Chromium, 2 cores). The profile here is
//! the `custom_loop` fixture (TF 2, a custom training loop: 9,587 events,
//! 10 steps; 299 KB, 94 KB of the worker's gzipped wasm); its overview runs
//! the same passes as any TF profile's.

use std::rc::Rc;

use proflens_analysis::context::{Hooks, HostContext, HostFile, Request as ToolRequest};
use proflens_analysis::registry;
use proflens_format::{ByteSource, Error, Limits};
use wasm_bindgen::JsValue;

/// The profile the warm-up opens (a test fixture, never shown).
const PROFILE: &[u8] =
    include_bytes!("../../../../tests/data/xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb");

/// The tools the warm-up runs: the overview (the passes most tools read),
/// the table a reader most often turns to next, and the Advisor, which a
/// file opens on (after the overview it adds only its detectors, and its
/// view is text). Their models go to the page, whose code for reading and
/// drawing them is then warm too.
const TOOLS: &[&str] = &["overview_page", "framework_op_stats", "advisor"];

/// Reads while the fixture is decoded a first time: smaller than its lines,
/// so that they are built as a long line of a user's file is, event by event
/// as it streams (files take another path than lines read whole).
const SMALL_READS: usize = 16 << 10;

/// The fixture as a picked file is read: a piece at a time (bytes that say
/// they are in memory are decoded in place, by other code).
struct AsFile(&'static [u8]);

impl ByteSource for AsFile {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        self.0.read_at(offset, buf)
    }
}

/// Says nothing to the page: the warm-up is not the user's work.
struct Quiet;

impl Hooks for Quiet {
    fn progress(&self, _fraction: Option<f64>, _label: &str) {}

    fn now_ms(&self) -> f64 {
        super::timings::now_ms()
    }
}

/// Opens [`PROFILE`] as a picked file would be read (once in small reads,
/// once as the host's file), runs [`TOOLS`] on it and converts their view
/// models as answers would be, then drops the rest: the models go to the
/// page, which draws them unseen (`crate::warm_render`), as an array of
/// `[view, model]` pairs; why it could not, if it could not.
pub fn run() -> Result<JsValue, String> {
    let path = "warm-up.xplane.pb";
    let limits = Limits::default();
    proflens_format::load_source::load_with_chunk(path, &AsFile(PROFILE), &limits, SMALL_READS, &mut |_| {})
        .map_err(|e| e.to_string())?;
    let file = HostFile {
        path: path.to_string(),
        tool: None,
        read: Box::new(|| Ok(Box::new(AsFile(PROFILE)) as Box<dyn ByteSource>)),
    };
    let context = Rc::new(HostContext::new("warm-up", vec![file], Rc::new(Quiet)));
    let views = js_sys::Array::new();
    for id in TOOLS {
        let tool = registry::find(id).ok_or_else(|| format!("no tool {id}"))?;
        let output =
            registry::run(tool, std::slice::from_ref(&context), &ToolRequest::default()).map_err(|e| e.to_string())?;
        let model = crate::protocol::to_js(output.model.as_serialize())?;
        views.push(&js_sys::Array::of2(&JsValue::from_str(output.view), &model));
    }
    Ok(views.into())
}
