//! SYNTHETIC Perfetto traces for the tests, encoded field by field from the
//! message definitions (protos/perfetto/trace/…): no real `*.pftrace` small
//! enough to commit was found (Perfetto's own test traces are LFS pointers).
//!
//! * [`kineto_writer`]: the packets libkineto's `PerfettoTraceBuilder` writes
//!   (its process track `Kineto Trace`, `trace_metadata` and
//!   `device_properties` instants, thread tracks per resource, a child track
//!   per activity with its `metadata` and `correlation_id` annotations and
//!   flow id), for a profiler step, an op, its kernel launch and the kernel;
//!   with `categories`, each activity also carries its JSON trace's `cat`.
//! * [`sdk`]: the SDK's encoding: interned names, categories and annotation
//!   names, sequence flags (and a sequence that loses packets), defaults,
//!   an incremental sequence-scoped clock,
//!   counter tracks (one incremental), extra counter values, nested and
//!   unmatched slices, dict/array annotations and a terminated flow.

/// A message being encoded.
#[derive(Default, Clone)]
pub(crate) struct Msg(pub Vec<u8>);

impl Msg {
    pub fn new() -> Msg {
        Msg::default()
    }
    pub fn varint(mut self, field: u64, v: u64) -> Msg {
        put_varint(&mut self.0, field << 3);
        put_varint(&mut self.0, v);
        self
    }
    pub fn int(self, field: u64, v: i64) -> Msg {
        self.varint(field, v as u64)
    }
    pub fn fixed64(mut self, field: u64, v: u64) -> Msg {
        put_varint(&mut self.0, field << 3 | 1);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn double(self, field: u64, v: f64) -> Msg {
        self.fixed64(field, v.to_bits())
    }
    pub fn bytes(mut self, field: u64, b: &[u8]) -> Msg {
        put_varint(&mut self.0, field << 3 | 2);
        put_varint(&mut self.0, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    pub fn str(self, field: u64, s: &str) -> Msg {
        self.bytes(field, s.as_bytes())
    }
    pub fn msg(self, field: u64, m: Msg) -> Msg {
        self.bytes(field, &m.0)
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A `Trace` of these packets.
pub(crate) fn trace(packets: Vec<Msg>) -> Vec<u8> {
    packets.into_iter().fold(Msg::new(), |t, p| t.msg(1, p)).0
}

// TrackEvent types.
const BEGIN: u64 = 1;
const END: u64 = 2;
const INSTANT: u64 = 3;
const COUNTER: u64 = 4;

/// Kineto's writer uses one random sequence id for every packet.
const KINETO_SEQ: u64 = 0x5eed;

/// An epoch-ns base, as Kineto's timestamps are: exactness is tested there.
pub(crate) const T0: u64 = 1_700_000_000_123_456_789;

fn kineto_packet() -> Msg {
    Msg::new().varint(10, KINETO_SEQ)
}

fn process_track(uuid: u64, pid: i64, track_name: &str, process_name: &str) -> Msg {
    let process = Msg::new().int(1, pid).str(6, process_name);
    kineto_packet().msg(60, Msg::new().varint(1, uuid).str(2, track_name).msg(3, process))
}

fn thread_track(uuid: u64, parent: u64, pid: i64, tid: i64, name: &str) -> Msg {
    let thread = Msg::new().int(1, pid).int(2, tid).str(5, name);
    kineto_packet().msg(60, Msg::new().varint(1, uuid).varint(5, parent).str(2, name).msg(4, thread))
}

fn str_annotation(name: &str, value: &str) -> Msg {
    Msg::new().str(10, name).str(6, value)
}

/// One activity as `handleActivity` writes it: a child track of its
/// resource's track, a begin with the annotations and flow, an end.
#[allow(clippy::too_many_arguments)]
fn activity(
    packets: &mut Vec<Msg>,
    uuid: u64,
    parent: (u64, &str),
    name: &str,
    cat: Option<&str>,
    start: u64,
    dur: u64,
    metadata: &str,
    correlation: u64,
) {
    packets.push(kineto_packet().msg(60, Msg::new().varint(1, uuid).varint(5, parent.0).str(2, parent.1)));
    let mut begin = Msg::new().varint(9, BEGIN).str(23, name).varint(11, uuid);
    if let Some(cat) = cat {
        begin = begin.str(22, cat);
    }
    begin = begin.msg(4, str_annotation("metadata", metadata));
    if correlation != 0 {
        begin = begin.msg(4, Msg::new().str(10, "correlation_id").int(4, correlation as i64));
        begin = begin.fixed64(47, correlation);
    }
    packets.push(kineto_packet().varint(8, T0 + start).msg(11, begin));
    packets.push(kineto_packet().varint(8, T0 + start + dur).msg(11, Msg::new().varint(9, END).varint(11, uuid)));
}

/// The packets of Kineto's Perfetto writer for one step (see the module
/// docs); `categories` adds each activity's JSON `cat`.
pub(crate) fn kineto_writer(categories: bool) -> Vec<u8> {
    let cat = |c: &'static str| categories.then_some(c);
    let mut p = vec![process_track(1, 0, "Kineto Trace", "Kineto Trace")];
    let metadata = |key: &str, value: &str| {
        let event = Msg::new().varint(9, INSTANT).str(23, "trace_metadata").varint(11, 1);
        kineto_packet().msg(11, event.msg(4, str_annotation(key, value)))
    };
    p.push(metadata("distributedInfo", r#"{"backend": "nccl", "rank": 1, "world_size": 2}"#));
    p.push(metadata("cupti_version", "24"));
    let props = r#"{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045379072, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132}"#;
    let device_properties = Msg::new().varint(9, INSTANT).str(23, "device_properties").varint(11, 1);
    p.push(kineto_packet().msg(11, device_properties.msg(4, str_annotation("properties", props))));
    p.push(process_track(2, 4242, "python3 [CPU]", "python3"));
    p.push(process_track(3, 0, "GPU 0 [CUDA HW]", "GPU 0"));
    // handleResourceInfo: thread tracks under the writer's own process track.
    let host = (4, "thread 4243 (python3)");
    let stream = (5, "stream 7");
    p.push(thread_track(host.0, 1, 4242, 4243, host.1));
    p.push(thread_track(stream.0, 1, 0, 7, stream.1));
    activity(&mut p, 10, host, "ProfilerStep#1", cat("user_annotation"), 0, 50_000, r#""External id": 1"#, 0);
    let mm = r#""External id": 5, "Sequence number": 9, "Input Dims": [[8, 8], [8, 8]]"#;
    activity(&mut p, 11, host, "aten::mm", cat("cpu_op"), 1_000, 20_000, mm, 0);
    let launch = r#""External id": 5, "cbid": 211, "correlation": 42"#;
    activity(&mut p, 12, host, "cudaLaunchKernel", cat("cuda_runtime"), 5_000, 4_000, launch, 42);
    let kernel = r#""queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 42, "registers per thread": 32, "shared memory": 0, "blocks per SM": 0.5, "warps per SM": 2.0, "grid": [66, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 6"#;
    activity(&mut p, 13, stream, "gemm_kernel", cat("kernel"), 12_000, 7_500, kernel, 42);
    trace(p)
}

/// Sequence ids of [`sdk`]: the thread's (incremental state), the
/// descriptors' and counters' (none), one that loses packets.
const SDK_SEQ: u64 = 1;
const PLAIN_SEQ: u64 = 2;
const LOST_SEQ: u64 = 3;

/// Boot time of the clock snapshot; clock 64 is 1000 there, in µs.
pub(crate) const SDK_BOOT: u64 = 5_000_000;

fn on(seq: u64) -> Msg {
    Msg::new().varint(10, seq)
}

/// An SDK-style trace (see the module docs). Its slices, on boot time:
/// `outer` 5.010–5.050 ms with `inner` 5.015–5.020 ms inside, `request 1`
/// 5.060–5.070 ms, `reply` 5.080–5.085 ms, `never ends` from 5.095 ms; instants `tick` at 5.030
/// ms and `last` at 5.100 ms.
pub(crate) fn sdk() -> Vec<u8> {
    let mut p = Vec::new();
    // Tracks: process 100 with thread 101, a named child track, two counters.
    let process = Msg::new().int(1, 100).str(6, "app");
    p.push(on(PLAIN_SEQ).msg(60, Msg::new().varint(1, 10).msg(3, process)));
    let thread = Msg::new().int(1, 100).int(2, 101).str(5, "main");
    p.push(on(PLAIN_SEQ).msg(60, Msg::new().varint(1, 11).varint(5, 10).msg(4, thread)));
    p.push(on(PLAIN_SEQ).msg(60, Msg::new().varint(1, 12).varint(5, 10).str(2, "requests")));
    let gauge = Msg::new().varint(3, 2);
    p.push(on(PLAIN_SEQ).msg(60, Msg::new().varint(1, 20).varint(5, 10).str(2, "queue depth").msg(8, gauge)));
    let incremental = Msg::new().varint(5, 1).varint(4, 2);
    p.push(on(PLAIN_SEQ).msg(60, Msg::new().varint(1, 21).varint(5, 10).str(2, "bytes sent").msg(8, incremental)));
    // The thread's sequence: cleared, defaults, clock 64 counting µs deltas.
    let defaults = Msg::new().varint(58, 64).msg(11, Msg::new().varint(11, 11));
    let snapshot = Msg::new()
        .msg(1, Msg::new().varint(1, 6).varint(2, SDK_BOOT))
        .msg(1, Msg::new().varint(1, 64).varint(2, 1000).varint(3, 1).varint(4, 1000));
    p.push(on(SDK_SEQ).varint(13, 1).msg(59, defaults).msg(6, snapshot));
    let interned = Msg::new()
        .msg(2, Msg::new().varint(1, 1).str(2, "outer"))
        .msg(2, Msg::new().varint(1, 2).str(2, "inner"))
        .msg(1, Msg::new().varint(1, 1).str(2, "app"))
        .msg(3, Msg::new().varint(1, 1).str(2, "size"))
        .msg(29, Msg::new().varint(1, 1).str(2, "hello"));
    let dict = Msg::new()
        .str(10, "dict")
        .msg(11, Msg::new().str(10, "a").varint(2, 1))
        .msg(11, Msg::new().str(10, "b").msg(12, Msg::new().int(4, 1)).msg(12, Msg::new().varint(17, 1)));
    let outer = Msg::new()
        .varint(9, BEGIN)
        .varint(10, 1)
        .varint(3, 1)
        .msg(4, Msg::new().varint(1, 1).int(4, 42))
        .msg(4, dict)
        .fixed64(47, 7);
    let needs = |delta: u64| on(SDK_SEQ).varint(13, 2).varint(8, delta);
    p.push(needs(10).msg(12, interned).msg(11, outer));
    p.push(needs(5).msg(11, Msg::new().varint(9, BEGIN).varint(10, 2)));
    p.push(needs(5).msg(11, Msg::new().varint(9, END).msg(4, str_annotation("result", "ok"))));
    p.push(needs(10).msg(11, Msg::new().varint(9, INSTANT).str(23, "tick").str(22, "app")));
    p.push(needs(20).msg(11, Msg::new().varint(9, END)));
    p.push(needs(1).msg(11, Msg::new().varint(9, END)));
    // Boot-clock events on a sequence without state.
    let at = |ns: u64| on(PLAIN_SEQ).varint(8, ns);
    let request = Msg::new().varint(9, BEGIN).varint(11, 12).str(23, "request 1").fixed64(47, 7);
    p.push(at(5_060_000).msg(11, request));
    p.push(at(5_070_000).msg(11, Msg::new().varint(9, END).varint(11, 12)));
    let reply = Msg::new().varint(9, BEGIN).varint(11, 11).str(23, "reply").fixed64(48, 7).varint(31, 20).varint(12, 9);
    p.push(at(5_080_000).msg(11, reply));
    p.push(at(5_085_000).msg(11, Msg::new().varint(9, END).varint(11, 11)));
    let again = Msg::new().varint(9, BEGIN).varint(11, 11).str(23, "again").fixed64(47, 7);
    p.push(at(5_087_000).msg(11, again));
    p.push(at(5_088_000).msg(11, Msg::new().varint(9, END).varint(11, 11)));
    p.push(at(5_095_000).msg(11, Msg::new().varint(9, BEGIN).varint(11, 12).str(23, "never ends")));
    p.push(at(5_100_000).msg(11, Msg::new().varint(9, INSTANT).varint(11, 11).str(23, "last")));
    // Counters: a gauge (int, then double) and an incremental one (×2).
    p.push(at(5_010_000).msg(11, Msg::new().varint(9, COUNTER).varint(11, 20).int(30, 3)));
    p.push(at(5_040_000).msg(11, Msg::new().varint(9, COUNTER).varint(11, 20).double(44, 2.5)));
    p.push(at(5_020_000).msg(11, Msg::new().varint(9, COUNTER).varint(11, 21).int(30, 100)));
    p.push(at(5_030_000).msg(11, Msg::new().varint(9, COUNTER).varint(11, 21).int(30, 50)));
    // Left out: state lost with a dropped packet; a sequence clock without a snapshot.
    p.push(
        on(LOST_SEQ)
            .varint(42, 1)
            .varint(13, 2)
            .varint(8, 5_020_000)
            .msg(11, Msg::new().varint(9, INSTANT).varint(11, 11)),
    );
    p.push(at(7).varint(58, 65).msg(11, Msg::new().varint(9, INSTANT).varint(11, 11).str(23, "lost")));
    trace(p)
}

/// `trace`'s packets as one zlib-compressed bundle (`compressed_packets`),
/// as `traced` writes them when its config asks for compression.
pub(crate) fn compressed(trace_bytes: &[u8]) -> Vec<u8> {
    let bundle = miniz_oxide::deflate::compress_to_vec_zlib(trace_bytes, 6);
    trace(vec![Msg::new().bytes(50, &bundle)])
}
