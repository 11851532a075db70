//! Input pipeline analysis from a legacy `input_pipeline.pb` (an
//! `InputPipelineAnalysisResult`) or XProf's input pipeline / overview JSON.

use crate::common::legacy::shape;
use crate::common::stats::Summary;
use crate::passes::input_pipeline::step_sums::{self, StepSum};
use crate::passes::input_pipeline::tpu::{tpu_steps_from_table, TpuStep, TpuStepAnalysis};
use crate::passes::input_pipeline::{
    Bottleneck, BreakdownSummary, Diagnostic, HardwareType, InputOpRow, InputPipelineAnalysis, InputTimeBreakdown,
    NextStep, StepBreakdown,
};
use proflens_format::legacy::{unpack_any, GvizTable, LegacyError, LegacyTool};
use proflens_format::proto;

pub fn hardware_type(name: &str) -> HardwareType {
    match name {
        "GPU" => HardwareType::Gpu,
        "TPU" => HardwareType::Tpu,
        _ => HardwareType::CpuOnly,
    }
}

fn summary(s: &Option<proto::StepSummary>) -> Option<Summary> {
    s.as_ref().map(|s| Summary {
        average: s.average,
        standard_deviation: Some(s.standard_deviation),
        minimum: s.minimum,
        maximum: s.maximum,
    })
}

/// XProf's own next-step wording, back to the choice it encodes.
pub fn next_step(text: &str) -> NextStep {
    // The tf.data advice also mentions Section 3 ("please ignore Section 3"), so it is tested first.
    // The 2020 TPU tools wrote "Look at the section 3 …", in lower case.
    if text.contains("tf.data API") {
        NextStep::UseTfData
    } else if text.to_lowercase().contains("section 3") {
        NextStep::LookAtHostAnalysis
    } else {
        NextStep::Skip
    }
}

/// The verdict an input statement states (for files that give only the text).
pub fn classification(statement: &str) -> &'static str {
    if statement.contains("HIGHLY input-bound") {
        "host"
    } else if statement.contains("MODERATELY input-bound") || statement.contains("POTENTIALLY input-bound") {
        "both"
    } else if statement.contains("NOT input-bound") {
        "device"
    } else {
        "unknown"
    }
}

/// A step record, when it is the generic kind (an `Any` naming another
/// message, such as a TPU step, is not read as one).
fn generic_step(any: &proto::LegacyAny) -> Result<proto::PerGenericStepDetails, ()> {
    if !any.type_url.is_empty() && !any.type_url.ends_with(".PerGenericStepDetails") {
        return Err(());
    }
    unpack_any(any).map_err(|_| ())
}

fn step_of(d: &proto::PerGenericStepDetails) -> StepBreakdown {
    StepBreakdown {
        name: if d.step_name.is_empty() { d.step_number.to_string() } else { d.step_name.clone() },
        step_time_ms: d.step_time_ms,
        device_compute_ms: d.device_compute_ms,
        device_to_device_ms: d.device_to_device_ms,
        device_collectives_ms: d.device_collectives_ms,
        host_compute_ms: d.host_compute_ms,
        kernel_launch_ms: d.host_prepare_ms,
        host_wait_input_ms: d.host_wait_input_ms,
        host_to_device_ms: d.host_to_device_ms,
        output_ms: d.output_ms,
        compile_ms: d.host_compile_ms,
        other_ms: d.unknown_time_ms,
    }
}

