//! The boxes on hand for a time window, unpacked from the worker's answer,
//! by track, with their names' colours; and the box under a point in time.

use std::collections::HashMap;

use super::model::{name_color, Coverage};
use crate::protocol::boxes::{unpack, DrawBox};
use crate::protocol::samples;
use crate::protocol::TraceWindow;
use proflens_analysis::passes::trace::counters::Sample;

/// The boxes on hand, by track, with their names' colours.
pub struct WindowData {
    pub coverage: Coverage,
    pub tracks: HashMap<u32, Vec<DrawBox>>,
    /// Counter tracks' samples, by track.
    pub counters: HashMap<u32, Vec<Sample>>,
    pub names: Vec<String>,
    pub colors: Vec<[u8; 3]>,
    /// Measured text widths by name (NaN until measured).
    pub widths: Vec<f64>,
}

impl WindowData {
    pub(super) fn new(window: &TraceWindow) -> WindowData {
        let mut tracks: HashMap<u32, Vec<DrawBox>> = HashMap::new();
        let mut counters: HashMap<u32, Vec<Sample>> = HashMap::new();
        for t in &window.tracks {
            tracks.insert(t.track, unpack(&t.boxes.0));
            if !t.samples.0.is_empty() {
                counters.insert(t.track, samples::unpack(&t.samples.0));
            }
        }
        let mut ids: Vec<u32> = tracks.keys().copied().collect();
        ids.sort_unstable();
        let start = window.start_ps as f64;
        let end = window.end_ps as f64;
        WindowData {
            coverage: Coverage {
                start,
                end,
                ps_per_px: (end - start).max(1.0) / f64::from(window.width_px.max(1)),
                tracks: ids,
            },
            tracks,
            counters,
            colors: window.names.iter().map(|n| name_color(n)).collect(),
            widths: vec![f64::NAN; window.names.len()],
            names: window.names.clone(),
        }
    }

    /// The box of `track` at `depth` under time `t`, within `slack` ps.
    pub fn box_at(&self, track: u32, depth: u16, t: f64, slack: f64) -> Option<&DrawBox> {
        let boxes = self.tracks.get(&track)?;
        boxes
            .iter()
            .filter(|b| b.depth == depth && (b.start_ps as f64) - slack <= t && (b.end_ps as f64) + slack >= t)
            .min_by(|a, b| {
                let d = |x: &DrawBox| {
                    let (s, e) = (x.start_ps as f64, x.end_ps as f64);
                    if t < s {
                        s - t
                    } else if t > e {
                        t - e
                    } else {
                        0.0
                    }
                };
                d(a).total_cmp(&d(b))
            })
    }
}
