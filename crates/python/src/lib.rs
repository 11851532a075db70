//! `proflens._native`: the `proflens` command line run inside Python, as
//! the console command ([`main`]) or with its output returned ([`run`]),
//! which the Python API (crates/python/python/proflens) is built on.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ffi::OsString;

/// Runs `argv` (the program's name first) as the `proflens` program and
/// returns its exit code; prints as the program does. The interpreter's
/// lock is released while it runs (`serve` runs until the process ends).
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| proflens_cli::main(argv))
}

/// Runs `argv` (the program's name first) and returns the exit code, what it
/// printed on standard output, and the failure's message (None when it did
/// not fail).
#[pyfunction]
fn run(py: Python<'_>, argv: Vec<OsString>) -> (u8, Py<PyBytes>, Option<String>) {
    let captured = py.detach(|| proflens_cli::capture(argv));
    (captured.code, PyBytes::new(py, &captured.stdout).unbind(), captured.error)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
