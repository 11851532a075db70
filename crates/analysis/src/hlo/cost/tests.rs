//! Synthetic HLO modules (hand-built, not from a profile), each costed by
//! the XLA rule its comment cites. "sm_86" is XLA's op profile that XProf
//! falls back to (xla/service/gpu/model/hlo_op_profiles_data.h); ops it does
//! not list cost 3 per element (gpu_hlo_cost_analysis.cc, FlopsPerElement).

use super::*;
use proflens_model::hlo::{
    ConvolutionDimensions, DotDimensions, HloComputation, HloModule, Shape, WindowDimension, TUPLE_TYPE,
};

const PRED: i32 = 1;
const S8: i32 = 2;
const S32: i32 = 4;
const F16: i32 = 10;
const F32: i32 = 11;
const F64: i32 = 12;
const BF16: i32 = 16;
const U8: i32 = 6;

fn shape(element_type: i32, dims: &[i64]) -> Shape {
    Shape { element_type, dimensions: dims.to_vec(), ..Shape::default() }
}

fn tuple(parts: Vec<Shape>) -> Shape {
    Shape { element_type: TUPLE_TYPE, tuple_shapes: parts, ..Shape::default() }
}

fn ins(id: i64, opcode: &str, shape: Shape, operands: &[i64]) -> HloInstruction {
    HloInstruction {
        id,
        name: format!("{opcode}.{id}"),
        opcode: opcode.into(),
        shape,
        operand_ids: operands.to_vec(),
        ..HloInstruction::default()
    }
}

fn calls(mut instr: HloInstruction, computations: &[i64]) -> HloInstruction {
    instr.called_computation_ids = computations.to_vec();
    instr
}

fn param(id: i64, number: i64, shape: Shape) -> HloInstruction {
    HloInstruction { parameter_number: number, ..ins(id, "parameter", shape, &[]) }
}

fn computation(id: i64, root: i64, instructions: Vec<HloInstruction>) -> HloComputation {
    HloComputation { id, name: format!("c{id}"), root_id: root, instructions }
}

/// A scalar binary computation `op(p0, p1)` of type `t` (a reducer).
fn binary(id: i64, op: &str, t: i32) -> HloComputation {
    let base = id * 100;
    computation(
        id,
        base + 2,
        vec![
            param(base, 0, shape(t, &[])),
            param(base + 1, 1, shape(t, &[])),
            ins(base + 2, op, shape(t, &[]), &[base, base + 1]),
        ],
    )
}

/// The cost of instruction `id` of a module made of `computations`.
fn cost_of(computations: Vec<HloComputation>, id: i64) -> Cost {
    let module = HloModule { computations, ..HloModule::default() };
    let index = ModuleIndex::new(&module);
    gpu_cost(&index, index.instruction(id).expect("instruction"))
}

/// An entry computation holding `params` and `instr` (its root).
fn entry(params: Vec<HloInstruction>, instr: HloInstruction) -> HloComputation {
    let root = instr.id;
    let mut all = params;
    all.push(instr);
    computation(1, root, all)
}

fn elementwise(op: &str, t: i32, elements: i64) -> u64 {
    let p = |id, n| param(id, n, shape(t, &[elements]));
    let out = if op == "compare" { PRED } else { t };
    cost_of(vec![entry(vec![p(10, 0), p(11, 1)], ins(12, op, shape(out, &[elements]), &[10, 11]))], 12).flops
}

#[test]
fn elementwise_ops_cost_the_profiled_cycles_per_element() {
    // sm_86 lists no f32 add/multiply/compare: the default 3 per element.
    assert_eq!(elementwise("add", F32, 4), 12);
    assert_eq!(elementwise("multiply", BF16, 4), 12);
    // compare costs by its (pred) output type: unlisted, 3.
    assert_eq!(elementwise("compare", F32, 4), 12);
    // sm_86: divide s32 306, add f64 97, power f16 975 cycles per element.
    assert_eq!(elementwise("divide", S32, 4), 306 * 4);
    assert_eq!(elementwise("add", F64, 4), 97 * 4);
    assert_eq!(elementwise("power", F16, 2), 975 * 2);
}

