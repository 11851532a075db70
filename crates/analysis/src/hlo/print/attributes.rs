//! The `, name=value` attributes after an instruction's operands, in the
//! order XLA's HloInstruction::PrintExtraAttributes writes them: the
//! opcode's own (dimensions, window, slice, …), then the called
//! computations, sharding, frontend attributes, control predecessors and
//! backend config.

use super::sharding::sharding_text;
use super::Names;
use crate::hlo::text::{dim_labels, shape_text, window_text};
use proflens_model::hlo::HloInstruction;

fn list(values: &[i64]) -> String {
    format!("{{{}}}", values.iter().map(i64::to_string).collect::<Vec<_>>().join(","))
}

/// absl's CEscape: quotes, backslashes and control bytes escaped.
pub(super) fn c_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

/// Whether XLA would print the text as is (a JSON object) rather than quoted.
pub(super) fn is_json_dict(s: &str) -> bool {
    let t = s.trim();
    t.starts_with('{') && t.ends_with('}')
}

/// `{a="x",b={...}}`, sorted by key as stored.
pub(super) fn frontend_attributes_text(attrs: &[(String, String)]) -> String {
    let parts: Vec<String> =
        attrs.iter().map(|(k, v)| if is_json_dict(v) { format!("{k}={v}") } else { format!("{k}=\"{v}\"") }).collect();
    format!("{{{}}}", parts.join(","))
}

/// `{{0,1},{2,3}}`, `{}` when none. XProf's XLA reads the legacy
/// `replica_groups` field only: a device list given as an iota
/// (`[4,2]<=[2,4]T(1,0)`) prints as `{}` there, and so here.
fn replica_groups_text(groups: &[Vec<i64>]) -> String {
    let parts: Vec<String> =
        groups.iter().map(|g| format!("{{{}}}", g.iter().map(i64::to_string).collect::<Vec<_>>().join(","))).collect();
    format!("{{{}}}", parts.join(","))
}

/// Backend-config keys that XProf's XLA no longer knows: it parses the
/// config into its proto and writes it back without them.
const DROPPED_CONFIG_KEYS: &[&str] = &["wait_on_operation_queues"];

/// The end (exclusive) of the JSON value starting at `start`.
fn json_value_end(s: &[u8], start: usize) -> usize {
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    for (i, &b) in s.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth == 0 => return i,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b',' if depth == 0 => return i,
            _ => {}
        }
    }
    s.len()
}

/// The backend config as XProf prints it: the keys it drops removed.
fn backend_config_text(config: &str) -> String {
    let mut text = config.to_string();
    for key in DROPPED_CONFIG_KEYS {
        let pattern = format!("\"{key}\":");
        while let Some(at) = text.find(&pattern) {
            let end = json_value_end(text.as_bytes(), at + pattern.len());
            let bytes = text.as_bytes();
            // Take one separating comma with the pair.
            let (from, to) = if bytes.get(end) == Some(&b',') {
                (at, end + 1)
            } else if at > 0 && bytes[at - 1] == b',' {
                (at - 1, end)
            } else {
                (at, end)
            };
            text.replace_range(from..to, "");
        }
    }
    text
}

/// XLA's default comparison type of an element type.
fn default_comparison(element_type: i32) -> &'static str {
    match element_type {
        1 | 6..=9 | 22 | 27 => "UNSIGNED",
        2..=5 | 21 | 26 => "SIGNED",
        _ => "FLOAT",
    }
}

const COLLECTIVES: &[&str] = &[
    "all-reduce",
    "all-reduce-start",
    "reduce-scatter",
    "all-gather",
    "all-gather-start",
    "all-to-all",
    "ragged-all-to-all",
    "collective-broadcast",
];

