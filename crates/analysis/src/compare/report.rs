//! A comparison as CSV (its main table) and as a short Markdown report for
//! a pull request.

use super::model::{AdviceDiff, Comparison, Delta, DiffNode};
use crate::advice::markdown::{cell, text};
use crate::advice::{ms, pct as share};
use crate::common::csv::csv_field;
use std::fmt::Write;

/// Rows of the main table in the report.
const REPORT_ROWS: usize = 15;
/// Longest name in the report, in characters.
const REPORT_NAME_CHARS: usize = 120;

/// The comparison's main table: the trace diff, the Advisor's findings, the
/// keyed table, the tree (one row per node, with its path), or the figures.
pub fn csv(c: &Comparison) -> String {
    let mut out = String::new();
    let pct = |p: Option<f64>| p.map_or(String::new(), |p| format!("{p:.2}"));
    if let Some(diff) = &c.trace_diff {
        out += "name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories\n";
        for r in &diff.rows {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{}",
                csv_field(&r.name),
                r.control_counts,
                r.control_total_duration,
                r.test_counts,
                r.test_total_duration,
                r.diff_counts,
                r.diff_duration,
                csv_field(&r.counts_change_categories)
            );
        }
    } else if let Some(advice) = &c.advice {
        out += "id,title,status,base_ms_per_step,candidate_ms_per_step,change_ms_per_step,share_of_step_change_pct\n";
        let cost = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
        for r in &advice.rows {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{:.3},{}",
                csv_field(&r.id),
                csv_field(&r.title),
                r.status.name(),
                cost(r.base_ms),
                cost(r.candidate_ms),
                r.change_ms,
                pct(r.share_of_step_change.map(|s| 100.0 * s))
            );
        }
    } else if let Some(table) = &c.table {
        for name in &table.key_names {
            out += &csv_field(name);
            out.push(',');
        }
        let unit = &table.unit;
        let _ = writeln!(
            out,
            "status,base_count,candidate_count,base_{unit},candidate_{unit},delta_{unit},delta_pct,share_of_change_pct"
        );
        for r in &table.rows {
            for part in &r.key {
                out += &csv_field(part);
                out.push(',');
            }
            let _ = writeln!(
                out,
                "{:?},{},{},{:.3},{:.3},{:.3},{},{:.2}",
                r.status,
                r.base_count,
                r.candidate_count,
                r.base,
                r.candidate,
                r.delta,
                pct(r.delta_pct),
                r.share_of_change_pct
            );
        }
        out = out.replace("µs", "us");
    } else if let Some(tree) = &c.tree {
        out += "path,status,base_count,candidate_count,base_us,candidate_us,delta_us\n";
        tree_rows(tree, "", &mut out);
    } else {
        out += "name,unit,base,candidate,delta,delta_pct\n";
        let step = c.step_time_ms.filter(|_| !c.metrics.iter().any(|m| m.name == "Step time"));
        let figures = step.map(|d| ("Step time".to_string(), "ms".to_string(), d)).into_iter();
        for (name, unit, d) in figures.chain(c.metrics.iter().map(|m| (m.name.clone(), m.unit.clone(), m.value))) {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{}",
                csv_field(&name),
                csv_field(&unit),
                d.base,
                d.candidate,
                d.delta,
                pct(d.delta_pct)
            );
        }
    }
    out
}

fn tree_rows(node: &DiffNode, parent: &str, out: &mut String) {
    let path = if parent.is_empty() { node.name.clone() } else { format!("{parent}/{}", node.name) };
    let _ = writeln!(
        out,
        "{},{:?},{},{},{:.3},{:.3},{:.3}",
        csv_field(&path),
        node.status,
        node.base_count,
        node.candidate_count,
        node.base_ps / 1e6,
        node.candidate_ps / 1e6,
        node.delta_ps / 1e6
    );
    for child in &node.children {
        tree_rows(child, &path, out);
    }
}