#[test]
fn convert_costs_three_per_element() {
    // HloCostAnalysis::HandleConvert → (GPU) HandleElementwiseOp; sm_86 has
    // no convert entry: 3 per element (XProf shows 6 for a 2-element convert).
    let c =
        cost_of(vec![entry(vec![param(10, 0, shape(F32, &[2]))], ins(11, "convert", shape(BF16, &[2]), &[10]))], 11);
    assert_eq!((c.flops, c.transcendentals), (6, 0));
}

#[test]
fn transcendentals_count_as_flops_on_gpus_and_random_numbers_apart() {
    // GpuHloCostAnalysis::HandleElementwiseOp replaces the base class's
    // transcendental count: exp f32 costs sm_86's 86 cycles per element.
    let exp =
        cost_of(vec![entry(vec![param(10, 0, shape(F32, &[8]))], ins(11, "exponential", shape(F32, &[8]), &[10]))], 11);
    assert_eq!((exp.flops, exp.transcendentals), (86 * 8, 0));
    let tanh = cost_of(vec![entry(vec![param(10, 0, shape(F16, &[8]))], ins(11, "tanh", shape(F16, &[8]), &[10]))], 11);
    assert_eq!(tanh.flops, 212 * 8);
    // HloCostAnalysis::HandleRng: one transcendental per element, no FLOPs.
    let rng = cost_of(vec![entry(vec![], ins(11, "rng", shape(F32, &[8]), &[]))], 11);
    assert_eq!((rng.flops, rng.transcendentals), (0, 8));
}

fn reduce(id: i64, input: i64, init: i64, out: Shape, reducer: i64) -> HloInstruction {
    calls(ins(id, "reduce", out, &[input, init]), &[reducer])
}

#[test]
fn reduce_costs_its_reducer_per_reduced_element() {
    // HloCostAnalysis::HandleReduce: reducer cost × (input − output
    // elements); an f32 add reducer costs 3.
    let c = cost_of(
        vec![
            binary(2, "add", F32),
            entry(
                vec![param(10, 0, shape(F32, &[16, 32])), param(11, 1, shape(F32, &[]))],
                reduce(12, 10, 11, shape(F32, &[16]), 2),
            ),
        ],
        12,
    );
    assert_eq!(c.flops, 3 * (512 - 16));
}

#[test]
fn a_multi_op_reducer_costs_all_its_ops() {
    // Reducer p0 + exp(p1): 3 + 86 per application, 32 − 8 applications.
    let reducer = computation(
        2,
        203,
        vec![
            param(200, 0, shape(F32, &[])),
            param(201, 1, shape(F32, &[])),
            ins(202, "exponential", shape(F32, &[]), &[201]),
            ins(203, "add", shape(F32, &[]), &[200, 202]),
        ],
    );
    let c = cost_of(
        vec![
            reducer,
            entry(
                vec![param(10, 0, shape(F32, &[8, 4])), param(11, 1, shape(F32, &[]))],
                reduce(12, 10, 11, shape(F32, &[8]), 2),
            ),
        ],
        12,
    );
    assert_eq!(c.flops, 89 * 24);
}

#[test]
fn a_variadic_reduce_counts_by_its_first_output() {
    // Argmax-style reducer: compare (pred) + two selects, 3 each; the count
    // is 10 inputs − 1 output of the first result.
    let reducer = computation(
        2,
        207,
        vec![
            param(200, 0, shape(F32, &[])),
            param(201, 1, shape(S32, &[])),
            param(202, 2, shape(F32, &[])),
            param(203, 3, shape(S32, &[])),
            ins(204, "compare", shape(PRED, &[]), &[200, 202]),
            ins(205, "select", shape(F32, &[]), &[204, 200, 202]),
            ins(206, "select", shape(S32, &[]), &[204, 201, 203]),
            ins(207, "tuple", tuple(vec![shape(F32, &[]), shape(S32, &[])]), &[205, 206]),
        ],
    );
    let out = tuple(vec![shape(F32, &[]), shape(S32, &[])]);
    let instr = calls(ins(14, "reduce", out, &[10, 11, 12, 13]), &[2]);
    let params = vec![
        param(10, 0, shape(F32, &[10])),
        param(11, 1, shape(S32, &[10])),
        param(12, 2, shape(F32, &[])),
        param(13, 3, shape(S32, &[])),
    ];
    assert_eq!(cost_of(vec![reducer, entry(params, instr)], 14).flops, 9 * 9);
}

