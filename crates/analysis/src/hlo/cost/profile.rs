//! FLOPs per element of elementwise HLO ops on GPUs.
//!
//! XLA's GpuHloCostAnalysis (xla/service/gpu/model/gpu_hlo_cost_analysis.cc,
//! `FlopsPerElement`) does not count one FLOP per element: it looks the
//! (opcode, element type) pair up in the clock cycles XLA measured per
//! device (xla/service/gpu/model/hlo_op_profiles_data.h) and falls back to 3
//! ("elementwise instructions typically take at least a few clock cycles").
//! XProf builds its analysis without a device description, so XLA picks its
//! default profile, `sm_86` (hlo_op_profiles.cc, `HloOpProfiles::Singleton`),
//! whatever the profiled GPU was: the table below is that profile.

/// XLA PrimitiveType numbers of the element types the profile names.
mod ty {
    pub const S8: i32 = 2;
    pub const S16: i32 = 3;
    pub const S32: i32 = 4;
    pub const S64: i32 = 5;
    pub const U8: i32 = 6;
    pub const U16: i32 = 7;
    pub const U32: i32 = 8;
    pub const U64: i32 = 9;
    pub const F16: i32 = 10;
    pub const F32: i32 = 11;
    pub const F64: i32 = 12;
    pub const C64: i32 = 15;
    pub const C128: i32 = 18;
}

/// What XLA assumes for an op the profile does not list.
pub const DEFAULT_FLOPS_PER_ELEMENT: u64 = 3;

/// XLA's `sm_86` op profile: (opcode, element type, clock cycles per element).
#[rustfmt::skip]
const SM_86: &[(&str, i32, u64)] = {
    use ty::*;
    &[
        ("divide", S8, 370), ("power", S8, 392),
        ("divide", S16, 367), ("power", S16, 396),
        ("divide", S32, 306),
        ("divide", S64, 918), ("power", S64, 601),
        ("divide", U8, 306), ("power", U8, 388),
        ("divide", U16, 302), ("power", U16, 399),
        ("divide", U32, 115),
        ("divide", U64, 838), ("power", U64, 604),
        ("cbrt", F16, 925), ("cosine", F16, 691), ("exponential", F16, 108),
        ("exponential-minus-one", F16, 396), ("log", F16, 266), ("log-plus-one", F16, 284),
        ("logistic", F16, 226), ("rsqrt", F16, 97), ("sqrt", F16, 97), ("tanh", F16, 212),
        ("atan2", F16, 482), ("power", F16, 975),
        ("cbrt", F32, 867), ("cosine", F32, 662), ("exponential", F32, 86),
        ("exponential-minus-one", F32, 381), ("log", F32, 244), ("log-plus-one", F32, 262),
        ("logistic", F32, 176), ("rsqrt", F32, 75), ("sine", F32, 662), ("sqrt", F32, 75),
        ("tanh", F32, 190), ("atan2", F32, 486), ("power", F32, 925),
        ("cbrt", F64, 6339), ("cosine", F64, 1717), ("exponential", F64, 1652),
        ("exponential-minus-one", F64, 1900), ("log", F64, 608), ("log-plus-one", F64, 2073),
        ("logistic", F64, 2412), ("rsqrt", F64, 698), ("sine", F64, 1789), ("sqrt", F64, 986),
        ("tanh", F64, 1609), ("add", F64, 97), ("atan2", F64, 3747), ("divide", F64, 2016),
        ("multiply", F64, 97), ("power", F64, 5511), ("subtract", F64, 97),
        ("exponential", C64, 1360), ("exponential-minus-one", C64, 1400), ("log", C64, 950),
        ("log-plus-one", C64, 842), ("rsqrt", C64, 2383), ("sqrt", C64, 3193),
        ("atan2", C64, 5353), ("divide", C64, 687), ("power", C64, 3351),
        ("cosine", C128, 6613), ("exponential", C128, 4028), ("exponential-minus-one", C128, 4161),
        ("log", C128, 7599), ("log-plus-one", C128, 6962), ("rsqrt", C128, 11318),
        ("sine", C128, 5878), ("sqrt", C128, 15606), ("tanh", C128, 9939), ("add", C128, 97),
        ("atan2", C128, 39027), ("divide", C128, 7941), ("multiply", C128, 270),
        ("power", C128, 18205), ("subtract", C128, 97),
    ]
};

/// FLOPs XLA charges per output element of an elementwise op.
pub fn flops_per_element(opcode: &str, element_type: i32) -> u64 {
    SM_86
        .iter()
        .find(|&&(op, t, _)| op == opcode && t == element_type)
        .map_or(DEFAULT_FLOPS_PER_ELEMENT, |&(_, _, cycles)| cycles)
}

/// Elementwise opcodes: DfsHloVisitor sends them to HandleElementwiseUnary /
/// Binary (or HloCostAnalysis to HandleElementwiseOp: compare, clamp,
/// select, convert, reduce-precision), which GpuHloCostAnalysis answers with
/// the op profile's FLOPs per element. Transcendentals are among them: on
/// GPUs they count as FLOPs.
const ELEMENTWISE_OPS: &[&str] = &[
    "abs",
    "round-nearest-afz",
    "round-nearest-even",
    "ceil",
    "clz",
    "cosine",
    "erf",
    "exponential",
    "exponential-minus-one",
    "floor",
    "imag",
    "is-finite",
    "log",
    "log-plus-one",
    "not",
    "negate",
    "popcnt",
    "real",
    "rsqrt",
    "logistic",
    "sign",
    "sine",
    "sqrt",
    "cbrt",
    "tan",
    "tanh",
    "bitcast-convert",
    "add",
    "atan2",
    "complex",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "power",
    "remainder",
    "subtract",
    "and",
    "or",
    "xor",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "stochastic-convert",
    "compare",
    "select",
    "clamp",
    "convert",
    "reduce-precision",
];

/// Whether XLA costs an opcode as an elementwise op (by this profile).
pub fn is_costed_elementwise(opcode: &str) -> bool {
    ELEMENTWISE_OPS.contains(&opcode)
}
