//! Finding events by name (substring, case-insensitive, or a regular
//! expression). A selected range's statistics are in [`range_stats`](super::range_stats).

use super::{event_name, track_events, Trace};
use crate::passes::grouping::Grouping;
use proflens_model::Profile;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Where an event is: track (numbered across sections in order) and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EventRef {
    pub track: u32,
    pub event: u32,
}

pub enum Pattern {
    /// Case-insensitive substring.
    Text(String),
    Regex(regex_lite::Regex),
}

impl Pattern {
    /// A substring pattern, or a regular expression (`regex` = true); a bad
    /// expression is an error sentence for the user.
    pub fn new(text: &str, regex: bool) -> Result<Pattern, String> {
        if regex {
            regex_lite::Regex::new(text)
                .map(Pattern::Regex)
                .map_err(|e| format!("That is not a valid regular expression: {e}"))
        } else {
            Ok(Pattern::Text(text.to_lowercase()))
        }
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Pattern::Text(t) => name.to_lowercase().contains(t.as_str()),
            Pattern::Regex(r) => r.is_match(name),
        }
    }
}

/// The earliest `limit` matching events in time order, and the total count.
pub fn search(
    profile: &Profile,
    grouping: &Grouping,
    trace: &Trace,
    pattern: &Pattern,
    limit: usize,
) -> (Vec<(i64, EventRef)>, u64) {
    // A max-heap of the `limit` earliest hits so far: memory stays bounded
    // however many events match.
    let mut earliest: std::collections::BinaryHeap<(i64, EventRef)> = std::collections::BinaryHeap::new();
    let mut total = 0u64;
    for (t, track) in trace.sections.iter().flat_map(|s| &s.tracks).enumerate() {
        let events = track_events(profile, track);
        // Names repeat: test each distinct name once.
        let mut verdicts: HashMap<&str, bool> = HashMap::new();
        for i in 0..events.len() {
            let name = event_name(profile, grouping, track, i);
            let hit = *verdicts.entry(name).or_insert_with(|| pattern.matches(name));
            if !hit {
                continue;
            }
            total += 1;
            let entry = (events.start_ps.at(i), EventRef { track: t as u32, event: i as u32 });
            if earliest.len() < limit {
                earliest.push(entry);
            } else if earliest.peek().is_some_and(|latest| entry < *latest) {
                earliest.pop();
                earliest.push(entry);
            }
        }
    }
    (earliest.into_sorted_vec(), total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let text = Pattern::new("matmul", false).unwrap();
        assert!(text.matches("dense/MatMul:MatMul"));
        let re = Pattern::new("^Iterator::.*Map$", true).unwrap();
        assert!(re.matches("Iterator::Root::ParallelMap"));
        assert!(!re.matches("Iterator::Root::ParallelMapV2"));
        assert!(Pattern::new("(", true).is_err());
    }
}
