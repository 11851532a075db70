//! Overview page: the step-time summary and its verdict, the top operations,
//! where the program ran, and what to do next.
//!
//! Numbers follow XProf's op_stats_to_overview_page.cc; the advice section is
//! Proflens's own, drawn from the TensorFlow profiler guide's best practices.

pub mod distributed;
pub mod hta_breakdowns;
pub mod legacy;
pub mod pytorch;
mod tool;
pub mod tpu;

pub use tool::{page_of, rank_part, OverviewTool};

use crate::common::datatable::DataTable;
use crate::common::stats::general;
use crate::passes::duty_cycle::DutyCycle;
use crate::passes::host_analysis::HostAnalysis;
use crate::passes::input_pipeline::{self, host_input_ops, Diagnostic, HardwareType, InputPipelineAnalysis};
use crate::passes::op_metrics::{OpMetrics, OpMetricsDb};
use crate::passes::performance_counters::PerformanceCounters;
use crate::passes::run_environment::RunEnvironment;
use crate::passes::steps::StepDb;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Where the top-ops table comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpsSide {
    Device,
    /// No device in the profile: the host's framework ops instead.
    Host,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopOp {
    pub name: String,
    pub category: String,
    /// Share of the side's total self time, 0..=1.
    pub self_time_fraction: f64,
    pub cumulative_time_fraction: f64,
    /// GFLOP/s.
    pub flop_rate: f64,
    pub tensor_core_eligible: bool,
    pub uses_tensor_core: bool,
}

/// The percentages of XProf's analysis table.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OverviewStats {
    pub device_compute_16bit_percent: f64,
    pub device_compute_32bit_percent: f64,
    /// Share of op occurrences that ran on the host / the device.
    pub host_tf_op_percent: f64,
    pub device_tf_op_percent: f64,
    pub host_op_time_eager_percent: f64,
    pub device_op_time_eager_percent: f64,
    /// TPU profiles only: XProf's TPU analysis (duty cycle, idle shares).
    #[serde(default)]
    pub tpu: Option<TpuUtilization>,
}

/// How busy the TPUs and the host were (XProf's `ComputeTpuAnalysisResult`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TpuUtilization {
    /// Busy share of the TensorCores' (and SparseCores') measured time, percent.
    pub device_duty_cycle_percent: f64,
    /// The same over the time XProf is confident about; Proflens knows no
    /// low-confidence time, so it equals the duty cycle.
    pub device_duty_cycle_high_confidence_percent: f64,
    /// Share of the device ops' measured time in which no op ran, percent.
    pub device_idle_time_percent: f64,
    /// Share of the host threads' measured time in which no op ran, percent.
    pub host_idle_time_percent: f64,
    pub idle_time_high_confidence_ps: u64,
    /// MXU (matrix unit) and HBM utilisation, where the profile records them.
    #[serde(default)]
    pub counters: PerformanceCounters,
}

