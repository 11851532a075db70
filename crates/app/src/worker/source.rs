//! Where the opened files come from: files the user picked or dropped, a log
//! directory served on the page's origin, or a demo served beside the page. Each becomes the runs
//! and hosts `proflens_format::logdir::discover` finds in its paths, every
//! file of a host with a way to read it when the host's context asks.

use proflens_analysis::context::{HostFile, ReadFile};
use proflens_analysis::registry;
use proflens_format::legacy::{self, LegacyTool};
use proflens_format::logdir::{self, HostFiles};
use proflens_format::logdir_index;
use proflens_format::source::in_memory;
use web_sys::{File, FileReaderSync, XmlHttpRequest, XmlHttpRequestResponseType};

use std::rc::Rc;

use super::archives::{self, Item};
use super::combined_runs;
use super::summary_files::{self, Profile, SummaryFile};

use crate::demos;
use crate::protocol::{RunEntry, SkippedEntry, ALL_HOSTS};

/// Run name for files that sit in no folder, when there are none of those.
const LOOSE_RUN: &str = "Selected files";

/// What an opened source holds: its runs as the page lists them, the files
/// left out, and every host with its files.
pub struct Found {
    pub runs: Vec<RunEntry>,
    pub skipped: Vec<SkippedEntry>,
    pub hosts: Vec<FoundHost>,
    /// The run of files picked in no folder, and their size: what tells it
    /// from an open run of files of the same names.
    pub loose: Option<(String, String)>,
}

pub struct FoundHost {
    pub run: String,
    pub name: String,
    pub files: Vec<HostFile>,
    /// Its summary file, if one was found beside its files.
    pub summary: Option<SummaryFile>,
    /// Its files as picked or dropped, with their paths (empty when they
    /// are fetched): what an extra worker summarising the host reads.
    pub blobs: Vec<(String, File)>,
}

impl Found {
    /// Renames the runs whose names are `taken`, so that files added to
    /// the open ones keep every run and host name unique: loose files by
    /// their size first (`vm.xplane.pb` → `vm.xplane.pb (1.2 MiB)`), then
    /// by a number (`logs` → `logs (2)`).
    pub fn rename_runs_apart(&mut self, taken: &[String]) {
        let mut used: Vec<String> = taken.to_vec();
        let mut renamed: Vec<(String, String)> = Vec::new();
        for run in &mut self.runs {
            let old = run.name.clone();
            let by_size = self
                .loose
                .iter()
                .filter(|(name, size)| *name == old && !size.is_empty())
                .map(|(_, size)| format!("{old} ({size})"));
            let mut names = by_size.chain((2..).map(|n| format!("{old} ({n})")));
            while used.contains(&run.name) {
                let Some(next) = names.next() else { break };
                run.name = next;
            }
            used.push(run.name.clone());
            renamed.push((old, run.name.clone()));
        }
        // From the old names (unique among these runs), each host once.
        for host in &mut self.hosts {
            if let Some((_, new)) = renamed.iter().find(|(old, _)| *old == host.run) {
                host.run = new.clone();
            }
        }
    }
}

/// A demo: one run, its files fetched from `base` (the page's `demos/`
/// folder, an absolute URL) when a host is chosen, as a served log directory's are.
pub fn demo(id: &str, base: &str) -> Found {
    let demo = demos::find(id);
    let base = base.trim_end_matches('/').to_string();
    let paths: Vec<String> = demo.files.iter().map(|f| demos::listed_path(demo, f)).collect();
    let reader = |i: usize| -> ReadFile {
        let url = format!("{base}/{}", demo.files[i].served);
        Box::new(move || {
            let bytes = fetch_bytes(&url).map_err(|e| format!("The demo file {url} could not be fetched: {e}."))?;
            Ok(in_memory(bytes))
        })
    };
    found(&paths, &paths, reader, |_| None, false)
}

