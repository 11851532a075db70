//! CUPTI's activity and callback data as plain Rust values: what the
//! injection library copies out of CUPTI's buffers (names included, since
//! CUPTI owns its strings), and what [`super::xspace::to_xspace`] converts.
//! Times are CUPTI timestamps (ns, CUPTI's clock).

/// `CUpti_ActivityMemcpyKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    Unknown,
    HtoD,
    DtoH,
    HtoA,
    AtoH,
    AtoA,
    AtoD,
    DtoA,
    DtoD,
    HtoH,
    PtoP,
}

impl CopyKind {
    pub fn from_raw(v: u8) -> CopyKind {
        use CopyKind::*;
        [Unknown, HtoD, DtoH, HtoA, AtoH, AtoA, AtoD, DtoA, DtoD, HtoH, PtoP]
            .get(usize::from(v))
            .copied()
            .unwrap_or(Unknown)
    }

    /// XLA's event name for the copy (cupti_collector.cc).
    pub fn event_name(self) -> &'static str {
        match self {
            CopyKind::HtoD => "MemcpyH2D",
            CopyKind::DtoH => "MemcpyD2H",
            CopyKind::DtoD => "MemcpyD2D",
            CopyKind::PtoP => "MemcpyP2P",
            _ => "MemcpyOther",
        }
    }
}

/// `CUpti_ActivityMemoryKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    Unknown,
    Pageable,
    Pinned,
    Device,
    Array,
    Managed,
    DeviceStatic,
    ManagedStatic,
}

impl MemoryKind {
    pub fn from_raw(v: u32) -> MemoryKind {
        use MemoryKind::*;
        let all = [Unknown, Pageable, Pinned, Device, Array, Managed, DeviceStatic, ManagedStatic];
        usize::try_from(v).ok().and_then(|i| all.get(i)).copied().unwrap_or(Unknown)
    }

    /// The spelling in `memcpy_details` and friends.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Unknown => "unknown",
            MemoryKind::Pageable => "pageable",
            MemoryKind::Pinned => "pinned",
            MemoryKind::Device => "device",
            MemoryKind::Array => "array",
            MemoryKind::Managed => "managed",
            MemoryKind::DeviceStatic => "device_static",
            MemoryKind::ManagedStatic => "managed_static",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub device_id: u32,
    pub context_id: u32,
    pub stream_id: u32,
    pub correlation_id: u32,
    pub grid: [i32; 3],
    pub block: [i32; 3],
    pub registers_per_thread: u16,
    pub static_shared_memory: i32,
    pub dynamic_shared_memory: i32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Memcpy {
    pub copy_kind: CopyKind,
    pub src_kind: MemoryKind,
    pub dst_kind: MemoryKind,
    pub bytes: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub device_id: u32,
    pub context_id: u32,
    pub stream_id: u32,
    pub correlation_id: u32,
    pub is_async: bool,
    /// Peer-to-peer copies: the other device.
    pub dst_device_id: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Memset {
    pub value: u32,
    pub bytes: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub device_id: u32,
    pub context_id: u32,
    pub stream_id: u32,
    pub correlation_id: u32,
    pub memory_kind: MemoryKind,
    pub is_async: bool,
}

/// `CUpti_ActivitySynchronizationType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    Unknown,
    EventSynchronize,
    StreamWaitEvent,
    StreamSynchronize,
    ContextSynchronize,
}

impl SyncKind {
    pub fn from_raw(v: u32) -> SyncKind {
        match v {
            1 => SyncKind::EventSynchronize,
            2 => SyncKind::StreamWaitEvent,
            3 => SyncKind::StreamSynchronize,
            4 => SyncKind::ContextSynchronize,
            _ => SyncKind::Unknown,
        }
    }

