//! Summaries found beside profiles (`proflens summarize` writes
//! `<host>.proflens-summary.bin.gz`): read when the files are opened and
//! given to the host's context, whose tools of all hosts (an XSpace host's
//! analysis) or of all ranks (a PyTorch rank's parts) then answer without
//! reading the profile. The checks are the CLI's
//! (`crates/cli/src/summaries.rs`) through the same `Summary`: another
//! release's summary, or one of a profile that changed since (name, size,
//! modification time), is not used and the profile is read.

use proflens_analysis::context::summary::Source;
use proflens_analysis::context::{HostContext, ReadFile};
use proflens_analysis::rank_summary::Summary;
use wasm_bindgen::JsCast;
use web_sys::File;

/// A summary file past this size is not read (the CLI's limit: a real one
/// is well under a MiB gzipped).
const MAX_SUMMARY_BYTES: u64 = 64 << 20;

/// A host's summary file and what it must describe.
pub struct SummaryFile {
    pub path: String,
    pub read: ReadFile,
    pub profile: Profile,
}

/// The profile beside a summary.
pub enum Profile {
    /// The host has only its summary: it is used as it is.
    None,
    /// A picked or dropped file: its name, size and modification time.
    Known(Source),
    /// A fetched file, whose size and time are not known before it is read:
    /// the summary cannot be checked, so it is not used.
    Unknown,
}

/// The name, size and modification time of a picked or dropped file.
pub fn source_of(file: &File) -> Source {
    Source { name: file.name(), bytes: file.size() as u64, modified_ms: Some(file.last_modified() as u64) }
}

/// Gives `host` its summary (an analysis, or a rank's parts) when the summary still
/// describes the profile; says in the console why one found was not used.
pub fn give(host: &HostContext, summary: SummaryFile) {
    match read(&summary).and_then(|s| check(&summary.profile, s)).and_then(|s| s.give(host)) {
        Ok(()) => {}
        Err(why) => {
            let fallback = if matches!(summary.profile, Profile::None) {
                "the host has nothing else"
            } else {
                "the profile is read"
            };
            let line = format!("Proflens: {}: not used ({why}); {fallback}", summary.path);
            warn(&line);
        }
    }
}

/// A line in the browser's console (`console.warn`; web-sys's `console`
/// is not among the worker's features).
pub fn warn(line: &str) {
    let console = js_sys::Reflect::get(&js_sys::global(), &"console".into()).ok();
    let warn = console.as_ref().and_then(|c| js_sys::Reflect::get(c, &"warn".into()).ok());
    if let (Some(console), Some(warn)) = (console, warn.and_then(|w| w.dyn_into::<js_sys::Function>().ok())) {
        // Nothing to do when even the console fails.
        let _ = warn.call1(&console, &line.into());
    }
}

fn read(summary: &SummaryFile) -> Result<Summary, String> {
    let source = (summary.read)()?;
    let size = source.len();
    if size > MAX_SUMMARY_BYTES {
        return Err(format!("{size} bytes, more than a summary can be"));
    }
    let mut bytes = vec![0; size as usize];
    source.read_at(0, &mut bytes).map_err(|e| e.to_string())?;
    Summary::decode(&bytes)
}

fn check(profile: &Profile, summary: Summary) -> Result<Summary, String> {
    match profile {
        Profile::None => Ok(summary),
        Profile::Known(now) if summary.describes(now) => Ok(summary),
        Profile::Known(now) => Err(format!("{} changed since it was summarised", now.name)),
        Profile::Unknown => Err("a fetched profile's size and time cannot be checked".to_string()),
    }
}