/// Files picked or dropped, with the paths they were picked as; tar
/// archives among them are opened as folders ([`archives`]).
pub fn files(picked: Vec<(String, File)>) -> Found {
    let (items, archive_notes) = archives::expand(picked, read_head);
    let paths: Vec<String> = items.iter().map(|item| item.path().to_string()).collect();
    let names: Vec<String> = items.iter().map(|item| item.listed().to_string()).collect();
    let sources: Vec<Rc<Item>> = items.into_iter().map(Rc::new).collect();
    let reader = |i: usize| -> ReadFile {
        let item = sources[i].clone();
        Box::new(move || Ok(item.source()))
    };
    // JSON is a profile only if it holds trace events or a tool's output:
    // a look at the start of each picked JSON file decides, before it is
    // listed (an archive's members were looked at when it was opened).
    let rejected: Vec<(usize, &'static str)> = sources
        .iter()
        .enumerate()
        .filter_map(|(i, item)| Some((i, item.path(), item.file()?)))
        .filter(|(_, path, _)| {
            let name = path.rsplit('/').next().unwrap_or(path);
            logdir::trace_host_name(name).is_some()
                && legacy::tool_file(name).is_none()
                && logdir::summary_host_name(name).is_none()
        })
        .filter_map(|(i, _, file)| match read_head(file) {
            Some(head) => proflens_format::sniff::check_json_head(&head).err().map(|why| (i, why)),
            None => Some((i, "could not be read")),
        })
        .collect();
    let blob = |i: usize| sources[i].file().cloned();
    // Runs are named from the accepted files only; the others are listed as skipped.
    let listed: Vec<String> = if paths.len() == 1 {
        names
    } else {
        names
            .into_iter()
            .enumerate()
            .map(|(i, n)| if rejected.iter().any(|(r, _)| *r == i) { String::new() } else { n })
            .collect()
    };
    let mut opened = found(&listed, &paths, reader, blob, true);
    if paths.len() > 1 {
        for (file, why) in &rejected {
            opened.skipped.push(SkippedEntry { path: paths[*file].clone(), reason: why.to_string() });
        }
    }
    opened.skipped.extend(archive_notes);
    opened
}

/// A log directory served on the page's origin, from its `proflens-index.json`.
pub fn logdir_url(logdir: &str) -> Result<Found, String> {
    let base = logdir.trim_end_matches('/').to_string();
    let index_url = format!("{base}/{}", logdir_index::FILE_NAME);
    let index = fetch_bytes(&index_url).map_err(|e| {
        format!("The log directory's index {index_url} could not be read: {e}. Write it with `proflens-collect index LOGDIR`.")
    })?;
    let paths = logdir_index::paths(&index).map_err(|e| format!("{index_url} is not a Proflens index: {e}."))?;
    let reader = |i: usize| -> ReadFile {
        let url = format!("{base}/{}", paths[i]);
        Box::new(move || {
            let bytes = fetch_bytes(&url).map_err(|e| format!("The profile {url} could not be fetched: {e}."))?;
            Ok(in_memory(bytes))
        })
    };
    Ok(found(&paths, &paths, reader, |_| None, false))
}

/// The runs and hosts of the files at `listed` (blank: left out), each
/// file named by its path in `paths` and read with `reader(index)`; `blob`
/// gives the picked `File` of an index, when there is one. With `scan`, runs
/// captured together are offered combined too ([`combined_runs`]).
fn found(
    listed: &[String],
    paths: &[String],
    reader: impl Fn(usize) -> ReadFile,
    blob: impl Fn(usize) -> Option<File>,
    scan: bool,
) -> Found {
    let loose = loose_run(listed, &blob);
    let root_run = loose.as_ref().map_or(LOOSE_RUN, |(name, _)| name.as_str());
    let discovered = logdir::discover(listed.iter().map(String::as_str), root_run);
    let file = |i: usize, tool: Option<LegacyTool>| HostFile { path: paths[i].clone(), tool, read: reader(i) };
    let host_of = |run: &str, name: String, host: &logdir::Host| {
        let indexes: Vec<(usize, Option<LegacyTool>)> = match &host.files {
            HostFiles::Events(i) => {
                std::iter::once(*i).chain(host.counter_logs.iter().copied()).map(|i| (i, None)).collect()
            }
            HostFiles::Tools { tools, trace } => {
                // In the selector's order, so that messages list the tools as it does.
                let mut tools = tools.clone();
                tools.sort_by_key(|(kind, _)| selector_position(*kind));
                tools.iter().map(|(kind, i)| (*i, Some(*kind))).chain(trace.map(|i| (i, None))).collect()
            }
        };
        let files = indexes.iter().map(|&(i, tool)| file(i, tool)).collect();
        let blobs = indexes.iter().filter_map(|&(i, _)| Some((paths[i].clone(), blob(i)?))).collect();
        // The profile a summary describes: the first file of events, as the CLI's.
        let events = indexes.iter().find(|(_, tool)| tool.is_none()).map(|&(i, _)| i);
        let summary = host.summary.map(|at| SummaryFile {
            path: paths[at].clone(),
            read: reader(at),
            profile: match events {
                None => Profile::None,
                Some(i) => blob(i).map_or(Profile::Unknown, |f| Profile::Known(summary_files::source_of(&f))),
            },
        });
        FoundHost { run: run.to_string(), name, files, summary, blobs }
    };
    let mut hosts = Vec::new();
    let mut runs = Vec::new();
    for run in &discovered.runs {
        hosts.extend(run.hosts.iter().map(|host| host_of(&run.name, host.name.clone(), host)));
        runs.push(run_entry(&run.name, run.hosts.iter().map(|h| h.name.clone()).collect()));
    }
    let groups = if scan { combined_runs::groups(&discovered, listed, &reader) } else { Vec::new() };
    for group in groups {
        let (name, members) = combined_runs::hosts_of(&discovered, &group);
        let mut names = Vec::new();
        for (run, host, shown) in members {
            hosts.push(host_of(&name, shown.clone(), &discovered.runs[run].hosts[host]));
            names.push(shown);
        }
        names.sort();
        runs.push(run_entry(&name, names));
    }
    let skipped = discovered
        .skipped
        .iter()
        .map(|s| SkippedEntry { path: s.path.clone(), reason: s.reason.to_string() })
        .collect();
    Found { runs, skipped, hosts, loose }
}

/// A run as the page lists it: runs of several hosts offer them all
/// together first, as XProf does.
fn run_entry(name: &str, hosts: Vec<String>) -> RunEntry {
    let all = (hosts.len() > 1).then(|| ALL_HOSTS.to_string());
    RunEntry { name: name.to_string(), hosts: all.into_iter().chain(hosts).collect() }
}

/// The run of the files that sit in no folder, named after them (the
/// file's name, or the first's and how many more), with their size when
/// they were picked; none when every file is in a folder.
fn loose_run(listed: &[String], blob: impl Fn(usize) -> Option<File>) -> Option<(String, String)> {
    let loose: Vec<usize> =
        (0..listed.len()).filter(|&i| !listed[i].is_empty() && !listed[i].contains(['/', '\\'])).collect();
    let name = match loose.as_slice() {
        [] => return None,
        [one] => listed[*one].clone(),
        [first, rest @ ..] => format!("{} + {} more", listed[*first], rest.len()),
    };
    let bytes: Option<f64> = loose.iter().map(|&i| blob(i).map(|f| f.size())).sum();
    let size = bytes.map_or_else(String::new, |b| proflens_format::error::human_bytes(b as u64));
    Some((name, size))
}

/// Where the tool of a legacy file stands in the tool selector.
fn selector_position(kind: LegacyTool) -> usize {
    let tool = registry::tool_for_file(kind).map(|t| t.id());
    registry::TOOLS.iter().position(|t| Some(t.id()) == tool).unwrap_or(usize::MAX)
}

/// The first bytes of a file, for a look at what it is.
fn read_head(file: &File) -> Option<Vec<u8>> {
    let head = file.slice_with_i32_and_i32(0, proflens_format::sniff::JSON_HEAD_BYTES as i32).ok()?;
    let buffer = FileReaderSync::new().ok()?.read_as_array_buffer(&head).ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// GET on the page's origin. A worker may wait for the answer (synchronous
/// requests are allowed off the main thread), which keeps decoding simple.
fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let request = XmlHttpRequest::new().map_err(|_| "the browser refused the request".to_string())?;
    request.open_with_async("GET", url, false).map_err(|_| "the address is not valid".to_string())?;
    request.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
    request.send().map_err(|_| "the server could not be reached".to_string())?;
    let status = request.status().unwrap_or(0);
    if status != 200 {
        return Err(format!("the server answered {status}"));
    }
    let body = request.response().map_err(|_| "the answer could not be read".to_string())?;
    Ok(js_sys::Uint8Array::new(&body).to_vec())
}
