//! A PATH argument as runs and hosts: the files under it are named by
//! `proflens_format::logdir::discover`, exactly as the app names what
//! is opened in the browser, and each host becomes a `HostContext` that
//! reads its files from disk when a tool asks. A host's summary beside its
//! profile (`proflens summarize`) gives the host its analysis (`summaries`).
//! Tar archives among the files are opened as folders (`archives`).

use crate::archives::Location;
use crate::Failure;
use proflens_analysis::context::{Hooks, HostContext, HostFile};
use proflens_format::legacy::LegacyTool;
use proflens_format::logdir::{self, HostFiles};
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::rc::{Rc, Weak};
use std::time::Instant;

/// Deepest directory level searched for runs.
const MAX_DEPTH: usize = 32;

/// The runs and hosts under a path.
pub struct Opened {
    pub runs: Vec<Run>,
    hooks: Rc<CliHooks>,
}

impl Opened {
    /// A context for `spec`, with its summary if it has one, among the
    /// hosts of which one at a time keeps its events.
    pub fn context(&self, spec: &HostSpec) -> Rc<HostContext> {
        let context = Rc::new(spec.context(self.hooks.clone()));
        if let Some(summary) = &spec.summary {
            crate::summaries::give(summary, spec.events(), &context);
        }
        self.hooks.hosts.borrow_mut().push(Rc::downgrade(&context));
        context
    }
}

pub struct Run {
    pub name: String,
    pub hosts: Vec<Rc<HostContext>>,
    /// The files of each host, in the same order, for messages and `info`.
    pub files: Vec<Vec<PathBuf>>,
    /// Each host's files as plain data, in the same order: other threads
    /// open the host again from them (`parallel`).
    pub specs: Vec<HostSpec>,
}

/// A host's files as discovery named them: plain data, sent to the thread
/// that analyses the host.
#[derive(Debug, Clone)]
pub struct HostSpec {
    pub name: String,
    /// Each file: its name relative to the opened folder (as the browser
    /// names it), where it is read, its legacy tool.
    pub files: Vec<(String, Location, Option<LegacyTool>)>,
    /// The host's summary file, if one was found.
    pub summary: Option<PathBuf>,
}

impl HostSpec {
    /// A context that reads the host's files from disk.
    pub fn context(&self, hooks: Rc<dyn Hooks>) -> HostContext {
        let files = self
            .files
            .iter()
            .map(|(relative, location, tool)| {
                let location = location.clone();
                HostFile { path: relative.clone(), tool: *tool, read: Box::new(move || location.open()) }
            })
            .collect();
        HostContext::new(self.name.clone(), files, hooks)
    }

    /// Where the host's events are read (the first file that is no legacy tool file).
    fn events_at(&self) -> Option<&Location> {
        self.files.iter().find(|(_, _, tool)| tool.is_none()).map(|(_, location, _)| location)
    }

    /// The host's file of events on disk (none for a member of an archive).
    pub fn events(&self) -> Option<&Path> {
        self.events_at()?.on_disk()
    }

    /// The host's XSpace file on disk, when its name says it has one (the
    /// hosts a summary is written for).
    pub fn xspace(&self) -> Option<&Path> {
        let path = self.events()?;
        logdir::host_name(path.file_name()?.to_str()?).map(|_| path)
    }

    /// Whether the host's events are named as an XSpace, on disk or in an archive.
    pub fn has_xspace(&self) -> bool {
        let name = self.events_at().and_then(|l| l.path().file_name()).map(|n| n.to_string_lossy().into_owned());
        name.is_some_and(|n| logdir::host_name(&n).is_some())
    }
}

