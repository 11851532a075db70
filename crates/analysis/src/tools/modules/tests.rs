use super::*;

/// A trace as Kineto writes it with `with_stack=True` (µs, host thread 1):
///
/// * `Net_0` [100, 200) holds `Linear_0` [110, 130) and `Linear_1`
///   [140, 170); `Net_0` is called again at [300, 350) with `Linear_0`
///   [310, 320);
/// * launches (correlation → kernel µs): 115 in Linear_0 → 5; 150 in
///   Linear_1 → 7; a `cudaGraphLaunch` at 160 in Linear_1 → 1 + 2 + 3;
///   180 in Net_0 itself → 4; 315 in the second Linear_0 → 10; 400
///   outside any module → 100.
fn trace(with_modules: bool) -> proflens_model::Profile {
    let mut ev: Vec<String> = Vec::new();
    let mut x = |cat: &str, name: &str, ts: i64, dur: i64, args: String| {
        ev.push(format!(
            r#"{{"ph":"X","cat":"{cat}","name":"{name}","pid":1,"tid":1,"ts":{ts},"dur":{dur},"args":{{{args}}}}}"#
        ))
    };
    if with_modules {
        for (name, ts, dur) in [
            ("Net_0", 100, 100),
            ("Linear_0", 110, 20),
            ("Linear_1", 140, 30),
            ("Net_0", 300, 50),
            ("Linear_0", 310, 10),
        ] {
            x("python_function", &format!("nn.Module: {name}"), ts, dur, String::new());
        }
    }
    x("python_function", "model.py(12): forward", 100, 100, String::new());
    x("cpu_op", "aten::linear", 112, 16, r#""External id":1"#.into());
    let launches = [(115, 1, "cudaLaunchKernel"), (150, 2, "cudaLaunchKernel"), (160, 3, "cudaGraphLaunch")];
    let launches = launches.into_iter().chain([(180, 4, "cudaLaunchKernel"), (315, 5, "cudaLaunchKernel")]);
    for (ts, corr, name) in launches.chain([(400, 6, "cudaLaunchKernel")]) {
        x("cuda_runtime", name, ts, 1, format!(r#""correlation":{corr}"#));
    }
    let kernels = [(1, 5), (2, 7), (3, 1), (3, 2), (3, 3), (4, 4), (5, 10), (6, 100)];
    for (i, (corr, dur)) in kernels.into_iter().enumerate() {
        ev.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"k{i}","pid":0,"tid":7,"ts":{},"dur":{dur},"args":{{"correlation":{corr},"device":0,"stream":7}}}}"#,
            1000 + 200 * i
        ));
    }
    let json = format!(r#"{{"schemaVersion":1,"traceEvents":[{}]}}"#, ev.join(","));
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

const US: i64 = 1_000_000;

/// (path, parent, depth, class, occurrences, host µs, host self µs).
type Shape<'a> = (&'a str, Option<usize>, usize, &'a str, u64, i64, i64);

#[test]
fn modules_nest_and_add_up_their_calls() {
    let m = modules(&KinetoIndex::new(&trace(true)));
    assert_eq!(m.message, None);
    assert_eq!(m.calls, 5);
    let got: Vec<Shape> = m
        .rows
        .iter()
        .map(|r| {
            (
                r.path.as_str(),
                r.parent,
                r.depth,
                r.module.as_str(),
                r.occurrences,
                r.host_total_ps / US,
                r.host_self_ps / US,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            // 150 µs over two calls, less 20 + 30 + 10 µs of Linear calls.
            ("Net_0", None, 0, "Net", 2, 150, 90),
            ("Net_0/Linear_0", Some(0), 1, "Linear", 2, 30, 30),
            ("Net_0/Linear_1", Some(0), 1, "Linear", 1, 30, 30),
        ]
    );
    let kernels: Vec<(u64, i64, u64, i64)> = m
        .rows
        .iter()
        .map(|r| (r.kernels_total, r.kernel_total_ps / US, r.kernels_self, r.kernel_self_ps / US))
        .collect();
    // Net_0: everything but the 100 µs kernel launched outside any module;
    // Linear_1: 7 µs and the graph's three kernels.
    assert_eq!(kernels, vec![(7, 32, 1, 4), (2, 15, 2, 15), (4, 13, 4, 13)]);
    let csv = to_csv(&m);
    assert!(csv.lines().nth(2).unwrap().starts_with("1,0,1,Net_0/Linear_0,Linear,2,30,30,2,15,2,15"), "{csv}");
}

#[test]
fn a_trace_without_module_events_says_so() {
    let m = modules(&KinetoIndex::new(&trace(false)));
    assert!(m.rows.is_empty());
    assert_eq!(m.message.as_deref(), Some(NO_MODULES));
    assert!(NO_MODULES.contains("with_stack=True"));
}

#[test]
fn instance_numbers_are_not_the_class() {
    assert_eq!(class_of("BertLayer_11"), "BertLayer");
    assert_eq!(class_of("Conv2d"), "Conv2d");
    assert_eq!(class_of("my_block_"), "my_block_");
}