    /// XLA's names for the waits.
    pub fn event_name(self) -> &'static str {
        match self {
            SyncKind::EventSynchronize => "cuEventSynchronize",
            SyncKind::StreamWaitEvent => "cuStreamWaitEvent",
            SyncKind::StreamSynchronize => "cuStreamSynchronize",
            SyncKind::ContextSynchronize => "cuCtxSynchronize",
            SyncKind::Unknown => "Synchronization",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Synchronization {
    pub kind: SyncKind,
    pub start_ns: u64,
    pub end_ns: u64,
    pub correlation_id: u32,
    /// Resolved from the context by the caller (the record has no device id).
    pub device_id: u32,
    pub context_id: u32,
    /// None for context-wide waits.
    pub stream_id: Option<u32>,
}

/// `CUpti_ActivityOverheadKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverheadKind {
    Unknown,
    Compiler,
    BufferFlush,
    Instrumentation,
    Resource,
}

impl OverheadKind {
    pub fn from_raw(v: u32) -> OverheadKind {
        match v {
            1 => OverheadKind::Compiler,
            0x1_0000 => OverheadKind::BufferFlush,
            0x2_0000 => OverheadKind::Instrumentation,
            0x3_0000 => OverheadKind::Resource,
            _ => OverheadKind::Unknown,
        }
    }

    pub fn event_name(self) -> &'static str {
        match self {
            OverheadKind::Compiler => "COMPILER",
            OverheadKind::BufferFlush => "BUFFER_FLUSH",
            OverheadKind::Instrumentation => "INSTRUMENTATION",
            OverheadKind::Resource => "RESOURCE",
            OverheadKind::Unknown => "OVERHEAD",
        }
    }
}

/// What an overhead record is attributed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverheadObject {
    Thread { process_id: u32, thread_id: u32 },
    Device { device_id: u32, context_id: u32, stream_id: u32 },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Overhead {
    pub kind: OverheadKind,
    pub object: OverheadObject,
    pub start_ns: u64,
    pub end_ns: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiDomain {
    Driver,
    Runtime,
}

/// A CUDA driver or runtime call on a host thread.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiCall {
    pub domain: ApiDomain,
    /// The function (`cudaLaunchKernel`, `cuMemcpyHtoDAsync_v2`…).
    pub name: String,
    pub cbid: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub process_id: u32,
    pub thread_id: u32,
    /// Equals the correlation id of the kernel or copy it launched.
    pub correlation_id: u32,
    pub return_value: u32,
    /// The device it targeted, when known (from the callback's context).
    pub device_id: Option<u32>,
}

/// A closed NVTX range on a host thread (MARKER start/end paired by id).
#[derive(Debug, Clone, PartialEq)]
pub struct NvtxRange {
    pub name: String,
    pub domain: Option<String>,
    pub start_ns: u64,
    pub end_ns: u64,
    pub thread_id: u32,
}

/// One record of any kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Kernel(Kernel),
    Memcpy(Memcpy),
    Memset(Memset),
    Synchronization(Synchronization),
    Overhead(Overhead),
    Api(ApiCall),
    Nvtx(NvtxRange),
}

/// A capture: the records and the clocks that place them in wall time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Capture {
    pub records: Vec<Record>,
    /// Wall clock (ns since the Unix epoch) at `start_gpu_ns`.
    pub start_walltime_ns: u64,
    /// CUPTI clock at the start and at the end; records outside are dropped.
    pub start_gpu_ns: u64,
    pub end_gpu_ns: u64,
    /// Records CUPTI reported dropped (buffers full).
    pub dropped_records: u64,
    /// CUPTI errors met while capturing.
    pub errors: Vec<String>,
}

/// What the device plane says about a GPU (cudaDeviceProp / cuDeviceGetAttribute).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceInfo {
    pub ordinal: u32,
    pub name: String,
    pub compute_capability: (u32, u32),
    pub clock_rate_khz: u64,
    /// Streaming multiprocessors.
    pub core_count: u64,
    /// Bytes per second.
    pub memory_bandwidth: u64,
    pub memory_size: u64,
}
