//! Event listeners of the trace viewer, removed when it leaves the page.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AddEventListenerOptions, Event, EventTarget};

/// Event listeners, removed when dropped (the viewer leaves the page).
#[derive(Default)]
pub struct Listeners(Vec<Listener>);

type Listener = (EventTarget, &'static str, Closure<dyn FnMut(Event)>);

impl Drop for Listeners {
    fn drop(&mut self) {
        for (target, kind, closure) in &self.0 {
            let _ = target.remove_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
        }
    }
}

impl Listeners {
    pub fn add(&mut self, target: &EventTarget, kind: &'static str, passive: bool, f: impl FnMut(Event) + 'static) {
        let closure = Closure::<dyn FnMut(Event)>::new(f);
        let options = AddEventListenerOptions::new();
        options.set_passive(passive);
        let _ = target.add_event_listener_with_callback_and_add_event_listener_options(
            kind,
            closure.as_ref().unchecked_ref(),
            &options,
        );
        self.0.push((target.clone(), kind, closure));
    }
}