/// Category summaries: the file's where it has them, else over its steps.
fn breakdown(file: Option<&proto::GenericStepTimeBreakdown>, steps: &[StepBreakdown]) -> BreakdownSummary {
    let of = |f: fn(&StepBreakdown) -> f64| Summary::of(&steps.iter().map(f).collect::<Vec<_>>());
    let pick = |s: Option<&Option<proto::StepSummary>>, f: fn(&StepBreakdown) -> f64| {
        s.and_then(summary).unwrap_or_else(|| of(f))
    };
    BreakdownSummary {
        device_compute: pick(file.map(|b| &b.device_compute_ms_summary), |s| s.device_compute_ms),
        device_to_device: pick(file.map(|b| &b.device_to_device_ms_summary), |s| s.device_to_device_ms),
        device_collectives: pick(file.map(|b| &b.device_collectives_ms_summary), |s| s.device_collectives_ms),
        host_compute: pick(file.map(|b| &b.host_compute_ms_summary), |s| s.host_compute_ms),
        kernel_launch: pick(file.map(|b| &b.host_prepare_ms_summary), |s| s.kernel_launch_ms),
        input: pick(file.map(|b| &b.input_ms_summary), StepBreakdown::input_ms),
        host_to_device: pick(file.map(|b| &b.host_to_device_ms_summary), |s| s.host_to_device_ms),
        output: pick(file.map(|b| &b.output_ms_summary), |s| s.output_ms),
        compile: pick(file.map(|b| &b.host_compile_ms_summary), |s| s.compile_ms),
        other: pick(file.map(|b| &b.unknown_time_ms_summary), |s| s.other_ms),
    }
}

/// Shares of the summed step time (XProf's bottleneck arithmetic), for the
/// percentages a file does not store.
fn percent_of_steps(steps: &[StepBreakdown], f: fn(&StepBreakdown) -> f64) -> f64 {
    let total: f64 = steps.iter().map(|s| s.step_time_ms).sum();
    if total == 0.0 {
        0.0
    } else {
        100.0 * steps.iter().map(f).sum::<f64>() / total
    }
}

pub fn diagnostics(d: Option<&proto::Diagnostics>) -> Vec<Diagnostic> {
    let Some(d) = d else { return Vec::new() };
    let tagged = |severity: &str, messages: &[String]| {
        messages.iter().map(|m| Diagnostic { severity: severity.into(), message: m.clone() }).collect::<Vec<_>>()
    };
    [tagged("ERROR", &d.errors), tagged("WARNING", &d.warnings), tagged("INFO", &d.info)].concat()
}

