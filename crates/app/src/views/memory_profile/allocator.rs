//! One allocator: its summary (allocations, capacity, the peak and what
//! made it up), its timeline and the breakdown at the peak.

use std::sync::Arc;

use leptos::prelude::*;
use proflens_analysis::tools::memory_profile::AllocatorProfile;

use super::breakdown::{activity_of, breakdown_columns, op_matches, op_title, BreakdownRow};
use super::timeline::Timeline;
use super::{fragmentation_text, time_ms};
use crate::widgets::fmt;
use crate::widgets::measure::bytes;
use crate::widgets::table::{Direction, Filter, SortableTable};
use crate::widgets::table_csv::{columns_csv, TableCsv};

/// Bytes for people, with the exact count as the hover text.
fn bytes_dd(id: &'static str, n: i64) -> impl IntoView {
    view! {
        <dd id=id data-value=n.to_string() title=format!("{} bytes", fmt::decimal(n as f64, 0))>
            {bytes(n)}
        </dd>
    }
}

#[component]
pub(super) fn AllocatorView(allocator: AllocatorProfile) -> impl IntoView {
    let a = &allocator;
    let peak = a.peak;
    let summary = view! {
        <dl id="memory-summary" class="summary">
            <div>
                <dt>"Allocations"</dt>
                <dd id="memory-allocations">{fmt::count(a.allocations)}</dd>
            </div>
            <div>
                <dt>"Deallocations"</dt>
                <dd id="memory-deallocations">{fmt::count(a.deallocations)}</dd>
            </div>
            <div>
                <dt>"Memory capacity"</dt>
                {bytes_dd("memory-capacity", a.capacity_bytes)}
            </div>
            <div>
                <dt title="The allocator's own peak since the program started">"Peak heap usage (lifetime)"</dt>
                <dd
                    id="memory-peak-heap"
                    data-value=a.peak_bytes_usage_lifetime.to_string()
                >
                    {bytes(a.peak_bytes_usage_lifetime)}
                    " "
                    <span class="exact">
                        {format!("({} bytes)", fmt::decimal(a.peak_bytes_usage_lifetime as f64, 0))}
                    </span>
                </dd>
            </div>
            <div>
                <dt title="Stack plus heap at the highest point of the profiled time">
                    "Peak memory usage (profiled)"
                </dt>
                <dd id="memory-peak" data-value=peak.peak_bytes_in_use.to_string()>
                    {bytes(peak.peak_bytes_in_use)}
                    " at "
                    <span id="memory-peak-time">{time_ms(a.peak_time_ps)}</span>
                </dd>
            </div>
            <div>
                <dt>"Stack reservation at the peak"</dt>
                {bytes_dd("memory-stack", peak.stack_reserved_bytes)}
            </div>
            <div>
                <dt>"Heap allocation at the peak"</dt>
                {bytes_dd("memory-heap", peak.heap_allocated_bytes)}
            </div>
            <div>
                <dt>"Free memory at the peak"</dt>
                {bytes_dd("memory-free", peak.free_memory_bytes)}
            </div>
            <div>
                <dt title="Share of free memory not in the largest free chunk">"Fragmentation at the peak"</dt>
                <dd id="memory-fragmentation">{fragmentation_text(peak.fragmentation)}</dd>
            </div>
        </dl>
    };
    let peak_step = a.active.first().and_then(|r| activity_of(a, r.snapshot, r.special)).map(|x| x.step);
    let rows: Arc<Vec<BreakdownRow>> = Arc::new(
        a.active
            .iter()
            .filter_map(|r| {
                activity_of(a, r.snapshot, r.special)
                    .map(|x| BreakdownRow { activity: x.clone(), occurrences: r.occurrences })
            })
            .collect(),
    );
    let filter_text = RwSignal::new(String::new());
    let caption = format!(
        "Memory in use at the peak ({}{}), largest first — select a heading to sort",
        time_ms(a.peak_time_ps),
        peak_step.map(|s| format!(", step {s}")).unwrap_or_default()
    );
    let table_rows = Signal::derive(move || rows.clone());
    let timeline = Arc::new(allocator.timeline.clone());
    // Free memory dwarfs what is in use on host allocators: shown when comparable.
    let show_free_at_first = a.capacity_bytes <= peak.peak_bytes_in_use.max(1).saturating_mul(10);

    view! {
        {summary}
        <section class="panel" aria-labelledby="memory-timeline-title">
            <h3 id="memory-timeline-title">"Memory timeline"</h3>
            <Timeline timeline=timeline show_free=show_free_at_first/>
        </section>
        <h3>"Memory breakdown at the peak"</h3>
        <div class="toolbar">
            <label for="memory-filter">"Filter by op name"</label>
            <input
                type="search"
                id="memory-filter"
                placeholder="e.g. Conv2D"
                prop:value=move || filter_text.get()
                on:input=move |ev| filter_text.set(event_target_value(&ev))
            />
        </div>
        <div class="table-scroll">
            <SortableTable
                id="memory-breakdown"
                caption=caption
                columns=breakdown_columns()
                rows=table_rows
                filter=Filter { text: filter_text.into(), matches: op_matches }
                sort=(1, Direction::Descending)
                empty="No allocation matches the filter."
                cell_title=op_title
            />
        </div>
        <TableCsv table="memory-breakdown" csv=move || table_rows.with(|r| columns_csv(&breakdown_columns(), r))/>
    }
}
