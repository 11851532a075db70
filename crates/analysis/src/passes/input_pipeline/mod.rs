//! Input pipeline analyzer: how much of each step waits for input, and which
//! host input ops (tf.data iterators, enqueue, host-to-device copies) cost what.
//!
//! Mirrors XProf's op_stats_to_input_pipeline_analysis.cc for GPU and CPU
//! profiles (the "generic" analysis); its JSON is produced by [`to_xprof_json`],
//! in XProf's TPU form on TPUs (`xprof_tpu.rs`); `tpu.rs` reads the TPU
//! step tables of TPU tool files.

pub mod legacy;
pub mod step_columns;
pub mod step_sums;
pub mod tpu;
mod xprof;
mod xprof_tpu;

pub use xprof::*;
pub use xprof_tpu::*;

pub use crate::common::hardware::HardwareType;
use crate::common::stats::{one_digit, Summary};
use crate::passes::op_metrics::OpMetricsDb;
use crate::passes::steps::{SpanType, StepDb, StepInfo};
use serde::{Deserialize, Serialize};

/// One step's time by category, ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepBreakdown {
    pub name: String,
    pub step_time_ms: f64,
    pub device_compute_ms: f64,
    pub device_to_device_ms: f64,
    pub device_collectives_ms: f64,
    pub host_compute_ms: f64,
    pub kernel_launch_ms: f64,
    pub host_wait_input_ms: f64,
    pub host_to_device_ms: f64,
    pub output_ms: f64,
    pub compile_ms: f64,
    pub other_ms: f64,
}

impl StepBreakdown {
    pub fn input_ms(&self) -> f64 {
        self.host_wait_input_ms + self.host_to_device_ms
    }

    /// The categories' sum: XProf's step time (its categories partition the step).
    pub fn categories_ms(&self) -> f64 {
        self.device_compute_ms
            + self.device_to_device_ms
            + self.device_collectives_ms
            + self.host_compute_ms
            + self.kernel_launch_ms
            + self.input_ms()
            + self.output_ms
            + self.compile_ms
            + self.other_ms
    }

    fn of(step: &StepInfo) -> StepBreakdown {
        let ms = |types: &[SpanType]| types.iter().map(|&t| step.ps(t) as f64 / 1e9).sum::<f64>();
        use SpanType::*;
        StepBreakdown {
            name: step.name.clone(),
            step_time_ms: step.duration_ps as f64 / 1e9,
            device_compute_ms: ms(&[DeviceCompute16]) + ms(&[DeviceCompute32]),
            device_to_device_ms: ms(&[DeviceToDevice]) + ms(&[DeviceWaitDevice]),
            device_collectives_ms: ms(&[DeviceCollectives]),
            host_compute_ms: ms(&[HostCompute]),
            kernel_launch_ms: ms(&[HostPrepare]),
            host_wait_input_ms: ms(&[HostWaitInput]),
            host_to_device_ms: ms(&[HostToDevice]) + ms(&[DeviceWaitHost]),
            output_ms: ms(&[DeviceToHost]),
            compile_ms: ms(&[HostCompile]),
            other_ms: ms(&[Unknown]),
        }
    }
}

/// Averages and spreads of each category over the steps.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BreakdownSummary {
    pub device_compute: Summary,
    pub device_to_device: Summary,
    pub device_collectives: Summary,
    pub host_compute: Summary,
    pub kernel_launch: Summary,
    pub input: Summary,
    pub host_to_device: Summary,
    pub output: Summary,
    pub compile: Summary,
    pub other: Summary,
}

/// The verdicts: is the program input-bound, launch-bound, …
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bottleneck {
    pub input_percent: f64,
    pub output_percent: f64,
    pub idle_percent: f64,
    pub compute_percent: f64,
    pub kernel_launch_percent: f64,
    pub all_other_percent: f64,
    pub device_collectives_percent: f64,
    /// `host`, `both`, `device` or `unknown` (no steps).
    pub input_classification: String,
    pub input_statement: String,
    /// `high`, `moderate` or `no`.
    pub kernel_launch_classification: String,
    pub kernel_launch_statement: String,
    pub all_other_classification: String,
    pub all_other_statement: String,
    pub device_collectives_classification: String,
    pub device_collectives_statement: String,
}

/// What to look at next, after the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NextStep {
    /// Input-bound without tf.data: the host analysis cannot help.
    UseTfData,
    /// Input-bound with tf.data: see the host-side breakdown.
    LookAtHostAnalysis,
    Skip,
}

