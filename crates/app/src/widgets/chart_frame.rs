//! The frame every chart sits in: a `<figure>` with a caption, "Save PNG"
//! and "Save SVG" buttons, and the chart's text alternative — its numbers
//! as a table in a collapsed "Data table", or a pointer (`aria-describedby`)
//! to the table beside it that holds the same numbers.

use leptos::html::Figure;
use leptos::prelude::*;

use super::picture::{self, chart_element, file_part, tool_of};

/// A chart's numbers, for its "Data table": column headings and rows of
/// text, as people read them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartData {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Where a chart's text alternative is.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartText {
    /// The `id` of a table on the page with the same numbers.
    Table(&'static str),
    /// The numbers, shown in a collapsed "Data table" under the chart.
    Data(ChartData),
}

/// Frames `children` (which hold one `<canvas>` or `<svg>`: the chart) as a
/// figure named `name` (a file-name part: `step-time`), captioned unless
/// `caption` is empty (the chart has its own). Saved files are
/// `proflens-<tool>-<name>.png|svg`, the tool read from the page around it.
#[component]
pub fn ChartFrame(
    #[prop(into)] name: String,
    #[prop(into)] caption: String,
    text: ChartText,
    children: Children,
) -> impl IntoView {
    let figure = NodeRef::<Figure>::new();
    let problem = RwSignal::new(None::<String>);
    let data_id = format!("chart-data-{name}");
    let described_by = match &text {
        ChartText::Table(id) => id.to_string(),
        ChartText::Data(_) => data_id.clone(),
    };
    // The chart element is a child view's; point it at its description once mounted.
    Effect::new(move |_| {
        if let Some(chart) = figure.get().and_then(|f| chart_element(&f)) {
            let _ = chart.set_attribute("aria-describedby", &described_by);
        }
    });
    let stored_name = StoredValue::new(name.clone());
    let save = move |extension: &'static str| {
        let Some(figure) = figure.get_untracked() else { return };
        let Some(chart) = chart_element(&figure) else {
            problem.set(Some("The chart has not been drawn yet.".to_string()));
            return;
        };
        let file_name = format!(
            "proflens-{}-{}.{extension}",
            file_part(&tool_of(&figure)),
            stored_name.with_value(|n| file_part(n))
        );
        let result = if extension == "png" {
            picture::save_png(&chart, &file_name, move |e| problem.set(Some(e)))
        } else {
            picture::save_svg(&chart, &file_name)
        };
        problem.set(result.err().map(|e| format!("Proflens could not save {file_name}: {e}.")));
    };
    let data = match text {
        ChartText::Data(data) => Some(data_table(&data_id, data)),
        ChartText::Table(_) => None,
    };
    view! {
        <figure class="chart-frame" data-chart=name node_ref=figure>
            {children()}
            <figcaption>
                {(!caption.is_empty()).then(|| view! { <span class="chart-caption">{caption}</span> })}
                <span class="chart-save">
                    <button type="button" class="button small save-png" on:click=move |_| save("png")>
                        "Save PNG"
                    </button>
                    <button type="button" class="button small save-svg" on:click=move |_| save("svg")>
                        "Save SVG"
                    </button>
                </span>
            </figcaption>
            {data}
            {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        </figure>
    }
}

/// The collapsed "Data table" with the chart's numbers.
fn data_table(id: &str, data: ChartData) -> impl IntoView {
    // The columns are the chart's own axes and series, so their hover text says so.
    let headers = data
        .headers
        .into_iter()
        .map(|h| {
            let title = format!("{h}, as the chart above plots it");
            view! { <th scope="col" title=title>{h}</th> }
        })
        .collect_view();
    let rows = data
        .rows
        .into_iter()
        .map(|row| {
            let cells = row
                .into_iter()
                .enumerate()
                .map(|(i, cell)| {
                    if i == 0 {
                        view! { <th scope="row">{cell}</th> }.into_any()
                    } else {
                        view! { <td class="num">{cell}</td> }.into_any()
                    }
                })
                .collect_view();
            view! { <tr>{cells}</tr> }
        })
        .collect_view();
    view! {
        <details class="chart-data">
            <summary>"Data table"</summary>
            <table id=id.to_string() class="data compact">
                <thead>
                    <tr>{headers}</tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
}
