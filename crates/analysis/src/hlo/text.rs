//! HLO as text: shapes (`bf16[256,256]{1,0}`), instruction expressions
//! (`%add.1 = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %b)`) the way XLA prints
//! them, plus the op categories and buffer sizes the XLA tools show.
//!
//! Only the attributes the profiler tools show in practice are printed
//! (fusion kind and callee, custom-call target, convolution window and
//! dimension labels, dimensions, collectives' groups, callees); anything else
//! XLA would append is left out (docs/deviations.md).

use proflens_model::hlo::{HloInstruction, HloModule, Layout, ReplicaGroups, Shape, TOKEN_TYPE, TUPLE_TYPE};
use rustc_hash::FxHashMap;

/// XLA's lower-case name and size in bits of a PrimitiveType.
fn primitive(element_type: i32) -> (&'static str, u32) {
    match element_type {
        1 => ("pred", 8),
        2 => ("s8", 8),
        3 => ("s16", 16),
        4 => ("s32", 32),
        5 => ("s64", 64),
        6 => ("u8", 8),
        7 => ("u16", 16),
        8 => ("u32", 32),
        9 => ("u64", 64),
        10 => ("f16", 16),
        11 => ("f32", 32),
        12 => ("f64", 64),
        13 => ("tuple", 0),
        14 => ("opaque", 0),
        15 => ("c64", 64),
        16 => ("bf16", 16),
        17 => ("token", 0),
        18 => ("c128", 128),
        19 => ("f8e5m2", 8),
        20 => ("f8e4m3fn", 8),
        21 => ("s4", 4),
        22 => ("u4", 4),
        23 => ("f8e4m3b11fnuz", 8),
        24 => ("f8e5m2fnuz", 8),
        25 => ("f8e4m3fnuz", 8),
        26 => ("s2", 2),
        27 => ("u2", 2),
        28 => ("f8e4m3", 8),
        29 => ("f8e3m4", 8),
        30 => ("f4e2m1fn", 4),
        31 => ("f8e8m0fnu", 8),
        _ => ("invalid", 0),
    }
}

fn join(values: &[i64], sep: &str) -> String {
    values.iter().map(i64::to_string).collect::<Vec<_>>().join(sep)
}

fn layout_text(layout: &Layout) -> String {
    let mut out = format!("{{{}", join(&layout.minor_to_major, ","));
    let mut extra = String::new();
    for tile in &layout.tiles {
        if extra.is_empty() {
            extra.push('T');
        }
        let dims: Vec<String> =
            tile.iter().map(|&d| if d == i64::MIN || d < 0 { "*".to_string() } else { d.to_string() }).collect();
        extra.push_str(&format!("({})", dims.join(",")));
    }
    if layout.tail_padding_alignment_in_elements > 1 {
        extra.push_str(&format!("L({})", layout.tail_padding_alignment_in_elements));
    }
    if layout.element_size_in_bits != 0 {
        extra.push_str(&format!("E({})", layout.element_size_in_bits));
    }
    if layout.memory_space != 0 {
        extra.push_str(&format!("S({})", layout.memory_space));
    }
    if !extra.is_empty() {
        out.push(':');
        out.push_str(&extra);
    }
    out.push('}');
    out
}

/// A shape as XLA prints it with its layout: `f32[5,1024]{1,0:T(8,128)}`,
/// tuples as `(a, b)`.
pub fn shape_text(shape: &Shape) -> String {
    if shape.element_type == TUPLE_TYPE {
        // XLA marks every fifth element's index in long tuples.
        let parts: Vec<String> = shape
            .tuple_shapes
            .iter()
            .enumerate()
            .map(|(i, s)| if i > 0 && i % 5 == 0 { format!("/*index={i}*/{}", shape_text(s)) } else { shape_text(s) })
            .collect();
        return format!("({})", parts.join(", "));
    }
    let (name, _) = primitive(shape.element_type);
    if shape.element_type == TOKEN_TYPE {
        return name.to_string();
    }
    let dims: Vec<String> = shape
        .dimensions
        .iter()
        .enumerate()
        .map(|(i, d)| if shape.dynamic_dimensions.get(i) == Some(&true) { format!("<={d}") } else { d.to_string() })
        .collect();
    let mut out = format!("{name}[{}]", dims.join(","));
    if let Some(layout) = &shape.layout {
        // XLA omits the layout of scalars unless it carries more than the order.
        if !(shape.dimensions.is_empty()
            && layout.tiles.is_empty()
            && layout.memory_space == 0
            && layout.element_size_in_bits == 0)
        {
            out.push_str(&layout_text(layout));
        }
    }
    out
}