fn window(sizes: &[(i64, i64, i64)]) -> Vec<WindowDimension> {
    sizes
        .iter()
        .map(|&(size, pad_low, pad_high)| WindowDimension {
            size,
            stride: 1,
            padding_low: pad_low,
            padding_high: pad_high,
            window_dilation: 1,
            base_dilation: 1,
            window_reversal: false,
        })
        .collect()
}

fn reduce_window(out: Shape, win: Vec<WindowDimension>) -> u64 {
    let mut rw = calls(ins(12, "reduce-window", out, &[10, 11]), &[2]);
    rw.window = win;
    let params = vec![param(10, 0, shape(F32, &[4, 8])), param(11, 1, shape(F32, &[]))];
    cost_of(vec![binary(2, "add", F32), entry(params, rw)], 12).flops
}

#[test]
fn reduce_window_costs_window_minus_one_reductions_per_output() {
    // HloCostAnalysis::HandleReduceWindow: (2·2 − 1) × 3·7 outputs × 3.
    assert_eq!(reduce_window(shape(F32, &[3, 7]), window(&[(2, 0, 0), (2, 0, 0)])), 3 * 21 * 3);
    // A window of 2·7 + 1 padded 7 on each side over a dimension of 8 is a
    // reduction broadcast back: 32 / 8 rows + (8 − 1) reductions.
    assert_eq!(reduce_window(shape(F32, &[4, 8]), window(&[(1, 0, 0), (15, 7, 7)])), (32 / 8 + 7) * 3);
}

fn fusion(id: i64, out: Shape, operands: &[i64], fused: i64) -> HloInstruction {
    HloInstruction { fusion_kind: "kInput".into(), ..calls(ins(id, "fusion", out, operands), &[fused]) }
}

#[test]
fn a_fusion_with_a_reduce_sums_its_instructions() {
    // GpuHloCostAnalysis::FusionCalculateUtilizations: the root reduce and
    // the convert feeding it run once: 3·512 (convert) + 3·(512 − 16).
    let fused = computation(
        3,
        303,
        vec![
            param(300, 0, shape(BF16, &[16, 32])),
            ins(301, "convert", shape(F32, &[16, 32]), &[300]),
            ins(302, "constant", shape(F32, &[]), &[]),
            reduce(303, 301, 302, shape(F32, &[16]), 2),
        ],
    );
    let top = fusion(11, shape(F32, &[16]), &[10], 3);
    let c = cost_of(vec![binary(2, "add", F32), fused, entry(vec![param(10, 0, shape(BF16, &[16, 32]))], top)], 11);
    assert_eq!(c.flops, 3 * 512 + 3 * 496);
    // Bytes stay operands + output: bf16[16,32] read, f32[16] written.
    assert_eq!(c.bytes_accessed, 1024 + 64);
}

#[test]
fn a_producer_of_two_reductions_runs_twice() {
    // exp feeds two reduces (non-elementwise users): it becomes a root of
    // its own with utilization 1 + 1, so its 86·32 FLOPs count twice.
    let fused = computation(
        3,
        305,
        vec![
            param(300, 0, shape(F32, &[8, 4])),
            ins(301, "exponential", shape(F32, &[8, 4]), &[300]),
            ins(302, "constant", shape(F32, &[]), &[]),
            reduce(303, 301, 302, shape(F32, &[8]), 2),
            reduce(304, 301, 302, shape(F32, &[8]), 2),
            ins(305, "tuple", tuple(vec![shape(F32, &[8]), shape(F32, &[8])]), &[303, 304]),
        ],
    );
    let out = tuple(vec![shape(F32, &[8]), shape(F32, &[8])]);
    let top = fusion(11, out, &[10], 3);
    let c = cost_of(vec![binary(2, "add", F32), fused, entry(vec![param(10, 0, shape(F32, &[8, 4]))], top)], 11);
    assert_eq!(c.flops, 2 * 86 * 32 + 2 * 3 * 24);
}

