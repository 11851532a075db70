//! PyTorch profiler (Kineto) views over an imported trace
//! ([`proflens_model::Origin::Kineto`]; the importer's mapping is described
//! in `proflens_format::chrome_trace`): the per-step overview, operator and
//! kernel stats, and the distributed (multi-rank) view. [`facts`] is the
//! plain summary the parity tests compare with the goldens.
//!
//! Every view starts from one [`KinetoIndex`]: the trace's host and device
//! events classified by their Kineto category (the `cat` metadata stat).

pub mod describe;
pub mod gpu_frame;
pub mod hta;
pub mod intervals;
pub mod iterations;
pub mod launch;
pub mod memory;
pub mod roles;
#[cfg(test)]
pub(crate) mod test_traces;

use crate::common::schema::{GPU_PLANE_PREFIX, HOST_PLANE};
use crate::passes::tensor_core::GpuVendor;
use intervals::Intervals;
use proflens_model::{Profile, StatValue};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::num::NonZeroU32;

/// What a device event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeviceKind {
    Kernel,
    Memcpy,
    Memset,
}

/// What a host event is, by Kineto category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HostKind {
    /// `cpu_op` (1.9: `Operator`).
    CpuOp,
    /// `user_annotation` (record_function ranges, `ProfilerStep#N`).
    Annotation,
    /// `cuda_runtime` / `cuda_driver` (1.9: `Runtime`): launches, syncs.
    Runtime,
    PythonFunction,
    Other,
}

/// One of the index's texts (event names, input dims, kernel details), as
/// [`KinetoIndex::text`] reads it: 4 bytes where a shared string takes 16,
/// for millions of events that repeat a few thousand texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(NonZeroU32);

impl Text {
    /// The text at `position` in [`KinetoIndex`]'s table.
    fn at(position: usize) -> Text {
        let id = u32::try_from(position + 1).expect("fewer than 2^32 texts");
        Text(NonZeroU32::new(id).expect("position + 1 is not 0"))
    }
}

#[derive(Debug, Clone)]
pub struct DeviceEvent {
    pub device: i64,
    pub stream: i64,
    pub start_ps: i64,
    pub end_ps: i64,
    pub external_id: OptId,
    pub correlation_id: OptId,
    pub name: Text,
    pub kernel_details: Option<Text>,
    pub kind: DeviceKind,
}

#[derive(Debug, Clone)]
pub struct HostEvent {
    pub start_ps: i64,
    pub end_ps: i64,
    pub external_id: OptId,
    pub correlation_id: OptId,
    /// Index of the event's line in the host plane.
    pub line: u32,
    pub name: Text,
    /// An op's `Input Dims` (record_shapes), as compact JSON text
    /// (`[[1,512],[]]`).
    pub input_dims: Option<Text>,
    pub kind: HostKind,
}

/// An id a Kineto event may carry (`External id`, `correlation`) in 8
/// bytes, where `Option<i64>` takes 16: the index holds two per event, for
/// millions of events. `i64::MIN` stands for none (no profiler writes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptId(i64);

impl OptId {
    pub const NONE: OptId = OptId(i64::MIN);

    pub fn new(id: Option<i64>) -> OptId {
        id.map_or(OptId::NONE, OptId)
    }

    pub fn get(self) -> Option<i64> {
        (self != OptId::NONE).then_some(self.0)
    }
}

/// One `ProfilerStep#N` range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepSpan {
    pub name: String,
    pub step: i64,
    /// True for the `gpu_user_annotation` copy on a device.
    pub on_device: bool,
    pub start_ps: i64,
    pub duration_ps: i64,
}

/// The classified events of one Kineto trace (host events in line order).
/// It holds one such entry per host and device event (48 and 64 bytes)
/// beside the model, so its layout is kept compact.
#[derive(Debug, Clone, Default)]
pub struct KinetoIndex {
    /// Each distinct text once ([`Text`] − 1 indexes it).
    texts: Vec<Box<str>>,
    pub host: Vec<HostEvent>,
    pub device: Vec<DeviceEvent>,
    pub steps: Vec<StepSpan>,
    /// Host plane stats `rank` / `world_size` from `distributedInfo`.
    pub rank: Option<i64>,
    pub world_size: Option<i64>,
    /// The GPUs' vendor (`deviceProperties`, as the importer's
    /// `device_vendor` plane stat says; NVIDIA when the trace does not say).
    pub vendor: GpuVendor,
}

/// MTIA's host calls are `mtia_runtime` (HTA 0.5.0's
/// `DEVICE_RUNTIME_CATEGORY_PATTERN`, `hta/common/types.py`); its launch is
/// also known by name ([`hta::MTIA_LAUNCH`]), which HTA matches on, so a
/// launch under another category still places its device work in a step.
fn host_kind(cat: &str, name: &str) -> HostKind {
    match cat {
        "cpu_op" | "Operator" => HostKind::CpuOp,
        "user_annotation" => HostKind::Annotation,
        "cuda_runtime" | "cuda_driver" | "Runtime" | "mtia_runtime" => HostKind::Runtime,
        _ if name == hta::MTIA_LAUNCH => HostKind::Runtime,
        "python_function" => HostKind::PythonFunction,
        _ => HostKind::Other,
    }
}