/// The analysis stored in an `InputPipelineAnalysisResult`.
///
/// Kept from the file: steps, every summary, input-op table, input-time
/// breakdown, verdicts and statements, next step, diagnostics. Not in the
/// file, so derived from its steps with XProf's formulas: the kernel-launch,
/// all-others and collectives percentages, the input/output/compute/idle
/// percentages when the file stores none (TF 2.2), and any category summary
/// an older file lacks. Dropped: the recommendation's detail texts (the view shows
/// its own fixed tips). TPU-format steps (`tag` set) are not read; a
/// diagnostic says so. `steps_note` is `None`.
pub fn input_pipeline_from_proto(r: &proto::InputPipelineAnalysisResult) -> InputPipelineAnalysis {
    let mut diagnostics = diagnostics(r.diagnostics.as_ref());
    let mut unread = 0;
    let steps: Vec<StepBreakdown> = if r.tag {
        unread = r.step_details.len();
        Vec::new()
    } else {
        r.step_details
            .iter()
            .filter_map(|any| match generic_step(any) {
                Ok(d) => Some(step_of(&d)),
                Err(_) => {
                    unread += 1;
                    None
                }
            })
            .collect()
    };
    if unread > 0 {
        diagnostics.push(Diagnostic {
            severity: "WARNING".into(),
            message: format!("{unread} step records of this file are in a format Proflens does not read."),
        });
    }
    diagnostics.extend(generic_mismatch(&steps));
    let file_breakdown =
        r.step_time_breakdown.as_ref().and_then(|a| unpack_any::<proto::GenericStepTimeBreakdown>(a).ok());
    let breakdown = breakdown(file_breakdown.as_ref(), &steps);
    let step_time = summary(&r.step_time_summary)
        .unwrap_or_else(|| Summary::of(&steps.iter().map(|s| s.step_time_ms).collect::<Vec<_>>()));
    let input_percent = summary(&r.input_percent_summary).unwrap_or_default();
    let rec = r.recommendation.as_ref();
    let analysis = rec
        .and_then(|rec| rec.bottleneck_analysis.as_ref())
        .and_then(|a| unpack_any::<proto::BottleneckAnalysis>(a).ok())
        .unwrap_or_default();
    let or_file = |v: f64, fallback: f64| if v != 0.0 { v } else { fallback };
    let input_classification = if analysis.input_classification.is_empty() {
        classification(&analysis.input_statement).to_string()
    } else {
        analysis.input_classification.clone()
    };
    let level = |s: &str| if s.is_empty() { "no".to_string() } else { s.to_string() };
    // TF 2.2 files store no percentages at all: then XProf's formulas over the steps.
    let input =
        or_file(analysis.input_percent, or_file(r.input_percent, percent_of_steps(&steps, StepBreakdown::input_ms)));
    let output = or_file(analysis.output_percent, or_file(r.output_percent, percent_of_steps(&steps, |s| s.output_ms)));
    let compute = or_file(
        analysis.compute_percent,
        or_file(r.compute_percent, percent_of_steps(&steps, |s| s.device_compute_ms)),
    );
    let collectives = percent_of_steps(&steps, |s| s.device_collectives_ms);
    let idle = (100.0 - input - output - compute - collectives).max(0.0);
    let bottleneck = Bottleneck {
        input_percent: input,
        output_percent: output,
        idle_percent: or_file(analysis.idle_percent, or_file(r.idle_percent, idle)),
        compute_percent: compute,
        kernel_launch_percent: percent_of_steps(&steps, |s| s.kernel_launch_ms),
        all_other_percent: percent_of_steps(&steps, |s| s.other_ms),
        device_collectives_percent: collectives,
        input_classification,
        input_statement: analysis.input_statement.clone(),
        kernel_launch_classification: level(&analysis.kernel_launch_classification),
        kernel_launch_statement: analysis.kernel_launch_statement.clone(),
        all_other_classification: level(&analysis.all_other_classification),
        all_other_statement: analysis.all_other_statement.clone(),
        device_collectives_classification: level(&analysis.device_collectives_classification),
        device_collectives_statement: analysis.device_collectives_statement.clone(),
    };
    let input_ops = r
        .input_op_details
        .iter()
        .map(|op| InputOpRow {
            name: op.op_name.clone(),
            count: op.count,
            time_ms: op.time_in_ms,
            // The proto stores percentages; the view model (and XProf's table) fractions.
            time_fraction: op.time_in_percent / 100.0,
            self_time_ms: op.self_time_in_ms,
            self_time_fraction: op.self_time_in_percent / 100.0,
            category: op.category.clone(),
        })
        .collect();
    let input_time = r
        .input_time_breakdown
        .as_ref()
        .map(|b| InputTimeBreakdown {
            enqueue_us: b.enqueue_us,
            demanded_file_read_us: b.demanded_file_read_us,
            advanced_file_read_us: b.advanced_file_read_us,
            preprocessing_us: b.preprocessing_us,
            unclassified_non_enqueue_us: b.unclassified_non_enqueue_us,
        })
        .unwrap_or_default();
    InputPipelineAnalysis {
        hardware_type: hardware_type(&r.hardware_type),
        steps_note: None,
        steps,
        step_time,
        breakdown,
        input_percent,
        bottleneck,
        next_step: next_step(rec.map_or("", |r| r.summary_next_step.as_str())),
        input_ops,
        input_time,
        diagnostics,
        tpu: None,
    }
}

/// A TPU step as the generic breakdown: TensorCore (+ SparseCore) compute →
/// device compute, TensorCore (+ SparseCore) input → input, outfeed → output,
/// idle → all others, host transfer → host to device.
fn generic_of_tpu(s: &TpuStep) -> StepBreakdown {
    StepBreakdown {
        name: s.name.clone(),
        step_time_ms: s.step_time_ms,
        device_compute_ms: s.tc_compute_ms + s.sc_compute_ms,
        device_to_device_ms: 0.0,
        device_collectives_ms: 0.0,
        host_compute_ms: 0.0,
        kernel_launch_ms: 0.0,
        host_wait_input_ms: s.tc_infeed_ms + s.sc_infeed_ms,
        host_to_device_ms: s.host_transfer_ms,
        output_ms: s.tc_outfeed_ms,
        compile_ms: 0.0,
        other_ms: s.tc_idle_ms,
    }
}