/// The opcode's own attributes (XLA's PrintExtraAttributesImpl).
fn own(names: &Names, instr: &HloInstruction, out: &mut Vec<String>) {
    let a = &instr.attributes;
    let dims = || format!("dimensions={}", list(&instr.dimensions));
    let op = instr.opcode.as_str();
    match op {
        "broadcast" | "concatenate" | "reverse" | "transpose" | "reduce" => out.push(dims()),
        "sort" => {
            out.push(dims());
            if a.is_stable {
                out.push("is_stable=true".into());
            }
        }
        "fusion" => out.push(format!("kind={}", instr.fusion_kind)),
        "compare" => {
            out.push(format!("direction={}", a.comparison_direction));
            let operand_type = names.operand(instr, 0).map_or(0, |o| o.shape.element_type);
            if !a.comparison_type.is_empty() && a.comparison_type != default_comparison(operand_type) {
                out.push(format!("type={}", a.comparison_type));
            }
        }
        "iota" => out.push(format!("iota_dimension={}", instr.dimensions.first().copied().unwrap_or(0))),
        "get-tuple-element" => out.push(format!("index={}", instr.tuple_index)),
        "slice" => {
            let parts: Vec<String> = a
                .slice
                .iter()
                .map(|&(s, l, st)| if st > 1 { format!("[{s}:{l}:{st}]") } else { format!("[{s}:{l}]") })
                .collect();
            out.push(format!("slice={{{}}}", parts.join(", ")));
        }
        "dynamic-slice" => out.push(format!("dynamic_slice_sizes={}", list(&a.dynamic_slice_sizes))),
        "pad" => {
            let parts: Vec<String> = a
                .padding
                .iter()
                .map(|&(lo, hi, int)| if int != 0 { format!("{lo}_{hi}_{int}") } else { format!("{lo}_{hi}") })
                .collect();
            out.push(format!("padding={}", parts.join("x")));
        }
        "reduce-precision" => {
            out.push(format!("exponent_bits={}", a.exponent_bits));
            out.push(format!("mantissa_bits={}", a.mantissa_bits));
        }
        "rng" => out.push(format!(
            "distribution={}",
            match a.distribution {
                1 => "rng_uniform",
                2 => "rng_normal",
                _ => "rng_invalid",
            }
        )),
        "batch-norm-training" | "batch-norm-inference" | "batch-norm-grad" => {
            out.push(format!("epsilon={}", super::number::format_g(f64::from(a.epsilon), 6)));
            out.push(format!("feature_index={}", a.feature_index));
        }
        "dot" => {
            if let Some(d) = &instr.dot {
                if !d.lhs_batch.is_empty() {
                    out.push(format!("lhs_batch_dims={}", list(&d.lhs_batch)));
                }
                out.push(format!("lhs_contracting_dims={}", list(&d.lhs_contracting)));
                if !d.rhs_batch.is_empty() {
                    out.push(format!("rhs_batch_dims={}", list(&d.rhs_batch)));
                }
                out.push(format!("rhs_contracting_dims={}", list(&d.rhs_contracting)));
            }
        }
        "convolution" | "custom-call" => {
            out.extend(window_text(instr));
            if let Some(labels) = dim_labels(instr) {
                out.push(labels);
            }
            if instr.feature_group_count > 1 {
                out.push(format!("feature_group_count={}", instr.feature_group_count));
            }
            if instr.batch_group_count > 1 {
                out.push(format!("batch_group_count={}", instr.batch_group_count));
            }
            if op == "custom-call" {
                custom_call(instr, out);
            }
        }
        "reduce-window" | "select-and-scatter" if !instr.window.is_empty() => out.extend(window_text(instr)),
        "gather" => {
            if let Some(g) = &a.gather {
                out.push(format!("offset_dims={}", list(&g.offset_dims)));
                out.push(format!("collapsed_slice_dims={}", list(&g.collapsed_slice_dims)));
                out.push(format!("start_index_map={}", list(&g.start_index_map)));
                if !g.operand_batching_dims.is_empty() {
                    out.push(format!("operand_batching_dims={}", list(&g.operand_batching_dims)));
                    out.push(format!("start_indices_batching_dims={}", list(&g.start_indices_batching_dims)));
                }
                out.push(format!("index_vector_dim={}", g.index_vector_dim));
            }
            out.push(format!("slice_sizes={}", list(&a.gather_slice_sizes)));
            if a.indices_are_sorted {
                out.push("indices_are_sorted=true".into());
            }
        }
        "scatter" => {
            if let Some(s) = &a.scatter {
                out.push(format!("update_window_dims={}", list(&s.update_window_dims)));
                out.push(format!("inserted_window_dims={}", list(&s.inserted_window_dims)));
                out.push(format!("scatter_dims_to_operand_dims={}", list(&s.scatter_dims_to_operand_dims)));
                if !s.input_batching_dims.is_empty() {
                    out.push(format!("input_batching_dims={}", list(&s.input_batching_dims)));
                    out.push(format!("scatter_indices_batching_dims={}", list(&s.scatter_indices_batching_dims)));
                }
                out.push(format!("index_vector_dim={}", s.index_vector_dim));
            }
            if a.indices_are_sorted {
                out.push("indices_are_sorted=true".into());
            }
            if a.unique_indices {
                out.push("unique_indices=true".into());
            }
        }
        "parameter" if !a.parameter_replication.is_empty() => {
            let flags: Vec<&str> = a.parameter_replication.iter().map(|&b| if b { "true" } else { "false" }).collect();
            out.push(format!("parameter_replication={{{}}}", flags.join(",")));
        }
        "send" | "send-done" | "recv" | "recv-done" => {
            if instr.channel_id > 0 {
                out.push(format!("channel_id={}", instr.channel_id));
            }
            if a.is_host_transfer {
                out.push("is_host_transfer=true".into());
            }
        }
        "collective-permute" | "collective-permute-start" => {
            if instr.channel_id > 0 {
                out.push(format!("channel_id={}", instr.channel_id));
            }
            let pairs: Vec<String> = a.source_target_pairs.iter().map(|(s, t)| format!("{{{s},{t}}}")).collect();
            out.push(format!("source_target_pairs={{{}}}", pairs.join(",")));
        }
        op if COLLECTIVES.contains(&op) => {
            if instr.channel_id > 0 {
                out.push(format!("channel_id={}", instr.channel_id));
            }
            out.push(format!("replica_groups={}", replica_groups_text(&a.legacy_replica_groups)));
            if a.constrain_layout {
                out.push("constrain_layout=true".into());
            }
            if matches!(op, "all-gather" | "all-gather-start" | "reduce-scatter")
                || (op == "all-to-all" && !instr.dimensions.is_empty())
            {
                out.push(dims());
            }
            if instr.use_global_device_ids {
                out.push("use_global_device_ids=true".into());
            }
        }
        _ => {}
    }
}

