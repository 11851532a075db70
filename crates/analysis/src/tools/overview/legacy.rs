//! Overview page from a legacy `overview_page.pb` or XProf's overview JSON.

use crate::common::legacy::shape;
use crate::passes::input_pipeline::legacy::{
    classification, diagnostics, input_pipeline_from_overview_tables, input_pipeline_from_proto,
};
use crate::passes::input_pipeline::{Diagnostic, HardwareType};
use crate::passes::run_environment::RunEnvironment;
use crate::tools::overview::tpu::{tpu_summary_from_proto, tpu_summary_from_tables};
use crate::tools::overview::{OpsSide, OverviewPage, OverviewStats, Recommendation, TopOp};
use proflens_format::legacy::{unpack_any, GvizTable, LegacyError, LegacyTool};
use proflens_format::proto;

fn run_environment(env: Option<&proto::OverviewPageRunEnvironment>, hardware: HardwareType) -> RunEnvironment {
    let env = env.cloned().unwrap_or_default();
    let mut hostnames: Vec<String> = env.hostnames.keys().cloned().collect();
    hostnames.sort();
    RunEnvironment {
        hardware_type: hardware,
        device_type: env.device_type,
        device_core_count: env.device_core_count.max(0) as u64,
        host_count: env.host_count.max(0) as u64,
        task_count: env.task_count.max(0) as u64,
        hostnames,
        device: None,
        is_training: env.is_training,
    }
}

/// The page stored in an `OverviewPage`.
///
/// Kept: the step analysis (as the input pipeline file's, see
/// [`input_pipeline_from_proto`]), top device ops, the analysis percentages,
/// run environment (without device capabilities: the file has none), the
/// verdicts and statements, diagnostics (TF 2.2's `errors` and later
/// `diagnostics`), and on a TPU host its utilisation figures (MXU, FLOPS,
/// memory bandwidth, duty cycle, idle time, remark). Dropped: tips, job info.
/// Left empty: `advice` (Proflens's own advice is chosen from events; the
/// statements carry the file's), `steps_note`.
pub fn overview_from_proto(page: &proto::OverviewPage) -> OverviewPage {
    let input = input_pipeline_from_proto(&page.input_analysis.clone().unwrap_or_default());
    let hardware = input.hardware_type;
    let analysis = page.analysis.clone().unwrap_or_default();
    let top_ops = analysis
        .top_device_ops
        .iter()
        .map(|op| TopOp {
            name: op.name.clone(),
            category: op.category.clone(),
            self_time_fraction: op.self_time_fraction,
            cumulative_time_fraction: op.cumulative_time_fraction,
            flop_rate: op.flop_rate,
            tensor_core_eligible: op.is_op_tensorcore_eligible,
            uses_tensor_core: op.is_op_using_tensorcore,
        })
        .collect();
    let stats = OverviewStats {
        device_compute_16bit_percent: analysis.device_compute_16bit_percent,
        device_compute_32bit_percent: analysis.device_compute_32bit_percent,
        host_tf_op_percent: analysis.host_tf_op_percent,
        device_tf_op_percent: analysis.device_tf_op_percent,
        host_op_time_eager_percent: analysis.host_op_time_eager_percent,
        device_op_time_eager_percent: analysis.device_op_time_eager_percent,
        tpu: None,
    };
    let rec = page.recommendation.clone().unwrap_or_default();
    let generic = rec
        .recommendation
        .as_ref()
        .and_then(|a| unpack_any::<proto::GenericRecommendation>(a).ok())
        .unwrap_or_default();
    let recommendation = Recommendation {
        bottleneck: if rec.bottleneck.is_empty() {
            classification(&rec.statement).to_string()
        } else {
            rec.bottleneck.clone()
        },
        statement: rec.statement.clone(),
        kernel_launch_statement: generic.kernel_launch_statement,
        all_other_statement: generic.all_other_statement,
        device_collectives_statement: generic.device_collectives_statement,
        precision_statement: generic.precision_statement,
        eager_statement: rec.eager_statement_html.clone(),
        advice: Vec::new(),
    };
    let mut all_diagnostics: Vec<Diagnostic> =
        page.errors.iter().map(|e| Diagnostic { severity: "ERROR".into(), message: e.clone() }).collect();
    all_diagnostics.extend(diagnostics(page.diagnostics.as_ref()));
    all_diagnostics.extend(input.diagnostics.iter().cloned());
    let tpu = (hardware == HardwareType::Tpu).then(|| tpu_summary_from_proto(&analysis, page.run_environment.as_ref()));
    OverviewPage {
        run_environment: run_environment(page.run_environment.as_ref(), hardware),
        tpu,
        input,
        steps_note: None,
        top_ops,
        top_ops_side: OpsSide::Device,
        stats,
        recommendation,
        diagnostics: all_diagnostics,
    }
}

