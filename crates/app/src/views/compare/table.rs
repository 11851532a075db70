//! A keyed table on both sides (framework ops, PyTorch operators, HLO ops,
//! kernels): the key's columns, how the row changed (new and gone rows are
//! marked), counts, both values, the change and its share of all change.
//! Largest change first; every column sorts, a filter matches the key, and
//! the table downloads as the comparison's CSV.

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::compare::{self, Comparison, DiffRow, Status, TableDiff};

use crate::widgets::fmt;
use crate::widgets::table::{Column, Filter, FilterExportBar, SortValue, SortableTable, ToolbarText};

/// Key parts shown as columns; tables have at most three.
const MAX_KEY_PARTS: usize = 4;

#[component]
pub fn TableView(comparison: Comparison) -> impl IntoView {
    let Some(table) = comparison.table.clone() else { return ().into_any() };
    let (new, gone) = (count(&table, Status::New), count(&table, Status::Gone));
    let caption = format!(
        "{} by change in {} ({}): baseline {}, candidate {}; {} new, {} gone — select a heading to sort",
        fmt::plural(table.rows.len(), "row", "rows"),
        table.metric,
        table.unit,
        fmt::decimal(table.base_total, 1),
        fmt::decimal(table.candidate_total, 1),
        fmt::count(new as u64),
        fmt::count(gone as u64),
    );
    let columns = columns(&table);
    let rows: Arc<Vec<DiffRow>> = Arc::new(table.rows);
    let filter_text = RwSignal::new(String::new());
    let csv = StoredValue::new(compare::report::csv(&comparison));
    let toolbar = ToolbarText {
        filter_id: "compare-filter",
        filter_label: "Filter by name",
        placeholder: "part of a name",
        export_id: "export-compare",
        export_label: "Export table (CSV)",
        file_name: "compare.csv",
    };
    view! {
        <FilterExportBar text=toolbar filter=filter_text csv=move || csv.get_value()/>
        <div class="table-scroll">
            <SortableTable
                id="compare-table"
                caption=caption
                columns=columns
                rows=Signal::derive(move || rows.clone())
                filter=Filter { text: filter_text.into(), matches: row_matches }
                empty="No row matches the filter."
                row_class=row_class
            />
        </div>
    }
    .into_any()
}

fn count(table: &TableDiff, status: Status) -> usize {
    table.rows.iter().filter(|r| r.status == status).count()
}

/// Substring match on any part of the key (`needle` is lower-case).
pub fn row_matches(row: &DiffRow, needle: &str) -> bool {
    row.key.iter().any(|k| k.to_lowercase().contains(needle))
}

fn row_class(row: &DiffRow) -> &'static str {
    status_class(row.status)
}

/// `status-new`… : a class for CSS to mark how a row changed.
pub fn status_class(status: Status) -> &'static str {
    match status {
        Status::New => "status-new",
        Status::Gone => "status-gone",
        Status::Changed => "status-changed",
        Status::Same => "status-same",
    }
}

/// How a row changed, in words with a mark that shows at a glance.
pub fn status_text(status: Status) -> &'static str {
    match status {
        Status::New => "+ new",
        Status::Gone => "− gone",
        Status::Changed => "changed",
        Status::Same => "same",
    }
}

thread_local! {
    static LABELS: RefCell<HashSet<&'static str>> = RefCell::default();
}

/// A column heading made from the data (`Operation`, `Baseline (µs)`) as
/// the table's `&'static str`: each distinct heading is kept once, and
/// there are a handful of them.
fn label(text: String) -> &'static str {
    LABELS.with_borrow_mut(|labels| match labels.get(text.as_str()) {
        Some(known) => known,
        None => {
            let leaked: &'static str = Box::leak(text.into_boxed_str());
            labels.insert(leaked);
            leaked
        }
    })
}

fn key_part(row: &DiffRow, i: usize) -> &str {
    row.key.get(i).map_or("", String::as_str)
}

type KeyValue = for<'a> fn(&'a DiffRow) -> SortValue<'a>;
type Cell = fn(&DiffRow) -> String;
const KEY_VALUES: [KeyValue; MAX_KEY_PARTS] = [
    |r| SortValue::Text(key_part(r, 0)),
    |r| SortValue::Text(key_part(r, 1)),
    |r| SortValue::Text(key_part(r, 2)),
    |r| SortValue::Text(key_part(r, 3)),
];
const KEY_CELLS: [Cell; MAX_KEY_PARTS] = [
    |r| key_part(r, 0).to_string(),
    |r| key_part(r, 1).to_string(),
    |r| key_part(r, 2).to_string(),
    |r| key_part(r, 3).to_string(),
];
const KEY_IDS: [&str; MAX_KEY_PARTS] = ["key-0", "key-1", "key-2", "key-3"];

