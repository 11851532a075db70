//! The CLI and the app answer through one entry point,
//! `proflens_analysis::registry::run`. This test opens every fixture as the
//! app's worker does (the file's bytes behind a `HostContext`, the host named
//! by `discover` from the name the browser gives), runs every registry
//! tool on it, and checks that the CLI (the `proflens` program's library, in
//! this process) names the same host and prints the same JSON (exactly equal
//! values) or fails where the app fails.

use crate::common;

use common::{app_host, data, fixtures, proflens, untimed, NoHooks};
use proflens_analysis::context::{Format, HostContext, HostFile, Request};
use proflens_analysis::registry;
use serde_json::Value;
use std::rc::Rc;

#[test]
fn cli_and_app_name_hosts_alike_and_print_the_same_numbers() {
    // The CLI's side runs in this process through the program's library
    // (`proflens_cli::capture`; library.rs checks it prints what the program
    // prints), which keeps the opened fixture between tools as the Python API
    // does: each fixture is decoded once a side, not once a tool.
    let mut compared = 0;
    for path in fixtures() {
        let host = app_host(&path);
        let p = path.to_str().unwrap();
        for tool in registry::TOOLS {
            let args = ["proflens", "tool", p, tool.id(), "--host", host.name()];
            let cli = proflens_cli::capture(args.map(std::ffi::OsString::from));
            let app = registry::run(*tool, std::slice::from_ref(&host), &Request::default())
                .and_then(|o| o.text(Format::Json));
            match app {
                Ok(text) => {
                    assert!(cli.error.is_none(), "{p} {}: {:?}", tool.id(), cli.error);
                    let (printed, value) = (untimed(&cli.stdout), untimed(text.as_bytes()));
                    assert!(
                        printed == value,
                        "{p} {}: the CLI and the app differ at {}",
                        tool.id(),
                        difference(&printed, &value)
                    );
                    compared += 1;
                }
                Err(e) => assert!(cli.error.is_some(), "{p} {}: the app fails ({e}), the CLI does not", tool.id()),
            }
        }
        // Every tool ran on this host: each shared pass ran at most once.
        for (pass, runs) in host.pass_runs() {
            assert!(runs <= 1, "{p}: pass {pass} ran {runs} times");
        }
    }
    // Every fixture has a few tools with something to show.
    assert!(compared > 60, "{compared} outputs compared");
}

#[test]
fn all_hosts_combine_alike() {
    // Two hosts of one run: the same file twice under two names.
    let dir = std::env::temp_dir().join(format!("proflens-registry-{}", std::process::id()));
    let run = dir.join("plugins/profile/run1");
    std::fs::create_dir_all(&run).unwrap();
    let source = data("xspace/external/34.83.195.179_6003.xplane.pb");
    let mut hosts = Vec::new();
    for name in ["worker0", "worker1"] {
        let file = run.join(format!("{name}.xplane.pb"));
        std::fs::copy(&source, &file).unwrap();
        let read = Box::new(move || proflens_format::source::open_file(&file));
        let path = format!("{name}.xplane.pb");
        hosts.push(Rc::new(HostContext::new(name, vec![HostFile { path, tool: None, read }], Rc::new(NoHooks))));
    }
    for tool in registry::available_combined(&hosts) {
        let app = registry::run(tool, &hosts, &Request::default()).and_then(|o| o.text(Format::Json)).unwrap();
        let cli = proflens(&["tool", dir.to_str().unwrap(), tool.id()]);
        assert!(cli.status.success(), "{}: {}", tool.id(), String::from_utf8_lossy(&cli.stderr));
        let (printed, app) = (untimed(&cli.stdout), untimed(app.as_bytes()));
        assert!(printed == app, "{}: the CLI and the app differ at {}", tool.id(), difference(&printed, &app));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Where two values first differ, as a JSON path with both sides.
fn difference(a: &Value, b: &Value) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return format!(".{k}{}", difference(v, w)),
                    None => return format!(".{k} (only in the CLI's)"),
                }
            }
            "(keys only in the app's)".into()
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            let i = x.iter().zip(y).position(|(v, w)| v != w).unwrap_or(0);
            format!("[{i}]{}", difference(&x[i], &y[i]))
        }
        _ => format!(": {a} vs {b}"),
    }
}