/// Runs and hosts under `path` (a file, a run folder or a whole log directory).
pub fn open(path: &Path) -> Result<Opened, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    let alone = meta.is_file();
    let (root, files, root_run) = if meta.is_file() {
        let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (parent.clone(), vec![path.to_path_buf()], dir_name(&parent))
    } else if meta.is_dir() {
        let mut walk = Walk::default();
        walk.dir(path, 0).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
        walk.report();
        let mut files = walk.files;
        files.sort();
        let files = only_traces_unless_profiles(path, files).into_iter().filter(|f| !unreadable_json(f)).collect();
        (path.to_path_buf(), files, dir_name(path))
    } else {
        // A pipe can be read once; tools read a host's files again when asked.
        return Err(Failure(format!(
            "{}: this is {}, not a file or a folder; save the profile to a file first and give its path",
            path.display(),
            special_kind(&meta)
        )));
    };
    // Named as a folder pick in the browser names them: relative to the folder.
    let relative: Vec<String> =
        files.iter().map(|f| f.strip_prefix(&root).unwrap_or(f).to_string_lossy().replace('\\', "/")).collect();
    let (files, notes) = crate::archives::expand(files, relative, alone)?;
    report(&notes);
    let found = logdir::discover(files.iter().map(|f| f.listed.as_str()), &root_run);
    if found.runs.is_empty() {
        return Err(Failure(format!(
            "{}: no profiles (*.xplane.pb, trace JSON *.json / *.json.gz, TensorBoard tool files, or .tar / .tar.gz archives of them) found here",
            path.display()
        )));
    }
    let mut opened = Opened {
        runs: Vec::new(),
        hooks: Rc::new(CliHooks { started: Instant::now(), hosts: RefCell::default(), threads: threads() }),
    };
    for run in found.runs {
        let mut hosts = Vec::new();
        let mut paths = Vec::new();
        let mut specs = Vec::new();
        for host in run.hosts {
            let indexes: Vec<(usize, Option<LegacyTool>)> = match host.files {
                HostFiles::Events(file) => {
                    std::iter::once((file, None)).chain(host.counter_logs.iter().map(|&f| (f, None))).collect()
                }
                HostFiles::Tools { tools, trace } => {
                    tools.iter().map(|(t, f)| (*f, Some(*t))).chain(trace.map(|f| (f, None))).collect()
                }
            };
            let spec = HostSpec {
                name: host.name,
                files: indexes
                    .iter()
                    .map(|&(i, tool)| (files[i].relative.clone(), files[i].location.clone(), tool))
                    .collect(),
                summary: host.summary.and_then(|i| files[i].location.on_disk().map(Path::to_path_buf)),
            };
            paths.push(indexes.iter().map(|&(i, _)| files[i].location.path().to_path_buf()).collect());
            hosts.push(opened.context(&spec));
            specs.push(spec);
        }
        opened.runs.push(Run { name: run.name, hosts, files: paths, specs });
    }
    Ok(opened)
}

/// A folder without XSpace or tool files: only the trace JSON directly in
/// it (one file per rank of a PyTorch job); subfolders hold other things
/// (HTA's outputs, say).
fn only_traces_unless_profiles(dir: &Path, files: Vec<PathBuf>) -> Vec<PathBuf> {
    let name = |f: &PathBuf| f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // A summary beside the traces is a rank's: it keeps the folder a job's
    // (one deeper down is an XSpace host's, of a log directory).
    let profiles = files.iter().any(|f| {
        let n = name(f);
        logdir::host_name(&n).is_some()
            || (logdir::summary_host_name(&n).is_some() && f.parent() != Some(dir))
            || proflens_format::legacy::tool_file(&n).is_some()
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
    if logdir::trace_host_name(&name).is_none()
        || logdir::summary_host_name(&name).is_some()
        || proflens_format::legacy::tool_file(&name).is_some()
    {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(proflens_format::sniff::JSON_HEAD_BYTES as u64).read_to_end(&mut head));
    read.is_err() || proflens_format::sniff::check_json_head(&head).is_err()
}

/// The hosts to analyse: the run named by `--run` (or the only one; several
/// runs without a choice is an error that lists them), and in it the host
/// named by `--host`, or all its hosts together. (`combine::choose` first
/// adds a run that `RUN1+RUN2` combines.)
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
                "{}: no run {}; the runs are: {}",
                path.display(),
                proflens_format::quoted(name),
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
                "run {} has no host {}; its hosts are: {}",
                proflens_format::quoted(&run.name),
                proflens_format::quoted(name),
                names(run.hosts.iter().map(|h| h.name()))
            ))
        })?],
        None => run.hosts.clone(),
    };
    Ok((run, hosts))
}

