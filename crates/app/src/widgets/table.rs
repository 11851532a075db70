//! A data table whose columns sort with a click on their header and whose
//! rows can be filtered by a text box, shown a page of rows at a time so that
//! long tables stay quick. Cells are text, never HTML.
//!
//! Rows are rendered once each and moved, not rebuilt, when the order or the
//! filter changes: a row's key is its index in the data plus the identity of
//! the data (`Arc` pointer), so new data gives new rows.

use std::cmp::Ordering;
use std::sync::Arc;

use leptos::prelude::*;

use crate::widgets::fmt;

/// What a column sorts by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SortValue<'a> {
    Number(f64),
    Text(&'a str),
}

/// A [`SortValue`] made ready for comparing: text is lower-cased once.
enum SortKey<'a> {
    Number(f64),
    Text(String, &'a str),
}

impl<'a> SortKey<'a> {
    fn of(value: SortValue<'a>) -> SortKey<'a> {
        match value {
            SortValue::Number(v) => SortKey::Number(v),
            SortValue::Text(t) => SortKey::Text(t.to_lowercase(), t),
        }
    }

    fn cmp(&self, other: &SortKey<'_>) -> Ordering {
        match (self, other) {
            (SortKey::Number(a), SortKey::Number(b)) => a.total_cmp(b),
            (SortKey::Text(a, a_raw), SortKey::Text(b, b_raw)) => a.cmp(b).then_with(|| a_raw.cmp(b_raw)),
            (SortKey::Number(_), SortKey::Text(..)) => Ordering::Less,
            (SortKey::Text(..), SortKey::Number(_)) => Ordering::Greater,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Ascending,
    Descending,
}

impl Direction {
    fn aria(self) -> &'static str {
        match self {
            Direction::Ascending => "ascending",
            Direction::Descending => "descending",
        }
    }
}

/// One column: how to show a row's cell and what to sort it by.
pub struct Column<R> {
    /// `data-col` of the header and cells.
    pub id: &'static str,
    pub label: &'static str,
    /// A longer description, shown on hover ("" for none).
    pub title: &'static str,
    /// Right-aligned and sorted largest first on the first click.
    pub numeric: bool,
    pub value: for<'a> fn(&'a R) -> SortValue<'a>,
    pub cell: fn(&R) -> String,
}

impl<R> Clone for Column<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Column<R> {}

/// A button at the end of each row that does something with the row (say,
/// shows its event in the trace viewer); rows it does not apply to get none.
pub struct RowAction<R> {
    /// The header of its column, and the button's class.
    pub label: &'static str,
    pub class: &'static str,
    /// The button's text and its hover text.
    pub text: &'static str,
    pub title: &'static str,
    pub applies: fn(&R) -> bool,
    pub on: Arc<dyn Fn(&R) + Send + Sync>,
}

impl<R> Clone for RowAction<R> {
    fn clone(&self) -> Self {
        RowAction { on: self.on.clone(), ..*self }
    }
}

/// Rows whose text matches a filter; `matches` gets the filter lower-cased.
pub struct Filter<R> {
    pub text: Signal<String>,
    pub matches: fn(&R, &str) -> bool,
}

impl<R> Clone for Filter<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Filter<R> {}

/// A header's hover text (also its accessible description), none when empty.
pub fn header_title(title: &'static str) -> Option<&'static str> {
    (!title.is_empty()).then_some(title)
}

/// The order of `rows` (indices) that `sort` gives, equal rows keeping
/// their order.
pub fn sorted_indices<R>(rows: &[R], keep: impl Fn(&R) -> bool, sort: Option<(Column<R>, Direction)>) -> Vec<usize> {
    let kept = (0..rows.len()).filter(|&i| keep(&rows[i]));
    let Some((column, direction)) = sort else {
        return kept.collect();
    };
    let mut keyed: Vec<(SortKey, usize)> = kept.map(|i| (SortKey::of((column.value)(&rows[i])), i)).collect();
    keyed.sort_by(|(a, _), (b, _)| match direction {
        Direction::Ascending => a.cmp(b),
        Direction::Descending => b.cmp(a),
    });
    keyed.into_iter().map(|(_, i)| i).collect()
}

#[component]
pub fn SortableTable<R>(
    /// The table's `id`.
    id: &'static str,
    #[prop(into)] caption: String,
    columns: Vec<Column<R>>,
    #[prop(into)] rows: Signal<Arc<Vec<R>>>,
    /// Keeps only the rows that match.
    #[prop(optional)]
    filter: Option<Filter<R>>,
    /// The order at first (column index, direction); the data's order if none.
    #[prop(optional)]
    sort: Option<(usize, Direction)>,
    /// Shown when no row is left.
    #[prop(into, default = "No rows.".to_string())]
    empty: String,
    /// Rows per page.
    #[prop(default = 100)]
    page_size: usize,
    /// A hover text (`title`, plain text) for a cell, given its row and column id.
    #[prop(optional)]
    cell_title: Option<fn(&R, &'static str) -> Option<String>>,
    /// A class for a row (say, how it changed), for CSS to mark it.
    #[prop(optional)]
    row_class: Option<fn(&R) -> &'static str>,
    /// A button per row, in a last column.
    #[prop(optional)]
    row_action: Option<RowAction<R>>,
) -> impl IntoView
where
    R: Send + Sync + 'static,
{
    let columns: Arc<[Column<R>]> = columns.into();
    let sort_by = RwSignal::new(sort.filter(|(c, _)| *c < columns.len()));
    let visible = Memo::new({
        let columns = columns.clone();
        move |_| {
            let needle = filter.map(|f| f.text.get().trim().to_lowercase()).unwrap_or_default();
            let sort = sort_by.get().map(|(c, d)| (columns[c], d));
            rows.with(|rows| {
                let keep = |row: &R| needle.is_empty() || filter.is_some_and(|f| (f.matches)(row, &needle));
                sorted_indices(rows, keep, sort)
            })
        }
    });
    let page_size = page_size.max(1);
    let page = RwSignal::new(0usize);
    // A new order, filter or data starts again at the first page.
    let _ = Effect::watch(
        move || visible.track(),
        move |_, _, _| {
            if page.get_untracked() != 0 {
                page.set(0);
            }
        },
        false,
    );
    let pages = move || visible.with(|v| v.len().div_ceil(page_size)).max(1);
    let current_page = move || page.get().min(pages() - 1);
    let toggle = move |c: usize, numeric: bool| {
        sort_by.update(|s| {
            *s = Some(match *s {
                Some((current, Direction::Ascending)) if current == c => (c, Direction::Descending),
                Some((current, Direction::Descending)) if current == c => (c, Direction::Ascending),
                _ if numeric => (c, Direction::Descending),
                _ => (c, Direction::Ascending),
            })
        })
    };

    let headers = columns
        .iter()
        .enumerate()
        .map(|(c, column)| {
            let aria_sort = move || match sort_by.get() {
                Some((s, d)) if s == c => d.aria(),
                _ => "none",
            };
            let mark = move || match sort_by.get() {
                Some((s, Direction::Ascending)) if s == c => "▲",
                Some((s, Direction::Descending)) if s == c => "▼",
                _ => "",
            };
            let numeric = column.numeric;
            view! {
                <th scope="col" class:num=numeric data-col=column.id aria-sort=aria_sort title=header_title(column.title)>
                    <button
                        type="button"
                        class="sort"
                        title=header_title(column.title)
                        on:click=move |_| toggle(c, numeric)
                    >
                        {column.label}
                        <span class="sort-mark" aria-hidden="true">
                            {mark}
                        </span>
                    </button>
                </th>
            }
        })
        .collect_view();
    let action_header = row_action
        .as_ref()
        .map(|a| view! { <th scope="col" data-col="action" title=header_title(a.title)>{a.label}</th> });

    let total = move || rows.with(|r| r.len());
    let count = move || {
        let (shown, total) = (visible.with(|v| v.len()), total());
        if shown == total {
            fmt::plural(total, "row", "rows")
        } else {
            format!("{} of {}", fmt::count(shown as u64), fmt::plural(total, "row", "rows"))
        }
    };
    let each = move || {
        let data = rows.with(|r| Arc::as_ptr(r) as usize);
        let start = current_page() * page_size;
        visible.with(|v| v.iter().skip(start).take(page_size).map(|&i| (data, i)).collect::<Vec<_>>())
    };
    let pager = move || {
        let shown = visible.with(|v| v.len());
        (shown > page_size).then(|| {
            let first = current_page() * page_size;
            let last = (first + page_size).min(shown);
            let range = format!(
                "Rows {}–{} of {}",
                fmt::count(first as u64 + 1),
                fmt::count(last as u64),
                fmt::count(shown as u64)
            );
            let on_last_page = move || current_page() + 1 >= pages();
            view! {
                <nav class="pager" aria-label="Pages of the table">
                    <button
                        type="button"
                        class="button small prev"
                        prop:disabled=move || current_page() == 0
                        on:click=move |_| page.set(current_page().saturating_sub(1))
                    >
                        "‹ Previous"
                    </button>
                    <span class="range">{range}</span>
                    <button
                        type="button"
                        class="button small next"
                        prop:disabled=on_last_page
                        on:click=move |_| page.set((current_page() + 1).min(pages() - 1))
                    >
                        "Next ›"
                    </button>
                </nav>
            }
        })
    };
    let row_view = {
        let columns = columns.clone();
        let row_action = row_action.clone();
        move |(_, i): (usize, usize)| {
            let class = row_class.and_then(|f| rows.with_untracked(|rows| rows.get(i).map(f)));
            let cells = rows.with_untracked(|rows| {
                rows.get(i)
                    .map(|row| {
                        columns
                            .iter()
                            .map(|column| {
                                let value = match (column.value)(row) {
                                    SortValue::Number(v) if column.numeric => Some(v.to_string()),
                                    _ => None,
                                };
                                let title = cell_title.and_then(|f| f(row, column.id));
                                (column.id, column.numeric, (column.cell)(row), value, title)
                            })
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            });
            let cells = cells
                .into_iter()
                .map(|(col, numeric, text, value, title)| {
                    view! {
                        <td class:num=numeric data-col=col data-value=value title=title>
                            {text}
                        </td>
                    }
                })
                .collect_view();
            let action = row_action.clone().map(|a| {
                let applies = rows.with_untracked(|rows| rows.get(i).is_some_and(a.applies));
                let button = applies.then(|| {
                    let on = a.on.clone();
                    let click = move |_| rows.with_untracked(|rows| rows.get(i).map(|row| on(row))).unwrap_or(());
                    view! {
                        <button type="button" class=format!("button small {}", a.class) title=a.title on:click=click>
                            {a.text}
                        </button>
                    }
                });
                view! { <td data-col="action">{button}</td> }
            });
            view! { <tr data-row=i.to_string() class=class>{cells}{action}</tr> }
        }
    };
    let column_count = (columns.len() + usize::from(row_action.is_some())).to_string();

    view! {
        <div class="sortable-wrap" id=format!("{id}-wrap")>
        <table id=id class="data sortable">
            <caption>{caption} " " <span class="row-count">{count}</span></caption>
            <thead>
                <tr>{headers}{action_header}</tr>
            </thead>
            <tbody>
                <For each=each key=|k| *k children=row_view/>
                <Show when=move || visible.with(|v| v.is_empty())>
                    <tr class="empty-row">
                        <td colspan=column_count.clone()>{empty.clone()}</td>
                    </tr>
                </Show>
            </tbody>
        </table>
        {pager}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Row = (f64, &'static str);

    fn columns() -> (Column<Row>, Column<Row>) {
        let number = Column {
            id: "n",
            label: "N",
            title: "",
            numeric: true,
            value: |r: &(f64, &str)| SortValue::Number(r.0),
            cell: |r: &(f64, &str)| r.0.to_string(),
        };
        let text = Column {
            id: "t",
            label: "T",
            title: "",
            numeric: false,
            value: |r: &(f64, &'static str)| SortValue::Text(r.1),
            cell: |r: &(f64, &str)| r.1.to_string(),
        };
        (number, text)
    }

    #[test]
    fn sorts_stably_both_ways_and_filters() {
        let rows = [(2.0, "b"), (1.0, "A"), (2.0, "a"), (3.0, "c")];
        let (number, text) = columns();
        assert_eq!(sorted_indices(&rows, |_| true, None), vec![0, 1, 2, 3]);
        assert_eq!(sorted_indices(&rows, |_| true, Some((number, Direction::Descending))), vec![3, 0, 2, 1]);
        assert_eq!(sorted_indices(&rows, |_| true, Some((number, Direction::Ascending))), vec![1, 0, 2, 3]);
        assert_eq!(sorted_indices(&rows, |_| true, Some((text, Direction::Ascending))), vec![1, 2, 0, 3]);
        assert_eq!(sorted_indices(&rows, |r| r.0 > 1.5, Some((text, Direction::Descending))), vec![3, 0, 2]);
    }
}

/// What a table's toolbar says: its filter box and its CSV export button.
#[derive(Clone, Copy)]
pub struct ToolbarText {
    /// `id` of the search box.
    pub filter_id: &'static str,
    pub filter_label: &'static str,
    pub placeholder: &'static str,
    /// `id` of the export button.
    pub export_id: &'static str,
    pub export_label: &'static str,
    /// Name of the downloaded file.
    pub file_name: &'static str,
}

/// A search box that filters a table and a button that saves it as CSV
/// (`csv` makes the text when pressed); a failed save is said below it.
#[component]
pub fn FilterExportBar(
    text: ToolbarText,
    filter: RwSignal<String>,
    #[prop(into)] csv: Callback<(), String>,
) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let export = move |_| {
        let csv = csv.run(());
        problem.set(crate::widgets::download::save_text(text.file_name, "text/csv;charset=utf-8", &csv).err());
    };
    view! {
        <div class="toolbar">
            <label for=text.filter_id>{text.filter_label}</label>
            <input
                type="search"
                id=text.filter_id
                placeholder=text.placeholder
                prop:value=move || filter.get()
                on:input=move |ev| filter.set(event_target_value(&ev))
            />
            <button id=text.export_id type="button" class="button small" on:click=export>
                {text.export_label}
            </button>
        </div>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
    }
}
