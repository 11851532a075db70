//! Process and thread names and sort indexes, from a trace's `M` metadata
//! events, as the generic mapping ([`super::generic`]) names planes and lines.

use super::RawEvent;
use rustc_hash::FxHashMap;

/// Names and sort indexes from the `M` metadata events.
#[derive(Default)]
pub(crate) struct Names {
    pub processes: FxHashMap<String, String>,
    pub threads: FxHashMap<(String, String), String>,
    pub process_sort: FxHashMap<String, i64>,
    pub thread_sort: FxHashMap<(String, String), i64>,
}

impl Names {
    /// Notes metadata event `e`'s name or sort index.
    pub fn see(&mut self, e: &RawEvent) {
        let sort = || e.arg("sort_index").and_then(|v| v.as_i64().or_else(|| v.as_str()?.trim().parse().ok()));
        match e.name() {
            "process_name" => {
                if let Some(name) = e.arg_str("name") {
                    self.processes.insert(e.pid().text.into_owned(), name.to_string());
                }
            }
            "thread_name" => {
                if let Some(name) = e.arg_str("name") {
                    self.threads.insert((e.pid().text.into_owned(), e.tid().text.into_owned()), name.to_string());
                }
            }
            "process_sort_index" => {
                if let Some(i) = sort() {
                    self.process_sort.insert(e.pid().text.into_owned(), i);
                }
            }
            "thread_sort_index" => {
                if let Some(i) = sort() {
                    self.thread_sort.insert((e.pid().text.into_owned(), e.tid().text.into_owned()), i);
                }
            }
            _ => {}
        }
    }
}
