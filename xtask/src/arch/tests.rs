//! The rules on small in-memory crates (`crates/demo/src/...`).

use super::scan::scan;
use super::{violations, Sources};
use std::path::PathBuf;

/// A workspace holding one crate, `demo`, with these files under its `src/`.
fn demo(files: &[(&str, &str)]) -> Sources {
    files.iter().map(|(path, text)| (PathBuf::from(format!("crates/demo/src/{path}")), text.to_string())).collect()
}

/// Violation headlines (without the indented example lines).
fn headlines(files: &[(&str, &str)]) -> Vec<String> {
    violations(&demo(files)).into_iter().filter(|v| !v.starts_with(' ')).collect()
}

#[test]
fn a_circle_between_siblings_is_found_with_an_example_per_edge() {
    let found = violations(&demo(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        ("b.rs", "pub struct B;\npub fn f() -> crate::c::C { todo!() }\n"),
        ("c.rs", "use super::a;\npub struct C;\n"),
    ]));
    assert_eq!(
        found,
        [
            "demo: module circle: a -> b -> c -> a (crates/demo/src)",
            "    a -> b: crates/demo/src/a.rs:1: use crate::b::B;",
            "    b -> c: crates/demo/src/b.rs:2: pub fn f() -> crate::c::C { todo!() }",
            "    c -> a: crates/demo/src/c.rs:1: use super::a;",
        ]
    );
}

#[test]
fn a_nested_circle_is_found_between_the_children_of_its_module() {
    let found = headlines(&[
        ("lib.rs", "mod outer;\n"),
        ("outer/mod.rs", "mod x;\nmod y;\n"),
        // Deeper modules count as their ancestor among the siblings: x::deep -> y.
        ("outer/x.rs", "mod deep;\n"),
        ("outer/x/deep.rs", "use super::super::y::Y;\n"),
        ("outer/y.rs", "pub struct Y;\nfn f() { crate::outer::x::deep::g(); }\n"),
    ]);
    assert_eq!(found, ["demo: module circle: x -> y -> x (crates/demo/src/outer)"]);
}

#[test]
fn parents_and_children_using_each_other_are_no_circle() {
    let found = headlines(&[
        ("lib.rs", "pub mod p;\npub struct Root;\n"),
        ("p.rs", "pub mod c;\nuse self::c::C;\npub struct P;\n"),
        ("p/c.rs", "use super::P;\nuse crate::p;\nuse crate::Root;\npub struct C;\n"),
    ]);
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn paths_in_strings_comments_and_test_modules_are_no_edges() {
    let b = r####"use crate::a::A;
const S: &str = "crate::c::X \" crate::c::Y";
const R: &str = r#"crate::c::Z " still raw"#;
const Q: char = '"'; const E: char = '\''; // crate::c::W
/* crate::c::V /* nested */ crate::c::U */
fn f<'a>(s: &'a str) -> &'a str { s }
#[cfg(test)]
mod tests {
    use crate::c::T;
}
#[cfg(test)]
mod more_tests;
"####;
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "pub struct A;\n"),
        ("b.rs", b),
        ("c.rs", "use crate::b;\n"),
    ];
    assert_eq!(headlines(&files), Vec::<String>::new());
    // The same file with a real path after all of that does make the circle.
    let b = format!("{b}fn g() {{ crate::c::h() }}\n");
    assert_eq!(
        headlines(&[files[0], files[1], ("b.rs", &b), files[3]]),
        ["demo: module circle: b -> c -> b (crates/demo/src)"]
    );
}

#[test]
fn each_kind_of_literal_hides_its_text_and_nothing_after_it() {
    let text = r####"const R: &str = r#"a " crate::x::A "#; crate::ok::r();
const Q: char = '"'; crate::ok::q(); const Q2: char = '"';
const E: char = '\"'; crate::ok::e(); const E2: char = '\"';
fn f<'a>(s: &'a str) -> &'a str { crate::ok::l(); s } const S: &str = "\"crate::x::B";
const B: &[u8] = br"\"; crate::ok::b(); const C: &[u8] = b"crate::x::C";
"####;
    let paths: Vec<(String, usize)> = scan(text).refs.into_iter().map(|r| (r.segments.join("::"), r.line)).collect();
    let expected =
        [("crate::ok::r", 1), ("crate::ok::q", 2), ("crate::ok::e", 3), ("crate::ok::l", 4), ("crate::ok::b", 5)];
    assert_eq!(paths, expected.map(|(p, l)| (p.to_string(), l)));
}

