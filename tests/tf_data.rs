//! tf.data bottleneck analysis on the `input_bound` fixture, whose pipeline
//! maps a busy-looping `py_function` (≈3 ms per element) with no parallelism.

use proflens_analysis::tf_data::analyze;
use proflens_tests::{data_dir, load, xplane_files};

#[test]
fn the_busy_map_is_the_bottleneck_of_input_bound() {
    let profile = load(&xplane_files(&data_dir().join("xspace/input_bound"))[0]).unwrap();
    let a = analyze(&profile);
    assert!(a.is_input_bound, "{}", a.summary);
    let slowest = &a.pipelines[0];
    assert!(slowest.name.starts_with("Host:"));
    let bottleneck = slowest.graph.iter().find(|n| Some(n.id) == slowest.bottleneck).expect("a bottleneck");
    assert_eq!(bottleneck.name, "ParallelMapV2", "{:#?}", slowest.graph);
    assert!(bottleneck.blocking && bottleneck.self_ps > 0);
    assert!(slowest.slow_calls > 0 && slowest.max_ps > 50_000_000);
    assert!(a.suggestion.as_deref().unwrap_or("").contains("num_parallel_calls"));
}

#[test]
fn pipelines_without_slow_calls_are_not_input_bound() {
    // custom_loop's in-memory pipeline keeps up with training.
    let profile = load(&xplane_files(&data_dir().join("xspace/custom_loop"))[0]).unwrap();
    let a = analyze(&profile);
    assert!(!a.pipelines.is_empty());
    let jax = load(&xplane_files(&data_dir().join("xspace/jax_mlp"))[0]).unwrap();
    let none = analyze(&jax);
    assert!(none.pipelines.is_empty() && !none.is_input_bound);
    assert_eq!(none.summary, "No tf.data activity was captured.");
}
