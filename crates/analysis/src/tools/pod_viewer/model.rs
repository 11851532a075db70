//! The pod viewer's model: steps, each with its cores' numbers as columns.
//!
//! A pod of 64 hosts and 3,498 steps has 224 K core steps. As one JS object
//! each (a map of buckets and two names included) they took 4.5 s from the
//! worker to the page's view; as a few byte columns per step, with host and
//! bottleneck names stored once and named by index, they cross as typed
//! arrays. `--format json` still writes one object per core
//! ([`super::to_json`]).

use super::tpu::{AllReduceRow, ChannelRow, TpuCoreStats};
use super::BUCKETS;
use crate::common::byte_column;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PodViewer {
    /// The run environment's device type (`GPU`, `TPU v6 Lite`, `AMD GPU - gfx942`, `CPU`).
    pub device_type: String,
    /// The hosts' names, each once: a core names its host by index.
    pub host_names: Vec<String>,
    /// The bottlenecks' names, each once: a core names its bottleneck by index.
    pub bottlenecks: Vec<String>,
    pub steps: Vec<PodStep>,
    /// Why there may be nothing to compare (no step markers).
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PodStep {
    pub step_num: i64,
    pub step_name: String,
    pub cores: CoreColumns,
    /// A TPU pod viewer file's all-reduce ops of this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all_reduce: Vec<AllReduceRow>,
    /// A TPU pod viewer file's send/recv channels of this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<ChannelRow>,
}

/// A step's cores, one row each.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CoreColumns {
    #[serde(with = "byte_column")]
    pub core: Vec<u32>,
    /// Index into [`PodViewer::host_names`].
    #[serde(with = "byte_column")]
    pub host: Vec<u32>,
    #[serde(with = "byte_column")]
    pub total_us: Vec<f64>,
    /// [`BUCKETS`]`.len()` per core, in its order, µs; NaN where a pod
    /// viewer file has no time for the bucket.
    #[serde(with = "byte_column")]
    pub breakdown_us: Vec<f64>,
    /// Index into [`PodViewer::bottlenecks`].
    #[serde(with = "byte_column")]
    pub bottleneck: Vec<u32>,
    /// A TPU pod viewer file's named times, one per core; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tpu: Vec<Option<TpuCoreStats>>,
}

/// One core of a step, as read from the columns.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreStep<'a> {
    pub core: u32,
    pub host_name: &'a str,
    pub total_us: f64,
    /// Time per bucket, index for index with [`BUCKETS`], µs (NaN: none).
    pub breakdown_us: &'a [f64],
    /// Name of the largest bucket.
    pub bottleneck: &'a str,
    pub tpu: Option<&'a TpuCoreStats>,
}

impl CoreStep<'_> {
    /// The time of bucket `index` (into [`BUCKETS`]), µs; 0 where there is none.
    pub fn bucket_us(&self, index: usize) -> f64 {
        self.breakdown_us.get(index).copied().filter(|v| !v.is_nan()).unwrap_or(0.0)
    }

    /// The buckets that have a time: (bucket id, µs).
    pub fn buckets(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        BUCKETS.iter().zip(self.breakdown_us).filter(|(_, v)| !v.is_nan()).map(|(b, &v)| (b.0, v))
    }
}

impl PodViewer {
    pub fn new(device_type: String, warnings: Vec<String>) -> PodViewer {
        PodViewer { device_type, host_names: Vec::new(), bottlenecks: Vec::new(), steps: Vec::new(), warnings }
    }

    pub fn is_tpu(&self) -> bool {
        self.device_type.starts_with("TPU")
    }

    /// The label of bucket `index` (into [`BUCKETS`]) for this profile's hardware.
    pub fn bucket_label(&self, index: usize) -> &'static str {
        if self.is_tpu() { super::TPU_BUCKET_LABELS.get(index).copied() } else { BUCKETS.get(index).map(|b| b.1) }
            .unwrap_or("")
    }

    /// Core `i` of `step` (of this model).
    pub fn core_step<'a>(&'a self, step: &'a PodStep, i: usize) -> Option<CoreStep<'a>> {
        let c = &step.cores;
        let buckets = BUCKETS.len();
        Some(CoreStep {
            core: *c.core.get(i)?,
            host_name: self.host_names.get(*c.host.get(i)? as usize).map_or("", String::as_str),
            total_us: *c.total_us.get(i)?,
            breakdown_us: c.breakdown_us.get(i * buckets..(i + 1) * buckets)?,
            bottleneck: self.bottlenecks.get(*c.bottleneck.get(i)? as usize).map_or("", String::as_str),
            tpu: c.tpu.get(i).and_then(Option::as_ref),
        })
    }

    /// The cores of `step`, in order.
    pub fn core_steps<'a>(&'a self, step: &'a PodStep) -> impl Iterator<Item = CoreStep<'a>> + 'a {
        (0..step.cores.core.len()).map_while(move |i| self.core_step(step, i))
    }
}

/// Builds a [`PodViewer`], naming each host and bottleneck once.
pub struct PodBuilder {
    pod: PodViewer,
    hosts: HashMap<String, u32>,
    bottlenecks: HashMap<String, u32>,
}

/// A core's numbers as given to [`PodBuilder::push_core`].
pub struct NewCore<'a> {
    pub core: u32,
    pub host_name: &'a str,
    pub total_us: f64,
    /// [`BUCKETS`]`.len()` times, in its order, µs (NaN: none).
    pub breakdown_us: [f64; BUCKETS.len()],
    pub bottleneck: &'a str,
    pub tpu: Option<TpuCoreStats>,
}

impl PodBuilder {
    pub fn new(device_type: String, warnings: Vec<String>) -> PodBuilder {
        PodBuilder { pod: PodViewer::new(device_type, warnings), hosts: HashMap::new(), bottlenecks: HashMap::new() }
    }

    pub fn push_core(&mut self, step: &mut PodStep, core: NewCore) {
        let c = &mut step.cores;
        c.core.push(core.core);
        c.host.push(intern(&mut self.hosts, &mut self.pod.host_names, core.host_name));
        c.total_us.push(core.total_us);
        c.breakdown_us.extend_from_slice(&core.breakdown_us);
        c.bottleneck.push(intern(&mut self.bottlenecks, &mut self.pod.bottlenecks, core.bottleneck));
        if core.tpu.is_some() && c.tpu.len() < c.core.len() - 1 {
            c.tpu.resize(c.core.len() - 1, None);
        }
        if core.tpu.is_some() || !c.tpu.is_empty() {
            c.tpu.push(core.tpu);
        }
    }

    pub fn push_step(&mut self, step: PodStep) {
        self.pod.steps.push(step);
    }

    pub fn finish(self) -> PodViewer {
        self.pod
    }
}

fn intern(index: &mut HashMap<String, u32>, names: &mut Vec<String>, name: &str) -> u32 {
    if let Some(&i) = index.get(name) {
        return i;
    }
    let i = names.len() as u32;
    names.push(name.to_string());
    index.insert(name.to_string(), i);
    i
}

impl PodStep {
    pub fn new(step_num: i64, step_name: String) -> PodStep {
        PodStep { step_num, step_name, cores: CoreColumns::default(), all_reduce: Vec::new(), channels: Vec::new() }
    }

    /// How many cores the step has.
    pub fn core_count(&self) -> usize {
        self.cores.core.len()
    }
}