/// A short Markdown report: the sides, the step time and verdict, what
/// differs, and the largest changes.
pub fn markdown(c: &Comparison) -> String {
    let mut out = format!("## Proflens comparison: {}\n\n", c.tool);
    out += "| | Baseline | Candidate |\n|---|---|---|\n";
    let (b, k) = (&c.base, &c.candidate);
    let row = |out: &mut String, what: &str, bv: String, cv: String| {
        let _ = writeln!(out, "| {what} | {} | {} |", cell(&bv), cell(&cv));
    };
    row(&mut out, "Profile", b.label.clone(), k.label.clone());
    row(&mut out, "Kind", b.kind.clone(), k.kind.clone());
    let device = |f: &super::SideFacts| match (f.device_count, f.device_type.as_str()) {
        (_, "") => "unknown".to_string(),
        (0, kind) => kind.to_string(),
        (n, kind) => format!("{n} × {kind}"),
    };
    row(&mut out, "Devices", device(b), device(k));
    row(&mut out, "Steps", b.steps.to_string(), k.steps.to_string());
    out.push('\n');
    match &c.step_time_ms {
        Some(step) => {
            let _ = writeln!(out, "**Step time:** {}\n", delta_text(step, "ms"));
        }
        None => out += "**Step time:** not comparable (see the notes).\n\n",
    }
    if !c.verdict.is_empty() {
        let _ = writeln!(out, "{}\n", text(&c.verdict));
    }
    for line in c.differences.iter().chain(&c.notes) {
        let _ = writeln!(out, "- {}", text(line));
    }
    if !c.differences.is_empty() || !c.notes.is_empty() {
        out.push('\n');
    }
    if !c.metrics.is_empty() {
        out += "| Figure | Baseline | Candidate | Change |\n|---|---:|---:|---:|\n";
        for m in &c.metrics {
            let unit = if m.unit.is_empty() { String::new() } else { format!(" {}", m.unit) };
            let _ = writeln!(
                out,
                "| {} | {:.2}{unit} | {:.2}{unit} | {} |",
                cell(&m.name),
                m.value.base,
                m.value.candidate,
                change(&m.value)
            );
        }
        out.push('\n');
    }
    if let Some(table) = c.table.as_ref().filter(|t| !t.rows.is_empty()) {
        let _ = writeln!(out, "Largest changes in {} ({}):\n", table.metric, table.unit);
        let _ = writeln!(out, "| {} | Status | Baseline | Candidate | Change |", table.key_names.join(" | "));
        let _ = writeln!(out, "|{}---|---:|---:|---:|", "---|".repeat(table.key_names.len()));
        for r in table.rows.iter().take(REPORT_ROWS) {
            let key: Vec<String> = r.key.iter().map(|k| code(k)).collect();
            let d = Delta { base: r.base, candidate: r.candidate, delta: r.delta, delta_pct: r.delta_pct };
            let _ = writeln!(
                out,
                "| {} | {:?} | {:.1} | {:.1} | {} |",
                key.join(" | "),
                r.status,
                r.base,
                r.candidate,
                change(&d)
            );
        }
        out.push('\n');
    }
    if let Some(advice) = c.advice.as_ref().filter(|a| !a.rows.is_empty()) {
        advice_rows(advice, &mut out);
    }
    if let Some(diff) = c.trace_diff.as_ref().filter(|d| !d.rows.is_empty()) {
        out += "Largest changes per event name (µs, HTA's trace diff):\n\n| Name | Counts | Duration (µs) | Change (µs) |\n|---|---:|---:|---:|\n";
        // The rows come largest change first.
        for r in diff.rows.iter().take(REPORT_ROWS) {
            let _ = writeln!(
                out,
                "| {} | {} → {} | {:.0} → {:.0} | {:+.0} |",
                code(&r.name),
                r.control_counts,
                r.test_counts,
                r.control_total_duration,
                r.test_total_duration,
                r.diff_duration
            );
        }
        out.push('\n');
    }
    if let Some(tree) = c.tree.as_ref().filter(|t| !t.children.is_empty()) {
        out += "Largest changes in the op profile (category → op, µs):\n\n| Node | Baseline | Candidate | Change |\n|---|---:|---:|---:|\n";
        for category in tree.children.iter().take(REPORT_ROWS) {
            let d = Delta::new(category.base_ps / 1e6, category.candidate_ps / 1e6);
            let _ = writeln!(out, "| {} | {:.1} | {:.1} | {} |", code(&category.name), d.base, d.candidate, change(&d));
        }
        out.push('\n');
    }
    out
}

/// The Advisor's findings on both sides: what grew first.
fn advice_rows(a: &AdviceDiff, out: &mut String) {
    let _ = writeln!(
        out,
        "The Advisor's findings (ms per step; its step time {} → {}, {:+.2} ms):\n",
        ms(a.base_step_ms),
        ms(a.candidate_step_ms),
        a.step_change_ms
    );
    out.push_str("| Finding | Status | Baseline | Candidate | Change | Share of step change |\n");
    out.push_str("|---|---|---:|---:|---:|---:|\n");
    let cost = |v: Option<f64>| v.map_or("—".to_string(), ms);
    for r in a.rows.iter().take(REPORT_ROWS) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:+.2} ms | {} |",
            cell(&r.title),
            r.status.name(),
            cost(r.base_ms),
            cost(r.candidate_ms),
            r.change_ms,
            r.share_of_step_change.map_or("—".to_string(), share)
        );
    }
    out.push('\n');
}

fn delta_text(d: &Delta, unit: &str) -> String {
    let pct = d.delta_pct.map_or(String::new(), |p| format!(", {p:+.1} %"));
    format!("{:.2} {unit} → {:.2} {unit} ({:+.2} {unit}{pct})", d.base, d.candidate, d.delta)
}

fn change(d: &Delta) -> String {
    match d.delta_pct {
        Some(p) => format!("{:+.2} ({p:+.1} %)", d.delta),
        None if d.delta == 0.0 => "0".into(),
        None => format!("{:+.2} (new)", d.delta),
    }
}

/// A name as a code span (shown verbatim), cut to [`REPORT_NAME_CHARS`].
fn code(name: &str) -> String {
    let mut cut: String = name.chars().take(REPORT_NAME_CHARS).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if name.chars().count() > REPORT_NAME_CHARS {
        cut.push('…');
    }
    format!("`{}`", cut.replace('`', "'").replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_inject_markdown_or_html() {
        assert_eq!(cell("<img src=x>|*b*"), "&lt;img src=x&gt;\\|\\*b\\*");
        assert_eq!(code("a`b|c\nd"), "`a'b\\|c d`");
        assert!(code(&"x".repeat(500)).ends_with("…`"));
    }
}