#[test]
fn a_sliced_producer_runs_for_the_slice_only() {
    // HloCostAnalysis::HandleSlice: operand utilization 10/100, so the exp
    // runs for 10 of its 100 elements; the slice costs nothing.
    let mut slice = ins(302, "slice", shape(F32, &[10]), &[301]);
    slice.attributes.slice = vec![(0, 10, 1)];
    let fused = computation(
        3,
        302,
        vec![param(300, 0, shape(F32, &[100])), ins(301, "exponential", shape(F32, &[100]), &[300]), slice],
    );
    let top = HloInstruction { fusion_kind: "kLoop".into(), ..fusion(11, shape(F32, &[10]), &[10], 3) };
    let c = cost_of(vec![fused, entry(vec![param(10, 0, shape(F32, &[100]))], top)], 11);
    assert_eq!(c.flops, 86 * 10);
}

#[test]
fn dot_counts_two_flops_per_multiply_add() {
    // HloCostAnalysis::GetDotFlops: 2 × output elements × contracted size.
    let mut dot = ins(12, "dot", shape(F32, &[2, 4]), &[10, 11]);
    dot.dot = Some(DotDimensions { lhs_contracting: vec![1], rhs_contracting: vec![0], ..DotDimensions::default() });
    let params = vec![param(10, 0, shape(F32, &[2, 3])), param(11, 1, shape(F32, &[3, 4]))];
    assert_eq!(cost_of(vec![entry(params, dot)], 12).flops, 2 * 8 * 3);
}

/// A 1-D convolution `bf0_oi0->bf0` over `input` with `kernel` taps.
fn conv1d(opcode: &str, input: Shape, kernel: Shape, out: Shape, w: WindowDimension, groups: i64) -> Cost {
    let mut conv = ins(12, opcode, out, &[10, 11]);
    conv.convolution = Some(ConvolutionDimensions {
        input_batch: 0,
        input_feature: 1,
        input_spatial: vec![2],
        kernel_output_feature: 0,
        kernel_input_feature: 1,
        kernel_spatial: vec![2],
        output_batch: 0,
        output_feature: 1,
        output_spatial: vec![2],
    });
    conv.window = vec![w];
    conv.feature_group_count = groups;
    conv.custom_call_target = "__cudnn$convForward".into();
    cost_of(vec![entry(vec![param(10, 0, input), param(11, 1, kernel)], conv)], 12)
}

fn win(size: i64, stride: i64, pad: i64, base_dilation: i64) -> WindowDimension {
    WindowDimension {
        size,
        stride,
        padding_low: pad,
        padding_high: pad,
        window_dilation: 1,
        base_dilation,
        window_reversal: false,
    }
}

#[test]
fn convolution_counts_only_taps_on_real_input() {
    // HloCostAnalysis::GetConvolutionFlops. 5 inputs, 3 taps, padding 1:
    // the taps see 4 + 5 + 4 real positions → 2 × 13.
    let c = conv1d(
        "convolution",
        shape(F32, &[1, 1, 5]),
        shape(F32, &[1, 1, 3]),
        shape(F32, &[1, 1, 5]),
        win(3, 1, 1, 1),
        1,
    );
    assert_eq!(c.flops, 26);
    // Input dilated by 2 (7 positions, 3 holes), stride 2, 3 outputs: only
    // taps 0 and 2 land on data, for each output → 2 × 6.
    let c = conv1d(
        "convolution",
        shape(F32, &[1, 1, 4]),
        shape(F32, &[1, 1, 3]),
        shape(F32, &[1, 1, 3]),
        win(3, 2, 0, 2),
        1,
    );
    assert_eq!(c.flops, 12);
    // Two feature groups: 4 input features / 2 per output feature, 2 output
    // features, 1 tap on 1 position → 2 × 2 × 2.
    let c = conv1d(
        "convolution",
        shape(F32, &[1, 4, 1]),
        shape(F32, &[2, 2, 1]),
        shape(F32, &[1, 2, 1]),
        win(1, 1, 0, 1),
        2,
    );
    assert_eq!(c.flops, 8);
}

