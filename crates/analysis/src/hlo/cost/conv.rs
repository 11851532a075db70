//! FLOPs of a convolution, as XLA's HloCostAnalysis::GetConvolutionFlops
//! (xla/service/hlo_cost_analysis.cc) counts them: 2 per multiply-add, over
//! the kernel taps that land on real (not padding, not base-dilation hole)
//! input positions, spatial dimension by spatial dimension.

use proflens_model::hlo::{HloInstruction, Shape, WindowDimension};

/// cuDNN convolution custom calls (`__cudnn$convForward`, …BackwardInput,
/// …BackwardFilter, …BiasActivationForward).
pub fn is_dnn_convolution(instr: &HloInstruction) -> bool {
    instr.opcode == "custom-call" && instr.custom_call_target.contains("conv")
}

fn dim(shape: &Shape, i: i64) -> i64 {
    usize::try_from(i).ok().and_then(|i| shape.dimensions.get(i)).copied().unwrap_or(0).max(0)
}

/// `lhs`, `rhs`: the operands' shapes; `result`: the output (for cuDNN
/// custom calls the first tuple element, the rest being scratch space).
pub fn convolution_flops(instr: &HloInstruction, lhs: &Shape, rhs: &Shape, result: &Shape) -> u64 {
    let Some(dnums) = &instr.convolution else { return 0 };
    let input_feature = dim(lhs, dnums.input_feature);
    let output_feature = dim(result, dnums.output_feature);
    let batch = dim(lhs, dnums.input_batch);
    // An absent count is 1, as XLA reads the proto.
    let feature_groups = instr.feature_group_count.max(1);
    let batch_groups = instr.batch_group_count.max(1);
    let mut taps = 1i64;
    for (n, &out_dim) in dnums.output_spatial.iter().enumerate() {
        let kernel = dnums.kernel_spatial.get(n).map_or(0, |&d| dim(rhs, d));
        let output = dim(result, out_dim);
        let input = dnums.input_spatial.get(n).map_or(0, |&d| dim(lhs, d));
        let window = instr.window.get(n).cloned().unwrap_or_default();
        taps = taps.saturating_mul(valid_positions(input, kernel, output, &window));
    }
    let fmas = (input_feature / feature_groups)
        .saturating_mul(output_feature)
        .saturating_mul(batch / batch_groups)
        .saturating_mul(taps);
    u64::try_from(fmas).unwrap_or(0).saturating_mul(2)
}

/// (kernel tap, output position) pairs of one spatial dimension whose input
/// position holds data. XLA walks every pair; this counts the same pairs
/// per tap as an arithmetic progression, so that a file with huge windows
/// cannot make it spin (past a work budget such a file counts nothing).
fn valid_positions(input: i64, kernel: i64, output: i64, w: &WindowDimension) -> i64 {
    // A proto leaves 1s out: absent stride and dilations are 1.
    let (stride, dilation, base) =
        (i128::from(w.stride.max(1)), i128::from(w.window_dilation.max(1)), i128::from(w.base_dilation.max(1)));
    let (input, output) = (i128::from(input), i128::from(output));
    if input <= 0 || output <= 0 {
        return 0;
    }
    // Input position p of the base-dilated input sits at p·base.
    let last = (input - 1) * base;
    // Output positions o with o·stride + c ≡ 0 (mod base) repeat every `period`.
    let period = base / gcd(stride, base);
    let mut budget = MAX_WORK;
    let mut valid = 0i128;
    for k in 0..i128::from(kernel.max(0)) {
        // o·stride + c is the tap's position in the dilated, padded input.
        let c = k * dilation - i128::from(w.padding_low);
        let lo = div_ceil(-c, stride).max(0);
        let hi = (last - c).div_euclid(stride).min(output - 1);
        let scan = if lo > hi { 0 } else { (hi - lo + 1).min(period) };
        budget -= scan + 1;
        if budget < 0 {
            return 0;
        }
        if let Some(first) = (lo..lo + scan).find(|o| (o * stride + c).rem_euclid(base) == 0) {
            valid += (hi - first) / period + 1;
        }
    }
    i64::try_from(valid).unwrap_or(i64::MAX)
}

/// Steps a file may make the count take (real windows need a few thousand).
const MAX_WORK: i128 = 1 << 22;

fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

fn div_ceil(a: i128, b: i128) -> i128 {
    -((-a).div_euclid(b))
}
