//! CUPTI activity records from their bytes, as `cuptiActivityGetNextRecord`
//! hands them out: the layouts of CUDA 12's `cupti_activity.h`
//! (CUpti_ActivityKernel9, Memcpy5, MemcpyPtoP4, Memset4, API, Overhead,
//! Synchronization, Marker2), read field by field at fixed offsets so no
//! unsafe struct casts are needed and a short buffer is an error, not UB.
//! Only the leading fields are read; they are the same in every struct
//! version since CUDA 11, later versions only append.
//!
//! Names are `const char*` owned by CUPTI: the caller resolves them (the
//! injection library with `CStr`, tests with a table).

use super::records::*;

/// `CUpti_ActivityKind` values that are read.
pub mod kind {
    pub const MEMCPY: u32 = 1;
    pub const MEMSET: u32 = 2;
    pub const KERNEL: u32 = 3;
    pub const DRIVER: u32 = 4;
    pub const RUNTIME: u32 = 5;
    pub const CONCURRENT_KERNEL: u32 = 10;
    pub const MARKER: u32 = 12;
    pub const OVERHEAD: u32 = 17;
    pub const MEMCPY2: u32 = 22;
    pub const SYNCHRONIZATION: u32 = 38;
}

/// `CUpti_ActivityFlag` bits of markers.
const MARKER_START: u32 = 1 << 1;
const MARKER_END: u32 = 1 << 2;
/// `CUpti_ActivityFlag` bit of asynchronous copies and sets.
const ASYNC: u32 = 1;
/// `CUpti_ActivityObjectKind`.
const OBJECT_THREAD: u32 = 2;
const OBJECT_PROCESS: u32 = 1;
/// `CUPTI_SYNCHRONIZATION_INVALID_VALUE`: the wait has no stream.
const NO_STREAM: u32 = u32::MAX;

/// What one activity record says.
#[derive(Debug, Clone, PartialEq)]
pub enum Activity {
    Record(Record),
    /// An NVTX range opened (MARKER with the START flag).
    MarkerStart {
        id: u32,
        name: String,
        domain: Option<String>,
        timestamp_ns: u64,
        thread_id: u32,
    },
    /// An NVTX range closed.
    MarkerEnd {
        id: u32,
        timestamp_ns: u64,
    },
    /// A kind (or marker flavour) the collector does not convert.
    Ignored(u32),
}

/// The bytes a record of `kind` must have for [`parse`] (its leading fields).
pub fn record_len(kind: u32) -> usize {
    match kind {
        kind::KERNEL | kind::CONCURRENT_KERNEL => 112,
        kind::MEMCPY => 48,
        kind::MEMCPY2 => 64,
        kind::MEMSET => 52,
        kind::DRIVER | kind::RUNTIME => 40,
        kind::OVERHEAD => 40,
        kind::SYNCHRONIZATION => 40,
        kind::MARKER => 56,
        _ => 4,
    }
}

/// Field reads at byte offsets, in the host's byte order (CUPTI writes native structs).
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> Result<[u8; N], String> {
        self.0
            .get(at..at + N)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| format!("record of {} bytes is too short for a field at {at}", self.0.len()))
    }
    fn u8(&self, at: usize) -> Result<u8, String> {
        Ok(self.bytes::<1>(at)?[0])
    }
    fn u16(&self, at: usize) -> Result<u16, String> {
        Ok(u16::from_ne_bytes(self.bytes(at)?))
    }
    fn u32(&self, at: usize) -> Result<u32, String> {
        Ok(u32::from_ne_bytes(self.bytes(at)?))
    }
    fn i32(&self, at: usize) -> Result<i32, String> {
        Ok(i32::from_ne_bytes(self.bytes(at)?))
    }
    fn u64(&self, at: usize) -> Result<u64, String> {
        Ok(u64::from_ne_bytes(self.bytes(at)?))
    }
}

