//! The documents stay true to the repository: the README stays short and
//! starts with the two set-up commands, the README and ARCHITECTURE.md carry
//! no dated entries, every file ARCHITECTURE.md names exists, every relative
//! link of the README, ARCHITECTURE.md and docs/*.md resolves, the README's
//! tool table lists every tool, and docs/reliability.md's fuzzing and
//! `unsafe` sentences match the code. Every failure names the file and line.

use std::path::{Path, PathBuf};

/// The README's hard limit: a newcomer reads it in five minutes.
const README_MAX_LINES: usize = 250;
/// The set-up commands must be on the README's first screenful or two.
const SETUP_WITHIN_LINES: usize = 80;

/// The repository's root (this crate is `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is inside the repository").to_path_buf()
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md, ARCHITECTURE.md and every docs/*.md, as paths from the root.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_string(), "ARCHITECTURE.md".to_string()];
    let mut more: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a docs/ entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// Where `line` holds a date written `YYYY-MM-DD` (four digits, dash, two
/// digits, dash, two digits), the byte offset of the first one.
fn find_date(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let digits = |from: usize, n: usize| b[from..from + n].iter().all(u8::is_ascii_digit);
    (0..b.len().saturating_sub(9))
        .find(|&i| digits(i, 4) && b[i + 4] == b'-' && digits(i + 5, 2) && b[i + 7] == b'-' && digits(i + 8, 2))
}

/// The inline code spans of a line (text between single backticks).
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// Whether a code span names a path of the repository: it has a `/` and no
/// space, and starts with a top-level folder or ends like a source or
/// document file. Placeholders and globs (`<tool>`, `*`, `{a,b}`) are not
/// paths.
fn is_repo_path(span: &str) -> bool {
    const FOLDERS: [&str; 8] = ["crates/", "web/", "tests/", "proto/", "collector/", "xtask/", "fuzz/", "docs/"];
    const ENDINGS: [&str; 4] = [".rs", ".md", ".mjs", ".toml"];
    span.contains('/')
        && !span.contains(char::is_whitespace)
        && !span.contains(['<', '*', '{'])
        && (FOLDERS.iter().any(|f| span.starts_with(f)) || ENDINGS.iter().any(|e| span.ends_with(e)))
}

/// The targets of a line's Markdown links and images, `](target)`, without
/// a title.
fn link_targets(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target);
        rest = &after[end..];
    }
    out
}

/// The file a relative link points to, from the document at `doc`; `None`
/// for links that leave the repository's files (web pages, mail) or only
/// name an anchor of the same page.
fn link_file(doc: &str, target: &str) -> Option<PathBuf> {
    if target.is_empty() || target.starts_with('#') || target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let path = target.split('#').next().unwrap_or(target);
    let dir = Path::new(doc).parent().unwrap_or(Path::new(""));
    Some(dir.join(path))
}

/// Images that a browser test writes when it runs: `tests/browser/shell.test.mjs`
/// writes `docs/screenshots/shell-*.png`, which may not exist yet on a clean
/// clone whose browser tests have not run (the demos' screenshots are kept in
/// the repository, so their links are checked).
fn written_by_a_browser_test(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let parent = path.parent().map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default();
    parent.ends_with("docs/screenshots") && name.starts_with("shell-")
}

/// Removes `.` and `..` from a relative path, so that links from docs/ back
/// to the root name their file plainly in messages.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= README_MAX_LINES, "README.md: {lines} lines, more than {README_MAX_LINES}");
    let head: Vec<&str> = readme.lines().take(SETUP_WITHIN_LINES).collect();
    for command in ["cargo xtask serve", "cargo xtask test"] {
        assert!(
            head.iter().any(|l| l.contains(command)),
            "README.md: `{command}` is not in lines 1-{SETUP_WITHIN_LINES}"
        );
    }
}

#[test]
fn the_readme_and_architecture_carry_no_dates() {
    let mut found = Vec::new();
    for doc in ["README.md", "ARCHITECTURE.md"] {
        for (n, line) in read(doc).lines().enumerate() {
            if let Some(at) = find_date(line) {
                found.push(format!("{doc}:{}: {}", n + 1, &line[at..at + 10]));
            }
        }
    }
    assert!(found.is_empty(), "dated entries belong in docs/benchmarks.md's history:\n{}", found.join("\n"));
}

#[test]
fn every_path_architecture_names_exists() {
    let root = root();
    let text = read("ARCHITECTURE.md");
    let (mut checked, mut missing) = (0, Vec::new());
    for (n, line) in prose_lines(&text) {
        for span in code_spans(line).into_iter().filter(|s| is_repo_path(s)) {
            checked += 1;
            if !root.join(span).exists() {
                missing.push(format!("ARCHITECTURE.md:{n}: `{span}` does not exist"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    // The map names dozens of files; finding few means the matcher broke.
    assert!(checked > 50, "ARCHITECTURE.md: only {checked} paths found");
}

#[test]
fn every_relative_link_resolves() {
    let root = root();
    let (mut checked, mut missing) = (0, Vec::new());
    for doc in documents() {
        for (n, line) in prose_lines(&read(&doc)) {
            for target in link_targets(line) {
                let Some(file) = link_file(&doc, target) else { continue };
                let file = normalise(&file);
                if written_by_a_browser_test(&file) {
                    continue;
                }
                checked += 1;
                if !root.join(&file).exists() {
                    missing.push(format!("{doc}:{n}: ({target}) → {} does not exist", file.display()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(checked > 50, "only {checked} relative links found");
}

#[test]
fn the_readme_lists_every_tool() {
    let names = read("crates/app/src/tool_names.rs");
    let ids: Vec<&str> = names.split("tool(\"").skip(1).filter_map(|rest| rest.split('"').next()).collect();
    assert!(ids.len() > 20, "crates/app/src/tool_names.rs: only {} tools found", ids.len());
    let readme = read("README.md");
    let missing: Vec<&&str> = ids.iter().filter(|id| !readme.contains(&format!("(`{id}`)"))).collect();
    assert!(missing.is_empty(), "README.md: the tool table lacks {missing:?} (crates/app/src/tool_names.rs)");
}

#[test]
fn reliability_names_every_fuzz_target_and_their_count() {
    const WORDS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    let mut targets: Vec<String> = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .expect("fuzz/fuzz_targets is readable")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".rs").map(str::to_string))
        .collect();
    targets.sort();
    let doc = read("docs/reliability.md");
    let missing: Vec<&String> = targets.iter().filter(|t| !doc.contains(&format!("`{t}`"))).collect();
    assert!(missing.is_empty(), "docs/reliability.md: fuzz targets not named: {missing:?}");
    let count = WORDS.get(targets.len()).copied().unwrap_or("many");
    let sentence = format!("{count} `cargo fuzz` targets");
    let line = doc.lines().position(|l| l.to_lowercase().contains(&sentence));
    assert!(
        line.is_some(),
        "docs/reliability.md: no line says \"{sentence}\" ({} targets in fuzz/fuzz_targets)",
        targets.len()
    );
}

/// docs/reliability.md says the libraries the fuzz targets run hold no
/// `unsafe` code (why `-s none` loses little).
#[test]
fn the_fuzzed_libraries_hold_no_unsafe_code() {
    let mut found = Vec::new();
    let mut files = 0;
    let mut stack: Vec<PathBuf> =
        ["crates/model/src", "crates/format/src", "crates/analysis/src"].iter().map(|d| root().join(d)).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                let text = std::fs::read_to_string(&path).expect("readable source");
                for (n, line) in text.lines().enumerate() {
                    if has_word(line, "unsafe") {
                        found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(files > 100, "only {files} source files found");
    assert!(found.is_empty(), "docs/reliability.md says these crates hold no `unsafe`:\n{}", found.join("\n"));
}

/// Whether `word` stands alone in `line` (not inside a longer identifier).
fn has_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The matchers themselves: each finds what it must and nothing else, so
/// that the checks above can fail.
#[test]
fn the_matchers_find_what_they_should() {
    assert_eq!(find_date("Measured on 2026-11-27 (a 2-core machine)"), Some(12));
    assert_eq!(find_date("2026-11-2"), None);
    assert_eq!(find_date("v1.2.3, 10-20-30, 2026/11/27"), None);

    assert!(is_repo_path("crates/app/src/views/mod.rs"));
    assert!(is_repo_path("web/loader.js"));
    assert!(is_repo_path("context/tool.rs"));
    assert!(!is_repo_path("crates/analysis/src/tools/<tool>/"));
    assert!(!is_repo_path("tests/*_parity.rs"));
    assert!(!is_repo_path("proflens tool PATH TOOL"));
    assert!(!is_repo_path("format::source::ByteSource"));
    assert_eq!(code_spans("a `b` c `d/e.rs` f"), ["b", "d/e.rs"]);

    let line = "See [this](docs/a.md#x), ![](screenshots/b.png \"B\") and [web](https://x.org).";
    assert_eq!(link_targets(line), ["docs/a.md#x", "screenshots/b.png", "https://x.org"]);
    assert_eq!(link_file("docs/cli.md", "../README.md#keyboard"), Some(PathBuf::from("docs/../README.md")));
    assert_eq!(normalise(Path::new("docs/../README.md")), PathBuf::from("README.md"));
    assert_eq!(link_file("README.md", "#the-tools"), None);
    assert_eq!(link_file("README.md", "https://example.org/a.md"), None);
    assert!(written_by_a_browser_test(Path::new("docs/screenshots/shell-trace-1280x800-dark.png")));
    assert!(!written_by_a_browser_test(Path::new("docs/screenshots/demo-cpu-dark.png")));

    let fenced = "a\n```\nb\n```\nc";
    assert_eq!(prose_lines(fenced), [(1, "a"), (5, "c")]);
    assert!(has_word("unsafe impl X", "unsafe"));
    assert!(!has_word("not_unsafe_here", "unsafe"));
}
