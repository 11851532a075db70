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

use super::blob_source::BlobSource;
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
    found(&paths, &paths, reader, |_| None)
}

/// Files picked or dropped, with the paths they were picked as.
pub fn files(files: Vec<(String, File)>) -> Found {
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let reader = |i: usize| -> ReadFile {
        let (path, file) = files[i].clone();
        Box::new(move || Ok(Box::new(BlobSource::new(&path, &file))))
    };
    // JSON is a profile only if it holds trace events or a tool's output:
    // a look at the start of each JSON file decides, before it is listed.
    let rejected: Vec<(usize, &'static str)> = files
        .iter()
        .enumerate()
        .filter(|(_, (path, _))| {
            let name = path.rsplit('/').next().unwrap_or(path);
            logdir::trace_host_name(name).is_some()
                && legacy::tool_file(name).is_none()
                && logdir::summary_host_name(name).is_none()
        })
        .filter_map(|(i, (_, file))| match read_head(file) {
            Some(head) => proflens_format::sniff::check_json_head(&head).err().map(|why| (i, why)),
            None => Some((i, "could not be read")),
        })
        .collect();
    let blob = |i: usize| Some(files[i].1.clone());
    if rejected.is_empty() || paths.len() == 1 {
        return found(&paths, &paths, reader, blob);
    }
    // Runs are named from the accepted files only; the others are listed as skipped.
    let listed: Vec<String> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| if rejected.iter().any(|(r, _)| *r == i) { String::new() } else { p.clone() })
        .collect();
    let mut opened = found(&listed, &paths, reader, blob);
    for (file, why) in &rejected {
        opened.skipped.push(SkippedEntry { path: paths[*file].clone(), reason: why.to_string() });
    }
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
    Ok(found(&paths, &paths, reader, |_| None))
}

/// The runs and hosts of the files at `listed` (blank: left out), each
/// file named by its path in `paths` and read with `reader(index)`; `blob`
/// gives the picked `File` of an index, when there is one.
fn found(
    listed: &[String],
    paths: &[String],
    reader: impl Fn(usize) -> ReadFile,
    blob: impl Fn(usize) -> Option<File>,
) -> Found {
    let loose = loose_run(listed, &blob);
    let root_run = loose.as_ref().map_or(LOOSE_RUN, |(name, _)| name.as_str());
    let discovered = logdir::discover(listed.iter().map(String::as_str), root_run);
    let file = |i: usize, tool: Option<LegacyTool>| HostFile { path: paths[i].clone(), tool, read: reader(i) };
    let mut hosts = Vec::new();
    for run in &discovered.runs {
        for host in &run.hosts {
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
            hosts.push(FoundHost { run: run.name.clone(), name: host.name.clone(), files, summary, blobs });
        }
    }
    // Runs of several hosts offer them all together first, as XProf does.
    let runs = discovered
        .runs
        .iter()
        .map(|r| {
            let all = (r.hosts.len() > 1).then(|| ALL_HOSTS.to_string());
            RunEntry {
                name: r.name.clone(),
                hosts: all.into_iter().chain(r.hosts.iter().map(|h| h.name.clone())).collect(),
            }
        })
        .collect();
    let skipped = discovered
        .skipped
        .iter()
        .map(|s| SkippedEntry { path: s.path.clone(), reason: s.reason.to_string() })
        .collect();
    Found { runs, skipped, hosts, loose }
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