/// Parses one record. `string` resolves a `const char*` (0 = null) to its text.
pub fn parse(bytes: &[u8], string: &dyn Fn(u64) -> Option<String>) -> Result<Activity, String> {
    let f = Fields(bytes);
    let k = f.u32(0)?;
    let name = |at: usize| -> Result<Option<String>, String> {
        let ptr = f.u64(at)?;
        Ok(if ptr == 0 { None } else { string(ptr) })
    };
    Ok(Activity::Record(match k {
        kind::KERNEL | kind::CONCURRENT_KERNEL => Record::Kernel(Kernel {
            registers_per_thread: f.u16(6)?,
            start_ns: f.u64(16)?,
            end_ns: f.u64(24)?,
            device_id: f.u32(40)?,
            context_id: f.u32(44)?,
            stream_id: f.u32(48)?,
            grid: [f.i32(52)?, f.i32(56)?, f.i32(60)?],
            block: [f.i32(64)?, f.i32(68)?, f.i32(72)?],
            static_shared_memory: f.i32(76)?,
            dynamic_shared_memory: f.i32(80)?,
            correlation_id: f.u32(92)?,
            name: name(104)?.unwrap_or_else(|| "(unnamed kernel)".to_string()),
        }),
        kind::MEMCPY | kind::MEMCPY2 => {
            let p2p = k == kind::MEMCPY2;
            Record::Memcpy(Memcpy {
                copy_kind: if p2p { CopyKind::PtoP } else { CopyKind::from_raw(f.u8(4)?) },
                src_kind: MemoryKind::from_raw(u32::from(f.u8(5)?)),
                dst_kind: MemoryKind::from_raw(u32::from(f.u8(6)?)),
                is_async: u32::from(f.u8(7)?) & ASYNC != 0,
                bytes: f.u64(8)?,
                start_ns: f.u64(16)?,
                end_ns: f.u64(24)?,
                device_id: f.u32(32)?,
                context_id: f.u32(36)?,
                stream_id: f.u32(40)?,
                correlation_id: if p2p { f.u32(60)? } else { f.u32(44)? },
                dst_device_id: if p2p { Some(f.u32(52)?) } else { None },
            })
        }
        kind::MEMSET => Record::Memset(Memset {
            value: f.u32(4)?,
            bytes: f.u64(8)?,
            start_ns: f.u64(16)?,
            end_ns: f.u64(24)?,
            device_id: f.u32(32)?,
            context_id: f.u32(36)?,
            stream_id: f.u32(40)?,
            correlation_id: f.u32(44)?,
            is_async: u32::from(f.u16(48)?) & ASYNC != 0,
            memory_kind: MemoryKind::from_raw(u32::from(f.u16(50)?)),
        }),
        kind::DRIVER | kind::RUNTIME => Record::Api(ApiCall {
            domain: if k == kind::DRIVER { ApiDomain::Driver } else { ApiDomain::Runtime },
            cbid: f.u32(4)?,
            name: String::new(), // named from cbid by the caller (CUPTI has no name in the record)
            start_ns: f.u64(8)?,
            end_ns: f.u64(16)?,
            process_id: f.u32(24)?,
            thread_id: f.u32(28)?,
            correlation_id: f.u32(32)?,
            return_value: f.u32(36)?,
            device_id: None,
        }),
        kind::OVERHEAD => {
            let object = match f.u32(8)? {
                OBJECT_PROCESS | OBJECT_THREAD => {
                    OverheadObject::Thread { process_id: f.u32(12)?, thread_id: f.u32(16)? }
                }
                _ => OverheadObject::Device { device_id: f.u32(12)?, context_id: f.u32(16)?, stream_id: f.u32(20)? },
            };
            Record::Overhead(Overhead {
                kind: OverheadKind::from_raw(f.u32(4)?),
                object,
                start_ns: f.u64(24)?,
                end_ns: f.u64(32)?,
            })
        }
        kind::SYNCHRONIZATION => {
            let stream = f.u32(32)?;
            Record::Synchronization(Synchronization {
                kind: SyncKind::from_raw(f.u32(4)?),
                start_ns: f.u64(8)?,
                end_ns: f.u64(16)?,
                correlation_id: f.u32(24)?,
                context_id: f.u32(28)?,
                stream_id: (stream != NO_STREAM).then_some(stream),
                device_id: 0, // resolved from the context by the caller
            })
        }
        kind::MARKER => {
            let flags = f.u32(4)?;
            let (timestamp_ns, id) = (f.u64(8)?, f.u32(16)?);
            if flags & MARKER_START != 0 {
                return Ok(Activity::MarkerStart {
                    id,
                    timestamp_ns,
                    thread_id: if f.u32(20)? == OBJECT_THREAD { f.u32(28)? } else { 0 },
                    name: name(40)?.unwrap_or_default(),
                    domain: name(48)?,
                });
            }
            if flags & MARKER_END != 0 {
                return Ok(Activity::MarkerEnd { id, timestamp_ns });
            }
            return Ok(Activity::Ignored(k)); // instantaneous markers have no duration
        }
        other => return Ok(Activity::Ignored(other)),
    }))
}

