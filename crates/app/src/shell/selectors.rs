//! The header's selectors: run, host and tool (the candidate, in compare
//! mode), and the compare controls: the baseline among every run and host
//! of the open files, Swap and Leave (the "Open…" menu adds files to compare).

use leptos::prelude::*;
use proflens_analysis::{compare, registry};

use crate::bridge;
use crate::protocol::ALL_HOSTS;
use crate::state::{AppState, Pick};
use crate::tool_names;
use crate::url_state::{self, decode, encode};

fn state() -> AppState {
    expect_context::<AppState>()
}

#[component]
pub fn Selectors() -> impl IntoView {
    let state = state();
    let runs = move || {
        state
            .opened
            .with(|o| o.as_ref().map(|o| o.runs.iter().map(|r| r.name.clone()).collect::<Vec<_>>()))
            .unwrap_or_default()
    };
    let hosts = move || {
        let run = state.run.get();
        state.opened.with(|o| o.as_ref().map(|o| o.hosts_of(&run))).unwrap_or_default()
    };
    let no_files = move || state.opened.with(|o| o.as_ref().is_none_or(|o| o.runs.is_empty()));

    let on_run = move |ev: web_sys::Event| {
        let run = event_target_value(&ev);
        let hosts = state.opened.with_untracked(|o| o.as_ref().map(|o| o.hosts_of(&run))).unwrap_or_default();
        let current = state.host.get_untracked();
        let host = if hosts.contains(&current) { current } else { hosts.first().cloned().unwrap_or_default() };
        state.run.set(run);
        state.host.set(host);
        bridge::load_host(state);
    };
    let on_host = move |ev: web_sys::Event| {
        state.host.set(event_target_value(&ev));
        bridge::load_host(state);
    };
    let on_tool = move |ev: web_sys::Event| {
        if let Some(tool) = url_state::tool_id(&event_target_value(&ev)) {
            state.tool.set(tool);
            bridge::show_tool(state);
        }
    };
    // The trace diff is a comparison of two PyTorch traces only.
    let trace_diff_offered = move || {
        state.base.with(|b| b.is_some()) && (state.both_pytorch.get() || state.tool.get() == compare::TRACE_DIFF)
    };

    view! {
        <nav class="selectors" aria-label="What to show">
            <NameSelect id="run" label="Run" names=Signal::derive(runs) chosen=state.run on_change=on_run disabled=Signal::derive(no_files)/>
            <NameSelect id="host" label="Host" names=Signal::derive(hosts) chosen=state.host on_change=on_host disabled=Signal::derive(no_files)/>
            <div class="field">
                <label for="tool">"Tool"</label>
                <select id="tool" on:change=on_tool title="Keys: [ and ] the previous and next tool, { and } the previous and next group">
                    {tool_names::GROUPS
                        .iter()
                        .map(|(group, ids)| {
                            let options = ids
                                .iter()
                                .filter_map(|id| tool_names::find(id))
                                .map(|tool| {
                                    let id = tool.id;
                                    view! {
                                        <option
                                            value=id
                                            prop:selected=move || state.tool.get() == id
                                            prop:disabled=move || !state.offers(id)
                                            title=move || {
                                                (!state.offers(id)).then_some("Nothing to show for this host's files")
                                            }
                                        >
                                            {tool.label}
                                        </option>
                                    }
                                })
                                .collect_view();
                            view! { <optgroup label=*group>{options}</optgroup> }
                        })
                        .collect_view()}
                    <Show when=trace_diff_offered>
                        <optgroup label="Compare">
                            <option
                                value=compare::TRACE_DIFF
                                prop:selected=move || state.tool.get() == compare::TRACE_DIFF
                            >
                                "Trace diff (compare)"
                            </option>
                        </optgroup>
                    </Show>
                    // XProf's tools that are not built, listed so its whole set is accounted for.
                    <optgroup label="XProf tools not built">
                        {registry::xprof_only::XPROF_ONLY
                            .iter()
                            .map(|tool| {
                                view! {
                                    <option value=tool.id disabled=true title=tool.why>
                                        {tool.label}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </optgroup>
                </select>
            </div>
            <CompareControls/>
        </nav>
    }
}

/// A labelled list of names (the runs, a run's hosts), `chosen` selected.
#[component]
fn NameSelect(
    id: &'static str,
    label: &'static str,
    names: Signal<Vec<String>>,
    chosen: RwSignal<String>,
    on_change: impl Fn(web_sys::Event) + 'static,
    disabled: Signal<bool>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <select id=id on:change=on_change prop:disabled=disabled>
                <For each=move || names.get() key=|n| n.clone() let:name>
                    <option
                        value=name.clone()
                        prop:selected={
                            let name = name.clone();
                            move || chosen.get() == name
                        }
                    >
                        {name.clone()}
                    </option>
                </For>
            </select>
        </div>
    }
}

/// The value of a baseline option: the run and host, each encoded, so any
/// name survives (`run&host`).
pub fn pick_value(pick: &Pick) -> String {
    format!("{}&{}", encode(&pick.run), encode(&pick.host))
}

/// Undoes [`pick_value`].
pub fn parse_pick(value: &str) -> Option<Pick> {
    let (run, host) = value.split_once('&')?;
    Some(Pick { run: decode(run), host: decode(host) })
}

/// Chooses the baseline (`None`: leave compare mode) and shows the result.
fn set_base(state: AppState, base: Option<Pick>) {
    if base == state.base.get_untracked() {
        return;
    }
    if state.tool.get_untracked() != compare::TRACE_DIFF {
        state.both_pytorch.set(false);
    }
    if base.is_none() && state.tool.get_untracked() == compare::TRACE_DIFF {
        state.tool.set(tool_names::TOOLS[0].id);
    }
    state.base.set(base);
    bridge::load_host(state);
}

/// "Compare with…", Swap and Leave.
#[component]
fn CompareControls() -> impl IntoView {
    let state = state();
    let files_open = move || state.opened.with(|o| o.as_ref().is_some_and(|o| !o.runs.is_empty()));
    let comparing = move || state.base.with(|b| b.is_some());
    let groups = move || state.opened.with(|o| o.as_ref().map(|o| o.runs.clone())).unwrap_or_default();
    let on_base = move |ev: web_sys::Event| set_base(state, parse_pick(&event_target_value(&ev)));
    let swap = move |_| {
        let Some(base) = state.base.get_untracked() else { return };
        let candidate = state.candidate_untracked();
        state.run.set(base.run);
        state.host.set(base.host);
        state.base.set(Some(candidate));
        bridge::load_host(state);
    };
    view! {
        <Show when=files_open>
            <div class="field compare-field">
                <label for="compare-base">"Compare with"</label>
                <select id="compare-base" on:change=on_base>
                    <option value="" prop:selected=move || !comparing()>"— nothing —"</option>
                    <For each=groups key=|r| (r.name.clone(), r.hosts.clone()) let:run>
                        <optgroup label=run.name.clone()>
                            {run
                                .hosts
                                .iter()
                                .map(|host| {
                                    let pick = Pick { run: run.name.clone(), host: host.clone() };
                                    let value = pick_value(&pick);
                                    let text = if host == ALL_HOSTS {
                                        format!("{} (all hosts)", run.name)
                                    } else {
                                        format!("{} / {host}", run.name)
                                    };
                                    view! {
                                        <option
                                            value=value
                                            prop:selected=move || state.base.with(|b| b.as_ref() == Some(&pick))
                                        >
                                            {text}
                                        </option>
                                    }
                                })
                                .collect_view()}
                        </optgroup>
                    </For>
                </select>
                <Show when=comparing>
                    <button id="compare-swap" type="button" class="button small" on:click=swap
                        title="Make the baseline the candidate and the candidate the baseline">
                        "⇄ Swap"
                    </button>
                    <button id="compare-leave" type="button" class="button small"
                        on:click=move |_| set_base(state, None)>
                        "Leave compare"
                    </button>
                </Show>
            </div>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_options_round_trip() {
        let pick = Pick { run: "vm.xplane.pb (1.2 MB)".into(), host: "a&b / c".into() };
        assert_eq!(parse_pick(&pick_value(&pick)), Some(pick));
        assert_eq!(parse_pick(""), None);
    }
}
