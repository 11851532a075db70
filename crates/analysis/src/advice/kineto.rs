//! Detectors over one PyTorch (Kineto) trace: its `ProfilerStep` windows as
//! the PyTorch overview splits them into roles (`passes::kineto::roles`:
//! the step time, the DataLoader wait and the GPU's idle time are that
//! table's means), and the CPU ops, runtime calls and GPU kernels and
//! copies inside them. Other times are unions of intervals clipped to the
//! windows, per step (and per GPU for device time), so overlapping events
//! count once.

use super::fixes::fix;
use super::ranks::{median, step_outliers};
use super::{ms, pct, Basis, Confidence, Draft, Found, Framework, Link, Outcome};
use crate::common::schema::HOST_PLANE;
use crate::passes::kineto::intervals::Intervals;
use crate::passes::kineto::iterations;
use crate::passes::kineto::memory::memory_timeline;
use crate::passes::kineto::roles::{annotation_roles, is_dataloader, step_roles, Roles, StepBreakdown};
use crate::passes::kineto::{DeviceEvent, DeviceKind, HostEvent, HostKind, KinetoIndex};
use crate::passes::run_environment::run_environment;
use crate::passes::tensor_core::{uses_tensor_core_on, GpuVendor};
use proflens_model::Profile;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;

/// Thresholds (share of the step, or of the GPU's step time); `docs/advisor.md`
/// gives each one's source.
pub const DATALOADER_MIN_SHARE: f64 = 0.05;
pub const SYNC_MIN_SHARE: f64 = 0.02;
pub const PAGEABLE_MIN_SHARE: f64 = 0.01;
pub const COPY_MIN_SHARE: f64 = 0.05;
pub const IDLE_MIN_SHARE: f64 = 0.10;
pub const LAUNCH_MIN_SHARE: f64 = 0.10;
pub const KERNEL_MIN_SHARE: f64 = 0.02;
pub const FP32_MIN_SHARE: f64 = 0.05;
pub const COLLECTIVE_MIN_SHARE: f64 = 0.05;
pub const ELEMENTWISE_MIN_SHARE: f64 = 0.20;
pub const SMALL_KERNEL_PS: i64 = 10_000_000;

struct Frame<'a> {
    index: &'a KinetoIndex,
    /// The trace the index was built from, to name an event's place.
    profile: Option<&'a Profile>,
    /// The steps' windows (start, duration), ps.
    steps: Vec<(i64, i64)>,
    average: StepBreakdown,
    basis: Basis,
    step_ms: f64,
    gpus: Vec<i64>,
}

impl Frame<'_> {
    fn count(&self) -> f64 {
        self.steps.len().max(1) as f64
    }

    /// Union of `spans` inside the steps, ms per step.
    fn per_step(&self, spans: Vec<(i64, i64)>) -> f64 {
        let inside = Intervals::union_of(spans).intersect(&self.step_intervals());
        inside.len_ps() as f64 / 1e9 / self.count()
    }

    /// Device time: the union per GPU, averaged over the GPUs, ms per step.
    fn per_gpu_step(&self, pick: impl Fn(&DeviceEvent) -> bool) -> f64 {
        if self.gpus.is_empty() {
            return 0.0;
        }
        let total: f64 = self
            .gpus
            .iter()
            .map(|&g| {
                self.per_step(
                    self.index
                        .device
                        .iter()
                        .filter(|d| d.device == g && pick(d))
                        .map(|d| (d.start_ps, d.end_ps))
                        .collect(),
                )
            })
            .sum();
        total / self.gpus.len() as f64
    }

    fn step_intervals(&self) -> Intervals {
        Intervals::union_of(self.steps.iter().map(|&(s, d)| (s, s.saturating_add(d))).collect())
    }

    fn name(&self, e: &HostEvent) -> &str {
        self.index.text(e.name)
    }

    fn kernel_name(&self, d: &DeviceEvent) -> &str {
        self.index.text(d.name)
    }

    fn share(&self, cost: f64) -> f64 {
        super::share(cost, self.step_ms)
    }

    fn draft<'a>(&self, id: &'a str, cost_ms: f64, gain: (f64, f64), title: &str) -> Draft<'a> {
        Draft {
            id,
            title: title.into(),
            summary: String::new(),
            cost_ms,
            step_ms: self.step_ms,
            gain_fraction: gain,
            reasoning: String::new(),
            confidence: Confidence::Medium,
            evidence: Vec::new(),
            fix: fix(id, Framework::PyTorch),
        }
    }

    /// The longest of the host events `events` as a trace viewer link that
    /// selects it.
    fn longest<'e>(&self, events: impl Iterator<Item = &'e HostEvent>) -> Option<Link> {
        let h = events.max_by_key(|h| (h.end_ps.saturating_sub(h.start_ps), Reverse(h.start_ps)))?;
        Some(Link { event: self.profile.and_then(|p| host_event_at(p, h)), ..Link::trace(h.start_ps, h.end_ps) })
    }
}