/// `"3 (num tasks per host = 3)"` → 3.
fn leading_count(text: Option<&str>) -> u64 {
    text.and_then(|t| t.split_whitespace().next()).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// XProf's overview JSON: `[analysis, step table, run environment,
/// recommendation, inference latency, {}, diagnostics]`, found by their
/// columns rather than their positions.
///
/// Also the first TPU tools' JSON (`capture_tpu_profile`'s
/// `<host>.overview_page.json`): its top-ops columns (`self_time_fraction`,
/// `name`, …), its run environment (`tpu_type`, `tpu_core_count`, a table
/// of properties only) and its step table (see [`analysis_from_step_table`]).
///
/// Kept: top ops (tensor-core columns on GPU tables), the `*_percent`
/// properties, step table (see the input pipeline JSON), run environment
/// counts and device type, verdict statements, diagnostics, and on TPU the
/// utilisation figures and TPU properties ([`tpu_summary_from_tables`]). Left empty:
/// hostnames, device capabilities, `advice`, the eager statement, input ops
/// (the overview JSON has none).
pub fn overview_from_tables(tables: &[GvizTable]) -> Result<OverviewPage, LegacyError> {
    let tool = LegacyTool::OverviewPage;
    let find = |id: &str| tables.iter().find(|t| t.column(id).is_some());
    let input = input_pipeline_from_overview_tables(tables)?;
    let diagnostics = input.diagnostics.clone();
    let ops = find("selfTimePercent")
        .or_else(|| find("self_time_fraction"))
        .ok_or_else(|| shape(tool, "it has no top-operations table"))?;
    // The first TPU tools' ids, else XProf's.
    let cell = |row: &[serde_json::Value], new: &str, old: &str| ops.number(row, new).or_else(|| ops.number(row, old));
    let top_ops = ops
        .rows
        .iter()
        .map(|row| TopOp {
            name: ops.text(row, "operation").or_else(|| ops.text(row, "name")).unwrap_or_default(),
            category: ops.text(row, "category").unwrap_or_default(),
            self_time_fraction: cell(row, "selfTimePercent", "self_time_fraction").unwrap_or(0.0),
            cumulative_time_fraction: cell(row, "cumulativeTimePercent", "cumulative_time_fraction").unwrap_or(0.0),
            flop_rate: cell(row, "flopRate", "flop_rate").unwrap_or(0.0),
            tensor_core_eligible: ops.boolean(row, "tcEligibility").unwrap_or(false),
            uses_tensor_core: ops.boolean(row, "tcUtilization").unwrap_or(false),
        })
        .collect();
    let pct = |k: &str| ops.property_number(k).unwrap_or(0.0);
    let stats = OverviewStats {
        device_compute_16bit_percent: pct("device_compute_16bit_percent"),
        device_compute_32bit_percent: pct("device_compute_32bit_percent"),
        host_tf_op_percent: pct("host_tf_op_percent"),
        device_tf_op_percent: pct("device_tf_op_percent"),
        host_op_time_eager_percent: pct("host_op_time_eager_percent"),
        device_op_time_eager_percent: pct("device_op_time_eager_percent"),
        tpu: None,
    };
    // The first TPU tools' run environment is a table of properties only
    // (`tpu_type`…; the 2020 Cloud TPU tools': `device_type`…).
    let env = find("host_id").or_else(|| {
        tables
            .iter()
            .find(|t| t.property("tpu_type").is_some() || (t.columns.is_empty() && t.property("device_type").is_some()))
    });
    let env_prop = |k: &str| env.and_then(|t| t.property(k));
    let run_environment = RunEnvironment {
        hardware_type: input.hardware_type,
        device_type: env_prop("device_type").or_else(|| env_prop("tpu_type")).unwrap_or_default().to_string(),
        device_core_count: leading_count(env_prop("device_core_count").or_else(|| env_prop("tpu_core_count"))),
        host_count: leading_count(env_prop("host_count")),
        task_count: leading_count(env_prop("task_count")),
        hostnames: Vec::new(),
        device: None,
        is_training: env_prop("is_training") == Some("true"),
    };
    let tips = find("tip_type");
    let tip = |k: &str| tips.and_then(|t| t.property(k)).unwrap_or_default().to_string();
    let bottleneck = match tip("bottleneck") {
        b if b.is_empty() => input.bottleneck.input_classification.clone(),
        b => b,
    };
    let statement = match tip("statement") {
        s if s.is_empty() => input.bottleneck.input_statement.clone(),
        s => s,
    };
    let recommendation = Recommendation {
        bottleneck,
        statement,
        kernel_launch_statement: tip("kernel_launch_statement"),
        all_other_statement: tip("all_other_statement"),
        device_collectives_statement: tip("device_collectives_statement"),
        precision_statement: tip("precision_statement"),
        eager_statement: String::new(),
        advice: Vec::new(),
    };
    let top_ops_side = if input.hardware_type == HardwareType::CpuOnly { OpsSide::Host } else { OpsSide::Device };
    let tpu = (input.hardware_type == HardwareType::Tpu).then(|| tpu_summary_from_tables(Some(ops), env));
    Ok(OverviewPage {
        tpu,
        input,
        steps_note: None,
        top_ops,
        top_ops_side,
        stats,
        run_environment,
        recommendation,
        diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::input_pipeline::legacy::hardware_type;

    #[test]
    fn counts_lead_their_text() {
        assert_eq!(leading_count(Some("3 (num tasks per host = 3)")), 3);
        assert_eq!(leading_count(Some("8")), 8);
        assert_eq!(leading_count(None), 0);
        assert_eq!(hardware_type("TPU"), HardwareType::Tpu);
    }
}