impl TpuUtilization {
    fn of(
        duty: &DutyCycle,
        counters: PerformanceCounters,
        host_db: &OpMetricsDb,
        device_db: &OpMetricsDb,
    ) -> TpuUtilization {
        // XProf's IdleTimeRatio: 1 - op time / measured time.
        let idle = |db: &OpMetricsDb| 100.0 - percent(db.total_op_time_ps as f64, db.total_time_ps as f64);
        TpuUtilization {
            device_duty_cycle_percent: duty.percent(),
            device_duty_cycle_high_confidence_percent: duty.percent(),
            device_idle_time_percent: idle(device_db),
            host_idle_time_percent: idle(host_db),
            idle_time_high_confidence_ps: duty.idle_ps,
            counters,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    pub title: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    /// `host`, `both`, `device` or `unknown`.
    pub bottleneck: String,
    pub statement: String,
    pub kernel_launch_statement: String,
    pub all_other_statement: String,
    pub device_collectives_statement: String,
    pub precision_statement: String,
    pub eager_statement: String,
    pub advice: Vec<Advice>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverviewPage {
    pub input: InputPipelineAnalysis,
    /// Set when the steps are Proflens's inference, not XProf's: why.
    pub steps_note: Option<String>,
    pub top_ops: Vec<TopOp>,
    pub top_ops_side: OpsSide,
    pub stats: OverviewStats,
    pub run_environment: RunEnvironment,
    pub recommendation: Recommendation,
    pub diagnostics: Vec<Diagnostic>,
    /// A TPU tool file's utilisation figures and TPU properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpu: Option<tpu::TpuSummary>,
}

const TOP_OPS: usize = 10;
/// Findings of the Advisor the overview shows.
const TOP_ADVICE: usize = 3;
/// Eager share of op time above which a statement is made (XProf's threshold).
const EAGER_REPORT_PERCENT: f64 = 10.0;

fn percent(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        0.0
    } else {
        100.0 * part / whole
    }
}

/// The overview of host analysis `a` over the steps `db` (XProf's, or the
/// ones Proflens infers).
pub fn overview(db: &StepDb, a: &HostAnalysis) -> OverviewPage {
    let (host_db, device_db, env) = (&a.host_ops, &a.device_ops, &a.environment);
    let (xspace_errors, xspace_warnings) = (&a.errors, &a.warnings);
    let host_ops = host_input_ops(host_db);
    let input = input_pipeline::analyze(db, env.hardware_type, &host_ops);
    let device_fw = device_db.framework_ops(false);
    let (top_ops, top_ops_side) = if env.hardware_type == HardwareType::CpuOnly {
        let host_no_idle = OpMetricsDb {
            ops: host_db.ops.iter().filter(|op| !op.is_idle()).cloned().collect(),
            total_time_ps: host_db.total_op_time_ps,
            total_op_time_ps: host_db.total_op_time_ps,
        };
        (top_ops(&host_no_idle), OpsSide::Host)
    } else {
        (top_ops(&device_fw), OpsSide::Device)
    };

    let occurrences = |db: &OpMetricsDb| db.ops.iter().map(|op| op.occurrences).sum::<u64>() as f64;
    let eager_share = |db: &OpMetricsDb| {
        let busy: u64 = db.ops.iter().filter(|op| !op.is_idle()).map(|op| op.self_time_ps).sum();
        let eager: u64 = db.ops.iter().filter(|op| !op.is_idle() && op.is_eager).map(|op| op.self_time_ps).sum();
        percent(eager as f64, busy as f64)
    };
    let (host_n, device_n) = (occurrences(host_db), occurrences(&device_fw));
    let compute = (db.compute_16bit_ps + db.compute_32bit_ps) as f64;
    let stats = OverviewStats {
        device_compute_16bit_percent: percent(db.compute_16bit_ps as f64, compute),
        device_compute_32bit_percent: percent(db.compute_32bit_ps as f64, compute),
        host_tf_op_percent: percent(host_n, host_n + device_n),
        device_tf_op_percent: percent(device_n, host_n + device_n),
        host_op_time_eager_percent: eager_share(host_db),
        device_op_time_eager_percent: eager_share(&device_fw),
        tpu: (env.hardware_type == HardwareType::Tpu)
            .then(|| TpuUtilization::of(&a.duty_cycle, a.counters, host_db, device_db)),
    };

    let precision_statement = if compute > 0.0 && stats.device_compute_16bit_percent < 10.0 {
        format!("Only {:.1}% of device computation is 16 bit. So you might want to replace more 32-bit Ops by 16-bit Ops to improve performance (if the reduced accuracy is acceptable).", stats.device_compute_16bit_percent)
    } else {
        String::new()
    };
    let mut eager_statement = String::new();
    if stats.host_op_time_eager_percent > EAGER_REPORT_PERCENT {
        eager_statement +=
            &format!("{:.1}% of Op time on the host used eager execution. ", stats.host_op_time_eager_percent);
    }
    if stats.device_op_time_eager_percent > EAGER_REPORT_PERCENT {
        eager_statement +=
            &format!("{:.1}% of Op time on the device used eager execution. ", stats.device_op_time_eager_percent);
    }
    if !eager_statement.is_empty() {
        eager_statement += "Performance could be improved with tf.function.";
    }
    let b = &input.bottleneck;
    let recommendation = Recommendation {
        bottleneck: b.input_classification.clone(),
        statement: b.input_statement.clone(),
        kernel_launch_statement: b.kernel_launch_statement.clone(),
        all_other_statement: b.all_other_statement.clone(),
        device_collectives_statement: b.device_collectives_statement.clone(),
        advice: advice(a, &input),
        precision_statement,
        eager_statement,
    };
    let mut diagnostics: Vec<Diagnostic> = xspace_errors
        .iter()
        .map(|e| Diagnostic { severity: "ERROR".into(), message: e.clone() })
        .chain(xspace_warnings.iter().map(|w| Diagnostic { severity: "WARNING".into(), message: w.clone() }))
        .collect();
    diagnostics.extend(input.diagnostics.iter().cloned());
    OverviewPage {
        input,
        steps_note: None,
        top_ops,
        top_ops_side,
        stats,
        run_environment: env.clone(),
        recommendation,
        diagnostics,
        tpu: None,
    }
}

/// Ops whose kernels can use TensorCores (matrix multiplies and convolutions).
fn tensor_core_eligible(op: &OpMetrics) -> bool {
    const ELIGIBLE: [&str; 8] =
        ["MatMul", "BatchMatMul", "Conv2D", "Conv3D", "Einsum", "dot_general", "conv_general_dilated", "Conv"];
    op.tensor_core_time_ps > 0 || ELIGIBLE.iter().any(|e| op.category.starts_with(e))
}

fn top_ops(db: &OpMetricsDb) -> Vec<TopOp> {
    let total = db.total_time_ps as f64;
    let mut cumulative = 0.0;
    db.sorted_by_self_time()
        .into_iter()
        .take(TOP_OPS)
        .map(|op| {
            let fraction = if total == 0.0 { 0.0 } else { op.self_time_ps as f64 / total };
            cumulative += fraction;
            TopOp {
                name: op.name.clone(),
                category: op.category.clone(),
                self_time_fraction: fraction,
                cumulative_time_fraction: cumulative,
                flop_rate: if op.time_ps == 0 { 0.0 } else { op.flops as f64 / (op.time_ps as f64 / 1000.0) },
                tensor_core_eligible: tensor_core_eligible(op),
                uses_tensor_core: op.tensor_core_time_ps > 0,
            }
        })
        .collect()
}

/// The Advisor's top findings (one source of advice), from the detectors
/// that read the step analysis; XLA's op-level findings, and every finding
/// of a profile without steps, are the Advisor's alone, since the overview
/// holds neither XLA's op table nor the profile's wall time.
fn advice(a: &HostAnalysis, input: &InputPipelineAnalysis) -> Vec<Advice> {
    let host = crate::advice::xspace::Host {
        input,
        analysis: Some(a),
        xla: None,
        xla_unreadable: None,
        profiled_ms: None,
        framework: crate::advice::framework_of(&a.host_ops, false),
        dispatches_per_step: None,
    };
    let found = crate::advice::of_xspace(&host);
    if found.basis == crate::advice::Basis::ProfiledTime {
        // No steps: the Advisor measures against the profiled time, which the overview does not hold.
        return Vec::new();
    }
    found
        .findings
        .iter()
        .take(TOP_ADVICE)
        .map(|f| Advice {
            title: f.title.clone(),
            text: format!(
                "{} A fix would save {}–{} a step; the Advisor shows the evidence and the fix.",
                f.summary,
                crate::advice::ms(f.gain_ms_per_step.low),
                crate::advice::ms(f.gain_ms_per_step.high)
            ),
        })
        .collect()
}

/// XProf 2.24's `overview_page` JSON.
pub fn to_xprof_json(page: &OverviewPage) -> Value {
    let s = &page.stats;
    let pct = |v: f64| if v >= 0.0 { format!("{v:.1}%") } else { "unknown".to_string() };
    let is_gpu = page.run_environment.device_type.contains("GPU");
    let mut analysis = DataTable::new()
        .column("selfTimePercent", "number", "Time (%)")
        .column("cumulativeTimePercent", "number", "Cumulative time (%)")
        .column("category", "string", "Category")
        .column("operation", "string", "Operation");
    analysis = if is_gpu {
        analysis
            .column("flopRate", "number", "GFLOPs/Sec")
            .column("tcEligibility", "boolean", "TensorCore eligibility")
            .column("tcUtilization", "boolean", "Op is using TensorCore")
    } else {
        analysis.column("flopRate", "number", "Bf16 Normalized Flop Rate(GFLOPs/Sec)")
    };
    analysis.property("host_trace_level", "0");
    analysis.property("host_tf_op_percent", pct(s.host_tf_op_percent));
    analysis.property("device_tf_op_percent", pct(s.device_tf_op_percent));
    analysis.property("host_op_time_eager_percent", pct(s.host_op_time_eager_percent));
    analysis.property("device_op_time_eager_percent", pct(s.device_op_time_eager_percent));
    analysis.property("remark_text", "");
    analysis.property("remark_color", "");
    let counters = s.tpu.as_ref().map(|t| t.counters).unwrap_or_default();
    analysis.property("mxu_utilization_percent", pct(counters.mxu_utilization_percent.unwrap_or(0.0)));
    analysis.property("hbm_utilization_percent", pct(counters.hbm_utilization_percent.unwrap_or(0.0)));
    if is_gpu {
        analysis.property("device_compute_16bit_percent", pct(s.device_compute_16bit_percent));
        analysis.property("device_compute_32bit_percent", pct(s.device_compute_32bit_percent));
    } else {
        let tpu = s.tpu.clone().unwrap_or_default();
        for (key, value) in [
            ("flop_rate_utilization_relative_to_roofline", 0.0),
            ("memory_bw_utilization_relative_to_hw_limit", 0.0),
            ("device_idle_time_percent", tpu.device_idle_time_percent),
            ("device_duty_cycle_percent", tpu.device_duty_cycle_percent),
            ("device_duty_cycle_high_confidence_percent", tpu.device_duty_cycle_high_confidence_percent),
            ("host_idle_time_percent", tpu.host_idle_time_percent),
        ] {
            analysis.property(key, pct(value));
        }
        if s.tpu.is_some() {
            analysis.property("idle_time_high_confidence_ps", general(tpu.idle_time_high_confidence_ps as f64));
        }
    }
    if page.top_ops_side == OpsSide::Device {
        for op in &page.top_ops {
            let mut cells = vec![
                json!(op.self_time_fraction),
                json!(op.cumulative_time_fraction),
                json!(op.category),
                json!(op.name),
                json!(op.flop_rate),
            ];
            if is_gpu {
                cells.push(json!(op.tensor_core_eligible));
                cells.push(json!(op.uses_tensor_core));
            }
            analysis.row(cells);
        }
    }

    let env = &page.run_environment;
    let mut environment = DataTable::new()
        .column("host_id", "string", "host_id")
        .column("command_line", "string", "command_line")
        .column("start_time", "string", "start_time")
        .column("bns_address", "string", "bns_address");
    environment.property("host_count", env.host_count.to_string());
    let per_host = env.task_count.checked_div(env.host_count).unwrap_or(0);
    environment.property("task_count", format!("{} (num tasks per host = {per_host})", env.task_count));
    environment.property("device_type", env.device_type.clone());
    environment.property("device_core_count", env.device_core_count.to_string());
    environment.property("is_training", env.is_training.to_string());

    let r = &page.recommendation;
    let device_name = page.input.hardware_type.xprof_name();
    // XProf points TPU users to the op profile and to each TPU core's timeline.
    let (op_tool, timeline) = if page.input.hardware_type == HardwareType::Tpu {
        ("op_profile", "TPU core")
    } else {
        ("framework_op_stats", device_name)
    };
    let mut tips = DataTable::new().column("tip_type", "string", "tip_type").column("link", "string", "link").column(
        "description",
        "string",
        "description",
    );
    let doc = |url: &str, text: &str| format!("<a href=\"{url}\" target=\"_blank\">{text}</a>");
    for (kind, link, description) in [
        ("faq", "Refer to the TF2 Profiler FAQ".to_string(), "Tool troubleshooting / FAQ"),
        ("host", "input_pipeline_analyzer (especially Section 3 for the breakdown of input operations on the Host)".into(), "Next steps for reducing the Host time"),
        ("host", "trace_viewer (look at the activities on the timeline of each Host Thread near the bottom of the trace view)".into(), "Next steps for reducing the Host time"),
        ("device", format!("{op_tool} (identify the time-consuming operations executed on the {device_name})"), "Next steps for reducing the Device time"),
        ("device", format!("trace_viewer (look at the activities on the timeline of each {timeline} in the trace view)"), "Next steps for reducing the Device time"),
        ("doc", doc("https://www.tensorflow.org/guide/data_performance_analysis", "Analyze tf.data performance with the TF Profiler"), "Other useful resources"),
        ("doc", doc("https://www.tensorflow.org/guide/data_performance", "Better performance with the tf.data API"), "Other useful resources"),
    ] {
        tips.row(vec![json!(kind), json!(link), json!(description)]);
    }
    let b = &page.input.bottleneck;
    tips.property("bottleneck", r.bottleneck.clone());
    tips.property("statement", r.statement.clone());
    tips.property("kernel_launch_bottleneck", b.kernel_launch_classification.clone());
    tips.property("kernel_launch_statement", r.kernel_launch_statement.clone());
    tips.property("all_other_bottleneck", b.all_other_classification.clone());
    tips.property("all_other_statement", r.all_other_statement.clone());
    tips.property("precision_statement", r.precision_statement.clone());
    tips.property("device_collectives_bottleneck", b.device_collectives_classification.clone());
    tips.property("device_collectives_statement", r.device_collectives_statement.clone());
    let non_bottleneck = match r.bottleneck.as_str() {
        "host" => "device",
        "device" => "host",
        _ => "",
    };
    tips.property("non_bottleneck_tip_types", non_bottleneck);

    let latency = DataTable::new()
        .column("percentile", "string", "percentile")
        .column("hostTimeMs", "number", "Host time (in ms)")
        .column("deviceTimeMs", "number", "Device time (in ms)")
        .column("communicationTimeMs", "number", "Host-device communication time (in ms)")
        .column("totalTimeMs", "number", "Total latency (in ms)");
    json!([
        analysis.into_json(),
        input_pipeline::step_table_xprof(&page.input).into_json(),
        environment.into_json(),
        tips.into_json(),
        latency.into_json(),
        {},
        input_pipeline::diagnostics_table_xprof(&page.diagnostics).into_json(),
    ])
}
