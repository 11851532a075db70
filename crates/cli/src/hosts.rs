//! A PATH argument as runs and hosts: the files under it are named by
//! `proflens_format::logdir::discover`, exactly as the app names what
//! is opened in the browser, and each host becomes a `HostContext` that
//! reads its files from disk when a tool asks.

use crate::Failure;
use proflens_analysis::context::{Hooks, HostContext, HostFile};
use proflens_format::logdir::{self, HostFiles};
use proflens_format::Limits;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::{Rc, Weak};
use std::time::Instant;

/// Deepest directory level searched for runs.
const MAX_DEPTH: usize = 32;

/// The runs and hosts under a path.
pub struct Opened {
    pub runs: Vec<Run>,
}

pub struct Run {
    pub name: String,
    pub hosts: Vec<Rc<HostContext>>,
    /// The files of each host, in the same order, for messages and `info`.
    pub files: Vec<Vec<PathBuf>>,
}

/// Runs and hosts under `path` (a file, a run folder or a whole log directory).
pub fn open(path: &Path) -> Result<Opened, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    let (root, files, root_run) = if meta.is_file() {
        let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (parent.clone(), vec![path.to_path_buf()], dir_name(&parent))
    } else {
        let mut files = Vec::new();
        walk(path, 0, &mut files).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
        files.sort();
        let files = only_traces_unless_profiles(path, files).into_iter().filter(|f| !unreadable_json(f)).collect();
        (path.to_path_buf(), files, dir_name(path))
    };
    // Named as a folder pick in the browser names them: relative to the folder.
    let relative: Vec<String> =
        files.iter().map(|f| f.strip_prefix(&root).unwrap_or(f).to_string_lossy().replace('\\', "/")).collect();
    let found = logdir::discover(relative.iter().map(String::as_str), &root_run);
    if found.runs.is_empty() {
        return Err(Failure(format!(
            "{}: no profiles (*.xplane.pb, trace JSON *.json / *.json.gz, or TensorBoard tool files) found here",
            path.display()
        )));
    }
    let hooks = Rc::new(CliHooks { started: Instant::now(), hosts: RefCell::default() });
    let mut runs = Vec::new();
    for run in found.runs {
        let mut hosts = Vec::new();
        let mut paths = Vec::new();
        for host in run.hosts {
            let indexes: Vec<(usize, Option<proflens_format::legacy::LegacyTool>)> = match host.files {
                HostFiles::Events(file) => vec![(file, None)],
                HostFiles::Tools { tools, trace } => {
                    tools.iter().map(|(t, f)| (*f, Some(*t))).chain(trace.map(|f| (f, None))).collect()
                }
            };
            let host_files = indexes
                .iter()
                .map(|&(i, tool)| {
                    let file = files[i].clone();
                    HostFile { path: relative[i].clone(), tool, read: Box::new(move || read(&file)) }
                })
                .collect();
            paths.push(indexes.iter().map(|&(i, _)| files[i].clone()).collect());
            let context = Rc::new(HostContext::new(host.name, host_files, hooks.clone()));
            hooks.hosts.borrow_mut().push(Rc::downgrade(&context));
            hosts.push(context);
        }
        runs.push(Run { name: run.name, hosts, files: paths });
    }
    Ok(Opened { runs })
}

/// A folder without XSpace or tool files: only the trace JSON directly in
/// it (one file per rank of a PyTorch job); subfolders hold other things
/// (HTA's outputs, say).
fn only_traces_unless_profiles(dir: &Path, files: Vec<PathBuf>) -> Vec<PathBuf> {
    let name = |f: &PathBuf| f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let profiles = files.iter().any(|f| {
        let n = name(f);
        logdir::host_name(&n).is_some() || proflens_format::legacy::tool_file(&n).is_some()
    });
    if profiles {
        return files;
    }
    files.into_iter().filter(|f| f.parent() == Some(dir)).collect()
}

/// A file named like trace JSON whose first bytes say it is neither trace
/// events nor a tool's JSON (a summary someone saved beside the profiles):
/// left out of a folder, as the app leaves it out of a folder pick.
fn unreadable_json(path: &Path) -> bool {
    use std::io::Read;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if logdir::trace_host_name(&name).is_none() || proflens_format::legacy::tool_file(&name).is_some() {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(proflens_format::sniff::JSON_HEAD_BYTES as u64).read_to_end(&mut head));
    read.is_err() || proflens_format::sniff::check_json_head(&head).is_err()
}

/// The hosts to analyse: the run named by `--run` (or the only one; several
/// runs without a choice is an error that lists them), and in it the host
/// named by `--host`, or all its hosts together.
pub fn choose<'a>(
    opened: &'a Opened,
    run: Option<&str>,
    host: Option<&str>,
    path: &Path,
) -> Result<(&'a Run, Vec<Rc<HostContext>>), Failure> {
    let runs = &opened.runs;
    let run = match run {
        Some(name) => runs.iter().find(|r| r.name == name).ok_or_else(|| {
            Failure(format!(
                "{}: no run '{name}'; the runs are: {}",
                path.display(),
                names(runs.iter().map(|r| r.name.as_str()))
            ))
        })?,
        None if runs.len() == 1 => &runs[0],
        None => {
            return Err(Failure(format!(
                "{} holds {} runs; choose one with --run: {}",
                path.display(),
                runs.len(),
                names(runs.iter().map(|r| r.name.as_str()))
            )))
        }
    };
    let hosts = match host {
        Some(name) => vec![run.hosts.iter().find(|h| h.name() == name).cloned().ok_or_else(|| {
            Failure(format!(
                "run '{}' has no host '{name}'; its hosts are: {}",
                run.name,
                names(run.hosts.iter().map(|h| h.name()))
            ))
        })?],
        None => run.hosts.clone(),
    };
    Ok((run, hosts))
}

pub fn names<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

fn dir_name(path: &Path) -> String {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    absolute.file_name().map_or_else(|| ".".into(), |n| n.to_string_lossy().into_owned())
}

/// Every file below `dir`, at most [`MAX_DEPTH`] folders down.
fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), depth + 1, out)?;
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// A file's bytes, refused past the size limit; errors name the file.
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    let limit = Limits::default().max_input_bytes;
    let size = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?.len();
    if size > limit {
        let e = proflens_format::Error::TooLarge { what: "file", limit };
        return Err(format!("{}: {e}", path.display()));
    }
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The CLI's side of the contexts: wall-clock time, and one host's events
/// in memory at a time (a tool over many hosts keeps each host's results,
/// not its events).
struct CliHooks {
    started: Instant,
    hosts: RefCell<Vec<Weak<HostContext>>>,
}

impl Hooks for CliHooks {
    fn progress(&self, _: Option<f64>, _: &str) {}

    fn now_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    fn loaded(&self, host: &str) {
        for other in self.hosts.borrow().iter().filter_map(Weak::upgrade) {
            if other.name() != host && other.is_loaded() {
                other.unload();
            }
        }
    }
}