/// Device work by category. MTIA's on-device events (`mtia_ccp_events`) are
/// kernels, as HTA 0.5.0's `KERNEL_CATEGORY_PATTERN` ("GPU Kernels",
/// `hta/common/types.py`) has them; `cuda_sync` events are waits, not work.
fn device_kind(cat: &str) -> Option<DeviceKind> {
    match cat {
        "kernel" | "Kernel" | "mtia_ccp_events" => Some(DeviceKind::Kernel),
        "gpu_memcpy" | "Memcpy" => Some(DeviceKind::Memcpy),
        "gpu_memset" | "Memset" => Some(DeviceKind::Memset),
        _ => None,
    }
}

/// `ProfilerStep#N` → N.
fn step_number(name: &str) -> Option<i64> {
    name.strip_prefix("ProfilerStep#")?.parse().ok()
}

impl KinetoIndex {
    pub fn new(profile: &Profile) -> KinetoIndex {
        let key = |k: &str| profile.strings.lookup(k);
        let (cat_key, ext_key, corr_key, details_key, dims_key) =
            (key("cat"), key("external_id"), key("correlation_id"), key("kernel_details"), key("Input Dims"));
        let picker =
            crate::common::schema::StatPicker::new(profile, &[cat_key, ext_key, corr_key, details_key, dims_key]);
        let mut values: [Option<StatValue>; 5] = [None; 5];
        let mut index = KinetoIndex::default();
        let mut texts: FxHashMap<&str, Text> = FxHashMap::default();
        let mut text = |index: &mut KinetoIndex, s| *texts.entry(s).or_insert_with(|| index.push_text(s));
        index.reserve(profile);
        for plane in &profile.planes {
            let plane_name = profile.str(plane.name);
            let is_host = plane_name == HOST_PLANE;
            let is_device = plane_name.starts_with(GPU_PLANE_PREFIX);
            if is_host {
                let stat = |k: &str| key(k).and_then(|k| plane.stats.get(k, &profile.strings)).and_then(|v| v.as_i64());
                index.rank = stat("rank");
                index.world_size = stat("world_size");
            }
            if is_device {
                let vendor = key("device_vendor").and_then(|k| plane.stats.get(k, &profile.strings));
                if vendor.and_then(|v| v.as_str().map(|s| s == "AMD")).unwrap_or(false) {
                    index.vendor = GpuVendor::Amd;
                }
            }
            if !is_host && !is_device {
                continue;
            }
            for (l, line) in plane.lines.iter().enumerate() {
                let ev = &line.events;
                for i in 0..ev.len() {
                    picker.pick(profile, plane, line, i, &mut values);
                    let cat = match values[0] {
                        Some(StatValue::Str(cat)) => cat,
                        _ => "",
                    };
                    let name = profile.str(plane.event_metadata[ev.metadata[i] as usize].name);
                    let (start, end) = (ev.start_ps.at(i), ev.end_ps(i));
                    let external_id = OptId::new(values[1].and_then(|v| v.as_i64()));
                    let correlation_id = OptId::new(values[2].and_then(|v| v.as_i64()));
                    if let Some(step) = step_number(name) {
                        if matches!(cat, "user_annotation" | "gpu_user_annotation" | "cpu_op" | "Operator") {
                            index.steps.push(StepSpan {
                                name: name.to_string(),
                                step,
                                on_device: is_device,
                                start_ps: start,
                                duration_ps: end - start,
                            });
                        }
                    }
                    if is_host {
                        // PyTorch 1.9 records steps as `Operator`s; a step is
                        // a range, never an op.
                        let kind =
                            if step_number(name).is_some() { HostKind::Annotation } else { host_kind(cat, name) };
                        let input_dims = match values[4] {
                            Some(StatValue::Str(d)) => Some(text(&mut index, d)),
                            _ => None,
                        };
                        let name = text(&mut index, name);
                        index.host.push(HostEvent {
                            line: l as u32,
                            start_ps: start,
                            end_ps: end,
                            kind,
                            name,
                            external_id,
                            correlation_id,
                            input_dims,
                        });
                    } else if let Some(kind) = device_kind(cat) {
                        let kernel_details = match values[3] {
                            Some(StatValue::Str(d)) => Some(text(&mut index, d)),
                            _ => None,
                        };
                        let name = text(&mut index, name);
                        index.device.push(DeviceEvent {
                            device: plane.id,
                            stream: line.id,
                            start_ps: start,
                            end_ps: end,
                            kind,
                            name,
                            external_id,
                            correlation_id,
                            kernel_details,
                        });
                    }
                }
            }
        }
        index.steps.sort_by_key(|s| (s.on_device, s.start_ps));
        index.host.shrink_to_fit();
        index.device.shrink_to_fit();
        index
    }