fn columns(table: &TableDiff) -> Vec<Column<DiffRow>> {
    let unit = &table.unit;
    let mut columns: Vec<Column<DiffRow>> = table
        .key_names
        .iter()
        .take(MAX_KEY_PARTS)
        .enumerate()
        .map(|(i, name)| Column {
            id: KEY_IDS[i],
            label: label(name.clone()),
            title: "Part of the key that pairs a baseline row with a candidate row",
            numeric: false,
            value: KEY_VALUES[i],
            cell: KEY_CELLS[i],
        })
        .collect();
    let measures: [Column<DiffRow>; 8] = [
        Column {
            id: "status",
            label: "Status",
            title: "new: only in the candidate; gone: only in the baseline",
            numeric: false,
            value: |r| SortValue::Text(status_text(r.status)),
            cell: |r| status_text(r.status).to_string(),
        },
        Column {
            id: "base-count",
            label: "Baseline count",
            title: "How many times it ran in the baseline",
            numeric: true,
            value: |r| SortValue::Number(r.base_count as f64),
            cell: |r| fmt::count(r.base_count),
        },
        Column {
            id: "candidate-count",
            label: "Candidate count",
            title: "How many times it ran in the candidate",
            numeric: true,
            value: |r| SortValue::Number(r.candidate_count as f64),
            cell: |r| fmt::count(r.candidate_count),
        },
        Column {
            id: "base",
            label: label(format!("Baseline ({unit})")),
            title: "The measure in the baseline, in the unit shown",
            numeric: true,
            value: |r| SortValue::Number(r.base),
            cell: |r| fmt::decimal(r.base, 1),
        },
        Column {
            id: "candidate",
            label: label(format!("Candidate ({unit})")),
            title: "The measure in the candidate, in the unit shown",
            numeric: true,
            value: |r| SortValue::Number(r.candidate),
            cell: |r| fmt::decimal(r.candidate, 1),
        },
        Column {
            id: "delta",
            label: label(format!("Change ({unit})")),
            title: "Candidate − baseline",
            numeric: true,
            value: |r| SortValue::Number(r.delta),
            cell: |r| fmt::signed(r.delta, 1),
        },
        Column {
            id: "delta-pct",
            label: "Change (%)",
            title: "The change as a share of the baseline",
            numeric: true,
            value: |r| SortValue::Number(r.delta_pct.unwrap_or(f64::INFINITY)),
            cell: |r| fmt::signed_percent(r.delta_pct),
        },
        Column {
            id: "share",
            label: "Share of change (%)",
            title: "The row's change over the sum of every row's size of change",
            numeric: true,
            value: |r| SortValue::Number(r.share_of_change_pct),
            cell: |r| fmt::signed(r.share_of_change_pct, 1),
        },
    ];
    columns.extend(measures);
    columns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &[&str], status: Status) -> DiffRow {
        DiffRow {
            key: key.iter().map(|k| k.to_string()).collect(),
            status,
            base_count: 1,
            candidate_count: 1,
            base: 1.0,
            candidate: 2.0,
            delta: 1.0,
            delta_pct: Some(100.0),
            share_of_change_pct: 50.0,
        }
    }

    #[test]
    fn filter_matches_any_key_part() {
        let r = row(&["Device", "MatMul", "dense/MatMul"], Status::Changed);
        assert!(row_matches(&r, "matmul"));
        assert!(row_matches(&r, "device"));
        assert!(!row_matches(&r, "conv"));
    }

    #[test]
    fn headings_are_kept_once() {
        let a = label("Operation".to_string());
        let b = label("Operation".to_string());
        assert!(std::ptr::eq(a, b));
        assert_eq!(status_text(Status::Gone), "− gone");
        assert_eq!(status_class(Status::New), "status-new");
    }

    #[test]
    fn key_columns_follow_the_key_names() {
        let table = TableDiff {
            key_names: vec!["Type".into(), "Operation".into()],
            metric: "self time".into(),
            unit: "µs".into(),
            base_total: 0.0,
            candidate_total: 0.0,
            rows: vec![],
        };
        let columns = columns(&table);
        assert_eq!(columns[0].label, "Type");
        assert_eq!(columns[1].label, "Operation");
        assert_eq!(columns[2].id, "status");
        assert_eq!(columns[5].label, "Baseline (µs)");
        let r = row(&["Conv2D", "conv1"], Status::New);
        assert_eq!((columns[1].cell)(&r), "conv1");
    }
}
