//! CSV for tables that have no export of their own: a "Save CSV" button that
//! writes `proflens-<tool>-<table id>.csv`, either from the table's rows as
//! shown (header and body cells' text) or, for sortable tables that show a
//! page at a time, every row through the table's columns.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::download;
use super::picture::{file_part, tool_of};
use super::table::Column;

/// One CSV field: quoted when it holds a comma, quote or line break.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// CSV lines from rows of cell texts.
pub fn csv_lines(rows: &[Vec<String>]) -> String {
    rows.iter().map(|row| row.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",") + "\n").collect()
}

/// Every row of a sortable table as CSV: the column labels, then each
/// row's cells as the table shows them.
pub fn columns_csv<R>(columns: &[Column<R>], rows: &[R]) -> String {
    let mut lines = vec![columns.iter().map(|c| c.label.to_string()).collect::<Vec<_>>()];
    lines.extend(rows.iter().map(|r| columns.iter().map(|c| (c.cell)(r)).collect()));
    csv_lines(&lines)
}

/// The cell texts of `table`'s rows (head, body, foot), spaces collapsed.
pub fn table_rows(table: &Element) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let Ok(trs) = table.query_selector_all("tr") else { return rows };
    for i in 0..trs.length() {
        let Some(tr) = trs.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
        let Ok(cells) = tr.query_selector_all(":scope > th, :scope > td") else { continue };
        let row = (0..cells.length())
            .filter_map(|j| cells.item(j))
            .map(|c| c.text_content().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        rows.push(row);
    }
    rows
}

/// A "Save CSV" button for the table with id `table`; `csv` makes the
/// text when given, else the table's rows on the page do.
#[component]
pub fn TableCsv(table: &'static str, #[prop(optional, into)] csv: Option<Callback<(), String>>) -> impl IntoView {
    let bar = NodeRef::<Div>::new();
    let problem = RwSignal::new(None::<String>);
    let save = move |_| {
        let found = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(table));
        let (Some(found), Some(bar)) = (found, bar.get_untracked()) else {
            problem.set(Some("The table is not on the page.".to_string()));
            return;
        };
        let file_name = format!("proflens-{}-{}.csv", file_part(&tool_of(&bar)), file_part(table));
        let text = csv.map_or_else(|| csv_lines(&table_rows(&found)), |csv| csv.run(()));
        problem.set(download::save_text(&file_name, "text/csv;charset=utf-8", &text).err());
    };
    view! {
        <div class="table-csv" node_ref=bar>
            <button type="button" class="button small save-csv" data-table=table on:click=save>
                "Save CSV"
            </button>
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_with_separators_are_quoted() {
        let rows =
            vec![vec!["Op".to_string(), "Time, ms".to_string()], vec!["say \"hi\"".to_string(), "1.5".to_string()]];
        assert_eq!(csv_lines(&rows), "Op,\"Time, ms\"\n\"say \"\"hi\"\"\",1.5\n");
        assert_eq!(csv_field("a\nb"), "\"a\nb\"");
    }
}