/// The first names of a list, for a message (a pod can have thousands of hosts).
pub fn names<'a>(items: impl ExactSizeIterator<Item = &'a str>) -> String {
    const SHOWN: usize = 20;
    let total = items.len();
    let mut shown: Vec<String> = items.take(SHOWN).map(proflens_format::quoted).collect();
    if total > SHOWN {
        shown.push(format!("and {} more", total - SHOWN));
    }
    shown.join(", ")
}

fn dir_name(path: &Path) -> String {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    absolute.file_name().map_or_else(|| ".".into(), |n| n.to_string_lossy().into_owned())
}

/// The files below a folder, links followed; what was left out, to say so.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    skipped: Vec<String>,
    /// Folders read, by their real path: a link back to one is a loop.
    seen: HashSet<PathBuf>,
}

impl Walk {
    /// Every file below `dir`, at most [`MAX_DEPTH`] folders down. Only the
    /// top folder must be readable; below it, what cannot be read is skipped
    /// and reported.
    fn dir(&mut self, dir: &Path, depth: usize) -> std::io::Result<()> {
        if depth > MAX_DEPTH {
            self.skipped.push(format!("{}: more than {MAX_DEPTH} folders deep", dir.display()));
            return Ok(());
        }
        if !self.seen.insert(std::fs::canonicalize(dir)?) {
            self.skipped.push(format!("{}: a link back to a folder already read", dir.display()));
            return Ok(());
        }
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            // `metadata` follows links: a linked profile or run folder counts.
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => {
                    if let Err(e) = self.dir(&path, depth + 1) {
                        self.skipped.push(format!("{}: {e}", path.display()));
                    }
                }
                Ok(meta) if meta.is_file() => self.files.push(path),
                Ok(meta) => self.skipped.push(format!("{}: {}", path.display(), special_kind(&meta))),
                Err(e) => self.skipped.push(format!("{}: {e}", path.display())),
            }
        }
        Ok(())
    }

    /// Says on stderr what was left out (the first few of it).
    fn report(&self) {
        report(&self.skipped);
    }
}

/// Says on stderr what was left out (the first few of `skipped`).
fn report(skipped: &[String]) {
    const SHOWN: usize = 5;
    for note in skipped.iter().take(SHOWN) {
        eprintln!("proflens: skipped {}", proflens_format::escape_controls(note));
    }
    if skipped.len() > SHOWN {
        eprintln!("proflens: skipped {} more", skipped.len() - SHOWN);
    }
}

/// Words for what is neither a file nor a folder.
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() {
            return "a pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    let _ = meta;
    "neither a file nor a folder"
}

/// Threads one host may use when it is analysed alone: `PROFLENS_THREADS`,
/// or one per core.
pub fn threads() -> usize {
    let set = std::env::var("PROFLENS_THREADS").ok().and_then(|n| n.trim().parse::<usize>().ok());
    set.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// The CLI's side of the contexts: wall-clock time, and one host's events
/// in memory at a time (a tool over many hosts keeps each host's results,
/// not its events).
struct CliHooks {
    started: Instant,
    hosts: RefCell<Vec<Weak<HostContext>>>,
    /// Hosts are analysed one at a time here: each may use every core.
    threads: usize,
}

impl Hooks for CliHooks {
    fn progress(&self, _: Option<f64>, _: &str) {}

    fn now_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn loaded(&self, host: &str) {
        for other in self.hosts.borrow().iter().filter_map(Weak::upgrade) {
            if other.name() != host && other.is_loaded() {
                other.unload();
            }
        }
    }
}