#[test]
fn cudnn_convolutions_cost_their_first_result() {
    // GpuHloCostAnalysis::HandleCustomCall: the convolution of the first
    // tuple element; its bytes (not the scratch space) count as written but
    // not in the HBM breakdown.
    let out = tuple(vec![shape(F32, &[1, 1, 5]), shape(U8, &[1000])]);
    let c = conv1d("custom-call", shape(F32, &[1, 1, 5]), shape(F32, &[1, 1, 3]), out, win(3, 1, 1, 1), 1);
    assert_eq!((c.flops, c.bytes_accessed, c.hbm_bytes), (26, 20 + 12 + 20, 20 + 12));
}

#[test]
fn a_huge_window_from_a_file_ends() {
    // Not real HLO: a billion taps over a billion outputs with holes. The
    // count gives up (0) instead of walking 10^18 pairs.
    let big = 1_000_000_000;
    let c = conv1d(
        "convolution",
        shape(F32, &[1, 1, big]),
        shape(F32, &[1, 1, big]),
        shape(F32, &[1, 1, big]),
        win(big, 3, 0, 7),
        1,
    );
    assert_eq!(c.flops, 0);
}

#[test]
fn other_library_calls_are_unknown() {
    // HloCostAnalysis::HandleCustomCall marks FLOPs and bytes −1 (unknown),
    // which XProf shows as 0.
    let mut gemm = ins(12, "custom-call", shape(BF16, &[4, 4]), &[10, 11]);
    gemm.custom_call_target = "__cublas$gemm".into();
    let params = vec![param(10, 0, shape(BF16, &[4, 4])), param(11, 1, shape(BF16, &[4, 4]))];
    assert_eq!(cost_of(vec![entry(params, gemm)], 12), Cost::default());
}

#[test]
fn concatenate_costs_a_branch_per_element() {
    // GpuHloCostAnalysis::HandleConcatenate: 6 per element; 400 when the
    // dimension is not 0 and the first operand's extent there is not a
    // multiple of 32.
    let concat = |a: Shape, b: Shape, out: Shape, dim: i64| {
        let instr = HloInstruction { dimensions: vec![dim], ..ins(12, "concatenate", out, &[10, 11]) };
        cost_of(vec![entry(vec![param(10, 0, a), param(11, 1, b)], instr)], 12).flops
    };
    assert_eq!(concat(shape(F32, &[2, 4]), shape(F32, &[3, 4]), shape(F32, &[5, 4]), 0), 6 * 20);
    assert_eq!(concat(shape(F32, &[4, 33]), shape(F32, &[4, 31]), shape(F32, &[4, 64]), 1), 400 * 256);
    assert_eq!(concat(shape(F32, &[4, 32]), shape(F32, &[4, 31]), shape(F32, &[4, 63]), 1), 6 * 252);
}

#[test]
fn sort_scatter_map_and_select_and_scatter() {
    // HloCostAnalysis::HandleSort: n·⌈log2 n⌉.
    let sort = calls(ins(11, "sort", shape(F32, &[8]), &[10]), &[2]);
    assert_eq!(
        cost_of(vec![binary(2, "compare", F32), entry(vec![param(10, 0, shape(F32, &[8]))], sort)], 11).flops,
        24
    );
    // HandleScatter: the combiner once per update element (3 updates).
    let scatter = calls(ins(13, "scatter", shape(F32, &[10]), &[10, 11, 12]), &[2]);
    let params =
        vec![param(10, 0, shape(F32, &[10])), param(11, 1, shape(S32, &[3, 1])), param(12, 2, shape(F32, &[3]))];
    assert_eq!(cost_of(vec![binary(2, "add", F32), entry(params, scatter)], 13).flops, 9);
    // HandleMap: the mapped computation once per element.
    let map = calls(ins(12, "map", shape(F32, &[5]), &[10, 11]), &[2]);
    let params = vec![param(10, 0, shape(F32, &[5])), param(11, 1, shape(F32, &[5]))];
    assert_eq!(cost_of(vec![binary(2, "multiply", F32), entry(params, map)], 12).flops, 15);
    // HandleSelectAndScatter: per source element, window − 1 selects
    // (compare: 3) and one scatter (add: 3); 2 source elements, window 2.
    let mut sas = calls(ins(13, "select-and-scatter", shape(F32, &[4]), &[10, 11, 12]), &[2, 3]);
    sas.window = vec![win(2, 2, 0, 1)];
    let params = vec![param(10, 0, shape(F32, &[4])), param(11, 1, shape(F32, &[2])), param(12, 2, shape(F32, &[]))];
    let c = cost_of(vec![binary(2, "compare", F32), binary(3, "add", F32), entry(params, sas)], 13);
    assert_eq!(c.flops, 2 * 3 + 2 * 3);
}