/// Bits of one element of a PrimitiveType, as stored (pred: 8; tuples,
/// tokens and opaque: 0).
pub fn element_bits(element_type: i32) -> u32 {
    primitive(element_type).1
}

/// Elements of an array shape (1 for scalars, 0 for tuples).
pub fn element_count(shape: &Shape) -> u64 {
    if shape.element_type == TUPLE_TYPE {
        return 0;
    }
    shape.dimensions.iter().fold(1u64, |n, &d| n.saturating_mul(u64::try_from(d).unwrap_or(0)))
}

/// Bytes of an array shape without layout padding (tuples: the sum of their
/// elements, as the cost model counts them).
pub fn byte_size(shape: &Shape) -> u64 {
    if shape.element_type == TUPLE_TYPE {
        return shape.tuple_shapes.iter().map(byte_size).sum();
    }
    let (_, bits) = primitive(shape.element_type);
    element_count(shape).saturating_mul(u64::from(bits)).div_ceil(8)
}

/// The sub-shape at a tuple index path (`{}` = the shape itself).
pub fn sub_shape<'a>(shape: &'a Shape, index: &[i64]) -> Option<&'a Shape> {
    let mut s = shape;
    for &i in index {
        s = s.tuple_shapes.get(usize::try_from(i).ok()?)?;
    }
    Some(s)
}

/// Opcodes XProf files under `non-fusion elementwise` when they run alone.
const ELEMENTWISE_OPS: &[&str] = &[
    "constant",
    "add",
    "subtract",
    "multiply",
    "divide",
    "maximum",
    "minimum",
    "negate",
    "abs",
    "compare",
    "select",
    "and",
    "or",
    "xor",
    "not",
    "remainder",
    "sign",
    "floor",
    "ceil",
    "round-nearest-afz",
    "round-nearest-even",
    "clamp",
    "convert",
    "exponential",
    "exponential-minus-one",
    "log",
    "log-plus-one",
    "tanh",
    "logistic",
    "sqrt",
    "rsqrt",
    "cbrt",
    "power",
    "sine",
    "cosine",
    "tan",
    "atan2",
    "erf",
    "is-finite",
    "popcnt",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "real",
    "imag",
    "complex",
    "clz",
];

/// XProf's op category of an instruction: `<kind> fusion` for fusions,
/// `data formatting` for pure layout changes, `non-fusion elementwise` for
/// elementwise ops and constants, else the opcode.
pub fn category(instr: &HloInstruction) -> String {
    match instr.opcode.as_str() {
        "fusion" => {
            let kind = instr.fusion_kind.strip_prefix('k').unwrap_or(&instr.fusion_kind).to_ascii_lowercase();
            format!("{kind} fusion")
        }
        "copy" | "transpose" | "reshape" => "data formatting".to_string(),
        op if ELEMENTWISE_OPS.contains(&op) => "non-fusion elementwise".to_string(),
        other => other.to_string(),
    }
}

/// Instruction lookup by id within a module, for operands and callees.
pub struct ModuleIndex<'a> {
    pub module: &'a HloModule,
    by_id: FxHashMap<i64, &'a HloInstruction>,
    by_name: FxHashMap<&'a str, &'a HloInstruction>,
    computation_names: FxHashMap<i64, &'a str>,
}

impl<'a> ModuleIndex<'a> {
    pub fn new(module: &'a HloModule) -> ModuleIndex<'a> {
        let mut by_id = FxHashMap::default();
        let mut by_name = FxHashMap::default();
        for (_, instr) in module.instructions() {
            by_id.insert(instr.id, instr);
            by_name.insert(instr.name.as_str(), instr);
        }
        let computation_names = module.computations.iter().map(|c| (c.id, c.name.as_str())).collect();
        ModuleIndex { module, by_id, by_name, computation_names }
    }

    pub fn instruction(&self, id: i64) -> Option<&'a HloInstruction> {
        self.by_id.get(&id).copied()
    }

