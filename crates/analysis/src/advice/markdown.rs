//! The Advisor's findings as a short Markdown report for a pull request:
//! one line of context, a table of the findings, then each finding's
//! evidence and fix, and the detectors that could not measure.
//!
//! Every number goes through [`super::ms`] and [`super::pct`], so a report
//! of the same profile is the same text on every machine (a CI comment that
//! changes only when the profile does). Profile text (titles, labels,
//! values) is escaped: a kernel or op name must not turn into Markdown or HTML.

use super::{Advice, Basis, Confidence, Finding};
use std::fmt::Write;

/// The report: `title` as its heading.
pub fn report(advice: &Advice, title: &str) -> String {
    let mut out = format!("## {}\n\n{}\n\n", text(title), context(advice));
    if advice.findings.is_empty() {
        out += "No finding: every detector that could measure found its cost below its threshold.\n\n";
    } else {
        out += "| # | Finding | Cost / step | Share | Gain / step | Confidence |\n";
        out += "|---:|---|---:|---:|---:|---|\n";
        for (i, f) in advice.findings.iter().enumerate() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                i + 1,
                cell(&f.title),
                super::ms(f.cost_ms_per_step),
                super::pct(f.cost_share),
                gain(f),
                confidence(f.confidence)
            );
        }
        out.push('\n');
        for (i, f) in advice.findings.iter().enumerate() {
            finding(&mut out, i + 1, f);
        }
    }
    if !advice.unmeasured.is_empty() {
        out += "**Not measured on this profile:**\n\n";
        for u in &advice.unmeasured {
            let _ = writeln!(out, "- {}: {}", text(&u.title), text(&u.why));
        }
        out.push('\n');
    }
    out
}

/// Framework, what the costs are shares of, and the step time.
fn context(advice: &Advice) -> String {
    let framework = match advice.framework {
        super::Framework::Unknown => "Framework unknown".to_string(),
        known => known.name().to_string(),
    };
    let basis = match advice.basis {
        Basis::Step => {
            let steps = if advice.steps == 1 { "1 step".to_string() } else { format!("{} steps", advice.steps) };
            format!("step time {} (average of {steps})", super::ms(advice.step_ms))
        }
        Basis::ProfiledTime => {
            format!("no steps: costs are per {} of profiled time", super::ms(advice.step_ms))
        }
    };
    let clear = match advice.clear.len() {
        0 => String::new(),
        1 => " · 1 detector clear".to_string(),
        n => format!(" · {n} detectors clear"),
    };
    // Steps that are not ProfilerStep#N: which they are.
    let iterations = advice.iterations.as_ref().map_or(String::new(), |n| format!("\n\n{}", text(n)));
    format!("{framework} · {basis}{clear}{iterations}")
}

/// One finding: heading, summary, evidence, gain reasoning, fix.
fn finding(out: &mut String, rank: usize, f: &Finding) {
    let _ = writeln!(out, "### {rank}. {}\n", text(&f.title));
    if !f.summary.is_empty() {
        let _ = writeln!(out, "{}\n", text(&f.summary));
    }
    for e in &f.evidence {
        let host = e.link.host.as_deref().map_or(String::new(), |h| format!(" on {}", text(h)));
        let _ = writeln!(
            out,
            "- {}: {}{host} ({})",
            text(&e.label),
            text(&e.value),
            code(&format!("#{}", e.link.fragment()))
        );
    }
    if !f.evidence.is_empty() {
        out.push('\n');
    }
    if !f.gain_reasoning.is_empty() {
        let _ = writeln!(out, "Gain {}: {}\n", gain(f), text(&f.gain_reasoning));
    }
    if !f.fix.trim().is_empty() {
        let fence = fence(&f.fix);
        let _ = writeln!(out, "{fence}\n{}\n{fence}\n", f.fix.trim_end());
    }
}

fn gain(f: &Finding) -> String {
    let (low, high) = (super::ms(f.gain_ms_per_step.low), super::ms(f.gain_ms_per_step.high));
    if low == high {
        low
    } else {
        format!("{low} – {high}")
    }
}