#[test]
fn calls_loops_and_conditionals_cost_their_computations() {
    let body =
        computation(2, 201, vec![param(200, 0, shape(F32, &[4])), ins(201, "add", shape(F32, &[4]), &[200, 200])]);
    let condition =
        computation(3, 301, vec![param(300, 0, shape(F32, &[4])), ins(301, "compare", shape(PRED, &[]), &[300, 300])]);
    let exp =
        computation(4, 401, vec![param(400, 0, shape(F32, &[4])), ins(401, "exponential", shape(F32, &[4]), &[400])]);
    let run = |instr: HloInstruction| {
        let comps =
            vec![body.clone(), condition.clone(), exp.clone(), entry(vec![param(10, 0, shape(F32, &[4]))], instr)];
        cost_of(comps, 11).flops
    };
    // HandleCall: the callee's sum.
    assert_eq!(run(calls(ins(11, "call", shape(F32, &[4]), &[10]), &[2])), 12);
    // HandleWhile: one trip of body (12) and condition (3).
    assert_eq!(run(calls(ins(11, "while", shape(F32, &[4]), &[10]), &[3, 2])), 15);
    // HandleConditional: the costliest branch.
    assert_eq!(run(calls(ins(11, "conditional", shape(F32, &[4]), &[10]), &[2, 4])), 86 * 4);
}

#[test]
fn all_reduce_costs_its_reduction_per_element() {
    // GpuHloCostAnalysis::HandleAllReduce: the reducer's root op per element.
    let all_reduce = |t: i32| {
        let instr = calls(ins(11, "all-reduce", shape(t, &[16]), &[10]), &[2]);
        cost_of(vec![binary(2, "add", t), entry(vec![param(10, 0, shape(t, &[16]))], instr)], 11).flops
    };
    assert_eq!(all_reduce(F32), 3 * 16);
    assert_eq!(all_reduce(F64), 97 * 16);
}

#[test]
fn device_flops_are_halved_for_8_bit_inputs() {
    // XProfGpuCostAnalysis::DefaultPostprocess: widest input of 8 bits →
    // the device runs them at twice the rate; 16 bits → unchanged.
    let add = |t: i32| {
        let params = vec![param(10, 0, shape(t, &[4])), param(11, 1, shape(t, &[4]))];
        cost_of(vec![entry(params, ins(12, "add", shape(t, &[4]), &[10, 11]))], 12)
    };
    assert_eq!((add(S8).flops, add(S8).device_flops), (12, 6));
    assert_eq!((add(BF16).flops, add(BF16).device_flops), (12, 12));
}

#[test]
fn slices_reductions_and_tuples_access_what_xla_says() {
    // HloCostAnalysis::HandleSlice: the slice's bytes read and written.
    let mut slice = ins(11, "slice", shape(F32, &[10]), &[10]);
    slice.attributes.slice = vec![(0, 10, 1)];
    let c = cost_of(vec![entry(vec![param(10, 0, shape(F32, &[100]))], slice)], 11);
    assert_eq!((c.bytes_accessed, c.hbm_bytes), (80, 80));
    // GpuHloCostAnalysis::HandleReduce: input 2048 + output 64 + the 4-byte
    // init read once per output element (16).
    let params = vec![param(10, 0, shape(F32, &[16, 32])), param(11, 1, shape(F32, &[]))];
    let c = cost_of(vec![binary(2, "add", F32), entry(params, reduce(12, 10, 11, shape(F32, &[16]), 2))], 12);
    assert_eq!(c.bytes_accessed, 2048 + 64 + 4 * 16);
    // HloCostAnalysis::HandleTuple: the index table (8-byte pointers), no
    // HBM traffic.
    let params = vec![param(10, 0, shape(F32, &[4])), param(11, 1, shape(F32, &[4]))];
    let t = ins(12, "tuple", tuple(vec![shape(F32, &[4]), shape(F32, &[4])]), &[10, 11]);
    let c = cost_of(vec![entry(params, t)], 12);
    assert_eq!((c.bytes_accessed, c.hbm_bytes), (16, 0));
}