/// A host op as the input analysis needs it (from the host op metrics).
#[derive(Debug, Clone, PartialEq)]
pub struct HostOp<'a> {
    pub name: &'a str,
    /// Op type: `Dataset` for tf.data iterators, `MemcpyHToD`, `InfeedEnqueue…`.
    pub category: &'a str,
    pub occurrences: u64,
    pub time_ps: u64,
    pub self_time_ps: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputOpRow {
    pub name: String,
    pub count: u64,
    pub time_ms: f64,
    /// Share of the total input-op self time, 0..=1.
    pub time_fraction: f64,
    pub self_time_ms: f64,
    pub self_time_fraction: f64,
    /// `Enqueue`, `Demanded file read`, `Advanced file read` or `Preprocessing`.
    pub category: String,
}

/// Host input time by kind, µs (scaled as XProf does).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InputTimeBreakdown {
    pub enqueue_us: f64,
    pub demanded_file_read_us: f64,
    pub advanced_file_read_us: f64,
    pub preprocessing_us: f64,
    pub unclassified_non_enqueue_us: f64,
}

impl InputTimeBreakdown {
    fn tf_data_in_use(&self) -> bool {
        self.demanded_file_read_us > 0.0 || self.advanced_file_read_us > 0.0 || self.preprocessing_us > 0.0
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// `INFO`, `WARNING` or `ERROR`.
    pub severity: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputPipelineAnalysis {
    pub hardware_type: HardwareType,
    /// Set when the steps are Proflens's inference, not XProf's: why.
    pub steps_note: Option<String>,
    /// As columns to the page; rows in `--format json` ([`step_columns`]).
    #[serde(with = "step_columns")]
    pub steps: Vec<StepBreakdown>,
    pub step_time: Summary,
    pub breakdown: BreakdownSummary,
    /// Share of each step waiting for input, percent.
    pub input_percent: Summary,
    pub bottleneck: Bottleneck,
    pub next_step: NextStep,
    pub input_ops: Vec<InputOpRow>,
    pub input_time: InputTimeBreakdown,
    pub diagnostics: Vec<Diagnostic>,
    /// A TPU tool file's own step table (TensorCore / SparseCore columns),
    /// beside `steps` (the same steps in the generic categories).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpu: Option<tpu::TpuStepAnalysis>,
}

/// The `WARNING` and `ERROR` diagnostics' messages, `severity: message`.
pub fn warnings_of(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| matches!(d.severity.as_str(), "WARNING" | "ERROR"))
        .map(|d| format!("{}: {}", d.severity.to_lowercase(), d.message))
        .collect()
}

pub const NO_STEP_MARKER_WARNING: &str = "No step marker observed and hence the step time is unknown. This may happen if (1) training steps are not instrumented (e.g., if you are not using Keras) or (2) the profiling duration is shorter than the step time. For (1), you need to add step instrumentation; for (2), you may try to profile longer.";

pub fn analyze(db: &StepDb, hardware_type: HardwareType, host_ops: &[HostOp<'_>]) -> InputPipelineAnalysis {
    let steps: Vec<StepBreakdown> = db.steps.iter().map(StepBreakdown::of).collect();
    let col = |f: fn(&StepBreakdown) -> f64| Summary::of(&steps.iter().map(f).collect::<Vec<_>>());
    let breakdown = BreakdownSummary {
        device_compute: col(|s| s.device_compute_ms),
        device_to_device: col(|s| s.device_to_device_ms),
        device_collectives: col(|s| s.device_collectives_ms),
        host_compute: col(|s| s.host_compute_ms),
        kernel_launch: col(|s| s.kernel_launch_ms),
        input: col(StepBreakdown::input_ms),
        host_to_device: col(|s| s.host_to_device_ms),
        output: col(|s| s.output_ms),
        compile: col(|s| s.compile_ms),
        other: col(|s| s.other_ms),
    };
    let step_time = col(|s| s.step_time_ms);
    let input_percent = col(|s| if s.step_time_ms == 0.0 { 0.0 } else { 100.0 * s.input_ms() / s.step_time_ms });
    let (input_ops, input_time) = host_input(host_ops, &step_time, &breakdown);
    let bottleneck = bottleneck(&steps, &input_time);
    let next_step = match bottleneck.input_classification.as_str() {
        "host" | "both" if input_time.tf_data_in_use() => NextStep::LookAtHostAnalysis,
        "host" | "both" => NextStep::UseTfData,
        _ => NextStep::Skip,
    };
    let mut diagnostics = Vec::new();
    if steps.is_empty() {
        diagnostics.push(Diagnostic { severity: "WARNING".into(), message: NO_STEP_MARKER_WARNING.into() });
    }
    InputPipelineAnalysis {
        hardware_type,
        steps_note: None,
        steps,
        step_time,
        breakdown,
        input_percent,
        bottleneck,
        next_step,
        input_ops,
        input_time,
        diagnostics,
        tpu: None,
    }
}

fn classify_input_op(name: &str, category: &str) -> &'static str {
    if category.starts_with("InfeedEnqueue") || category == "MemcpyHToD" {
        return "Enqueue";
    }
    const FILE_READERS: [&str; 5] = ["::TFRecord", "::TextLine", "::FixedLengthRecord", "::SSTable", "::RecordIO"];
    const IN_ADVANCE: [&str; 5] = ["::MemoryReader", "::MemoryWriter", "::Interleave", "::Prefetch", "::ParallelMap"];
    if FILE_READERS.iter().any(|s| name.ends_with(s)) {
        if IN_ADVANCE.iter().any(|s| name.contains(s)) {
            "Advanced file read"
        } else {
            "Demanded file read"
        }
    } else {
        "Preprocessing"
    }
}

fn is_input_op(category: &str) -> bool {
    category.starts_with("InfeedEnqueue") || category == crate::common::tf_op::DATASET_OP || category == "MemcpyHToD"
}

fn host_input(
    host_ops: &[HostOp<'_>],
    step_time: &Summary,
    breakdown: &BreakdownSummary,
) -> (Vec<InputOpRow>, InputTimeBreakdown) {
    let mut ops: Vec<&HostOp> = host_ops.iter().filter(|op| is_input_op(op.category)).collect();
    if ops.is_empty() {
        return (Vec::new(), InputTimeBreakdown::default());
    }
    ops.sort_by(|a, b| b.self_time_ps.cmp(&a.self_time_ps).then_with(|| a.name.cmp(b.name)));
    let total_self: u64 = ops.iter().map(|op| op.self_time_ps).sum();
    let fraction = |ps: u64| if total_self == 0 { 0.0 } else { ps as f64 / total_self as f64 };
    let mut by_category: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    let rows = ops
        .iter()
        .map(|op| {
            let category = classify_input_op(op.name, op.category);
            *by_category.entry(category).or_default() += op.self_time_ps as f64 / 1e6;
            InputOpRow {
                name: op.name.to_string(),
                count: op.occurrences,
                time_ms: op.time_ps as f64 / 1e9,
                time_fraction: fraction(op.time_ps),
                self_time_ms: op.self_time_ps as f64 / 1e9,
                self_time_fraction: fraction(op.self_time_ps),
                category: category.to_string(),
            }
        })
        .collect();
    let get = |k: &str| by_category.get(k).copied().unwrap_or(0.0);
    let enqueue = get("Enqueue");
    let total = get("Demanded file read") + get("Advanced file read") + get("Preprocessing");
    // Share of step time spent copying to the device, to scale the rest.
    let ratio =
        if step_time.average > 0.0 { (breakdown.host_to_device.average / step_time.average).min(1.0) } else { 0.0 };
    let non_enqueue = if ratio != 0.0 { enqueue * (1.0 - ratio) / ratio } else { total };
    let scaled = |k: &str| if total == 0.0 { 0.0 } else { non_enqueue * get(k) / total };
    let (demanded, advanced, preprocessing) =
        (scaled("Demanded file read"), scaled("Advanced file read"), scaled("Preprocessing"));
    let breakdown = InputTimeBreakdown {
        enqueue_us: enqueue,
        demanded_file_read_us: demanded,
        advanced_file_read_us: advanced,
        preprocessing_us: preprocessing,
        unclassified_non_enqueue_us: (non_enqueue - demanded - advanced - preprocessing).max(0.0),
    };
    (rows, breakdown)
}

fn level(percent: f64, high: f64, moderate: f64) -> &'static str {
    if percent >= high {
        "high"
    } else if percent >= moderate {
        "moderate"
    } else {
        "no"
    }
}

fn bottleneck(steps: &[StepBreakdown], input_time: &InputTimeBreakdown) -> Bottleneck {
    let sum = |f: fn(&StepBreakdown) -> f64| steps.iter().map(f).sum::<f64>();
    let total = sum(|s| s.step_time_ms);
    if total == 0.0 {
        return Bottleneck {
            input_percent: 0.0,
            output_percent: 0.0,
            idle_percent: 0.0,
            compute_percent: 0.0,
            kernel_launch_percent: 0.0,
            all_other_percent: 0.0,
            device_collectives_percent: 0.0,
            input_classification: "unknown".into(),
            input_statement: "No step time measured. Therefore we cannot tell where the performance bottleneck is."
                .into(),
            kernel_launch_classification: "no".into(),
            kernel_launch_statement: String::new(),
            all_other_classification: "no".into(),
            all_other_statement: String::new(),
            device_collectives_classification: "no".into(),
            device_collectives_statement: String::new(),
        };
    }
    let pct = |f: fn(&StepBreakdown) -> f64| 100.0 * sum(f) / total;
    let input = pct(StepBreakdown::input_ms);
    let output = pct(|s| s.output_ms);
    let compute = pct(|s| s.device_compute_ms);
    let collectives = pct(|s| s.device_collectives_ms);
    let launch = pct(|s| s.kernel_launch_ms);
    let other = pct(|s| s.other_ms);
    let idle = (100.0 - input - output - compute - collectives).max(0.0);

    let (input_classification, input_statement, all_other_reported) = if input >= 20.0 {
        ("host", format!("Your program is HIGHLY input-bound because {input:.1}% of the total step time sampled is waiting for input. Therefore, you should first focus on reducing the input time."), false)
    } else if input >= 5.0 {
        ("both", format!("Your program is MODERATELY input-bound because {input:.1}% of the total step time sampled is waiting for input. Therefore, you would need to reduce both the input time and other time."), false)
    } else if other >= 3.0 {
        ("both", format!("Your program is POTENTIALLY input-bound because {other:.1}% of the total step time sampled is spent on 'All Others' time (which could be due to I/O or Python execution or both)."), true)
    } else {
        ("device", format!("Your program is NOT input-bound because only {input:.1}% of the total step time sampled is waiting for input. Therefore, you should focus on reducing other time."), false)
    };

    let collectives_level = level(collectives, 15.0, 3.0);
    let collectives_statement = if collectives_level == "no" {
        String::new()
    } else {
        format!("{collectives:.1} % of the total step time sampled is spent on 'Device Collective Communication'.")
    };
    let launch_level = level(launch, 15.0, 3.0);
    let launch_statement = if launch_level == "no" {
        String::new()
    } else {
        let contention = if input_time.tf_data_in_use() {
            " It could be due to CPU contention with tf.data. In this case, you may try to set the environment variable TF_GPU_THREAD_MODE=gpu_private."
        } else {
            ""
        };
        format!("{launch:.1} % of the total step time sampled is spent on 'Kernel Launch'.{contention}")
    };
    let other_level = if all_other_reported { "no" } else { level(other, 15.0, 3.0) };
    let other_statement = if other_level == "no" {
        String::new()
    } else {
        format!("{other:.1} % of the total step time sampled is spent on 'All Others' time. This could be due to Python execution overhead.")
    };
    Bottleneck {
        input_percent: input,
        output_percent: output,
        idle_percent: idle,
        compute_percent: compute,
        kernel_launch_percent: launch,
        all_other_percent: other,
        device_collectives_percent: collectives,
        input_classification: input_classification.into(),
        input_statement,
        kernel_launch_classification: launch_level.into(),
        kernel_launch_statement: launch_statement,
        all_other_classification: other_level.into(),
        all_other_statement: other_statement,
        device_collectives_classification: collectives_level.into(),
        device_collectives_statement: collectives_statement,
    }
}

/// The host ops in the shape the input analysis reads.
pub fn host_input_ops(host_db: &OpMetricsDb) -> Vec<HostOp<'_>> {
    host_db
        .ops
        .iter()
        .map(|op| HostOp {
            name: &op.name,
            category: &op.category,
            occurrences: op.occurrences,
            time_ps: op.time_ps,
            self_time_ps: op.self_time_ps,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categorises_input_ops_like_xprof() {
        assert_eq!(classify_input_op("Iterator::Root::Prefetch::MapAndBatch", "Dataset"), "Preprocessing");
        assert_eq!(classify_input_op("Iterator::Root::Prefetch::TFRecord", "Dataset"), "Advanced file read");
        assert_eq!(classify_input_op("Iterator::Root::Map::TFRecord", "Dataset"), "Demanded file read");
        assert_eq!(classify_input_op("x", "MemcpyHToD"), "Enqueue");
        assert!(!is_input_op("IteratorGetNext"));
    }

    #[test]
    fn verdict_thresholds() {
        let step = |input: f64, other: f64| StepBreakdown {
            name: "s".into(),
            step_time_ms: 100.0,
            device_compute_ms: 0.0,
            device_to_device_ms: 0.0,
            device_collectives_ms: 0.0,
            host_compute_ms: 100.0 - input - other,
            kernel_launch_ms: 0.0,
            host_wait_input_ms: input,
            host_to_device_ms: 0.0,
            output_ms: 0.0,
            compile_ms: 0.0,
            other_ms: other,
        };
        let none = InputTimeBreakdown::default();
        assert_eq!(bottleneck(&[step(25.0, 0.0)], &none).input_classification, "host");
        assert_eq!(bottleneck(&[step(6.0, 0.0)], &none).input_classification, "both");
        let potentially = bottleneck(&[step(1.0, 4.0)], &none);
        assert_eq!(potentially.input_classification, "both");
        assert_eq!(potentially.all_other_classification, "no", "reported once, in the input statement");
        assert_eq!(bottleneck(&[step(1.0, 1.0)], &none).input_classification, "device");
        assert_eq!(bottleneck(&[], &none).input_classification, "unknown");
    }
}
