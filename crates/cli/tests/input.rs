//! What a PATH argument can be besides a file or a folder of profiles, and
//! what proflens says about what it leaves out.
#![cfg(unix)]

use crate::common;

use common::data;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const PROFLENS: &str = env!("CARGO_BIN_EXE_proflens");
const PROFILE: &str = "xspace/external/tw003.xplane.pb";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proflens-input-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn proflens(args: &[&str], path: &Path) -> Output {
    Command::new(PROFLENS).args(args).arg(path).stdin(Stdio::null()).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_pipe_as_input_is_named_as_one() {
    let dir = scratch("fifo");
    let fifo = dir.join("profile.xplane.pb");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = proflens(&["info"], &fifo);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(message.contains("this is a pipe, not a file or a folder"), "{message}");
    assert!(!message.contains("os error"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn linked_profiles_are_read_and_loops_and_depth_are_reported() {
    let dir = scratch("links");
    let run = dir.join("plugins/profile/2026_01_01_00_00_00");
    std::fs::create_dir_all(&run).unwrap();
    std::os::unix::fs::symlink(data(PROFILE), run.join("linked.xplane.pb")).unwrap();
    std::os::unix::fs::symlink(&dir, run.join("loop")).unwrap();
    let mut deep = dir.join("deep");
    for i in 0..34 {
        deep = deep.join(i.to_string());
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::copy(data(PROFILE), deep.join("lost.xplane.pb")).unwrap();

    let out = proflens(&["info"], &dir);
    let message = stderr(&out);
    assert!(out.status.success(), "{message}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("linked"), "the linked host file is read");
    assert!(message.contains("a link back to a folder already read"), "{message}");
    assert!(message.contains("more than 32 folders deep"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn names_with_control_characters_are_escaped_in_messages() {
    let dir = scratch("names");
    std::fs::copy(data(PROFILE), dir.join("evil\n\u{1b}[2Jhost.xplane.pb")).unwrap();
    let out = Command::new(PROFLENS)
        .args(["tool", dir.to_str().unwrap(), "overview_page", "--host", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains(r"'evil\n\u{1b}[2Jhost'"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_xla_program_is_called_damaged_not_missing() {
    use proflens_format::proto::{x_stat, XEventMetadata, XPlane, XSpace, XStat, XStatMetadata};
    use prost::Message;
    let hlo = XStat { metadata_id: 1, value: Some(x_stat::Value::BytesValue(vec![0xff; 16])) };
    let plane = XPlane {
        name: proflens_format::hlo::METADATA_PLANE.into(),
        event_metadata: [(1, XEventMetadata { id: 1, name: "jit_f".into(), stats: vec![hlo], ..Default::default() })]
            .into(),
        stat_metadata: [(
            1,
            XStatMetadata { id: 1, name: proflens_format::hlo::HLO_PROTO_STAT.into(), ..Default::default() },
        )]
        .into(),
        ..Default::default()
    };
    let dir = scratch("hlo");
    let file = dir.join("host.xplane.pb");
    std::fs::write(&file, XSpace { planes: vec![plane], ..Default::default() }.encode_to_vec()).unwrap();
    for tool in ["op_profile", "hlo_stats"] {
        let out = Command::new(PROFLENS).args(["tool", file.to_str().unwrap(), tool]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{tool}");
        let message = stderr(&out);
        assert!(message.contains("XLA programs could not be read (1 damaged"), "{tool}: {message}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