#[test]
fn grouped_use_trees_over_several_lines_are_parsed() {
    let text = "pub(crate) use crate::{\n    a::A,\n    b::{\n        self,\n        c::{C as D, *},\n    },\n};\nuse super::super::x;\nuse ::std::fmt;\nuse self::y::*;\n";
    let paths: Vec<(String, usize)> = scan(text).refs.into_iter().map(|r| (r.segments.join("::"), r.line)).collect();
    let expected = [
        ("crate::a::A", 2),
        ("crate::b::self", 4),
        ("crate::b::c::C", 5),
        ("crate::b::c", 5),
        ("super::super::x", 8),
        ("self::y", 10),
    ];
    assert_eq!(paths, expected.map(|(p, l)| (p.to_string(), l)));
}

#[test]
fn a_lower_layer_importing_a_higher_one_is_reported() {
    let found = headlines(&[
        ("lib.rs", "//! Layers: common < passes < tools\npub mod common;\npub mod passes;\npub mod tools;\n"),
        ("common.rs", "pub struct C;\n"),
        ("passes/mod.rs", "pub mod op_metrics;\n"),
        ("passes/op_metrics.rs", "use crate::common::C;\n\nuse crate::tools::kernel_stats::K;\n"),
        ("tools/mod.rs", "pub mod kernel_stats;\n"),
        ("tools/kernel_stats.rs", "use crate::passes::op_metrics;\npub struct K;\n"),
    ]);
    assert_eq!(
        found,
        [
            "demo: module circle: passes -> tools -> passes (crates/demo/src)",
            "demo: passes/op_metrics.rs:3 imports tools::kernel_stats, which is above passes \
             (layers: common < passes < tools)",
        ]
    );
}

#[test]
fn independent_children_importing_each_other_are_reported() {
    let found = headlines(&[
        ("lib.rs", "//! Independent: tools\npub mod tools;\n"),
        ("tools/mod.rs", "pub mod input_pipeline;\npub mod overview;\npub struct Shared;\n"),
        ("tools/input_pipeline.rs", "use super::Shared;\n"),
        ("tools/overview.rs", "use super::Shared;\nuse super::input_pipeline;\n"),
    ]);
    assert_eq!(
        found,
        ["demo: tools/overview imports tools/input_pipeline: tools never import each other (tools/overview.rs:2)"]
    );
}

#[test]
fn directives_naming_no_module_are_reported() {
    let found = headlines(&[("lib.rs", "//! Layers: a < b\n//! Independent: c\npub mod a;\n"), ("a.rs", "")]);
    assert_eq!(
        found,
        [
            "demo: crates/demo/src/lib.rs: `a < b` names no module b",
            "demo: crates/demo/src/lib.rs: `c` names no module c",
        ]
    );
}

#[test]
fn a_declared_module_without_its_file_is_reported() {
    let found = headlines(&[("lib.rs", "mod gone;\n")]);
    assert_eq!(
        found,
        ["demo: crates/demo/src/lib.rs: `mod gone;` but neither crates/demo/src/gone.rs nor \
          crates/demo/src/gone/mod.rs exists"]
    );
}

#[test]
fn files_over_600_lines_are_reported() {
    let mut files = demo(&[("lib.rs", "")]);
    files.insert(PathBuf::from("tests/ok.rs"), "x\n".repeat(600));
    files.insert(PathBuf::from("tests/big.rs"), "x\n".repeat(601));
    assert_eq!(violations(&files), ["tests/big.rs: 601 lines (limit 600)"]);
}

#[test]
fn a_module_included_by_path_is_not_a_child() {
    let found = headlines(&[("lib.rs", "#[path = \"../../other/src/shared.rs\"]\nmod shared;\nmod gone;\n")]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`mod gone;`"), "{found:?}");
}
