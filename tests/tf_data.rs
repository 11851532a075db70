//! tf.data bottleneck analysis on the `input_bound` fixture, whose pipeline
//! maps a busy-looping `py_function` (≈3 ms per element) with no parallelism.

use proflens_analysis::tools::tf_data::{analyze, combine, RANKED_CALLS};
use proflens_tests::{data_dir, load, xplane_files};

#[test]
fn the_busy_map_is_the_bottleneck_of_input_bound() {
    let profile = load(&xplane_files(&data_dir().join("xspace/input_bound"))[0]).unwrap();
    let a = analyze(&profile, "worker");
    assert!(a.is_input_bound, "{}", a.summary);
    assert_eq!(a.most_input_bound_host.as_deref(), Some("worker"));
    let slowest = &a.pipelines[0];
    assert!(slowest.name.starts_with("Host:") && slowest.host == "worker");
    let bottleneck = slowest.bottleneck().expect("a bottleneck");
    assert_eq!(bottleneck.name, "ParallelMapV2", "{:#?}", slowest.ranked_calls[0].graph);
    assert!(bottleneck.blocking && bottleneck.self_ps > 0);
    assert!(slowest.slow_calls > 0 && slowest.max_ps > 50_000_000);
    assert!(a.suggestion.as_deref().unwrap_or("").contains("num_parallel_calls"));
}

#[test]
fn pipelines_without_slow_calls_are_not_input_bound() {
    // custom_loop's in-memory pipeline keeps up with training.
    let profile = load(&xplane_files(&data_dir().join("xspace/custom_loop"))[0]).unwrap();
    let a = analyze(&profile, "h");
    assert!(!a.pipelines.is_empty());
    let jax = load(&xplane_files(&data_dir().join("xspace/jax_mlp"))[0]).unwrap();
    let none = analyze(&jax, "h");
    assert!(none.pipelines.is_empty() && !none.is_input_bound);
    assert_eq!(none.summary, "No tf.data activity was captured.");
}

#[test]
fn each_pipeline_keeps_its_slowest_calls_ranked() {
    let profile = load(&xplane_files(&data_dir().join("xspace/input_bound"))[0]).unwrap();
    let a = analyze(&profile, "worker");
    for p in &a.pipelines {
        let ranks: Vec<usize> = p.ranked_calls.iter().map(|c| c.rank).collect();
        assert_eq!(ranks, (1..=p.calls.min(RANKED_CALLS as u64) as usize).collect::<Vec<_>>(), "{}", p.name);
        assert_eq!(p.ranked_calls[0].duration_ps, p.max_ps);
        assert!(p.ranked_calls.windows(2).all(|w| w[0].duration_ps >= w[1].duration_ps));
        // Every call's graph starts at the call's own root iterator.
        assert!(p.ranked_calls.iter().all(|c| c.graph[0].id == p.root_id && c.graph[0].start_ps == c.start_ps));
    }
    let slow = &a.pipelines[0];
    assert!(slow.ranked_calls.len() > 1, "the input_bound pipeline runs many slow calls");
}

#[test]
fn the_most_input_bound_host_leads_across_hosts() {
    let busy = load(&xplane_files(&data_dir().join("xspace/input_bound"))[0]).unwrap();
    let calm = load(&xplane_files(&data_dir().join("xspace/custom_loop"))[0]).unwrap();
    let a = combine(vec![analyze(&calm, "calm"), analyze(&busy, "busy")]);
    assert_eq!(a.most_input_bound_host.as_deref(), Some("busy"));
    assert_eq!(a.pipelines[0].host, "busy");
    assert!(a.pipelines.iter().any(|p| p.host == "calm"));
    assert!(a.pipelines.windows(2).all(|w| w[0].max_ps >= w[1].max_ps));
    assert!(a.summary.contains("(host busy)"), "{}", a.summary);
}
