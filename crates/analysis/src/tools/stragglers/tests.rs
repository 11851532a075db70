use super::*;

/// One rank: steps 1–3 of 100 µs from `t0`; in steps 1 and 2 an all-reduce
/// launched at the step's start that runs from `start` µs into the step for
/// `dur` µs, on stream 7; a short send (1 µs, under 1 % of a step) on
/// stream 9. Times are whole µs since the epoch's first second.
fn rank(rank: i64, starts: [(i64, i64); 2]) -> Profile {
    let mut events = Vec::new();
    let t0 = 1_000_000;
    for step in 1..=3 {
        let at = t0 + (step - 1) * 100;
        events.push(format!(
            r#"{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{step}","pid":1,"tid":1,"ts":{at},"dur":100}}"#
        ));
    }
    for (i, (start, dur)) in starts.iter().enumerate() {
        let at = t0 + i as i64 * 100;
        let (c1, c2) = (10 + i, 20 + i);
        events.push(format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{at},"dur":1,"args":{{"correlation":{c1}}}}}"#
        ));
        events.push(format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":1,"args":{{"correlation":{c2}}}}}"#,
            at + 1
        ));
        events.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":7,"ts":{},"dur":{dur},"args":{{"device":0,"stream":7,"correlation":{c1}}}}}"#,
            at + start
        ));
        events.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"ncclKernel_Send","pid":0,"tid":9,"ts":{},"dur":1,"args":{{"device":0,"stream":9,"correlation":{c2}}}}}"#,
            at + 2
        ));
    }
    let json = format!(
        r#"{{"schemaVersion":1,"distributedInfo":{{"rank":{rank},"world_size":2}},"traceEvents":[{}]}}"#,
        events.join(",")
    );
    proflens_format::load_profile(json.as_bytes(), &Default::default(), &mut |_| {}).unwrap()
}

#[test]
fn the_late_starter_is_the_straggler() {
    // Rank 1 starts its all-reduce 40 µs into step 1 (rank 0: 10 µs) and
    // 30 µs into step 2 (rank 0: 35 µs); both end at about the same time.
    let r0 = rank(0, [(10, 50), (35, 20)]);
    let r1 = rank(1, [(40, 20), (30, 25)]);
    let summaries = [RankSummary::new(0, "r0", &r0, false), RankSummary::new(1, "r1", &r1, false)];
    let got = stragglers(&summaries, 1, false).unwrap();
    // The last step (3) is dropped: iterations 1 and 2, spanning the first
    // event of step 1 to the last end in step 2 (step 2's host range, 200 µs).
    assert_eq!(got.iterations, [1, 2]);
    assert_eq!(got.mean_iteration_us, 100.0);
    // The send is under 1 µs = 1 % of 100 µs? It lasts exactly 1 µs, so it
    // passes the duration test but its duration never differs between ranks
    // (std 0); the all-reduce's does, so it is the metric.
    assert!(got.rows.iter().all(|r| r.name == "ncclKernel_AllReduce" && r.stream == 7));
    let starts: Vec<(i64, i64, f64, bool)> =
        got.rows.iter().map(|r| (r.rank, r.iteration, r.normalized_start_time, r.is_straggler)).collect();
    assert_eq!(starts, [(0, 1, 0.10, false), (1, 1, 0.40, true), (0, 2, 1.35, true), (1, 2, 1.30, false)]);
    assert_eq!(got.straggler_counts, [(0, 1), (1, 1)]);
    let late: Vec<i64> = got.rows.iter().map(|r| r.late_by_us).collect();
    assert_eq!(late, [0, 30, 5, 0]);
    // A tie in counts goes to the lower rank.
    assert_eq!(got.potential_stragglers, [0]);
    // Aligned on the earliest event of both ranks (the first step's start).
    assert_eq!(got.rows[0].ts, 10);
    // With the last step, step 3 counts too (no kernel there): 3 iterations
    // over 300 µs.
    let with_last = [RankSummary::new(0, "r0", &r0, true), RankSummary::new(1, "r1", &r1, true)];
    let got = stragglers(&with_last, 1, true).unwrap();
    assert_eq!((got.iterations.as_slice(), got.mean_iteration_us), (&[1, 2, 3][..], 100.0));
}

#[test]
fn one_rank_or_no_steps_say_why() {
    let r0 = rank(0, [(10, 50), (35, 20)]);
    let err = stragglers(&[RankSummary::new(0, "r0", &r0, false)], 1, false).unwrap_err();
    assert!(err.starts_with("Stragglers compare the ranks of one job"), "{err}");
    let plain = proflens_format::load_profile(
        br#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":1,"dur":1}]}"#,
        &Default::default(),
        &mut |_| {},
    )
    .unwrap();
    let s = [RankSummary::new(0, "a", &plain, false), RankSummary::new(1, "b", &plain, false)];
    assert!(stragglers(&s, 1, false).unwrap_err().starts_with("No rank has a ProfilerStep#N step"));
}