/// Where host event `h` is in `profile` (plane, line, index), as the trace
/// viewer's `event=` names it: the index's host events come from the host
/// plane's line `h.line`, whose events are sorted by start.
fn host_event_at(profile: &Profile, h: &HostEvent) -> Option<(u32, u32, u32)> {
    let plane = profile.planes.iter().position(|p| profile.str(p.name) == HOST_PLANE)?;
    let events = &profile.planes[plane].lines.get(h.line as usize)?.events;
    let (mut lo, mut hi) = (0, events.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if events.start_ps.at(mid) < h.start_ps {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let i = (lo..events.len())
        .take_while(|&i| events.start_ps.at(i) == h.start_ps)
        .find(|&i| events.end_ps(i) == h.end_ps)?;
    Some((u32::try_from(plane).ok()?, h.line, u32::try_from(i).ok()?))
}

/// The steps the detectors measure in: the `ProfilerStep#N` windows; on a
/// trace without them, the instances of the annotation the critical path
/// also defaults to (`passes::kineto::iterations`), with a note saying so;
/// else the whole trace.
pub fn iteration_roles(index: &KinetoIndex) -> (Roles, Option<String>) {
    let roles = step_roles(index);
    if !roles.whole_trace {
        return (roles, None);
    }
    match iterations::default_annotation(&iterations::ranges_of(index)) {
        Some(name) => match annotation_roles(index, &name) {
            Some(by_annotation) => (by_annotation, iterations::default_note(&name)),
            None => (roles, None),
        },
        None => (roles, None),
    }
}

/// Every detector's answer for one rank; `profile` (the trace the index
/// was built from) lets evidence select its event in the trace viewer.
/// The last item says which iterations the steps are, when they are not
/// `ProfilerStep#N` ([`iteration_roles`]).
pub fn detect(index: &KinetoIndex, profile: Option<&Profile>) -> (Basis, f64, usize, Found, Option<String>) {
    let (Roles { steps, average, whole_trace }, iterations) = iteration_roles(index);
    let basis = if whole_trace { Basis::ProfiledTime } else { Basis::Step };
    let step_ms = average.window_ps as f64 / 1e9;
    let steps: Vec<(i64, i64)> = steps.iter().map(|s| (s.start_ps, s.window_ps)).collect();
    let mut gpus: Vec<i64> = index.device.iter().map(|d| d.device).collect();
    gpus.sort_unstable();
    gpus.dedup();
    let f = Frame { index, profile, steps, average, basis, step_ms, gpus };
    let mut found = Found::default();
    found.add("input_bound", dataloader(&f));
    found.add("sync_in_step", syncs(&f));
    found.add("pageable_memcpy", pageable(&f));
    found.add("host_to_device", copies(&f));
    found.add("device_idle", gpu_idle(&f));
    found.add("kernel_launch_bound", launch_bound(&f));
    found.add("launch_delay_outliers", launch_delays(&f));
    found.add("small_kernels", small_kernels(&f));
    for rule in KERNEL_RULES {
        found.add(rule.id, kernels_of(&f, rule));
    }
    found.add("collective_wait", collectives(&f));
    let outliers = if whole_trace { &[][..] } else { &f.steps[..] };
    found.add("step_outliers", step_outliers(outliers, step_ms, Framework::PyTorch, None));
    found.add("memory_near_limit", profile.map_or_else(|| no_memory("the trace is not at hand"), memory));
    (basis, step_ms, f.steps.len().max(1), found, iterations)
}

fn dataloader(f: &Frame<'_>) -> Outcome {
    let events: Vec<&HostEvent> = f.index.host.iter().filter(|h| is_dataloader(f.name(h))).collect();
    // The overview's data loading role: waits no GPU work or runtime call overlaps.
    let cost = f.average.dataloader_ps as f64 / 1e9;
    if cost <= 0.0 || f.share(cost) < DATALOADER_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("input_bound", cost, (0.5, 1.0), "The training loop waits for the DataLoader");
    d.summary = format!(
        "Waiting for the next batch (DataLoader's __next__, with the GPU idle) takes {} of each {} step ({}).",
        ms(cost),
        ms(f.step_ms),
        pct(f.share(cost))
    );
    d.reasoning = format!(
        "Worker processes prepare batches while the step runs: all of the wait ({}) when they keep up, at least half with two or more workers.",
        ms(cost)
    );
    d.confidence = Confidence::High;
    if let Some(link) = f.longest(events.iter().copied()) {
        d.cite("The longest wait for a batch", ms(cost), link);
    }
    d.finish()
}

const SYNC_CALLS: &[&str] = &[
    "cudaDeviceSynchronize",
    "cudaStreamSynchronize",
    "cudaEventSynchronize",
    "hipDeviceSynchronize",
    "hipStreamSynchronize",
    "hipEventSynchronize",
];

fn is_sync(f: &Frame<'_>, h: &HostEvent) -> bool {
    let name = f.name(h);
    match h.kind {
        HostKind::Runtime => SYNC_CALLS.contains(&name),
        HostKind::CpuOp => name == "aten::item" || name == "aten::_local_scalar_dense",
        _ => false,
    }
}

fn syncs(f: &Frame<'_>) -> Outcome {
    let events: Vec<&HostEvent> = f.index.host.iter().filter(|h| is_sync(f, h)).collect();
    let cost = f.per_step(events.iter().map(|h| (h.start_ps, h.end_ps)).collect());
    if cost <= 0.0 || f.share(cost) < SYNC_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d =
        f.draft("sync_in_step", cost, (0.5, 1.0), "The host waits for the GPU inside the step (.item(), synchronize)");
    let mut calls: Vec<&str> = events.iter().map(|h| f.name(h)).collect();
    calls.sort_unstable();
    calls.dedup();
    d.summary = format!(
        "{} calls that wait for the GPU ({}) block the host for {} of each step ({}).",
        events.len(),
        calls.join(", "),
        ms(cost),
        pct(f.share(cost))
    );
    d.reasoning = "While the host waits it queues no work, so the GPU idles after the sync: removing it saves all the wait when the queue then stays full, at least half.".into();
    d.confidence = Confidence::High;
    if let Some(link) = f.longest(events.iter().copied()) {
        d.cite("The longest wait", "timeline".into(), link);
    }
    d.finish()
}

fn is_copy(f: &Frame<'_>, d: &DeviceEvent) -> bool {
    let name = f.kernel_name(d);
    d.kind == DeviceKind::Memcpy && (name.contains("HtoD") || name.contains("DtoH"))
}

fn pageable(f: &Frame<'_>) -> Outcome {
    let cost = f.per_gpu_step(|d| is_copy(f, d) && f.kernel_name(d).contains("Pageable"));
    if cost <= 0.0 || f.share(cost) < PAGEABLE_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("pageable_memcpy", cost, (0.3, 0.7), "Copies from pageable host memory");
    d.summary = format!("Host-device copies from pageable memory take {} of each step on the GPU.", ms(cost));
    d.reasoning =
        "From pinned memory a copy runs at full PCIe/NVLink speed and can overlap compute: 30-70% of the copy time."
            .into();
    d.cite("Pageable copy time per step", ms(cost), Link::tool("memory_bandwidth"));
    d.finish()
}

fn copies(f: &Frame<'_>) -> Outcome {
    let all = f.per_gpu_step(|d| is_copy(f, d));
    // Only the part no kernel overlaps is on the critical path.
    let overlapped = f.per_gpu_step(|d| is_copy(f, d) || d.kind == DeviceKind::Kernel)
        - f.per_gpu_step(|d| d.kind == DeviceKind::Kernel);
    let cost = overlapped.min(all);
    if cost <= 0.0 || f.share(cost) < COPY_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("host_to_device", cost, (0.5, 1.0), "Host-device copies that no kernel overlaps");
    d.summary = format!(
        "Copies between host and GPU take {} a step, {} of it with no kernel running beside them.",
        ms(all),
        ms(cost)
    );
    d.reasoning = "Issued early from pinned memory (non_blocking) they overlap the previous step's kernels: all of the exposed time at best, at least half.".into();
    d.cite("Exposed copy time per step", ms(cost), Link::tool("memory_bandwidth"));
    d.finish()
}

fn gpu_idle(f: &Frame<'_>) -> Outcome {
    if f.gpus.is_empty() || f.basis == Basis::ProfiledTime {
        return Outcome::Clear;
    }
    // The overview's window less its kernel, memcpy and memset roles.
    let a = &f.average;
    let busy = a.kernel_ps.saturating_add(a.memcpy_ps).saturating_add(a.memset_ps);
    let cost = a.window_ps.saturating_sub(busy).max(0) as f64 / 1e9;
    if f.share(cost) < IDLE_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("device_idle", cost, (0.25, 0.75), "The GPU sits idle during the step");
    d.summary =
        format!("The GPU runs nothing for {} of each {} step ({}).", ms(cost), ms(f.step_ms), pct(f.share(cost)));
    d.reasoning = "Idle time closes as far as the host can queue work ahead: 25-75%, since some gaps wait on the host's own work.".into();
    d.cite("GPU idle time per step", ms(cost), Link::tool("overview_page"));
    d.finish()
}

fn launch_bound(f: &Frame<'_>) -> Outcome {
    // HTA's rule for a launch-bound kernel: it runs for less time than its launch call takes.
    let kernel_ps: FxHashMap<i64, i64> = f
        .index
        .device
        .iter()
        .filter(|d| d.kind == DeviceKind::Kernel)
        .filter_map(|d| Some((d.correlation_id.get()?, d.end_ps.saturating_sub(d.start_ps))))
        .collect();
    let launches: Vec<(i64, i64)> = f
        .index
        .host
        .iter()
        .filter(|h| h.kind == HostKind::Runtime)
        .filter(|h| {
            h.correlation_id
                .get()
                .and_then(|c| kernel_ps.get(&c))
                .is_some_and(|&k| k < h.end_ps.saturating_sub(h.start_ps))
        })
        .map(|h| (h.start_ps, h.end_ps))
        .collect();
    let cost = f.per_step(launches.clone());
    if cost <= 0.0 || f.share(cost) < LAUNCH_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d =
        f.draft("kernel_launch_bound", cost, (0.3, 0.8), "Kernel-launch bound: kernels shorter than their launch");
    d.summary = format!(
        "{} kernels ran for less time than the host took to launch them; those launches take {} of each step.",
        launches.len(),
        ms(cost)
    );
    d.reasoning = "Fused or captured in a CUDA graph, the launches shrink to a few: 30-80% of their time, by how much of the step fuses.".into();
    d.cite("Launch time of short kernels per step", ms(cost), Link::tool("kernel_launch_stats"));
    d.finish()
}

/// HTA's launch-delay outlier: the GPU starts the kernel more than this
/// after the runtime call returned (its `launch_delay_cutoff`, 100 µs).
pub const LAUNCH_DELAY_OUTLIER_PS: i64 = 100_000_000;

/// Launch-delay outliers that cost time: before each, the GPU ran nothing
/// from the later of the call's return and the device's previous work
/// until the kernel started. Delays while the GPU was busy cost nothing.
fn launch_delays(f: &Frame<'_>) -> Outcome {
    let returned: FxHashMap<i64, i64> = f
        .index
        .host
        .iter()
        .filter(|h| h.kind == HostKind::Runtime)
        .filter_map(|h| Some((h.correlation_id.get()?, h.end_ps)))
        .collect();
    let mut events: Vec<&DeviceEvent> = f.index.device.iter().collect();
    events.sort_by_key(|d| (d.device, d.start_ps));
    let mut idle = Vec::new();
    let mut outliers = 0usize;
    let mut busy_until = (i64::MIN, i64::MIN);
    for d in events {
        if busy_until.0 != d.device {
            busy_until = (d.device, i64::MIN);
        }
        let launched = d.correlation_id.get().and_then(|c| returned.get(&c)).copied();
        if let Some(end) = launched
            .filter(|&end| d.kind == DeviceKind::Kernel && d.start_ps.saturating_sub(end) > LAUNCH_DELAY_OUTLIER_PS)
        {
            outliers += 1;
            let from = end.max(busy_until.1);
            if from < d.start_ps {
                idle.push((from, d.start_ps));
            }
        }
        busy_until.1 = busy_until.1.max(d.end_ps);
    }
    let longest = idle.iter().copied().max_by_key(|&(s, e)| (e.saturating_sub(s), Reverse(s)));
    let cost = f.per_step(idle);
    if cost <= 0.0 || f.share(cost) < KERNEL_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d =
        f.draft("launch_delay_outliers", cost, (0.5, 1.0), "Kernels start long after their launch while the GPU waits");
    d.summary = format!(
        "{outliers} kernels started more than 100 µs after their launch call returned; the GPU ran nothing before them for {} of each step.",
        ms(cost)
    );
    d.reasoning = "Idle time before a late kernel is lost unless the launch reaches the GPU sooner: all of it when the delay goes (CUDA graphs, no allocator syncs), at least half. Which cause applies is not in the trace, so confidence is low.".into();
    d.confidence = Confidence::Low;
    if let Some((start, end)) = longest {
        d.cite(
            "The longest wait before a late kernel",
            ms(end.saturating_sub(start) as f64 / 1e9),
            Link::trace(start, end),
        );
    }
    d.cite("Launch-delay outliers (HTA's rule: over 100 µs)", outliers.to_string(), Link::tool("kernel_launch_stats"));
    d.finish()
}

fn small_kernels(f: &Frame<'_>) -> Outcome {
    let kernels = || f.index.device.iter().filter(|d| d.kind == DeviceKind::Kernel);
    let small = |d: &DeviceEvent| d.end_ps.saturating_sub(d.start_ps) < SMALL_KERNEL_PS;
    let (count, all) = (kernels().filter(|d| small(d)).count(), kernels().count());
    if all == 0 || count * 2 < all {
        return Outcome::Clear;
    }
    let cost = f.per_gpu_step(|d| d.kind == DeviceKind::Kernel && small(d));
    if f.share(cost) < KERNEL_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("small_kernels", cost, (0.2, 0.5), "Most kernels are tiny (under 10 µs)");
    d.summary = format!("{count} of {all} kernels ran under 10 µs; together {} of each step per GPU.", ms(cost));
    d.reasoning =
        "Fused into larger kernels, their launch gaps and memory round trips go: 20-50% of their time.".into();
    d.cite("Kernels under 10 µs", format!("{count} of {all}"), Link::tool("kernel_stats"));
    d.finish()
}

/// A kind of kernel, told by its name, that costs time a known fix removes.
struct KernelRule {
    id: &'static str,
    title: &'static str,
    /// Whether a kernel of `name` (on GPUs of this vendor) is of the kind.
    pick: fn(&str, GpuVendor) -> bool,
    min_share: f64,
    gain: (f64, f64),
    reasoning: &'static str,
}

const KERNEL_RULES: &[KernelRule] = &[
    KernelRule {
        id: "fp32_compute",
        title: "Matrix multiplies run in fp32 without tensor cores",
        pick: |name, vendor| {
            let lower = name.to_ascii_lowercase();
            (lower.contains("gemm") || lower.contains("matmul")) && !uses_tensor_core_on(vendor, name)
        },
        min_share: FP32_MIN_SHARE,
        gain: (0.3, 0.6),
        reasoning:
            "Under autocast (bf16/fp16) or TF32 the same GEMMs run on tensor cores at 2x or more: 30-60% of their time.",
    },
    KernelRule {
        id: "layout_transposes",
        title: "Layout transposes (NCHW ↔ NHWC) on the GPU",
        pick: |name, _| {
            let lower = name.to_ascii_lowercase();
            lower.contains("nchwtonhwc") || lower.contains("nhwctonchw") || lower.contains("transpose")
        },
        min_share: KERNEL_MIN_SHARE,
        gain: (0.7, 1.0),
        reasoning: "With channels_last throughout, the transposes go: 70-100% of their time.",
    },
    KernelRule {
        id: "unfused_elementwise",
        title: "Elementwise kernels that did not fuse",
        pick: |name, _| name.to_ascii_lowercase().contains("elementwise_kernel"),
        min_share: ELEMENTWISE_MIN_SHARE,
        gain: (0.3, 0.7),
        reasoning: "torch.compile fuses chains of elementwise ops into one kernel: 30-70% of their time.",
    },
];

fn kernels_of(f: &Frame<'_>, rule: &KernelRule) -> Outcome {
    let vendor = f.index.vendor;
    let cost = f.per_gpu_step(|d| d.kind == DeviceKind::Kernel && (rule.pick)(f.kernel_name(d), vendor));
    if cost <= 0.0 || f.share(cost) < rule.min_share {
        return Outcome::Clear;
    }
    let mut d = f.draft(rule.id, cost, rule.gain, rule.title);
    d.summary = format!("{}: {} of each step per GPU ({}).", rule.title, ms(cost), pct(f.share(cost)));
    d.reasoning = rule.reasoning.into();
    d.cite("Kernel time per step", ms(cost), Link::tool("kernel_stats"));
    d.finish()
}

fn is_collective(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("nccl") || lower.contains("rccl")
}

fn collectives(f: &Frame<'_>) -> Outcome {
    let kernel = |d: &DeviceEvent| d.kind == DeviceKind::Kernel;
    let comm = f.per_gpu_step(|d| kernel(d) && is_collective(f.kernel_name(d)));
    // Exposed: communication time with no compute kernel beside it.
    let exposed = f.per_gpu_step(kernel) - f.per_gpu_step(|d| kernel(d) && !is_collective(f.kernel_name(d)));
    let cost = exposed.clamp(0.0, comm);
    if cost <= 0.0 || f.share(cost) < COLLECTIVE_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("collective_wait", cost, (0.2, 0.6), "Communication (NCCL) not overlapped with compute");
    d.summary =
        format!("NCCL kernels take {} a step, {} of it with no compute kernel beside them.", ms(comm), ms(cost));
    d.reasoning =
        "Overlapping all-reduce with the backward pass and balancing the ranks recovers 20-60% of the exposed time."
            .into();
    let median_step = median(f.steps.iter().map(|s| s.1 as f64 / 1e9).collect());
    d.cite(
        "Exposed communication per step",
        format!("{} (median step {})", ms(cost), ms(median_step)),
        Link::tool("stragglers"),
    );
    d.finish()
}

/// Peak device memory at or above this share of the GPU's memory is a finding.
pub const MEMORY_MIN_SHARE: f64 = 0.9;
/// Reserved but unallocated memory at the reserved peak, as a share of it,
/// above which the finding speaks of fragmentation.
pub const FRAGMENTATION_SHARE: f64 = 0.2;

fn no_memory(why: &str) -> Outcome {
    Outcome::Unmeasured { title: "Memory near the device's limit".into(), why: why.into() }
}

/// The caching allocator's peak on each GPU against the GPU's memory. It
/// costs no time until it fails, so its cost and gain are 0 and it ranks
/// last: a warning with the numbers, not a speed-up.
fn memory(profile: &Profile) -> Outcome {
    let Some(limit) = run_environment(profile).device.map(|d| d.memory_bytes).filter(|&b| b > 0) else {
        return no_memory("the trace records no GPU memory size (deviceProperties)");
    };
    let timeline = memory_timeline(profile);
    let gpus: Vec<_> = timeline.allocators.iter().filter(|a| a.allocator.starts_with("GPU")).collect();
    let Some(worst) = gpus.iter().max_by_key(|a| a.peak_reserved_bytes.max(a.peak_allocated_bytes)) else {
        return no_memory("the trace has no GPU memory events (record with profile_memory=True)");
    };
    let peak = worst.peak_reserved_bytes.max(worst.peak_allocated_bytes);
    let share = peak as f64 / limit as f64;
    if share < MEMORY_MIN_SHARE {
        return Outcome::Clear;
    }
    let gib = |b: i64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
    let at_peak = worst.points.iter().max_by_key(|p| p.reserved_bytes);
    let idle = at_peak
        .map_or(0.0, |p| p.reserved_bytes.saturating_sub(p.allocated_bytes) as f64 / p.reserved_bytes.max(1) as f64);
    let fragmented = idle >= FRAGMENTATION_SHARE;
    let mut d = Draft {
        id: "memory_near_limit",
        title: "GPU memory near the device's limit".into(),
        summary: format!(
            "{} peaks at {} of the GPU's {} ({}){}.",
            worst.allocator,
            gib(peak),
            gib(limit as i64),
            pct(share),
            if fragmented {
                format!("; at the reserved peak {} of the reserved memory held no tensor (fragmentation)", pct(idle))
            } else {
                String::new()
            }
        ),
        cost_ms: 0.0,
        step_ms: 0.0,
        gain_fraction: (0.0, 0.0),
        reasoning: "No time is lost while it fits: the gain is headroom (no out-of-memory failure, room for a larger batch), so it ranks after every time cost.".into(),
        confidence: Confidence::High,
        evidence: Vec::new(),
        fix: fix("memory_near_limit", Framework::PyTorch),
    };
    d.cite("Peak reserved (or allocated) memory", gib(peak), Link::tool("memory_profile"));
    d.finish()
}
