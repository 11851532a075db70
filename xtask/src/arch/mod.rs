//! `cargo xtask check-arch`: the architecture rules, checked from the source text.
//!
//! No compilation and no parser crate: the code is rustfmt-formatted Rust, so
//! reading `mod x;` declarations and `crate::` / `super::` / `self::` paths is
//! enough to build each crate's module tree and who-uses-whom between modules.
//! The rules:
//!
//! 1. No module circle inside a crate, judged between sibling modules: an edge
//!    from `a::x` to `b::y` is an edge `a -> b` among the crate root's children.
//!    Parents using children and children using their parent are no edges.
//! 2. A crate root may order its top-level modules with `//! Layers: low < mid < high`
//!    (lower layers never import higher ones), and say with `//! Independent: tools`
//!    that the children of a module never import each other.
//! 3. No Rust source file is over 600 lines.

mod graph;
mod scan;
#[cfg(test)]
mod tests;

use scan::{FileScan, PathRef};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Source files by path relative to the workspace root: the real tree, or an in-memory one in tests.
pub type Sources = BTreeMap<PathBuf, String>;

/// The top-level folders whose `.rs` files count toward the size limit.
const SOURCE_DIRS: [&str; 5] = ["crates", "collector", "xtask", "tests", "fuzz"];
/// Longer files are hard to review and usually hold more than one idea.
const MAX_LINES: usize = 600;

/// Checks the workspace at `root`; the error lists every violation, one per line.
pub fn check(root: &Path) -> Result<(), String> {
    let mut files = Sources::new();
    for dir in SOURCE_DIRS {
        load(root, Path::new(dir), &mut files)?;
    }
    let found = violations(&files);
    if found.is_empty() {
        println!("xtask: check-arch: {} files, no violations", files.len());
        return Ok(());
    }
    let count = found.iter().filter(|v| !v.starts_with(' ')).count();
    Err(format!("check-arch found {count} violations:\n{}", found.join("\n")))
}

/// Reads every `.rs` file under `root/dir` (not build outputs or hidden folders) into `files`.
fn load(root: &Path, dir: &Path, files: &mut Sources) -> Result<(), String> {
    let full = root.join(dir);
    let Ok(entries) = std::fs::read_dir(&full) else { return Ok(()) };
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", full.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = dir.join(&name);
        let kind = entry.file_type().map_err(|e| format!("{}: {e}", path.display()))?;
        if kind.is_dir() && !name.starts_with('.') && name != "target" && name != "node_modules" {
            load(root, &path, files)?;
        } else if kind.is_file() && name.ends_with(".rs") {
            let text = std::fs::read_to_string(root.join(&path)).map_err(|e| format!("{}: {e}", path.display()))?;
            files.insert(path, text);
        }
    }
    Ok(())
}

/// Every violation in `files`, in a stable order; indented lines detail the line before.
pub fn violations(files: &Sources) -> Vec<String> {
    let mut found = Vec::new();
    for (label, root_file) in crate_roots(files) {
        found.extend(Crate::read(files, label, root_file).violations());
    }
    for (path, text) in files {
        let lines = text.lines().count();
        if lines > MAX_LINES {
            found.push(format!("{}: {lines} lines (limit {MAX_LINES})", slash(path)));
        }
    }
    found
}

/// The crate roots (`lib.rs`, `main.rs`) of every `crates/*/src`, `collector/src` and `xtask/src`,
/// each with its label: the crate's folder name (`analysis`), plus ` (main.rs)` for a binary
/// beside a library.
fn crate_roots(files: &Sources) -> Vec<(String, &PathBuf)> {
    let mut roots = Vec::new();
    for path in files.keys() {
        let parts: Vec<&str> = path.iter().map(|p| p.to_str().unwrap_or("")).collect();
        let name = match parts.as_slice() {
            ["crates", name, "src", "lib.rs" | "main.rs"] => *name,
            [name @ ("collector" | "xtask"), "src", "lib.rs" | "main.rs"] => *name,
            _ => continue,
        };
        let has_lib = files.contains_key(&path.with_file_name("lib.rs"));
        let is_main = path.ends_with("main.rs");
        roots.push((if is_main && has_lib { format!("{name} (main.rs)") } else { name.to_string() }, path));
    }
    roots
}

/// One module's file and what it names (the tree keys it by its path, `["tools", "overview"]`).
struct Module<'a> {
    file: &'a PathBuf,
    scan: FileScan,
}

