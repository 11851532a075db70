//! The selected range's pane (`#trace-summary`): its statistics per event
//! name (`#trace-summary-table`) and per track (`#trace-summary-tracks`),
//! sortable, each with Save CSV, and its flame graph ([`flame`](super::flame)).
//! What each number means is in the column titles (hover text); the
//! definitions are `proflens_analysis::passes::trace::range_stats`'s.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::passes::trace::range_stats::{RangeRow, RangeStats};

use super::flame::FlamePane;
use super::model::format_duration;
use super::viewer::{Summary, Ui};
use crate::widgets::fmt;
use crate::widgets::table::{Column, Direction, SortValue, SortableTable};
use crate::widgets::table_csv::{columns_csv, TableCsv};

/// The columns after the first (name or track), the same in both tables.
fn stat_columns() -> Vec<Column<RangeRow>> {
    // A column of picoseconds; a macro because a column's fields are plain fn pointers.
    macro_rules! ps_column {
        ($id:literal, $label:literal, $title:literal, $field:ident) => {
            Column {
                id: $id,
                label: $label,
                title: $title,
                numeric: true,
                value: |r| SortValue::Number(r.$field as f64),
                cell: |r| format_duration(r.$field as f64),
            }
        };
    }
    vec![
        Column {
            id: "count",
            label: "Count",
            title: "Events overlapping the range (also those that only partly overlap it)",
            numeric: true,
            value: |r| SortValue::Number(r.count as f64),
            cell: |r| fmt::count(r.count),
        },
        ps_column!(
            "total",
            "Total (in range)",
            "Their durations added up, clipped to the range: the parts of events outside it are not counted",
            total_ps
        ),
        ps_column!(
            "self",
            "Self (in range)",
            "Total minus the time of each event's direct children on the same track, clipped to the range",
            self_ps
        ),
        ps_column!("min", "Min", "The shortest event's whole duration (not clipped)", min_ps),
        ps_column!("max", "Max", "The longest event's whole duration (not clipped)", max_ps),
        Column {
            id: "average",
            label: "Average",
            title: "The events' whole durations (not clipped) added up, divided by the count",
            numeric: true,
            value: |r| SortValue::Number(r.average_ps),
            cell: |r| format_duration(r.average_ps),
        },
        ps_column!(
            "p50",
            "p50",
            "Median whole duration, by nearest rank: the shortest duration with at least 50 % of the events at or below it",
            p50_ps
        ),
        ps_column!(
            "p90",
            "p90",
            "90th percentile of the whole durations, by nearest rank: the shortest duration with at least 90 % of the events at or below it",
            p90_ps
        ),
        ps_column!(
            "p99",
            "p99",
            "99th percentile of the whole durations, by nearest rank: the shortest duration with at least 99 % of the events at or below it",
            p99_ps
        ),
    ]
}

/// The first column: the row's name (an event's or a track's).
fn first_column(id: &'static str, label: &'static str, title: &'static str) -> Column<RangeRow> {
    Column { id, label, title, numeric: false, value: |r| SortValue::Text(&r.name), cell: |r| r.name.clone() }
}

/// The statistics by event name; share = self ÷ (range × selected tracks).
fn name_columns() -> Vec<Column<RangeRow>> {
    columns(
        first_column("name", "Name", "Event name"),
        "Self time ÷ (range × selected tracks): the part of the tracks' time this name keeps busy itself; the column adds up to how busy the tracks are",
    )
}

/// The statistics by track; share = self ÷ range.
fn track_columns() -> Vec<Column<RangeRow>> {
    columns(
        first_column("track", "Track", "Track (thread, stream or derived row)"),
        "Self time ÷ range: the part of the range the track is busy (its outermost events' time in the range)",
    )
}

/// A table's columns: its first, the statistics, and the share (defined by `share_title`).
fn columns(first: Column<RangeRow>, share_title: &'static str) -> Vec<Column<RangeRow>> {
    let mut columns = vec![first];
    columns.extend(stat_columns());
    columns.push(Column {
        id: "share",
        label: "Share of range",
        title: share_title,
        numeric: true,
        value: |r| SortValue::Number(r.share),
        cell: |r| fmt::share(r.share, 1.0),
    });
    columns
}

/// ps from the profile's start as `1,234.567 ms`.
fn at_ms(ps: i64) -> String {
    format!("{} ms", fmt::ps_as_ms(ps))
}

fn head(s: &RangeStats) -> impl IntoView {
    let events: u64 = s.by_track.iter().map(|r| r.count).sum();
    let text = format!(
        "{} in {} ({} to {}) on {}.",
        fmt::plural(events as usize, "event", "events"),
        format_duration((s.end_ps - s.start_ps) as f64),
        at_ms(s.start_ps),
        at_ms(s.end_ps),
        fmt::plural(s.tracks as usize, "track", "tracks"),
    );
    view! {
        <p class="range-head" data-start-ps=s.start_ps.to_string() data-end-ps=s.end_ps.to_string()>
            {text}
        </p>
    }
}

#[component]
pub fn RangePane(ui: Ui) -> impl IntoView {
    let stats = Signal::derive(move || match ui.summary.get() {
        Summary::Shown(s) => Some(s),
        _ => None,
    });
    // Memos: the tables key their rows by the data's `Arc`, which must stay the same between reads.
    let by_name: Memo<Arc<Vec<RangeRow>>> =
        Memo::new(move |_| stats.get().map(|s| Arc::new(s.by_name.clone())).unwrap_or_default());
    let by_track: Memo<Arc<Vec<RangeRow>>> =
        Memo::new(move |_| stats.get().map(|s| Arc::new(s.by_track.clone())).unwrap_or_default());
    let status = move || {
        match ui.summary.get() {
        Summary::Empty => view! {
            <p class="note">
                "Shift+drag across the tracks (or drag along the time ruler) to sum up a range by event name and by track."
            </p>
        }
        .into_any(),
        Summary::Loading => view! { <p class="note">"Summing up the range…"</p> }.into_any(),
        Summary::Failed(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
        Summary::Shown(s) => head(&s).into_any(),
    }
    };
    let shown = move || matches!(ui.summary.get(), Summary::Shown(_));
    view! {
        <section id="trace-summary" class="panel trace-pane trace-range-pane" aria-labelledby="trace-summary-title">
            <h3 id="trace-summary-title">"Selected range"</h3>
            {status}
            <div hidden=move || !shown()>
                <div class="table-scroll">
                    <SortableTable
                        id="trace-summary-table"
                        caption="Events by name — select a heading to sort; hover a heading for its definition"
                        columns=name_columns()
                        rows=by_name
                        sort=(2, Direction::Descending)
                        empty="No event overlaps the range."
                        page_size=50
                    />
                </div>
                <TableCsv table="trace-summary-table" csv=move || by_name.with(|r| columns_csv(&name_columns(), r))/>
                <div class="table-scroll">
                    <SortableTable
                        id="trace-summary-tracks"
                        caption="Events by track — select a heading to sort"
                        columns=track_columns()
                        rows=by_track
                        sort=(2, Direction::Descending)
                        empty="No event overlaps the range."
                        page_size=50
                    />
                </div>
                <TableCsv table="trace-summary-tracks" csv=move || by_track.with(|r| columns_csv(&track_columns(), r))/>
            </div>
            <FlamePane ui=ui/>
        </section>
    }
}
