//! Memory viewer against XProf 2.24's goldens (`memory_viewer.<module>.json`)
//! on GPU, TPU and CPU (XLA) profiles.
//!
//! Compared: module and entry names, peak (padded and unpadded) and the
//! allocation totals within 0.1%, the heap-size timeline point by point, the
//! buffers at the peak (label, id, size, shape, op, group, source) in the same
//! order and by size, the buffer live ranges, the indefinite allocations, and
//! the timeline blocks, every field (colours too: XProf's drawing counter
//! colours the buffers not shown at the peak).

use proflens_analysis::tools::memory_viewer::{memory_viewer, select_module, to_xprof_json};
use proflens_tests::{data_dir, load};
use serde_json::Value;

fn close(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-3 * y.abs() + 1e-9,
        _ => a == b,
    }
}

fn check(profile_path: &str, golden: &str, module: &str) {
    let profile = load(&data_dir().join(profile_path)).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile);
    let m = select_module(&modules.modules, Some(module)).unwrap_or_else(|| panic!("module {module}"));
    let ours = to_xprof_json(&memory_viewer(m, 0).unwrap());
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(data_dir().join("goldens").join(golden)).unwrap()).unwrap();
    let keys: Vec<&String> = theirs.as_object().unwrap().keys().collect();
    let mut our_keys: Vec<&String> = ours.as_object().unwrap().keys().collect();
    our_keys.sort();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(our_keys, sorted, "{golden}: fields");
    for key in keys {
        let (o, t) = (&ours[key], &theirs[key]);
        match key.as_str() {
            "bufferBlocks" => {
                let (o, t) = (o.as_array().unwrap(), t.as_array().unwrap());
                let names = |v: &Vec<Value>| v.iter().map(|b| b["name"].to_string()).collect::<Vec<_>>().join(" ");
                assert_eq!(o.len(), t.len(), "{golden}: buffer blocks\n{}\n{}", names(o), names(t));
                for (a, b) in o.iter().zip(t) {
                    for (k, v) in b.as_object().unwrap() {
                        assert!(close(&a[k], v), "{golden}: block {} {k}: {} vs {v}", b["name"], a[k]);
                    }
                    assert_eq!(a.as_object().unwrap().len(), b.as_object().unwrap().len(), "{golden}: block {b}");
                }
            }
            _ => assert_values(o, t, &format!("{golden}: {key}")),
        }
    }
}

/// Deep comparison with numbers within 0.1%.
fn assert_values(o: &Value, t: &Value, here: &str) {
    match (o, t) {
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{here}: length");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_values(x, y, &format!("{here}[{i}]"));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            let (mut ka, mut kb): (Vec<_>, Vec<_>) = (a.keys().collect(), b.keys().collect());
            ka.sort();
            kb.sort();
            assert_eq!(ka, kb, "{here}: keys");
            for (k, y) in b {
                assert_values(&a[k], y, &format!("{here}.{k}"));
            }
        }
        _ => assert!(close(o, t), "{here}: {o} vs {t}"),
    }
}

#[test]
fn gpu_gemm_modules_match_xprof() {
    let p = "xspace/external/tw003.xplane.pb";
    check(p, "jax-mi300x-gemm-xplane/memory_viewer.jit_dot(5).json", "jit_dot(5)");
    check(p, "jax-mi300x-gemm-xplane/memory_viewer.jit_dot(21).json", "jit_dot(21)");
}

#[test]
fn gpu_conv_modules_match_xprof() {
    let p = "xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb";
    check(p, "jax-mi300x-conv-xplane-jax06/memory_viewer.jit_forward_3d_conv(15).json", "jit_forward_3d_conv(15)");
    check(p, "jax-mi300x-conv-xplane-jax06/memory_viewer.jit__multi_slice(13).json", "jit__multi_slice(13)");
}

#[test]
fn tpu_module_matches_xprof() {
    check(
        "xspace/external/tpu_inference_2.xplane.pb",
        "jax-tpu-v6e-inference-xplane/memory_viewer.jit_f(12190760917235803885).json",
        "jit_f(12190760917235803885)",
    );
}

#[test]
fn cpu_jax_module_matches_xprof() {
    check(
        "xspace/jax_mlp/plugins/profile/2026_11_22_09_04_56/vm.xplane.pb",
        "jax_mlp/memory_viewer.jit_train_step(30).json",
        "jit_train_step(30)",
    );
}

#[test]
fn cpu_tensorflow_xla_module_matches_xprof() {
    let module = "a_inference_train_step_1331__XlaMustCompile_true_config_proto_13561319589895757934_executor_type_11160318154034397263_.25(72)";
    check(
        "xspace/custom_loop_xla/plugins/profile/2026_11_22_09_04_39/vm.xplane.pb",
        &format!("custom_loop_xla/memory_viewer.{module}.json"),
        module,
    );
}

#[test]
fn default_module_is_the_largest() {
    let profile = load(&data_dir().join("xspace/external/tw003.xplane.pb")).unwrap();
    let modules = proflens_format::hlo::hlo_modules(&profile);
    let m = select_module(&modules.modules, None).unwrap();
    let largest = modules
        .modules
        .iter()
        .map(|m| m.buffer_assignment.as_ref().map_or(0, |b| b.allocations.iter().map(|a| a.size).sum::<i64>()))
        .max()
        .unwrap();
    assert_eq!(m.buffer_assignment.as_ref().unwrap().allocations.iter().map(|a| a.size).sum::<i64>(), largest);
}
