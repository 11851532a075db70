//! Where results go: standard output, or a file written whole or not at all.

use crate::Failure;
use std::io::Write;
use std::path::Path;

/// The output formats of `proflens tool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Proflens's view model.
    Json,
    /// The tool's main table.
    Csv,
    /// XProf 2.24's JSON for the tool (DataTable arrays).
    Xprof,
    /// HolisticTraceAnalysis 0.5.0's numbers, in its goldens' shape.
    Hta,
    /// Plain text (graph_viewer: the module's HLO text).
    Txt,
    /// An SVG drawing (graph_viewer: the graph around the node).
    Svg,
    /// A Markdown report (advisor: the findings for a pull request).
    Md,
}

impl From<Format> for proflens_analysis::context::Format {
    fn from(format: Format) -> Self {
        match format {
            Format::Json => Self::Json,
            Format::Csv => Self::Csv,
            Format::Xprof => Self::Xprof,
            Format::Hta => Self::Hta,
            Format::Txt => Self::Txt,
            Format::Svg => Self::Svg,
            Format::Md => Self::Md,
        }
    }
}

/// Writes `text` to `output`, or prints it. A file is written beside its
/// final name and renamed into place, so a failure never leaves half a file.
pub fn write(output: Option<&Path>, text: &str) -> Result<(), Failure> {
    match output {
        Some(path) => write_file(path, |out| out.write_all(text.as_bytes())),
        None => print(text),
    }
}

thread_local! {
    /// Where [`print`] writes while [`captured`] runs on this thread.
    static CAPTURE: std::cell::RefCell<Option<Vec<u8>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with what [`print`] prints on this thread kept, not printed;
/// returns `f`'s result and what was printed.
pub fn captured<T>(f: impl FnOnce() -> T) -> (T, Vec<u8>) {
    let outer = CAPTURE.with(|c| c.borrow_mut().replace(Vec::new()));
    let result = f();
    let printed = CAPTURE.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer)).unwrap_or_default();
    (result, printed)
}

/// Whether [`captured`] runs on this thread.
pub fn capturing() -> bool {
    CAPTURE.with(|c| c.borrow().is_some())
}

/// Prints `text` on standard output (or keeps it, inside [`captured`]). A
/// reader that went away (`proflens … | head`) ends the output quietly; a
/// full disk is a plain error.
pub fn print(text: &str) -> Result<(), Failure> {
    let kept = CAPTURE.with(|c| c.borrow_mut().as_mut().map(|kept| kept.extend_from_slice(text.as_bytes())));
    if kept.is_some() {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure(format!("standard output: {e}"))),
        Ok(()) => Ok(()),
    }
}

/// Writes a file through `fill`, renamed into place only when all of it is
/// written. Only files: a FIFO or a device would block or take half an answer.
pub fn write_file(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Failure> {
    let error = |e: std::io::Error| Failure(format!("{}: {e}", path.display()));
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(Failure(format!("{}: not a regular file; -o writes files only", path.display())));
        }
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let partial = path.with_file_name(format!(".{name}.partial"));
    let written = (|| {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&partial)?);
        fill(&mut out)?;
        out.flush()?;
        drop(out);
        std::fs::rename(&partial, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.map_err(error)
}
