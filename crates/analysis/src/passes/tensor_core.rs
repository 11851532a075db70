//! Whether a GPU kernel ran on the matrix units (NVIDIA TensorCores, AMD
//! matrix cores), from its name alone, and whether an op could have: XProf's
//! `IsKernelUsingTensorCore(name, vendor)` and `IsOpTensorCoreEligible`
//! (`xprof/utils/kernel_stats_utils.cc`), which take NVIDIA's name patterns
//! from `cuda_type_utils.cc` and AMD's from `rocm_type_utils.cc`.

use crate::common::schema::plane_stat;
use proflens_model::{Plane, Profile};
use serde::{Deserialize, Serialize};

/// XProf's vendor strings (tsl's `kDeviceVendorNvidia` / `kDeviceVendorAMD`).
pub const VENDOR_NVIDIA: &str = "Nvidia";
pub const VENDOR_AMD: &str = "AMD";

/// Who made the GPU a kernel ran on, which decides the rule that says
/// whether it used the matrix units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum GpuVendor {
    #[default]
    Nvidia,
    Amd,
}

impl GpuVendor {
    /// The vendor a `device_vendor` stat names; None for one XProf does not
    /// know (or none recorded).
    pub fn from_stat(vendor: &str) -> Option<GpuVendor> {
        match vendor {
            VENDOR_NVIDIA => Some(GpuVendor::Nvidia),
            VENDOR_AMD => Some(GpuVendor::Amd),
            _ => None,
        }
    }
}

/// The vendor of a GPU plane, from its `device_vendor` stat.
pub fn plane_vendor(profile: &Profile, plane: &Plane) -> Option<GpuVendor> {
    let value = plane_stat(profile, plane, profile.strings.lookup("device_vendor"))?;
    GpuVendor::from_stat(value.as_str()?)
}

/// NVIDIA kernel names that show TensorCore use (cuDNN / cuBLAS tile and
/// instruction shapes: `volta_h884gemm`, `turing_fp16_s1688cudnn_fp16`).
const NVIDIA_PATTERNS: [&str; 19] = [
    "16816",
    "c1688",
    "conv1x1",
    "conv2d_c1_k1",
    "dgrad_1x1_stride_2x2",
    "direct_group",
    "first_layer_wgrad_kernel",
    "h1688",
    "h884",
    "hmma",
    "i16832",
    "i8816",
    "s884",
    "s1688",
    "xmma_gemm",
    "xmma_implicit_gemm",
    "xmma_sparse_conv",
    "xmma_sparse_gemm",
    "xmma_warp_specialized_implicit_gemm",
];

/// AMD kernel names of matrix-core producers: XLA's GEMM fusions, hipBLASLt
/// custom kernels, composable-kernel XDL / WMMA instances, MIOpen's
/// implicit-GEMM convolutions, MoE GEMMs, AITER and attention kernels, and
/// anything naming its MFMA instruction.
const AMD_PATTERNS: [&str; 13] = [
    "gemm_fusion",
    "Custom_Cijk_",
    "_xdl",
    "gtcx",
    "miopenSp3AsmConvRage",
    "moe_gemm",
    "moe_mxgemm",
    "wmma",
    "aiter",
    "FMHA_FWD",
    "attn_fwd",
    "bwd_kernel_",
    "mfma",
];

/// Composable-kernel tile shapes whose template names say the kernel runs
/// MFMA tiles (GEMM, FMHA forward and backward, flat-MM, SageAttention).
const AMD_CK_TILE_SHAPES: [&str; 5] =
    ["TileGemmShape<", "TileFmhaShape<", "TileFmhaBwdShape<", "TileFlatmmShape<", "TileSageAttnShape<"];

/// AMD kernels that match a producer's pattern but run no matrix
/// instructions (the helpers around attention and MoE kernels); they win
/// over every positive rule.
const AMD_NOT_MATRIX: [&str; 5] = ["_odo_", "_dq_convert", "_dq_shuffle", "topksoftmax", "DqAccPrezeroKernel"];

/// Whether a kernel runs on TensorCores (NVIDIA) or matrix cores (AMD).
pub fn uses_tensor_core_on(vendor: GpuVendor, kernel_name: &str) -> bool {
    match vendor {
        GpuVendor::Nvidia => NVIDIA_PATTERNS.iter().any(|p| kernel_name.contains(p)),
        GpuVendor::Amd => uses_amd_matrix_core(kernel_name),
    }
}

/// [`uses_tensor_core_on`] where the vendor may be unknown: XProf then says
/// no, as several patterns are not vendor-specific strings.
pub fn uses_tensor_core_of(vendor: Option<GpuVendor>, kernel_name: &str) -> bool {
    vendor.is_some_and(|v| uses_tensor_core_on(v, kernel_name))
}