/// A use of module `to` by code in module `from`, at `file:line`.
struct Edge<'a> {
    from: &'a [String],
    to: Vec<String>,
    file: &'a Path,
    line: usize,
}

struct Crate<'a> {
    label: String,
    files: &'a Sources,
    root_file: &'a PathBuf,
    modules: BTreeMap<Vec<String>, Module<'a>>,
    /// Problems found while reading, such as a `mod x;` without its file.
    problems: Vec<String>,
}

impl<'a> Crate<'a> {
    /// Builds the module tree from the root file's `mod` declarations (Rust 2018 file layout).
    fn read(files: &'a Sources, label: String, root_file: &'a PathBuf) -> Self {
        let mut krate = Crate { label, files, root_file, modules: BTreeMap::new(), problems: Vec::new() };
        let mut pending = vec![(Vec::new(), root_file)];
        while let Some((path, file)) = pending.pop() {
            let scan = scan::scan(&files[file]);
            let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let parent = file.parent().unwrap_or(Path::new(""));
            // `a.rs` keeps its children in `a/`; lib.rs, main.rs and mod.rs beside themselves.
            let dir = if path.is_empty() || stem == "mod" { parent.to_path_buf() } else { parent.join(stem) };
            for name in &scan.mods {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(name).join("mod.rs");
                match files.get_key_value(&flat).or_else(|| files.get_key_value(&nested)) {
                    Some((child, _)) => pending.push(([path.clone(), vec![name.clone()]].concat(), child)),
                    None => krate.problems.push(format!(
                        "{}: {}: `mod {name};` but neither {} nor {} exists",
                        krate.label,
                        slash(file),
                        slash(&flat),
                        slash(&nested)
                    )),
                }
            }
            krate.modules.insert(path, Module { file, scan });
        }
        krate
    }

    fn src_dir(&self) -> &Path {
        self.root_file.parent().unwrap_or(Path::new(""))
    }

