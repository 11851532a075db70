use super::*;
use crate::context::{Format, HostFile, Request};
use crate::registry;

struct Quiet;

impl crate::context::Hooks for Quiet {
    fn progress(&self, _: Option<f64>, _: &str) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
}

/// A synthetic rank: three steps of 100 µs, in each a launch of a GEMM and
/// of an all-reduce whose start differs by rank (`late` µs), and a memcpy.
fn trace(rank: i64, late: i64) -> Vec<u8> {
    let mut events = Vec::new();
    for step in 1..=3i64 {
        let at = 1_000_000 + (step - 1) * 100;
        let (c1, c2, c3) = (step * 10, step * 10 + 1, step * 10 + 2);
        events.push(format!(
            r#"{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{step}","pid":1,"tid":1,"ts":{at},"dur":100}}"#
        ));
        events.push(format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":{},"dur":5,"args":{{"External id":{c1}}}}}"#,
            at + 1
        ));
        for (c, ts, name) in
            [(c1, at + 2, "cudaLaunchKernel"), (c2, at + 3, "cudaLaunchKernel"), (c3, at + 4, "cudaMemcpyAsync")]
        {
            events.push(format!(
                r#"{{"ph":"X","cat":"cuda_runtime","name":"{name}","pid":1,"tid":1,"ts":{ts},"dur":1,"args":{{"correlation":{c},"External id":{c1}}}}}"#
            ));
        }
        events.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":{},"dur":20,"args":{{"device":0,"stream":7,"correlation":{c1},"External id":{c1},"grid":[1,1,1],"block":[128,1,1]}}}}"#,
            at + 5
        ));
        events.push(format!(
            r#"{{"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":8,"ts":{},"dur":30,"args":{{"device":0,"stream":8,"correlation":{c2}}}}}"#,
            at + 10 + late * step
        ));
        events.push(format!(
            r#"{{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":{},"dur":4,"args":{{"device":0,"stream":7,"correlation":{c3},"bytes":4096,"memory bandwidth (GB/s)":1.0}}}}"#,
            at + 60
        ));
    }
    format!(
        r#"{{"schemaVersion":1,"deviceProperties":[{{"id":0,"name":"NVIDIA A100","warpSize":32}}],"distributedInfo":{{"rank":{rank},"world_size":2}},"traceEvents":[{}]}}"#,
        events.join(",")
    )
    .into_bytes()
}

/// A rank's context, reading `bytes` (or failing when none: a rank that
/// has only its summary).
fn host(name: &str, bytes: Option<Vec<u8>>) -> Rc<HostContext> {
    let read: crate::context::ReadFile = match bytes {
        Some(b) => Box::new(move || Ok(proflens_format::source::in_memory(b.clone()))),
        None => Box::new(|| Err("the trace must not be read".into())),
    };
    let file = HostFile { path: format!("{name}.json"), tool: None, read };
    Rc::new(HostContext::new(name, vec![file], Rc::new(Quiet)))
}

fn decoded() -> [Rc<HostContext>; 2] {
    [host("rank-0", Some(trace(0, 0))), host("rank-1", Some(trace(1, 3)))]
}

fn combined(tool: &str, hosts: &[Rc<HostContext>], request: &Request) -> Result<String, String> {
    let tool = registry::find(tool).unwrap();
    registry::run(tool, hosts, request).and_then(|o| o.text(Format::Json)).map_err(|e| e.to_string())
}

#[test]
fn every_tool_combines_the_same_from_summaries_without_reading_a_trace() {
    let traces = decoded();
    let given = [host("rank-0", None), host("rank-1", None)];
    for (from, to) in traces.iter().zip(&given) {
        let file = RankSummary::of(from, None).unwrap().encode();
        match Summary::decode(&file).unwrap() {
            Summary::Rank(s) => s.give(to).unwrap(),
            Summary::Host(_) => panic!("a rank's summary read as a host's"),
        }
    }
    for id in COMBINED_FROM_RANK_SUMMARIES {
        let expected = combined(id, &traces, &Request::default()).unwrap();
        let got = combined(id, &given, &Request::default()).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(got, expected, "{id}");
    }
    assert!(given.iter().all(|h| h.pass_runs().iter().all(|(_, n)| *n == 0)));
    // The parts are the default request's: the last step asks for the trace.
    let last = Request { include_last_step: true, ..Request::default() };
    let e = combined("stragglers", &given, &last).unwrap_err();
    assert!(e.contains("must not be read"), "{e}");
    let e = combined("trace_viewer", &given, &Request::default()).unwrap_err();
    assert!(e.contains("must not be read"), "{e}");
    // A rank with only its summary (no trace at all) says so.
    let alone = Rc::new(HostContext::new("rank-0", Vec::new(), Rc::new(Quiet)));
    RankSummary::of(&traces[0], None).unwrap().give(&alone).unwrap();
    assert!(alone.is_kineto().unwrap());
    let e = combined("trace_viewer", &[alone.clone(), alone], &Request::default()).unwrap_err();
    assert!(e.contains("only its summary"), "{e}");
}

#[test]
fn a_rank_summary_is_no_host_summary_and_names_its_release_and_host() {
    let [rank0, _] = decoded();
    let written = RankSummary::of(&rank0, None).unwrap();
    assert_eq!(written.parts.len(), COMBINED_FROM_RANK_SUMMARIES.len());
    assert_eq!(RankSummary::decode_for_test(&written.encode()), Ok(written.clone()));
    // Never read as a host summary, nor a host summary as a rank's.
    let e = HostSummary::decode(&written.encode()).unwrap_err();
    assert!(e.contains("not a Proflens host summary"), "{e}");
    let host = HostSummary::new("h", None, crate::passes::host_analysis::HostAnalysis::new(&Default::default()));
    assert!(RankSummary::from_bytes(&host.to_bytes()).unwrap_err().contains("not a Proflens rank summary"));
    assert!(matches!(Summary::decode(&host.encode()), Ok(Summary::Host(_))));
    // Another release's, or damaged: refused with a word.
    let mut other = written.clone();
    other.proflens = "0.0.0-other".into();
    let e = Summary::decode(&other.encode()).unwrap_err();
    assert!(e.contains("0.0.0-other") && e.contains("summarize"), "{e}");
    let bytes = written.to_bytes();
    for cut in [1, bytes.len() / 2, bytes.len() - 1] {
        assert!(Summary::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    assert!(Summary::from_bytes(&[bytes.as_slice(), &[0]].concat()).unwrap_err().contains("after its end"));
    // Given to another host, whose labels it would not carry: refused.
    let e = written.give(&host_named("rank-7")).unwrap_err();
    assert!(e.contains("rank-0") && e.contains("rank-7"), "{e}");
}

fn host_named(name: &str) -> Rc<HostContext> {
    host(name, None)
}

impl RankSummary {
    fn decode_for_test(bytes: &[u8]) -> Result<RankSummary, String> {
        match Summary::decode(bytes)? {
            Summary::Rank(s) => Ok(s),
            Summary::Host(_) => Err("a host summary".into()),
        }
    }
}

#[test]
fn a_tool_without_a_part_has_none_and_an_xspace_host_no_rank_summary() {
    let [rank0, _] = decoded();
    assert!(Part::of("trace_viewer", &rank0).is_none());
    assert!(COMBINED_FROM_RANK_SUMMARIES.iter().all(|t| Part::of(t, &rank0).unwrap().unwrap().tool() == *t));
    let xspace = host("h", Some(Vec::new()));
    assert!(RankSummary::of(&xspace, None).is_err());
}