/// The name of a CUDA call from CUPTI's callback name: runtime names carry
/// the API version they appeared in (`cudaLaunchKernel_v7000`,
/// `cudaMemcpyAsync_v3020`), which the symbol and XLA's and Nsight's traces
/// leave off. Driver names keep theirs: `cuMemAlloc_v2` is the symbol.
pub fn api_name(domain: ApiDomain, callback_name: &str) -> &str {
    if domain != ApiDomain::Runtime {
        return callback_name;
    }
    match callback_name.rsplit_once("_v") {
        Some((name, version))
            if !name.is_empty() && version.len() >= 4 && version.bytes().all(|b| b.is_ascii_digit()) =>
        {
            name
        }
        _ => callback_name,
    }
}

/// Pairs NVTX range starts with their ends.
#[derive(Debug, Default)]
pub struct MarkerPairs {
    open: std::collections::HashMap<u32, (String, Option<String>, u64, u32)>,
}

impl MarkerPairs {
    /// Feeds a marker; returns the range it closes, if any.
    pub fn feed(&mut self, activity: Activity) -> Option<NvtxRange> {
        match activity {
            Activity::MarkerStart { id, name, domain, timestamp_ns, thread_id } => {
                self.open.insert(id, (name, domain, timestamp_ns, thread_id));
                None
            }
            Activity::MarkerEnd { id, timestamp_ns } => {
                let (name, domain, start_ns, thread_id) = self.open.remove(&id)?;
                Some(NvtxRange { name, domain, start_ns, end_ns: timestamp_ns, thread_id })
            }
            _ => None,
        }
    }
}