    pub fn by_name(&self, name: &str) -> Option<&'a HloInstruction> {
        self.by_name.get(name).copied()
    }

    pub fn computation_name(&self, id: i64) -> &'a str {
        self.computation_names.get(&id).copied().unwrap_or("")
    }

    /// Operands of an instruction (missing ids skipped).
    pub fn operands(&self, instr: &HloInstruction) -> Vec<&'a HloInstruction> {
        instr.operand_ids.iter().filter_map(|&id| self.instruction(id)).collect()
    }

    /// The instruction as XLA's HloInstruction::ToString prints it (the
    /// attributes listed in the module docs).
    pub fn expression(&self, instr: &HloInstruction) -> String {
        let mut operands: Vec<String> =
            self.operands(instr).iter().map(|o| format!("{} %{}", shape_text(&o.shape), o.name)).collect();
        match instr.opcode.as_str() {
            "constant" => operands = vec![instr.scalar_literal.clone().unwrap_or_else(|| "{...}".to_string())],
            "parameter" => operands = vec![instr.parameter_number.to_string()],
            _ => {}
        }
        let mut text =
            format!("%{} = {} {}({})", instr.name, shape_text(&instr.shape), instr.opcode, operands.join(", "));
        for attr in self.attributes(instr) {
            text.push_str(", ");
            text.push_str(&attr);
        }
        text
    }

    fn callee(&self, instr: &HloInstruction, i: usize) -> String {
        format!("%{}", instr.called_computation_ids.get(i).map_or("", |&id| self.computation_name(id)))
    }

    fn attributes(&self, instr: &HloInstruction) -> Vec<String> {
        let mut attrs = Vec::new();
        let dims = || format!("dimensions={{{}}}", join(&instr.dimensions, ","));
        match instr.opcode.as_str() {
            "fusion" => {
                attrs.push(format!("kind={}", instr.fusion_kind));
                attrs.push(format!("calls={}", self.callee(instr, 0)));
            }
            "custom-call" => {
                if let Some(window) = window_text(instr) {
                    attrs.push(window);
                }
                if let Some(labels) = dim_labels(instr) {
                    attrs.push(labels);
                }
                if instr.feature_group_count > 1 {
                    attrs.push(format!("feature_group_count={}", instr.feature_group_count));
                }
                attrs.push(format!("custom_call_target=\"{}\"", instr.custom_call_target));
            }
            "convolution" => {
                if let Some(window) = window_text(instr) {
                    attrs.push(window);
                }
                if let Some(labels) = dim_labels(instr) {
                    attrs.push(labels);
                }
                if instr.feature_group_count > 1 {
                    attrs.push(format!("feature_group_count={}", instr.feature_group_count));
                }
            }
            "broadcast" | "transpose" | "reverse" => attrs.push(dims()),
            "reduce" => {
                attrs.push(dims());
                attrs.push(format!("to_apply={}", self.callee(instr, 0)));
            }
            "get-tuple-element" => attrs.push(format!("index={}", instr.tuple_index)),
            "all-reduce" | "all-reduce-start" | "reduce-scatter" | "all-gather" | "all-gather-start" | "all-to-all" => {
                if instr.channel_id > 0 {
                    attrs.push(format!("channel_id={}", instr.channel_id));
                }
                if let Some(groups) = replica_groups_text(&instr.replica_groups) {
                    attrs.push(format!("replica_groups={groups}"));
                }
                if matches!(instr.opcode.as_str(), "all-gather" | "all-gather-start" | "reduce-scatter") {
                    attrs.push(dims());
                }
                if instr.use_global_device_ids {
                    attrs.push("use_global_device_ids=true".to_string());
                }
                if !instr.called_computation_ids.is_empty() {
                    attrs.push(format!("to_apply={}", self.callee(instr, 0)));
                }
            }
            "while" => {
                attrs.push(format!("condition={}", self.callee(instr, 0)));
                attrs.push(format!("body={}", self.callee(instr, 1)));
            }
            "call" | "map" | "reduce-window" | "scatter" | "sort" if !instr.called_computation_ids.is_empty() => {
                attrs.push(format!("to_apply={}", self.callee(instr, 0)));
            }
            _ => {}
        }
        attrs
    }
}

