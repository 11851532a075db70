//! The breakdown at the peak as table rows: what each allocation was, and
//! how the table shows, sorts and filters it.

use proflens_analysis::tools::memory_profile::{Activity, AllocatorProfile};

use crate::widgets::fmt;
use crate::widgets::measure::bytes;
use crate::widgets::table::{Column, SortValue};

/// Substring match on the op name (`needle` is lower-case).
pub(super) fn op_matches(row: &BreakdownRow, needle: &str) -> bool {
    row.activity.op.to_lowercase().contains(needle)
}

/// The op's whole name as the hover text of its cell.
pub(super) fn op_title(row: &BreakdownRow, column: &'static str) -> Option<String> {
    (column == "op").then(|| row.activity.op.clone())
}

/// The allocation a breakdown row stands for.
pub(super) fn activity_of(a: &AllocatorProfile, snapshot: Option<usize>, special: Option<usize>) -> Option<&Activity> {
    match (snapshot, special) {
        (Some(i), _) => a.snapshots.get(i).map(|s| &s.activity),
        (None, Some(i)) => a.special.get(i),
        (None, None) => None,
    }
}

pub struct BreakdownRow {
    pub activity: Activity,
    pub occurrences: u64,
}

pub(super) fn breakdown_columns() -> Vec<Column<BreakdownRow>> {
    vec![
        Column {
            id: "op",
            label: "Op name",
            title: "The framework op that made the allocation",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.op),
            cell: |r| r.activity.op.clone(),
        },
        Column {
            id: "allocation-size",
            label: "Allocation size",
            title: "Bytes the allocator handed out",
            numeric: true,
            value: |r| SortValue::Number(r.activity.allocation_bytes as f64),
            cell: |r| bytes(r.activity.allocation_bytes),
        },
        Column {
            id: "requested-size",
            label: "Requested size",
            title: "Bytes the op asked for",
            numeric: true,
            value: |r| SortValue::Number(r.activity.requested_bytes as f64),
            cell: |r| bytes(r.activity.requested_bytes),
        },
        Column {
            id: "occurrences",
            label: "Occurrences",
            title: "Allocations alike in all these columns",
            numeric: true,
            value: |r| SortValue::Number(r.occurrences as f64),
            cell: |r| fmt::count(r.occurrences),
        },
        Column {
            id: "region",
            label: "Region type",
            title: "The kind of memory region the allocation came from (as the allocator reports it)",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.region),
            cell: |r| r.activity.region.clone(),
        },
        Column {
            id: "data-type",
            label: "Data type",
            title: "The element type of the allocated tensor",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.data_type),
            cell: |r| r.activity.data_type.clone(),
        },
        Column {
            id: "shape",
            label: "Shape",
            title: "The shape of the allocated tensor",
            numeric: false,
            value: |r| SortValue::Text(&r.activity.shape),
            cell: |r| r.activity.shape.clone(),
        },
    ]
}