fn confidence(c: Confidence) -> &'static str {
    match c {
        Confidence::Low => "low",
        Confidence::Medium => "medium",
        Confidence::High => "high",
    }
}

/// A code fence longer than any run of backticks in `body`, so the body
/// cannot close it early.
fn fence(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// Profile text as table-cell text: one line, no Markdown or HTML, `|` escaped.
pub fn cell(s: &str) -> String {
    text(s).replace('|', "\\|")
}

/// Profile text as Markdown text: one line, HTML and emphasis escaped.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '&' => out += "&amp;",
            '*' | '_' | '`' | '[' | ']' | '\\' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text shown verbatim as a code span (a link fragment).
fn code(s: &str) -> String {
    let one_line: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    format!("`{}`", one_line.replace('`', "'"))
}

#[cfg(test)]
mod tests {
    use super::super::{Evidence, Found, Framework, Link, Range, Unmeasured};
    use super::*;

    fn finding(id: &str, title: &str, cost: f64, gain: (f64, f64)) -> Finding {
        Finding {
            id: id.into(),
            title: title.into(),
            summary: "What was seen.".into(),
            cost_ms_per_step: cost,
            cost_share: cost / 100.0,
            gain_ms_per_step: Range { low: gain.0, high: gain.1 },
            gain_reasoning: "Half to all of it.".into(),
            confidence: Confidence::Medium,
            evidence: vec![Evidence {
                label: "Input time".into(),
                value: format!("{cost} ms"),
                link: Link::trace(10, 20),
            }],
            fix: "dataset = dataset.prefetch(tf.data.AUTOTUNE)\n```\n".into(),
        }
    }

    fn advice() -> Advice {
        let found = Found {
            findings: vec![
                finding("small", "Small | thing", 2.0, (1.0, 2.0)),
                finding("big", "Big <b>", 40.0, (20.0, 40.0)),
            ],
            unmeasured: vec![Unmeasured { id: "u".into(), title: "Launches".into(), why: "no GPU".into() }],
            clear: vec!["c".into()],
        };
        Advice::new(Framework::TensorFlow, Basis::Step, 100.0, 10, found)
    }

    #[test]
    fn the_table_lists_findings_in_rank_order_with_escaped_cells() {
        let md = report(&advice(), "Advisor");
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| 1 ") || l.starts_with("| 2 ")).collect();
        assert_eq!(rows.len(), 2, "{md}");
        assert!(rows[0].contains("Big &lt;b&gt;") && rows[0].contains("40.0 ms") && rows[0].contains("40.0%"), "{md}");
        assert!(rows[0].contains("20.0 ms – 40.0 ms"), "{md}");
        // An unescaped `|` would add a column.
        assert!(rows[1].contains("Small \\| thing"), "{md}");
        assert_eq!(rows[1].matches(" | ").count(), rows[0].matches(" | ").count(), "{md}");
        assert!(md.contains("TensorFlow · step time 100 ms (average of 10 steps) · 1 detector clear"), "{md}");
    }

    #[test]
    fn evidence_carries_its_link_and_the_fix_its_own_fence() {
        let md = report(&advice(), "Advisor");
        assert!(md.contains("- Input time: 40 ms (`#tool=trace_viewer&t=10-20`)"), "{md}");
        // The fix holds ``` itself: the fence is longer.
        assert!(md.contains("````\ndataset = dataset.prefetch(tf.data.AUTOTUNE)\n```\n````"), "{md}");
        assert!(md.contains("- Launches: no GPU"), "{md}");
    }

    #[test]
    fn no_findings_says_so() {
        let empty = Advice::new(Framework::Unknown, Basis::ProfiledTime, 5.0, 1, Found::default());
        let md = report(&empty, "Advisor");
        assert!(md.contains("No finding") && !md.contains("| # |"), "{md}");
        assert!(md.contains("Framework unknown · no steps"), "{md}");
    }
}