/// Steps of XProf's step-time DataTable: the generic (GPU/CPU) columns, or
/// a TPU table's (every generation, see [`tpu_steps_from_table`]) mapped
/// onto the generic categories.
pub fn steps_from_table(t: &GvizTable) -> Vec<StepBreakdown> {
    if let Some(tpu) = tpu_steps_from_table(t) {
        return tpu.steps.iter().map(generic_of_tpu).collect();
    }
    t.rows
        .iter()
        .map(|row| {
            let n = |id: &str| t.number(row, id).unwrap_or(0.0);
            let mut s = StepBreakdown {
                name: t.text(row, "stepnum").unwrap_or_default(),
                step_time_ms: 0.0,
                device_compute_ms: n("deviceComputeTimeMs"),
                device_to_device_ms: n("deviceToDeviceTimeMs"),
                device_collectives_ms: n("deviceCollectivesTimeMs"),
                host_compute_ms: n("hostComputeTimeMs"),
                kernel_launch_ms: n("kernelLaunchTimeMs"),
                host_wait_input_ms: n("infeedTimeMs"),
                host_to_device_ms: 0.0,
                output_ms: n("outfeedTimeMs"),
                compile_ms: n("compileTimeMs"),
                other_ms: n("otherTimeMs"),
            };
            s.step_time_ms = t.number(row, "stepTimeMs").unwrap_or_else(|| s.categories_ms());
            s
        })
        .collect()
}

/// A summary from `<key>_average|_standard_deviation|_minimum|_maximum`
/// properties (step time) or `<key>_avg|_sdv` (categories), else over
/// `values`; the first of `keys` the table has (layouts name them apart).
fn property_summary(t: &GvizTable, keys: &[&str], values: &[f64]) -> Summary {
    let computed = Summary::of(values);
    let has = |k: &str| ["_average", "_avg"].iter().any(|s| t.property_number(&format!("{k}{s}")).is_some());
    let key = keys.iter().copied().find(|k| has(k)).or_else(|| keys.first().copied()).unwrap_or_default();
    let p = |suffix: &str| t.property_number(&format!("{key}{suffix}"));
    match (p("_average"), p("_avg")) {
        (Some(average), _) => Summary {
            average,
            standard_deviation: p("_standard_deviation").or(computed.standard_deviation),
            minimum: p("_minimum").unwrap_or(computed.minimum),
            maximum: p("_maximum").unwrap_or(computed.maximum),
        },
        (None, Some(average)) => Summary { average, standard_deviation: p("_sdv"), ..computed },
        (None, None) => computed,
    }
}