    /// Every use of one module by another, with the module a path names being its longest
    /// prefix that is a module (`crate::a::b::f` names `a::b` when `b` is a module of `a`).
    fn edges(&self) -> Vec<Edge<'_>> {
        let mut edges = Vec::new();
        for (from, module) in &self.modules {
            for path in &module.scan.refs {
                let Some(absolute) = resolve(from, path) else { continue };
                let known = (0..=absolute.len()).rev().find(|&n| self.modules.contains_key(&absolute[..n]));
                let to = absolute[..known.unwrap_or(0)].to_vec();
                if &to != from {
                    edges.push(Edge { from, to, file: module.file, line: path.line });
                }
            }
        }
        edges
    }

    fn violations(&self) -> Vec<String> {
        let edges = self.edges();
        let mut found = self.problems.clone();
        found.extend(self.circles(&edges));
        found.extend(self.layers(&edges));
        found.extend(self.independent(&edges));
        found
    }

    /// Rule 1: strongly connected components among the children of each module.
    fn circles(&self, edges: &[Edge]) -> Vec<String> {
        let mut graphs: BTreeMap<&[String], graph::Graph> = BTreeMap::new();
        let mut examples: BTreeMap<(&[String], &str, &str), &Edge> = BTreeMap::new();
        for edge in edges {
            let Some((parent, a, b)) = siblings(edge) else { continue };
            graphs.entry(parent).or_default().entry(a.to_string()).or_default().insert(b.to_string());
            examples.entry((parent, a, b)).or_insert(edge);
        }
        let mut found = Vec::new();
        for (parent, graph) in &graphs {
            for members in graph::circles(graph) {
                let walk = graph::closed_walk(graph, &members);
                let dir = parent.iter().fold(self.src_dir().to_path_buf(), |dir, name| dir.join(name));
                found.push(format!("{}: module circle: {} ({})", self.label, walk.join(" -> "), slash(&dir)));
                let mut shown = BTreeSet::new();
                for pair in walk.windows(2) {
                    if shown.insert(pair) {
                        let edge = examples[&(*parent, pair[0].as_str(), pair[1].as_str())];
                        found.push(format!("    {} -> {}: {}", pair[0], pair[1], self.site(edge)));
                    }
                }
            }
        }
        found
    }

    /// Rule 2a: `//! Layers: low < high` in the crate root; a lower layer never imports a higher one.
    fn layers(&self, edges: &[Edge]) -> Vec<String> {
        let mut found = Vec::new();
        for spec in self.directives("Layers:") {
            let order: Vec<&str> = spec.split('<').map(str::trim).collect();
            found.extend(self.unknown(&order, &spec));
            let rank = |name: &str| order.iter().position(|l| *l == name);
            let mut reported = BTreeSet::new();
            for edge in edges {
                let Some(([], a, b)) = siblings(edge) else { continue };
                let (Some(from), Some(to)) = (rank(a), rank(b)) else { continue };
                if from < to && reported.insert((edge.file, &edge.to)) {
                    found.push(format!(
                        "{}: {}:{} imports {}, which is above {a} (layers: {spec})",
                        self.label,
                        self.in_crate(edge.file),
                        edge.line,
                        edge.to.join("::"),
                    ));
                }
            }
        }
        found
    }

    /// Rule 2b: `//! Independent: tools` in the crate root; children of `tools` never import
    /// each other (they may share what their parent holds).
    fn independent(&self, edges: &[Edge]) -> Vec<String> {
        let mut found = Vec::new();
        for spec in self.directives("Independent:") {
            let names: Vec<String> =
                spec.split([',', ' ']).filter(|n| !n.is_empty()).map(|n| n.replace('/', "::")).collect();
            found.extend(self.unknown(&names.iter().map(String::as_str).collect::<Vec<_>>(), &spec));
            let mut reported = BTreeSet::new();
            for edge in edges {
                let Some((parent, a, b)) = siblings(edge) else { continue };
                let parent_name = parent.join("::");
                if names.contains(&parent_name) && reported.insert((parent, a, b)) {
                    let shown = |child: &str| [parent, &[child.to_string()]].concat().join("/");
                    found.push(format!(
                        "{}: {} imports {}: {parent_name} never import each other ({}:{})",
                        self.label,
                        shown(a),
                        shown(b),
                        self.in_crate(edge.file),
                        edge.line
                    ));
                }
            }
        }
        found
    }

    /// The text after `//! {key}` on each such line of the crate root.
    fn directives(&self, key: &str) -> Vec<String> {
        let text = &self.files[self.root_file];
        text.lines()
            .filter_map(|l| l.trim().strip_prefix("//! ")?.strip_prefix(key))
            .map(|s| s.trim().to_string())
            .collect()
    }

    /// A directive naming a module that does not exist would silently check nothing.
    fn unknown(&self, names: &[&str], spec: &str) -> Vec<String> {
        let exists = |name: &&&str| self.modules.contains_key(&name.split("::").map(String::from).collect::<Vec<_>>());
        let root = slash(self.root_file);
        names
            .iter()
            .filter(|n| !exists(n))
            .map(|n| format!("{}: {root}: `{spec}` names no module {n}", self.label))
            .collect()
    }

    /// `path:line: the line's text`, for a developer to jump to.
    fn site(&self, edge: &Edge) -> String {
        let text = self.files[edge.file].lines().nth(edge.line - 1).unwrap_or("").trim();
        format!("{}:{}: {text}", slash(edge.file), edge.line)
    }

    /// `file` relative to the crate's src folder.
    fn in_crate(&self, file: &Path) -> String {
        slash(file.strip_prefix(self.src_dir()).unwrap_or(file))
    }
}

/// The module path `path` names from module `module` (`None` for `super` above the root).
fn resolve(module: &[String], path: &PathRef) -> Option<Vec<String>> {
    let mut segments = path.segments.iter().peekable();
    let mut absolute =
        if segments.next_if(|s| *s == "crate").is_some() { Vec::new() } else { [module, &path.inline].concat() };
    for segment in segments {
        match segment.as_str() {
            "super" => {
                absolute.pop()?;
            }
            "self" => {}
            name => absolute.push(name.to_string()),
        }
    }
    Some(absolute)
}

/// For an edge between modules that are not ancestor and descendant: their lowest common
/// ancestor and its two children on the way to each end.
fn siblings<'e>(edge: &'e Edge) -> Option<(&'e [String], &'e str, &'e str)> {
    let common = edge.from.iter().zip(&edge.to).take_while(|(a, b)| a == b).count();
    if common == edge.from.len() || common == edge.to.len() {
        return None;
    }
    Some((&edge.from[..common], &edge.from[common], &edge.to[common]))
}

/// A path with `/` separators whatever the platform, for stable messages.
fn slash(path: &Path) -> String {
    path.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>().join("/")
}