/// `window={size=1x2x2 stride=1x2x2 pad=1_1x1_1x1_1}` (defaults left out).
pub(crate) fn window_text(instr: &HloInstruction) -> Option<String> {
    let w = &instr.window;
    if w.is_empty() {
        return None;
    }
    let field =
        |f: &dyn Fn(&proflens_model::hlo::WindowDimension) -> String| w.iter().map(f).collect::<Vec<_>>().join("x");
    let mut parts = vec![format!("size={}", field(&|d| d.size.to_string()))];
    if w.iter().any(|d| d.stride != 1) {
        parts.push(format!("stride={}", field(&|d| d.stride.to_string())));
    }
    if w.iter().any(|d| d.padding_low != 0 || d.padding_high != 0) {
        parts.push(format!("pad={}", field(&|d| format!("{}_{}", d.padding_low, d.padding_high))));
    }
    if w.iter().any(|d| d.base_dilation != 1) {
        parts.push(format!("lhs_dilate={}", field(&|d| d.base_dilation.to_string())));
    }
    if w.iter().any(|d| d.window_dilation != 1) {
        parts.push(format!("rhs_dilate={}", field(&|d| d.window_dilation.to_string())));
    }
    if w.iter().any(|d| d.window_reversal) {
        parts.push(format!("rhs_reversal={}", field(&|d| i32::from(d.window_reversal).to_string())));
    }
    Some(format!("window={{{}}}", parts.join(" ")))
}

/// XLA's convolution dimension labels: `bf012_oi012->bf012`.
pub fn dim_labels(instr: &HloInstruction) -> Option<String> {
    let c = instr.convolution.as_ref()?;
    let rank = c.input_spatial.len() + 2;
    let label = |batch: i64, feature: i64, spatial: &[i64], b: char, f: char| {
        let mut chars = vec!['?'; rank];
        let mut put = |i: i64, ch: char| {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| chars.get_mut(i)) {
                *slot = ch;
            }
        };
        put(batch, b);
        put(feature, f);
        for (n, &s) in spatial.iter().enumerate() {
            put(s, char::from_digit(n as u32 % 10, 10).unwrap_or('?'));
        }
        chars.into_iter().collect::<String>()
    };
    Some(format!(
        "dim_labels={}_{}->{}",
        label(c.input_batch, c.input_feature, &c.input_spatial, 'b', 'f'),
        label(c.kernel_output_feature, c.kernel_input_feature, &c.kernel_spatial, 'o', 'i'),
        label(c.output_batch, c.output_feature, &c.output_spatial, 'b', 'f'),
    ))
}

fn replica_groups_text(groups: &ReplicaGroups) -> Option<String> {
    match groups {
        ReplicaGroups::None => None,
        ReplicaGroups::List(list) => {
            let parts: Vec<String> = list.iter().map(|g| format!("{{{}}}", join(g, ","))).collect();
            Some(format!("{{{}}}", parts.join(",")))
        }
        ReplicaGroups::Iota { num_groups, group_size, reshape_dims, transpose } => {
            let mut text = format!("[{num_groups},{group_size}]<=[{}]", join(reshape_dims, ","));
            let identity = transpose.iter().enumerate().all(|(i, &p)| i64::from(p) == i as i64);
            if !identity {
                let perm: Vec<String> = transpose.iter().map(i32::to_string).collect();
                text.push_str(&format!("T({})", perm.join(",")));
            }
            Some(text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(element_type: i32, dims: &[i64], minor_to_major: &[i64]) -> Shape {
        Shape {
            element_type,
            dimensions: dims.to_vec(),
            layout: Some(Layout { minor_to_major: minor_to_major.to_vec(), ..Layout::default() }),
            ..Shape::default()
        }
    }

    #[test]
    fn shapes_print_like_xla() {
        assert_eq!(shape_text(&array(16, &[256, 256], &[1, 0])), "bf16[256,256]{1,0}");
        assert_eq!(shape_text(&array(16, &[], &[])), "bf16[]");
        let mut tiled = array(11, &[5, 8], &[1, 0]);
        if let Some(l) = tiled.layout.as_mut() {
            l.tiles = vec![vec![8, 128]];
            l.memory_space = 5;
        }
        assert_eq!(shape_text(&tiled), "f32[5,8]{1,0:T(8,128)S(5)}");
        let tuple = Shape { element_type: TUPLE_TYPE, tuple_shapes: vec![array(2, &[4], &[0])], ..Shape::default() };
        assert_eq!(shape_text(&tuple), "(s8[4]{0})");
        assert_eq!(byte_size(&array(16, &[256, 256], &[1, 0])), 131072);
    }

    #[test]
    fn iota_replica_groups() {
        let g = ReplicaGroups::Iota { num_groups: 4, group_size: 2, reshape_dims: vec![2, 4], transpose: vec![1, 0] };
        assert_eq!(replica_groups_text(&g).unwrap(), "[4,2]<=[2,4]T(1,0)");
    }
}