fn uses_amd_matrix_core(name: &str) -> bool {
    if AMD_NOT_MATRIX.iter().any(|p| name.contains(p)) {
        return false;
    }
    has_tensile_matrix_instruction(name)
        || AMD_CK_TILE_SHAPES.iter().any(|s| name.contains(s))
        || AMD_PATTERNS.iter().any(|p| name.contains(p))
}

/// Tensile (rocBLAS / hipBLASLt) names carry their MFMA instruction as
/// `_MI<m>x<n>x<k>` (`…_MT256x224x64_MI16x16x16x1_…`).
fn has_tensile_matrix_instruction(name: &str) -> bool {
    name.match_indices("_MI").any(|(i, token)| mfma_shape(&name[i + token.len()..]).is_some())
}

/// What follows `<digits>x<digits>x<digits>` at the start of `s`, if it is one.
fn mfma_shape(s: &str) -> Option<&str> {
    let rest = digits(s)?.strip_prefix('x')?;
    let rest = digits(rest)?.strip_prefix('x')?;
    digits(rest)
}

/// `s` after its leading ASCII digits, if it has at least one.
fn digits(s: &str) -> Option<&str> {
    let rest = s.trim_start_matches(|c: char| c.is_ascii_digit());
    (rest.len() < s.len()).then_some(rest)
}