/// The step analysis of XProf's step-time DataTable (shared by the overview
/// and input pipeline JSON). Kept: steps, step-time and category summaries
/// (the table's printed one-decimal values where it has them), verdict
/// statements, next step. Derived from the steps: percentages (XProf prints
/// none in this table but `infeed_percent_*` on TPU). Not in the table:
/// input ops and input-time breakdown (filled by the caller when present).
pub fn analysis_from_step_table(t: &GvizTable, diagnostics: Vec<Diagnostic>) -> InputPipelineAnalysis {
    let steps = steps_from_table(t);
    let tpu = tpu_steps_from_table(t);
    let col = |f: fn(&StepBreakdown) -> f64| steps.iter().map(f).collect::<Vec<_>>();
    // The first TPU tools wrote no hardware type: their columns tell.
    let hardware = match t.property("hardware_type") {
        Some(name) => hardware_type(name),
        None if tpu.is_some() => HardwareType::Tpu,
        None => HardwareType::CpuOnly,
    };
    // TPU averages: XProf's `tc_*_ms`, the 2020 Cloud TPU tools' `compute_ms`,
    // `input_ms`, `idle_ms` (tensorflow/profiler's frontend reads those three).
    let (compute_keys, input_keys, output_keys, other_keys): (&[&str], &[&str], &[&str], &[&str]) =
        if hardware == HardwareType::Tpu {
            (
                &["tc_compute_ms", "compute_ms"],
                &["tc_infeed_ms", "input_ms"],
                &["tc_outfeed_ms"],
                &["tc_idle_ms", "idle_ms"],
            )
        } else {
            (&["device_compute_time_ms"], &["infeed_time_ms"], &["outfeed_time_ms"], &["other_time_ms"])
        };
    let breakdown = BreakdownSummary {
        device_compute: property_summary(t, compute_keys, &col(|s| s.device_compute_ms)),
        device_to_device: property_summary(t, &["device_to_device_time_ms"], &col(|s| s.device_to_device_ms)),
        device_collectives: property_summary(t, &["device_collectives_time_ms"], &col(|s| s.device_collectives_ms)),
        host_compute: property_summary(t, &["host_compute_time_ms"], &col(|s| s.host_compute_ms)),
        kernel_launch: property_summary(t, &["kernel_launch_time_ms"], &col(|s| s.kernel_launch_ms)),
        input: property_summary(t, input_keys, &col(StepBreakdown::input_ms)),
        host_to_device: property_summary(t, &["host_transfer_ms"], &col(|s| s.host_to_device_ms)),
        output: property_summary(t, output_keys, &col(|s| s.output_ms)),
        compile: property_summary(t, &["compile_time_ms"], &col(|s| s.compile_ms)),
        other: property_summary(t, other_keys, &col(|s| s.other_ms)),
    };
    let step_time = property_summary(t, &["steptime_ms"], &col(|s| s.step_time_ms));
    let input_share = col(|s| if s.step_time_ms == 0.0 { 0.0 } else { 100.0 * s.input_ms() / s.step_time_ms });
    let input_percent = property_summary(t, &["infeed_percent"], &input_share);
    let mut diagnostics = diagnostics;
    // Without a step time of its own (a `stepTimeMs` column, a TPU
    // tooltip) a step's time is its categories' sum: nothing to check.
    let own_step_time = t.column("stepTimeMs").is_some();
    diagnostics.extend(match &tpu {
        Some(tpu) if own_step_time || t.column("tooltip").is_some() => tpu_mismatch(tpu),
        None if own_step_time => generic_mismatch(&steps),
        _ => None,
    });
    // `summary_conclusion` is the first TPU tools' name for it.
    let statement =
        t.property("input_conclusion").or_else(|| t.property("summary_conclusion")).unwrap_or_default().to_string();
    let text = |k: &str| t.property(k).unwrap_or_default().to_string();
    let level = |statement: &str| if statement.is_empty() { "no" } else { "moderate" };
    let (launch, other, collectives) =
        (text("kernel_launch_statement"), text("all_other_statement"), text("device_collectives_statement"));
    let input = percent_of_steps(&steps, StepBreakdown::input_ms);
    let output = percent_of_steps(&steps, |s| s.output_ms);
    let compute = percent_of_steps(&steps, |s| s.device_compute_ms);
    let coll = percent_of_steps(&steps, |s| s.device_collectives_ms);
    let bottleneck = Bottleneck {
        input_percent: input,
        output_percent: output,
        idle_percent: (100.0 - input - output - compute - coll).max(0.0),
        compute_percent: compute,
        kernel_launch_percent: percent_of_steps(&steps, |s| s.kernel_launch_ms),
        all_other_percent: percent_of_steps(&steps, |s| s.other_ms),
        device_collectives_percent: coll,
        input_classification: classification(&statement).into(),
        input_statement: statement,
        // The table keeps only the statements; a statement is made from 3 % on.
        kernel_launch_classification: level(&launch).into(),
        kernel_launch_statement: launch,
        all_other_classification: level(&other).into(),
        all_other_statement: other,
        device_collectives_classification: level(&collectives).into(),
        device_collectives_statement: collectives,
    };
    InputPipelineAnalysis {
        hardware_type: hardware,
        steps_note: None,
        steps,
        step_time,
        breakdown,
        input_percent,
        bottleneck,
        next_step: next_step(t.property("summary_nextstep").unwrap_or_default()),
        input_ops: Vec::new(),
        input_time: InputTimeBreakdown::default(),
        diagnostics,
        tpu,
    }
}