    /// Room for every event of the host and GPU planes, so that the lists
    /// never grow by doubling (which would hold up to twice their size).
    fn reserve(&mut self, profile: &Profile) {
        let events = |is: &dyn Fn(&str) -> bool| -> usize {
            let planes = profile.planes.iter().filter(|p| is(profile.str(p.name)));
            planes.flat_map(|p| &p.lines).map(|l| l.events.len()).sum()
        };
        self.host.reserve_exact(events(&|name| name == HOST_PLANE));
        self.device.reserve_exact(events(&|name| name.starts_with(GPU_PLANE_PREFIX)));
    }

    fn push_text(&mut self, s: &str) -> Text {
        self.texts.push(s.into());
        Text::at(self.texts.len() - 1)
    }

    /// The text `t` stands for.
    pub fn text(&self, t: Text) -> &str {
        &self.texts[t.0.get() as usize - 1]
    }

    /// `s` as a text of this index, added if it is new (a linear search:
    /// for indexes built by hand, in tests).
    pub fn intern(&mut self, s: &str) -> Text {
        match self.texts.iter().position(|t| &**t == s) {
            Some(i) => Text::at(i),
            None => self.push_text(s),
        }
    }

    /// Host `ProfilerStep#N` ranges, in time order.
    pub fn cpu_steps(&self) -> impl Iterator<Item = &StepSpan> {
        self.steps.iter().filter(|s| !s.on_device)
    }

    /// The external id of the host op behind each correlation id (from the
    /// runtime launches), for device events that lack their own.
    pub fn external_of_correlation(&self) -> FxHashMap<i64, i64> {
        self.host
            .iter()
            .filter(|h| h.kind == HostKind::Runtime)
            .filter_map(|h| Some((h.correlation_id.get()?, h.external_id.get()?)))
            .collect()
    }

    /// Launch (runtime call) start per correlation id.
    pub fn launch_time_of_correlation(&self) -> FxHashMap<i64, i64> {
        self.host
            .iter()
            .filter(|h| h.kind == HostKind::Runtime)
            .filter_map(|h| Some((h.correlation_id.get()?, h.start_ps)))
            .collect()
    }
}

/// Kernel totals of one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceFacts {
    pub device: i64,
    pub kernels: u64,
    /// Summed kernel durations.
    pub kernel_ps: i64,
    /// Union of the kernel intervals over all streams.
    pub busy_ps: i64,
    pub first_start_ps: i64,
    pub last_end_ps: i64,
    pub streams: Vec<i64>,
}

/// A plain summary of a Kineto trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    pub kernels: u64,
    pub distinct_kernel_names: usize,
    pub kernel_ps: i64,
    pub devices: Vec<DeviceFacts>,
    pub steps: Vec<StepSpan>,
}

pub fn facts(index: &KinetoIndex) -> Facts {
    let mut per_device: std::collections::BTreeMap<i64, Vec<&DeviceEvent>> = Default::default();
    for k in index.device.iter().filter(|d| d.kind == DeviceKind::Kernel) {
        per_device.entry(k.device).or_default().push(k);
    }
    let devices: Vec<DeviceFacts> = per_device
        .into_iter()
        .map(|(device, kernels)| {
            let mut streams: Vec<i64> = kernels.iter().map(|k| k.stream).collect();
            streams.sort_unstable();
            streams.dedup();
            DeviceFacts {
                device,
                kernels: kernels.len() as u64,
                kernel_ps: kernels.iter().map(|k| k.end_ps - k.start_ps).sum(),
                busy_ps: Intervals::union_of(kernels.iter().map(|k| (k.start_ps, k.end_ps)).collect()).len_ps(),
                first_start_ps: kernels.iter().map(|k| k.start_ps).min().unwrap_or(0),
                last_end_ps: kernels.iter().map(|k| k.end_ps).max().unwrap_or(0),
                streams,
            }
        })
        .collect();
    let mut names: Vec<Text> = index.device.iter().filter(|d| d.kind == DeviceKind::Kernel).map(|d| d.name).collect();
    names.sort_unstable();
    names.dedup();
    Facts {
        kernels: devices.iter().map(|d| d.kernels).sum(),
        distinct_kernel_names: names.len(),
        kernel_ps: devices.iter().map(|d| d.kernel_ps).sum(),
        devices,
        steps: index.steps.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::{DeviceEvent, HostEvent, OptId};

    #[test]
    fn an_optional_id_keeps_every_value_but_its_mark() {
        for id in [Some(0), Some(-1), Some(i64::MAX), Some(i64::MIN + 1), None] {
            assert_eq!(OptId::new(id).get(), id);
        }
        // The one value given up: it stands for none.
        assert_eq!(OptId::new(Some(i64::MIN)).get(), None);
        assert_eq!(std::mem::size_of::<OptId>(), 8);
    }

    #[test]
    fn index_entries_stay_compact() {
        assert_eq!(std::mem::size_of::<HostEvent>(), 48);
        assert_eq!(std::mem::size_of::<DeviceEvent>(), 64);
    }
}