#[test]
fn a_fusion_reads_its_parameters_as_far_as_its_body_uses_them() {
    // GpuHloCostAnalysis::FusionParameterReadBytes: a parameter read only
    // through a 10-of-100 slice counts 40 of its 400 bytes.
    let mut slice = ins(301, "slice", shape(F32, &[10]), &[300]);
    slice.attributes.slice = vec![(0, 10, 1)];
    let fused = computation(3, 301, vec![param(300, 0, shape(F32, &[100])), slice]);
    let top = fusion(11, shape(F32, &[10]), &[10], 3);
    let c = cost_of(vec![fused, entry(vec![param(10, 0, shape(F32, &[100]))], top)], 11);
    assert_eq!((c.bytes_accessed, c.hbm_bytes), (40 + 40, 40 + 40));
    // HloCostAnalysis::HandleFusion: a root dynamic-update-slice writes
    // only its update (40) and does not read the buffer it updates; the
    // update (40) and the index (4) are read.
    let fused = computation(
        3,
        303,
        vec![
            param(300, 0, shape(F32, &[100])),
            param(301, 1, shape(F32, &[10])),
            param(302, 2, shape(S32, &[])),
            ins(303, "dynamic-update-slice", shape(F32, &[100]), &[300, 301, 302]),
        ],
    );
    let top = fusion(13, shape(F32, &[100]), &[10, 11, 12], 3);
    let params = vec![param(10, 0, shape(F32, &[100])), param(11, 1, shape(F32, &[10])), param(12, 2, shape(S32, &[]))];
    let c = cost_of(vec![fused, entry(params, top)], 13);
    assert_eq!(c.bytes_accessed, 40 + 40 + 4);
    // A constant of more than one element inside a fusion is read from
    // memory (32 bytes) but is no operand: not in the HBM breakdown.
    let fused = computation(
        3,
        302,
        vec![
            param(300, 0, shape(F32, &[8])),
            ins(301, "constant", shape(F32, &[8]), &[]),
            ins(302, "add", shape(F32, &[8]), &[300, 301]),
        ],
    );
    let top = fusion(11, shape(F32, &[8]), &[10], 3);
    let c = cost_of(vec![fused, entry(vec![param(10, 0, shape(F32, &[8]))], top)], 11);
    assert_eq!((c.bytes_accessed, c.hbm_bytes), (32 + 32 + 32, 32 + 32));
}

#[test]
fn a_fusion_that_calls_itself_counts_once() {
    // c1 adds (its root), and fuses c1 again (a file may say so): the walk
    // ends.
    let module = vec![computation(
        1,
        1,
        vec![ins(1, "add", shape(F32, &[4]), &[]), calls(ins(2, "fusion", shape(F32, &[4]), &[]), &[1])],
    )];
    assert_eq!(cost_of(module, 2).flops, 12);
}

#[test]
fn shared_computations_are_costed_once_each() {
    // 40 levels, each fusing the next ten times (all used by its root
    // tuple): 10^40 paths, 40 sums. Nesting past the depth bound counts
    // nothing: 12 × (1 + 10 + … + 10^16).
    let levels: Vec<HloComputation> = (1..=40)
        .map(|c| {
            let mut body = vec![ins(c * 100, "add", shape(F32, &[4]), &[])];
            if c < 40 {
                body.extend((1..=10).map(|k| calls(ins(c * 100 + k, "fusion", shape(F32, &[4]), &[]), &[c + 1])));
            }
            let parts: Vec<i64> = body.iter().map(|i| i.id).collect();
            body.push(ins(c * 100 + 50, "tuple", tuple(vec![]), &parts));
            computation(c, c * 100 + 50, body)
        })
        .collect();
    let mut all = levels;
    all.push(computation(99, 9900, vec![calls(ins(9900, "fusion", shape(F32, &[4]), &[]), &[1])]));
    let expected = (0..=16u32).map(|d| 12.0 * 10f64.powi(d as i32)).sum::<f64>();
    let got = cost_of(all, 9900).flops as f64;
    // XLA sums in f32: a relative error well under 1e-4 over 17 levels.
    assert!((got - expected).abs() <= 1e-4 * expected, "{got} vs {expected}");
}