/// Synchronization records name a context, not a device: take the device
/// from the kernels and copies seen in the same context.
pub fn resolve_sync_devices(records: &mut [Record]) {
    let mut device_of = std::collections::HashMap::new();
    for record in records.iter() {
        match record {
            Record::Kernel(r) => device_of.insert(r.context_id, r.device_id),
            Record::Memcpy(r) => device_of.insert(r.context_id, r.device_id),
            Record::Memset(r) => device_of.insert(r.context_id, r.device_id),
            _ => None,
        };
    }
    for record in records.iter_mut() {
        if let Record::Synchronization(s) = record {
            if let Some(&device) = device_of.get(&s.context_id) {
                s.device_id = device;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record buffer written field by field, as CUPTI lays it out.
    struct Buf(Vec<u8>);

    impl Buf {
        fn new(len: usize) -> Buf {
            Buf(vec![0; len])
        }
        fn put(mut self, at: usize, bytes: &[u8]) -> Buf {
            self.0[at..at + bytes.len()].copy_from_slice(bytes);
            self
        }
        fn u8(self, at: usize, v: u8) -> Buf {
            self.put(at, &[v])
        }
        fn u16(self, at: usize, v: u16) -> Buf {
            self.put(at, &v.to_ne_bytes())
        }
        fn u32(self, at: usize, v: u32) -> Buf {
            self.put(at, &v.to_ne_bytes())
        }
        fn u64(self, at: usize, v: u64) -> Buf {
            self.put(at, &v.to_ne_bytes())
        }
    }

    fn strings(ptr: u64) -> Option<String> {
        match ptr {
            0x1000 => Some("volta_sgemm_128x64_nn".into()),
            0x2000 => Some("train 7".into()),
            0x3000 => Some("my_domain".into()),
            _ => None,
        }
    }

    #[test]
    fn kernel9() {
        // CUpti_ActivityKernel9 is 200+ bytes; the parser reads its first 112.
        let b = Buf::new(224)
            .u32(0, kind::CONCURRENT_KERNEL)
            .u16(6, 64)
            .u64(16, 5_000)
            .u64(24, 7_500)
            .u32(40, 1)
            .u32(44, 3)
            .u32(48, 13)
            .u32(52, 160)
            .u32(56, 2)
            .u32(60, 1)
            .u32(64, 256)
            .u32(68, 1)
            .u32(72, 1)
            .u32(76, 4096)
            .u32(80, 512)
            .u32(92, 77)
            .u64(104, 0x1000);
        let Activity::Record(Record::Kernel(k)) = parse(&b.0, &strings).unwrap() else { panic!("a kernel") };
        assert_eq!(k.name, "volta_sgemm_128x64_nn");
        assert_eq!((k.start_ns, k.end_ns, k.device_id, k.context_id, k.stream_id), (5_000, 7_500, 1, 3, 13));
        assert_eq!((k.grid, k.block), ([160, 2, 1], [256, 1, 1]));
        assert_eq!((k.registers_per_thread, k.static_shared_memory, k.dynamic_shared_memory), (64, 4096, 512));
        assert_eq!(k.correlation_id, 77);
    }

    #[test]
    fn memcpy5_and_peer_copies() {
        let b = Buf::new(96)
            .u32(0, kind::MEMCPY)
            .u8(4, 1)
            .u8(5, 2)
            .u8(6, 3)
            .u8(7, 1)
            .u64(8, 1 << 20)
            .u64(16, 100)
            .u64(24, 300)
            .u32(32, 0)
            .u32(36, 1)
            .u32(40, 7)
            .u32(44, 9);
        let Activity::Record(Record::Memcpy(m)) = parse(&b.0, &strings).unwrap() else { panic!("a copy") };
        assert_eq!(
            (m.copy_kind, m.src_kind, m.dst_kind, m.is_async),
            (CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, true)
        );
        assert_eq!((m.bytes, m.stream_id, m.correlation_id, m.dst_device_id), (1 << 20, 7, 9, None));

        let p = Buf::new(104).u32(0, kind::MEMCPY2).u64(8, 64).u64(16, 1).u64(24, 2).u32(32, 0).u32(52, 1).u32(60, 11);
        let Activity::Record(Record::Memcpy(m)) = parse(&p.0, &strings).unwrap() else { panic!("a copy") };
        assert_eq!((m.copy_kind, m.dst_device_id, m.correlation_id), (CopyKind::PtoP, Some(1), 11));
    }

    #[test]
    fn api_sync_overhead_memset() {
        let api = Buf::new(40).u32(0, kind::RUNTIME).u32(4, 211).u64(8, 10).u64(16, 20).u32(28, 4242).u32(32, 77);
        let Activity::Record(Record::Api(a)) = parse(&api.0, &strings).unwrap() else { panic!("an API call") };
        assert_eq!((a.domain, a.cbid, a.thread_id, a.correlation_id), (ApiDomain::Runtime, 211, 4242, 77));

        let sync = Buf::new(40).u32(0, kind::SYNCHRONIZATION).u32(4, 3).u64(8, 1).u64(16, 9).u32(32, u32::MAX);
        let Activity::Record(Record::Synchronization(s)) = parse(&sync.0, &strings).unwrap() else { panic!("a wait") };
        assert_eq!((s.kind, s.stream_id), (SyncKind::StreamSynchronize, None));

        let o =
            Buf::new(40).u32(0, kind::OVERHEAD).u32(4, 0x1_0000).u32(8, 2).u32(12, 1).u32(16, 55).u64(24, 3).u64(32, 4);
        let Activity::Record(Record::Overhead(o)) = parse(&o.0, &strings).unwrap() else { panic!("an overhead") };
        assert_eq!(
            (o.kind, o.object),
            (OverheadKind::BufferFlush, OverheadObject::Thread { process_id: 1, thread_id: 55 })
        );

        let m = Buf::new(64).u32(0, kind::MEMSET).u64(8, 256).u64(16, 1).u64(24, 2).u16(48, 1).u16(50, 3);
        let Activity::Record(Record::Memset(m)) = parse(&m.0, &strings).unwrap() else { panic!("a memset") };
        assert_eq!((m.bytes, m.is_async, m.memory_kind), (256, true, MemoryKind::Device));
    }

    #[test]
    fn runtime_names_lose_their_version() {
        // Names as CUPTI 13.0 returned them on an H200 (tests/data/gpu_h200).
        assert_eq!(api_name(ApiDomain::Runtime, "cudaLaunchKernel_v7000"), "cudaLaunchKernel");
        assert_eq!(api_name(ApiDomain::Runtime, "cudaLaunchKernelExC_v11060"), "cudaLaunchKernelExC");
        assert_eq!(api_name(ApiDomain::Runtime, "cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
        assert_eq!(api_name(ApiDomain::Driver, "cuGetProcAddress_v2"), "cuGetProcAddress_v2");
        assert_eq!(api_name(ApiDomain::Runtime, "cudaFoo_v2"), "cudaFoo_v2", "not a runtime version");
        assert_eq!(api_name(ApiDomain::Runtime, "_v7000"), "_v7000");
    }

    #[test]
    fn markers_pair_into_ranges() {
        let start = Buf::new(56)
            .u32(0, kind::MARKER)
            .u32(4, MARKER_START)
            .u64(8, 100)
            .u32(16, 5)
            .u32(20, OBJECT_THREAD)
            .u32(28, 4242)
            .u64(40, 0x2000)
            .u64(48, 0x3000);
        let end = Buf::new(56).u32(0, kind::MARKER).u32(4, MARKER_END).u64(8, 900).u32(16, 5);
        let mut pairs = MarkerPairs::default();
        assert_eq!(pairs.feed(parse(&start.0, &strings).unwrap()), None);
        let range = pairs.feed(parse(&end.0, &strings).unwrap()).expect("a closed range");
        assert_eq!(
            range,
            NvtxRange {
                name: "train 7".into(),
                domain: Some("my_domain".into()),
                start_ns: 100,
                end_ns: 900,
                thread_id: 4242
            }
        );
        // An end without a start (its start fell before the capture) yields nothing.
        assert_eq!(pairs.feed(parse(&end.0, &strings).unwrap()), None);
    }

    #[test]
    fn waits_take_the_device_of_their_context() {
        let sync = |ctx| {
            Record::Synchronization(Synchronization {
                kind: SyncKind::ContextSynchronize,
                start_ns: 0,
                end_ns: 1,
                correlation_id: 0,
                device_id: 0,
                context_id: ctx,
                stream_id: None,
            })
        };
        let memset = Record::Memset(Memset {
            value: 0,
            bytes: 1,
            start_ns: 0,
            end_ns: 1,
            device_id: 3,
            context_id: 9,
            stream_id: 1,
            correlation_id: 1,
            memory_kind: MemoryKind::Device,
            is_async: false,
        });
        let mut records = vec![sync(9), memset, sync(8)];
        resolve_sync_devices(&mut records);
        let devices: Vec<u32> = records
            .iter()
            .filter_map(|r| if let Record::Synchronization(s) = r { Some(s.device_id) } else { None })
            .collect();
        assert_eq!(devices, [3, 0]);
    }

    #[test]
    fn short_or_unknown_records_do_not_panic() {
        let short = Buf::new(20).u32(0, kind::CONCURRENT_KERNEL);
        assert!(parse(&short.0, &strings).unwrap_err().contains("too short"));
        assert!(parse(&[1, 2], &strings).is_err());
        assert_eq!(parse(&Buf::new(8).u32(0, 45).0, &strings).unwrap(), Activity::Ignored(45));
        for k in [1, 2, 3, 4, 5, 10, 12, 17, 22, 38] {
            assert!(parse(&Buf::new(record_len(k)).u32(0, k).0, &strings).is_ok(), "kind {k} fits record_len");
        }
    }
}