/// A TPU table's steps against XProf's sum of their categories.
fn tpu_mismatch(tpu: &TpuStepAnalysis) -> Option<Diagnostic> {
    let sums: Vec<StepSum> = tpu
        .steps
        .iter()
        .map(|s| StepSum { name: s.name.clone(), step_ms: s.step_time_ms, categories_ms: s.categories_ms() })
        .collect();
    step_sums::mismatch(&sums, "compute, input, output and idle")
}

/// Generic steps against the sum of their nine categories.
fn generic_mismatch(steps: &[StepBreakdown]) -> Option<Diagnostic> {
    let sums: Vec<StepSum> = steps
        .iter()
        .map(|s| StepSum { name: s.name.clone(), step_ms: s.step_time_ms, categories_ms: s.categories_ms() })
        .collect();
    step_sums::mismatch(&sums, "device and host compute, input, output, launch, compile, collectives and other")
}

pub fn diagnostics_from_table(t: Option<&GvizTable>) -> Vec<Diagnostic> {
    let Some(t) = t else { return Vec::new() };
    t.rows
        .iter()
        .map(|row| Diagnostic {
            severity: t.text(row, "severity").unwrap_or_default(),
            message: t.text(row, "message").unwrap_or_default(),
        })
        .collect()
}

/// The step table: the one with a `stepnum` column.
pub fn step_table(tables: &[GvizTable], tool: LegacyTool) -> Result<&GvizTable, LegacyError> {
    tables.iter().find(|t| t.column("stepnum").is_some()).ok_or_else(|| shape(tool, "it has no step-time table"))
}

/// The step analysis of XProf's overview JSON (its step table and diagnostics).
pub fn input_pipeline_from_overview_tables(tables: &[GvizTable]) -> Result<InputPipelineAnalysis, LegacyError> {
    let steps = step_table(tables, LegacyTool::OverviewPage)?;
    let diagnostics = diagnostics_from_table(tables.iter().find(|t| t.column("severity").is_some()));
    Ok(analysis_from_step_table(steps, diagnostics))
}

/// XProf's input pipeline JSON: `[device table, step table, host ops, tips,
/// diagnostics]`. The host-op table and its `*_us` properties give the
/// input ops and input-time breakdown.
pub fn input_pipeline_from_tables(tables: &[GvizTable]) -> Result<InputPipelineAnalysis, LegacyError> {
    let steps = step_table(tables, LegacyTool::InputPipeline)?;
    let diagnostics = diagnostics_from_table(tables.iter().find(|t| t.column("severity").is_some()));
    let mut a = analysis_from_step_table(steps, diagnostics);
    if let Some(host) = tables.iter().find(|t| t.column("opName").is_some()) {
        a.input_ops = host
            .rows
            .iter()
            .map(|row| {
                let n = |id: &str| host.number(row, id).unwrap_or(0.0);
                InputOpRow {
                    name: host.text(row, "opName").unwrap_or_default(),
                    count: n("count").max(0.0) as u64,
                    time_ms: n("timeInMs"),
                    time_fraction: n("timeInPercent"),
                    self_time_ms: n("selfTimeInMs"),
                    self_time_fraction: n("selfTimeInPercent"),
                    category: host.text(row, "category").unwrap_or_default(),
                }
            })
            .collect();
        let p = |k: &str| host.property_number(k).unwrap_or(0.0);
        a.input_time = InputTimeBreakdown {
            enqueue_us: p("enqueue_us"),
            demanded_file_read_us: p("demanded_file_read_us"),
            advanced_file_read_us: p("advanced_file_read_us"),
            preprocessing_us: p("preprocessing_us"),
            unclassified_non_enqueue_us: p("unclassified_nonequeue_us"),
        };
    }
    Ok(a)
}