fn custom_call(instr: &HloInstruction, out: &mut Vec<String>) {
    let a = &instr.attributes;
    out.push(format!("custom_call_target=\"{}\"", c_escape(&instr.custom_call_target)));
    if a.constrain_layout {
        let shapes: Vec<String> = instr.operand_shapes_with_layout.iter().map(shape_text).collect();
        out.push(format!("operand_layout_constraints={{{}}}", shapes.join(", ")));
    }
    if a.custom_call_has_side_effect {
        out.push("custom_call_has_side_effect=true".into());
    }
    if !a.output_operand_aliasing.is_empty() {
        // `{output index}: (operand, {operand index})`, as XLA's
        // PrintOutputOperandAliasing writes each pair.
        let index = |i: &[i64]| format!("{{{}}}", i.iter().map(i64::to_string).collect::<Vec<_>>().join(","));
        let pairs: Vec<String> = a
            .output_operand_aliasing
            .iter()
            .map(|(output, operand, operand_index)| format!("{}: ({operand}, {})", index(output), index(operand_index)))
            .collect();
        out.push(format!("output_to_operand_aliasing={{{}}}", pairs.join(", ")));
    }
    match a.custom_call_schedule {
        1 => out.push("schedule=SCHEDULE_LATEST".into()),
        2 => out.push("schedule=SCHEDULE_EARLIEST".into()),
        _ => {}
    }
    let version = match a.custom_call_api_version {
        2 => Some("API_VERSION_STATUS_RETURNING"),
        3 => Some("API_VERSION_STATUS_RETURNING_UNIFIED"),
        4 => Some("API_VERSION_TYPED_FFI"),
        _ => None,
    };
    if let Some(v) = version {
        out.push(format!("api_version={v}"));
    }
}

/// The called computations, named as XLA names them for the opcode.
fn callees(names: &Names, instr: &HloInstruction, out: &mut Vec<String>) {
    let ids = &instr.called_computation_ids;
    if ids.is_empty() {
        return;
    }
    let name = |i: usize| format!("%{}", ids.get(i).map_or("", |&id| names.computation(id)));
    match instr.opcode.as_str() {
        "while" if ids.len() > 1 => {
            out.push(format!("condition={}", name(1)));
            out.push(format!("body={}", name(0)));
        }
        "select-and-scatter" if ids.len() > 1 => {
            out.push(format!("select={}", name(0)));
            out.push(format!("scatter={}", name(1)));
        }
        "conditional" => {
            let pred = names.operand(instr, 0).is_some_and(|o| o.shape.element_type == 1);
            if pred && ids.len() == 2 {
                out.push(format!("true_computation={}", name(0)));
                out.push(format!("false_computation={}", name(1)));
            } else {
                let all: Vec<String> = (0..ids.len()).map(name).collect();
                out.push(format!("branch_computations={{{}}}", all.join(", ")));
            }
        }
        "call" | "map" | "reduce-window" | "reduce" | "all-reduce" | "reduce-scatter" | "all-reduce-start"
        | "scatter" | "sort" | "topk" => {
            out.push(format!("to_apply={}", name(0)));
            if instr.opcode == "call" && instr.attributes.is_composite {
                out.push("is_composite=true".into());
            }
        }
        "custom-call" => {
            let all: Vec<String> = (0..ids.len()).map(name).collect();
            out.push(format!("called_computations={{{}}}", all.join(", ")));
        }
        _ => {
            let all: Vec<String> = (0..ids.len()).map(name).collect();
            out.push(format!("calls={}", all.join(", ")));
        }
    }
}

