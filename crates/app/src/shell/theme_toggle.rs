//! The theme selector in the page header: System, Light or Dark, a labelled
//! `<select>` (keyboard and screen readers get it for free).

use leptos::prelude::*;

use crate::theme::{set_choice, stored_choice, Choice};

#[component]
pub fn ThemeToggle() -> impl IntoView {
    let choice = RwSignal::new(stored_choice());
    let on_change = move |ev: web_sys::Event| {
        let picked = Choice::parse(&event_target_value(&ev));
        set_choice(picked);
        choice.set(picked);
    };
    let option = move |c: Choice, label: &'static str| {
        view! { <option value=c.name() selected=move || choice.get() == c>{label}</option> }
    };
    view! {
        <div class="field theme-field">
            <label for="theme-choice">"Theme"</label>
            <select id="theme-choice" class="theme-choice" on:change=on_change>
                {option(Choice::System, "System")}
                {option(Choice::Light, "Light")}
                {option(Choice::Dark, "Dark")}
            </select>
        </div>
    }
}