/// Ops whose kernels can run on TensorCores (XProf's list is not
/// exhaustive): convolutions and matmuls of TensorFlow, cuDNN RNNs, XLA dots
/// and, by substring, JAX's `dot_general` / `conv_general_dilated`.
pub fn op_tensor_core_eligible(op_name: &str) -> bool {
    const ENDS: [&str; 12] = [
        "Conv2D",
        "Conv2DBackpropFilter",
        "Conv2DBackpropInput",
        "Conv3D",
        "DepthwiseConv2dNative",
        "DepthwiseConv2dNativeBackpropFilter",
        "DepthwiseConv2dNativeBackpropInput",
        "/MatMul",
        "FusedMatMul",
        "/CudnnRNN",
        "XlaDot",
        "XlaDotV2",
    ];
    const CONTAINS: [&str; 6] =
        ["BatchMatMul", "CudnnRNNV", "CudnnRNNForward", "CudnnRNNBackprop", "dot_general", "conv_general_dilated"];
    ENDS.iter().any(|e| op_name.ends_with(e)) || CONTAINS.iter().any(|c| op_name.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TENSILE: &str = "Cijk_Ailk_Bljk_BBS_BH_MT256x224x64_MI16x16x16x1_SN_1LDSB1_APM1";

    #[test]
    fn nvidia_patterns() {
        for name in ["volta_h884gemm_64x64_nn", "turing_fp16_s1688cudnn_fp16", "sm80_xmma_gemm_f16f16", "ampere_i16832"]
        {
            assert!(uses_tensor_core_on(GpuVendor::Nvidia, name), "{name}");
        }
        assert!(!uses_tensor_core_on(GpuVendor::Nvidia, "void Eigen::internal::EigenMetaKernel"));
        // AMD names mean nothing on NVIDIA.
        assert!(!uses_tensor_core_on(GpuVendor::Nvidia, TENSILE));
        assert!(!uses_tensor_core_on(GpuVendor::Nvidia, "gemm_fusion_dot_general_1"));
    }

    #[test]
    fn amd_tensile_instruction_token() {
        assert!(uses_tensor_core_on(GpuVendor::Amd, TENSILE));
        assert!(uses_tensor_core_on(
            GpuVendor::Amd,
            "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN"
        ));
        // Three dimensions are needed; a bare `_MI` or `_MI16` is not one.
        assert!(!uses_tensor_core_on(GpuVendor::Amd, "Cijk_Ailk_Bljk_SB_MT64x64x8_MI16_SN"));
        assert!(!uses_tensor_core_on(GpuVendor::Amd, "Cijk_Ailk_Bljk_SB_MT64x64x8_MIx16x16_SN"));
        // Plain Tensile names without the token: vector ALU kernels.
        assert!(!uses_tensor_core_on(GpuVendor::Amd, "Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0"));
    }

    #[test]
    fn amd_composable_kernel_tile_shapes() {
        let fmha = "ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::TileFmhaShape<ck_tile::sequence<128,128,32>>>>";
        assert!(uses_tensor_core_on(GpuVendor::Amd, fmha));
        assert!(uses_tensor_core_on(
            GpuVendor::Amd,
            "ck_tile::GemmKernel<ck_tile::TileGemmShape<ck_tile::sequence<256,256,64>>>"
        ));
        assert!(uses_tensor_core_on(GpuVendor::Amd, "ck_tile::FmhaBwdDQDKDVKernel<ck_tile::TileFmhaBwdShape<>>"));
        assert!(uses_tensor_core_on(GpuVendor::Amd, "ck_tile::FlatmmKernel<ck_tile::TileFlatmmShape<>>"));
        assert!(uses_tensor_core_on(GpuVendor::Amd, "ck_tile::SageAttnKernel<ck_tile::TileSageAttnShape<>>"));
        // The shape without its template bracket is not the type.
        assert!(!uses_tensor_core_on(GpuVendor::Amd, "TileGemmShape_helper"));
    }

    #[test]
    fn amd_producer_patterns() {
        for name in [
            "gemm_fusion_dot_general_1.kd",
            "loop_gemm_fusion_2",
            "Custom_Cijk_Alik_Bljk_BBS_BH",
            "device_gemm_xdl_cshuffle_v3",
            "igemm_fwd_gtcx_nhwc_fp16",
            "miopenSp3AsmConvRage_v1_0_1_gfx9",
            "moe_gemm_kernel",
            "moe_mxgemm_fp4",
            "kernel_gemm_wmma_cshuffle",
            "aiter::fmha_fwd_v3",
            "_ZN5aiter18fmha_fwd_hd128_fp8E",
            "FMHA_FWD_d128_bf16",
            "attn_fwd",
            "bwd_kernel_dk_dv",
            "fused_mfma_matmul",
        ] {
            assert!(uses_tensor_core_on(GpuVendor::Amd, name), "{name}");
        }
        for name in ["wrapped_broadcast.kd", "__amd_rocclr_copyBuffer.kd", "Im3d2Col", "input_transpose_fusion"] {
            assert!(!uses_tensor_core_on(GpuVendor::Amd, name), "{name}");
        }
        // NVIDIA patterns mean nothing on AMD.
        assert!(!uses_tensor_core_on(GpuVendor::Amd, "my_h884_lookalike_kernel"));
        // `Cijk_` alone is not the custom-kernel prefix.
        assert!(!uses_tensor_core_on(GpuVendor::Amd, "Cijk_Ailk_Bljk_HB"));
    }

    #[test]
    fn amd_helpers_are_not_matrix_kernels() {
        for name in [
            "aiter::fmha_bwd_odo_kernel",
            "bwd_kernel_dq_convert",
            "FMHA_FWD_dq_shuffle",
            "aiter::topksoftmax_kernel",
            "ck_tile::DqAccPrezeroKernel<ck_tile::TileFmhaBwdShape<>>",
            "gemm_fusion_odo_",
        ] {
            assert!(!uses_tensor_core_on(GpuVendor::Amd, name), "{name}");
        }
        // Even with a Tensile instruction token.
        assert!(!uses_tensor_core_on(GpuVendor::Amd, "Cijk_MT64x64x8_MI16x16x16x1_topksoftmax"));
    }

    #[test]
    fn unknown_vendor_is_never_a_tensor_core() {
        assert_eq!(GpuVendor::from_stat("Nvidia"), Some(GpuVendor::Nvidia));
        assert_eq!(GpuVendor::from_stat("AMD"), Some(GpuVendor::Amd));
        assert_eq!(GpuVendor::from_stat("NVIDIA"), None);
        assert_eq!(GpuVendor::from_stat(""), None);
        assert!(!uses_tensor_core_of(None, "volta_h884gemm_64x64_nn"));
        assert!(!uses_tensor_core_of(None, TENSILE));
        assert!(uses_tensor_core_of(Some(GpuVendor::Amd), TENSILE));
    }

    #[test]
    fn op_eligibility() {
        assert!(op_tensor_core_eligible("model/dense/MatMul"));
        assert!(op_tensor_core_eligible("model/conv/Conv2DBackpropInput"));
        assert!(op_tensor_core_eligible("model/attention/BatchMatMulV2"));
        assert!(op_tensor_core_eligible("model/lstm/CudnnRNNV3"));
        assert!(op_tensor_core_eligible("jit(f)/jit(main)/dot_general"));
        // JAX names the transpose of a dot by its primitive inside.
        assert!(op_tensor_core_eligible("jit(f)/transpose(jvp(dot_general))"));
        assert!(op_tensor_core_eligible("jit(f)/conv_general_dilated[window_strides=(1, 1)]"));
        assert!(!op_tensor_core_eligible("model/dense/BiasAdd"));
        assert!(!op_tensor_core_eligible("model/dense/MatMulGrad"));
    }
}
