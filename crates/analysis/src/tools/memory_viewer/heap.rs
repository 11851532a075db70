//! Replay of a module's heap simulator trace: the heap size over the
//! program, the peak, and each buffer's live range.

use super::buffer::Buffer;
use super::model::MemoryViewerError;
use proflens_model::hlo::HeapEventKind;
use rustc_hash::{FxHashMap, FxHashSet};

/// Replay of a heap simulator trace.
#[derive(Default)]
pub(super) struct Simulation {
    heap_bytes: i64,
    unpadded_bytes: i64,
    pub(super) peak_bytes: i64,
    pub(super) peak_unpadded_bytes: i64,
    pub(super) peak_position: i64,
    /// Live canonical buffers in program order.
    live: Vec<i64>,
    pub(super) peak_buffers: Vec<i64>,
    pub(super) heap_timeline: Vec<i64>,
    pub(super) unpadded_timeline: Vec<i64>,
    pub(super) names: Vec<String>,
    pub(super) seen: FxHashSet<i64>,
    pub(super) event_count: i64,
    /// Per canonical buffer, the buffer whose allocation put its memory on
    /// the heap: the allocated one, or the sharer that revived it after it
    /// was freed (XProf 2.24 gives such a sharer its own live range).
    holder: FxHashMap<i64, i64>,
}

impl Simulation {
    pub(super) fn run(
        &mut self,
        trace: &proflens_model::hlo::HeapSimulatorTrace,
        buffers: &mut FxHashMap<i64, Buffer<'_>>,
    ) -> Result<(), MemoryViewerError> {
        self.event_count = trace.events.len() as i64;
        for event in &trace.events {
            self.heap_timeline.push(self.heap_bytes);
            self.unpadded_timeline.push(self.unpadded_bytes);
            self.names.push(event.instruction_name.clone());
            if !buffers.contains_key(&event.buffer_id) {
                continue;
            }
            self.seen.insert(event.buffer_id);
            match event.kind {
                HeapEventKind::Alloc => {
                    let root = canonical(buffers, event.buffer_id);
                    if let Some(b) = buffers.get_mut(&root) {
                        b.ref_count += 1;
                    }
                    self.holder.insert(root, event.buffer_id);
                    self.increase(buffers, event.buffer_id, true);
                }
                HeapEventKind::Free => {
                    let root = canonical(buffers, event.buffer_id);
                    let Some(b) = buffers.get_mut(&root) else { continue };
                    b.ref_count -= 1;
                    if b.ref_count < 0 {
                        return Err(MemoryViewerError::InconsistentTrace(format!(
                            "buffer {} is freed more often than allocated",
                            event.buffer_id
                        )));
                    }
                    if b.ref_count == 0 {
                        let holder = self.holder.remove(&root).unwrap_or(root);
                        self.decrease(buffers, holder)?;
                    }
                }
                HeapEventKind::ShareWith => {
                    let target = event.share_with_canonical_id;
                    if !buffers.contains_key(&target) || target == event.buffer_id {
                        continue;
                    }
                    if let Some(b) = buffers.get_mut(&event.buffer_id) {
                        b.canonical = Some(target);
                    }
                    let root = canonical(buffers, target);
                    let count = buffers.get_mut(&root).map_or(0, |b| {
                        b.ref_count += 1;
                        b.ref_count
                    });
                    if count == 1 {
                        self.holder.insert(root, event.buffer_id);
                        self.increase(buffers, event.buffer_id, true);
                    }
                }
            }
        }
        self.heap_timeline.push(self.heap_bytes);
        self.unpadded_timeline.push(self.unpadded_bytes);
        self.names.push(String::new());
        Ok(())
    }

    /// XProf's IncreaseMemoryUsage on the buffer that holds the memory.
    fn increase(&mut self, buffers: &mut FxHashMap<i64, Buffer<'_>>, id: i64, start_span: bool) {
        let Some(b) = buffers.get_mut(&id) else { return };
        self.live.push(id);
        self.heap_bytes += b.proto.size;
        self.unpadded_bytes += b.unpadded_size();
        if self.heap_bytes > self.peak_bytes {
            self.peak_bytes = self.heap_bytes;
            self.peak_position = self.heap_timeline.len() as i64 - 1;
            self.peak_unpadded_bytes = self.unpadded_bytes;
            self.peak_buffers.clone_from(&self.live);
        }
        if start_span {
            b.span = Some((self.heap_timeline.len() as i64 - 1, self.event_count - 1));
        }
    }

    fn decrease(&mut self, buffers: &mut FxHashMap<i64, Buffer<'_>>, id: i64) -> Result<(), MemoryViewerError> {
        let Some(b) = buffers.get_mut(&id) else { return Ok(()) };
        self.live.retain(|&x| x != id);
        self.heap_bytes -= b.proto.size;
        if self.heap_bytes < 0 {
            return Err(MemoryViewerError::InconsistentTrace("the heap size goes negative".into()));
        }
        self.unpadded_bytes -= b.unpadded_size();
        if let Some(span) = b.span.as_mut() {
            span.1 = self.heap_timeline.len() as i64 - 1;
        }
        Ok(())
    }
}

/// The buffer a buffer shares its memory with, following the chain (bounded).
fn canonical(buffers: &FxHashMap<i64, Buffer<'_>>, id: i64) -> i64 {
    let mut id = id;
    for _ in 0..buffers.len() {
        match buffers.get(&id).and_then(|b| b.canonical) {
            Some(next) => id = next,
            None => break,
        }
    }
    id
}