/// Every attribute of the instruction, each as `name=value`.
pub(super) fn attributes(names: &Names, instr: &HloInstruction) -> Vec<String> {
    let mut out = Vec::new();
    own(names, instr, &mut out);
    callees(names, instr, &mut out);
    let a = &instr.attributes;
    if let Some(s) = &a.sharding {
        out.push(format!("sharding={}", sharding_text(s)));
    }
    if !a.frontend_attributes.is_empty() {
        out.push(format!("frontend_attributes={}", frontend_attributes_text(&a.frontend_attributes)));
    }
    if !a.control_predecessor_ids.is_empty() {
        let preds: Vec<String> = a
            .control_predecessor_ids
            .iter()
            .filter_map(|&id| names.instruction(instr, id))
            .map(|p| format!("%{}", p.name))
            .collect();
        out.push(format!("control-predecessors={{{}}}", preds.join(", ")));
    }
    if !a.backend_config.is_empty() {
        if is_json_dict(&a.backend_config) {
            out.push(format!("backend_config={}", backend_config_text(&a.backend_config)));
        } else {
            out.push(format!("backend_config=\"{}\"", c_escape(&a.backend_config)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_config_keys_go_with_their_comma() {
        let c = r#"{"a":"0","wait_on_operation_queues":[],"b":{"c":[1,2]}}"#;
        assert_eq!(backend_config_text(c), r#"{"a":"0","b":{"c":[1,2]}}"#);
        let last = r#"{"a":"0","wait_on_operation_queues":["1","2"]}"#;
        assert_eq!(backend_config_text(last), r#"{"a":"0"}"#);
        assert_eq!(backend_config_text(r#"{"a":"x,]"}"#), r#"{"a":"x,]"}"#);
    }

    #[test]
    fn custom_calls_print_layout_constraints_and_aliasing_as_xla() {
        // Synthetic; the expected text is a JAX custom call as XLA printed it
        // (jaxdecomp's pfft3d, in a public HLO dump).
        let shape = |element_type, dims: &[i64]| proflens_model::hlo::Shape {
            element_type,
            dimensions: dims.to_vec(),
            layout: Some(proflens_model::hlo::Layout {
                minor_to_major: (0..dims.len() as i64).rev().collect(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut instr = HloInstruction {
            opcode: "custom-call".into(),
            custom_call_target: "pfft3d".into(),
            ..HloInstruction::default()
        };
        instr.operand_shapes_with_layout = vec![shape(18, &[256, 16, 256]), shape(2, &[33554432])];
        let a = &mut instr.attributes;
        a.constrain_layout = true;
        a.custom_call_has_side_effect = true;
        a.output_operand_aliasing = vec![(vec![], 0, vec![])];
        a.custom_call_api_version = 2;
        let mut out = Vec::new();
        custom_call(&instr, &mut out);
        assert_eq!(
            out.join(", "),
            "custom_call_target=\"pfft3d\", operand_layout_constraints={c128[256,16,256]{2,1,0}, s8[33554432]{0}}, \
             custom_call_has_side_effect=true, output_to_operand_aliasing={{}: (0, {})}, \
             api_version=API_VERSION_STATUS_RETURNING"
        );
        instr.attributes.output_operand_aliasing = vec![(vec![1], 2, vec![0, 1])];
        let mut out = Vec::new();
        custom_call(&instr, &mut out);
        assert!(out.contains(&"output_to_operand_aliasing={{1}: (2, {0,1})}".to_string()), "{out:?}");
    }

    #[test]
    fn escapes_like_absl() {
        assert_eq!(c_escape("a\"b\n\u{1}"), "a\\\"b\\n\\001");
    }
}
