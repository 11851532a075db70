//! Detectors over one XSpace host (TensorFlow, JAX): the step breakdown of
//! the input pipeline analysis, the host and device op tables, GPU kernels
//! and XLA's ops. Each figure is one the named tool shows: the per-step
//! averages are the input pipeline analyzer's (and the overview's), op and
//! kernel times are framework op stats', kernel stats' and HLO op stats'.

use super::fixes::fix;
use super::{ms, pct, Basis, Confidence, Draft, Found, Framework, Link, Outcome};
use crate::common::hardware::HardwareType;
use crate::passes::host_analysis::HostAnalysis;
use crate::passes::input_pipeline::{InputPipelineAnalysis, StepBreakdown};
use crate::passes::kernels::KernelRow;
use crate::passes::op_metrics::{OpMetrics, OpMetricsDb};
use crate::passes::xla_ops::XlaOpDb;

/// What one host gives the detectors: the input pipeline analysis (from
/// the events, or from a legacy tool file), and, with events, the rest of
/// its analysis and XLA's ops.
pub struct Host<'a> {
    pub input: &'a InputPipelineAnalysis,
    pub analysis: Option<&'a HostAnalysis>,
    /// XLA's ops, where the profile ran XLA programs.
    pub xla: Option<&'a XlaOpDb>,
    /// Why the profile's XLA programs could not be read, if so.
    pub xla_unreadable: Option<String>,
    /// The profile's wall time (first event to last), ms: the "step" of a
    /// profile without steps.
    pub profiled_ms: Option<f64>,
    pub framework: Framework,
    /// Ops dispatched one at a time per step ([`super::dispatch`]), where the
    /// profile's events were counted.
    pub dispatches_per_step: Option<f64>,
}

/// A step-breakdown category of [`StepBreakdown`], ms.
type Part = fn(&StepBreakdown) -> f64;

/// A sum of times or counts from a profile, which may be any value.
fn total(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(0, u64::saturating_add)
}

/// The per-step frame every detector measures in.
struct Frame<'a> {
    steps: &'a [StepBreakdown],
    /// Each step's start and duration, ps, where the events give them.
    spans: Vec<(i64, i64)>,
    basis: Basis,
    step_ms: f64,
    framework: Framework,
    gpu: bool,
    cpu_only: bool,
}

impl Frame<'_> {
    /// The average over the steps of `part`, ms: the input pipeline
    /// analyzer's (and the overview's) average of that column.
    fn per_step(&self, part: Part) -> f64 {
        if self.steps.is_empty() {
            return 0.0;
        }
        self.steps.iter().map(part).sum::<f64>() / self.steps.len() as f64
    }

    /// `part_ps` of a table measured over `total_ps` as ms of the average step:
    /// its share of the measured time applied to the step time.
    fn scaled(&self, part_ps: u64, total_ps: u64) -> f64 {
        if total_ps == 0 {
            0.0
        } else {
            part_ps as f64 / total_ps as f64 * self.step_ms
        }
    }

    /// The step with the most of `part`, as a trace viewer link.
    fn worst_step(&self, part: Part) -> Option<Link> {
        if self.spans.len() != self.steps.len() {
            return None;
        }
        let worst = (0..self.steps.len())
            .max_by(|&a, &b| part(&self.steps[a]).total_cmp(&part(&self.steps[b])).then(b.cmp(&a)))?;
        let (begin, duration) = self.spans[worst];
        Some(Link::trace(begin, begin.saturating_add(duration)))
    }

    fn draft<'a>(&self, id: &'a str, cost_ms: f64, gain: (f64, f64)) -> Draft<'a> {
        Draft {
            id,
            title: String::new(),
            summary: String::new(),
            cost_ms,
            step_ms: self.step_ms,
            gain_fraction: gain,
            reasoning: String::new(),
            confidence: Confidence::Medium,
            evidence: Vec::new(),
            fix: fix(id, self.framework),
        }
    }

    fn share(&self, cost_ms: f64) -> f64 {
        super::share(cost_ms, self.step_ms)
    }
}

/// The step-breakdown detectors' thresholds (share of the step) and gain
/// fractions; `docs/advisor.md` gives each one's source.
pub const INPUT_MIN_SHARE: f64 = 0.05;
pub const OTHER_MIN_SHARE: f64 = 0.05;
pub const LAUNCH_MIN_SHARE: f64 = 0.10;
pub const COMPILE_MIN_SHARE: f64 = 0.01;
pub const H2D_MIN_SHARE: f64 = 0.05;
pub const COLLECTIVES_MIN_SHARE: f64 = 0.05;
pub const EAGER_MIN_SHARE: f64 = 0.10;
/// Share of a step-by-op step's host time that compiling the step removes.
pub const EAGER_GAIN: (f64, f64) = (0.5, 0.95);
pub const OP_MIN_SHARE: f64 = 0.02;
pub const SMALL_KERNEL_NS: f64 = 10_000.0;
pub const IDLE_MIN_SHARE: f64 = 0.10;

/// Every detector's answer for one host.
pub fn detect(host: &Host<'_>) -> (Basis, f64, usize, Found) {
    let steps = &host.input.steps[..];
    let a = host.analysis;
    let spans =
        a.map(|a| a.shown_steps().0.steps.iter().map(|s| (s.begin_ps, s.duration_ps)).collect()).unwrap_or_default();
    let (basis, step_ms) = match (steps.is_empty(), a) {
        (false, _) => (Basis::Step, steps.iter().map(|s| s.step_time_ms).sum::<f64>() / steps.len() as f64),
        (true, _) => (Basis::ProfiledTime, host.profiled_ms.unwrap_or(0.0)),
    };
    let frame = Frame {
        steps,
        spans,
        basis,
        step_ms,
        framework: host.framework,
        gpu: host.input.hardware_type == HardwareType::Gpu,
        cpu_only: host.input.hardware_type == HardwareType::CpuOnly,
    };
    let mut found = Found::default();
    found.add("input_bound", input_bound(&frame, host.input));
    found.add(HOST_WORK.id, host_between_steps(&frame));
    for c in CATEGORIES {
        found.add(c.id, category(&frame, c, c.reasoning.into()));
    }
    let times: Vec<(i64, i64)> = if frame.spans.len() == steps.len() {
        frame.spans.clone()
    } else {
        steps.iter().map(|s| (0, (s.step_time_ms * 1e9) as i64)).collect()
    };
    found.add("step_outliers", super::ranks::step_outliers(&times, step_ms, host.framework, None));
    match a {
        Some(a) => {
            found.add("eager_ops", eager(&frame, &a.host_ops, host.dispatches_per_step));
            found.add("fp32_compute", fp32(&frame, a));
            found.add("tensor_cores_unused", tensor_cores(&frame, a));
            found.add("small_kernels", small_kernels(&frame, &a.kernels, &a.device_ops));
            found.add("device_idle", device_idle(&frame, &a.device_ops, &a.kernels));
            found.add("layout_transposes", transposes(&frame, &a.device_ops));
        }
        None => {
            for (id, title) in
                [("eager_ops", "Ops run eagerly"), ("fp32_compute", "32-bit compute"), ("device_idle", "Device idle")]
            {
                found.add(
                    id,
                    Outcome::Unmeasured {
                        title: title.into(),
                        why: "the host has TensorBoard tool files only; its op tables need the profile's events".into(),
                    },
                );
            }
        }
    }
    for (id, category) in [("xla_copies", "data formatting"), ("unfused_elementwise", "non-fusion elementwise")] {
        let outcome = match &host.xla_unreadable {
            Some(why) => {
                Outcome::Unmeasured { title: format!("XLA ops of category “{category}”"), why: why.clone() }
            }
            None => xla_category(&frame, host.xla, id, category),
        };
        found.add(id, outcome);
    }
    found.add(
        "memory_near_limit",
        Outcome::Unmeasured {
            title: "Memory near the device's limit".into(),
            why: "costs no time until it fails; the Memory profile tool shows this profile's peak and limit".into(),
        },
    );
    (basis, step_ms, steps.len().max(1), found)
}

fn no_steps(title: &str) -> Outcome {
    Outcome::Unmeasured { title: title.into(), why: "the profile has no steps to break down".into() }
}

fn input_bound(f: &Frame<'_>, input: &InputPipelineAnalysis) -> Outcome {
    if f.basis == Basis::ProfiledTime {
        return no_steps("Input-bound steps");
    }
    let part: Part = |s| s.host_wait_input_ms;
    let cost = f.per_step(part);
    if f.share(cost) < INPUT_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("input_bound", cost, (0.5, 1.0));
    d.title = match f.framework {
        Framework::PyTorch => "The training loop waits for the DataLoader".into(),
        Framework::Jax => "Steps wait for the next batch".into(),
        _ => "The step waits for tf.data input".into(),
    };
    d.summary = format!(
        "{} of each {} step ({}) is spent waiting for input, not computing.",
        ms(cost),
        ms(f.step_ms),
        pct(f.share(cost))
    );
    d.reasoning = format!(
        "Overlapping input with compute hides the wait: all of it ({}) when the pipeline keeps up, at least half ({}) when producing a batch is parallelised over two or more cores but still not fully hidden.",
        ms(cost),
        ms(cost * 0.5)
    );
    d.confidence = Confidence::High;
    d.cite("Input time per step (average)", ms(cost), Link::tool("input_pipeline_analyzer"));
    if let Some(step) = f.worst_step(part) {
        d.cite("The step that waited longest", "timeline".into(), step);
    }
    // The input pipeline analyzer's own table of input ops (tf.data stages, enqueues).
    if let Some(top) = input.input_ops.iter().max_by(|a, b| a.self_time_ms.total_cmp(&b.self_time_ms)) {
        d.cite(
            format!("Slowest input op: {} (self time in the whole profile)", top.name),
            ms(top.self_time_ms),
            Link::tool("input_pipeline_analyzer"),
        );
    }
    d.finish()
}

/// One step-breakdown category above a share of the step: the detectors
/// that differ only in their column, threshold, gain and words.
struct Category {
    id: &'static str,
    part: Part,
    min_share: f64,
    gain: (f64, f64),
    label: &'static str,
    title: &'static str,
    reasoning: &'static str,
    gpu_only: bool,
}

const CATEGORIES: &[Category] = &[
    Category {
        id: "kernel_launch_bound",
        part: |s| s.kernel_launch_ms,
        min_share: LAUNCH_MIN_SHARE,
        gain: (0.3, 0.8),
        label: "Kernel launch time",
        title: "Kernel-launch bound: the host launches many small kernels",
        reasoning: "Fusing ops (XLA) or capturing the step as a graph removes most launches: 30-80% of the launch time, by how much of the step fuses.",
        gpu_only: true,
    },
    Category {
        id: "compile_in_steps",
        part: |s| s.compile_ms,
        min_share: COMPILE_MIN_SHARE,
        gain: (0.9, 1.0),
        label: "Compilation inside steps",
        title: "Recompilation inside training steps",
        reasoning: "A program compiled once is reused: nearly all compile time inside steps goes (90-100%; the first compile stays, outside the steps).",
        gpu_only: false,
    },
    Category {
        id: "host_to_device",
        part: |s| s.host_to_device_ms + s.output_ms,
        min_share: H2D_MIN_SHARE,
        gain: (0.5, 1.0),
        label: "Host-device copies in the step",
        title: "Host-device copies on the step's critical path",
        reasoning: "Copies prefetched to the device during the previous step leave the critical path: all of it when they overlap fully, at least half.",
        gpu_only: true,
    },
    Category {
        id: "collective_wait",
        part: |s| s.device_collectives_ms,
        min_share: COLLECTIVES_MIN_SHARE,
        gain: (0.2, 0.6),
        label: "Collective communication",
        title: "Waiting for collectives (all-reduce) across devices",
        reasoning: "Overlapping communication with compute and balancing the hosts recovers 20-60% of it, by how much compute is left to overlap with.",
        gpu_only: false,
    },
];

const HOST_WORK: Category = Category {
    id: "host_between_steps",
    part: |s| s.other_ms,
    min_share: OTHER_MIN_SHARE,
    gain: (0.5, 1.0),
    label: "Time no op accounts for (\"all others\")",
    title: "Host work between steps (Python outside any op)",
    reasoning: "Work moved out of the step loop disappears from it entirely (the high end); at least half, since some of it is the framework's own dispatch that stays.",
    gpu_only: false,
};

fn category(f: &Frame<'_>, c: &Category, reasoning: String) -> Outcome {
    if f.basis == Basis::ProfiledTime {
        return no_steps(c.title);
    }
    if c.gpu_only && !f.gpu {
        return Outcome::Clear;
    }
    let cost = f.per_step(c.part);
    if f.share(cost) < c.min_share || cost <= 0.0 {
        return Outcome::Clear;
    }
    let mut d = f.draft(c.id, cost, c.gain);
    d.summary = format!("{}: {} of each {} step ({}).", c.label, ms(cost), ms(f.step_ms), pct(f.share(cost)));
    d.title = c.title.into();
    d.reasoning = reasoning;
    d.cite(format!("{} per step (average)", c.label), ms(cost), Link::tool("overview_page"));
    if let Some(step) = f.worst_step(c.part) {
        d.cite("The step with the most of it", "timeline".into(), step);
    }
    d.finish()
}

fn host_between_steps(f: &Frame<'_>) -> Outcome {
    let other = f.per_step(HOST_WORK.part);
    // On a CPU-only host the Python work also takes cores from the ops of
    // the same step: up to its share of the step of their time.
    let ops = f.per_step(|s| s.host_compute_ms + s.host_wait_input_ms);
    let contention = if f.cpu_only { ops * f.share(other) } else { 0.0 };
    let reasoning = if contention > 0.0 {
        format!(
            "Work moved out of the step loop disappears from it: at least half of it, since some is the framework's own dispatch that stays; at most all of it plus {} the ops lose to it on this CPU-only host (their {} of compute and input time a step, times its {} share of the step).",
            ms(contention),
            ms(ops),
            pct(f.share(other))
        )
    } else {
        HOST_WORK.reasoning.to_string()
    };
    let mut outcome = category(f, &HOST_WORK, reasoning);
    if let Outcome::Found(finding) = &mut outcome {
        finding.gain_ms_per_step.high += contention;
    }
    outcome
}

/// A step run op by op: XProf's eager rule (eager ops take 10% or more of
/// the host's op time), or many Python dispatches per step
/// ([`super::dispatch`]). The cost is the step's host time (host compute
/// and "all others"), which a compiled step mostly removes.
fn eager(f: &Frame<'_>, host: &OpMetricsDb, dispatches: Option<f64>) -> Outcome {
    let ops = || host.ops.iter().filter(|o| !o.is_idle());
    let eager_ps = total(ops().filter(|o| o.is_eager).map(|o| o.self_time_ps));
    let total_ps = total(ops().map(|o| o.self_time_ps));
    let eager_share = if total_ps == 0 { 0.0 } else { eager_ps as f64 / total_ps as f64 };
    let many = dispatches.filter(|&n| n >= super::dispatch::MIN_DISPATCHES_PER_STEP);
    if eager_share < EAGER_MIN_SHARE && many.is_none() {
        return Outcome::Clear;
    }
    let cost = if f.basis == Basis::Step {
        f.per_step(|s| s.host_compute_ms + s.other_ms)
    } else {
        f.scaled(eager_ps, host.total_time_ps)
    };
    if cost <= 0.0 {
        return Outcome::Clear;
    }
    let mut d = f.draft("eager_ops", cost, EAGER_GAIN);
    d.title = match f.framework {
        Framework::Jax => "Ops dispatched one at a time instead of one jitted step".into(),
        Framework::PyTorch => "Ops run eagerly, one at a time".into(),
        _ => "Ops run eagerly instead of in a tf.function graph".into(),
    };
    let how = match many {
        Some(n) => format!("Each step dispatches {n:.0} ops one at a time from Python"),
        None => format!("{} of the host's op time ran eagerly", pct(eager_share)),
    };
    d.summary = format!("{how}; the step spends {} on the host ({} of it).", ms(cost), pct(f.share(cost)));
    d.reasoning = format!(
        "Compiled as one program (tf.function, jax.jit) the step runs the same math without a Python dispatch per op and with ops fused; what stays is the math itself: {}–{} of the {} host time a step (50–95%; checked on the eager and un-jitted pairs in tests/data/advisor_pairs).",
        ms(cost * EAGER_GAIN.0),
        ms(cost * EAGER_GAIN.1),
        ms(cost)
    );
    if let Some(n) = many {
        let step = f.worst_step(|s| s.host_compute_ms + s.other_ms).unwrap_or_else(|| Link::tool("trace_viewer"));
        d.cite("Python dispatches per step (the link: the step with the most host time)", format!("{n:.0}"), step);
    }
    d.cite("Host op time that ran eagerly (XProf's rule)", pct(eager_share), Link::tool("framework_op_stats"));
    d.cite("Host compute + all others per step", ms(cost), Link::tool("input_pipeline_analyzer"));
    d.finish()
}

fn fp32(f: &Frame<'_>, a: &HostAnalysis) -> Outcome {
    let (db, _) = a.shown_steps();
    let (c16, c32) = (db.compute_16bit_ps as f64, db.compute_32bit_ps as f64);
    if !f.gpu || c32 + c16 <= 0.0 || f.basis == Basis::ProfiledTime {
        return Outcome::Clear;
    }
    let share32 = c32 / (c16 + c32);
    let compute = f.per_step(|s| s.device_compute_ms);
    let cost = compute * share32;
    if share32 < 0.5 || f.share(compute) < 0.2 {
        return Outcome::Clear;
    }
    let mut d = f.draft("fp32_compute", cost, (0.3, 0.6));
    d.title = "Device compute runs in 32-bit; 16-bit would do".into();
    d.summary = format!("{} of the device's compute time is 32-bit: about {} a step.", pct(share32), ms(cost));
    d.reasoning = "bf16/fp16 math runs on tensor cores at 2x or more the fp32 rate and halves memory traffic; ops bound by other things gain less: 30-60% of the 32-bit compute time.".into();
    d.cite("32-bit share of device compute", pct(share32), Link::tool("overview_page"));
    d.finish()
}

fn kernel_share(f: &Frame<'_>, kernels: &[KernelRow], device: &OpMetricsDb, pick: impl Fn(&KernelRow) -> bool) -> f64 {
    let ns = total(kernels.iter().filter(|k| pick(k)).map(|k| k.total_ns));
    f.scaled(ns.saturating_mul(1000), device.total_time_ps)
}

fn tensor_cores(f: &Frame<'_>, a: &HostAnalysis) -> Outcome {
    // Without a vendor XProf's rule flags no kernel as using tensor cores
    // (older TensorFlow records none), so "unused" would be a guess.
    let vendor = a.environment.device.as_ref().map_or("", |d| d.vendor.as_str());
    if !f.gpu || a.kernels.is_empty() || crate::passes::tensor_core::GpuVendor::from_stat(vendor).is_none() {
        return Outcome::Clear;
    }
    let cost = kernel_share(f, &a.kernels, &a.device_ops, |k| k.op_tensor_core_eligible && !k.uses_tensor_core);
    if f.share(cost) < OP_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("tensor_cores_unused", cost, (0.3, 0.7));
    d.title = "Matrix kernels that could use tensor cores do not".into();
    d.summary = format!("Kernels of tensor-core-eligible ops that ran without them: about {} a step.", ms(cost));
    d.reasoning =
        "Tensor cores run matrix math several times faster; with memory time left, 30-70% of those kernels' time."
            .into();
    d.cite("Eligible kernels without tensor cores", ms(cost), Link::tool("kernel_stats"));
    d.finish()
}

fn small_kernels(f: &Frame<'_>, kernels: &[KernelRow], device: &OpMetricsDb) -> Outcome {
    let small = |k: &KernelRow| k.occurrences > 0 && (k.total_ns as f64 / k.occurrences as f64) < SMALL_KERNEL_NS;
    let count = total(kernels.iter().filter(|k| small(k)).map(|k| k.occurrences));
    let all = total(kernels.iter().map(|k| k.occurrences));
    if all == 0 || (count as f64) < 0.5 * all as f64 {
        return Outcome::Clear;
    }
    let cost = kernel_share(f, kernels, device, small);
    if f.share(cost) < OP_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("small_kernels", cost, (0.2, 0.5));
    d.title = "Most kernels are tiny (under 10 µs)".into();
    d.summary = format!("{count} of {all} kernel runs average under 10 µs; together about {} of each step.", ms(cost));
    d.reasoning =
        "Fused into larger kernels, their launch gaps and memory round trips go: 20-50% of their time.".into();
    d.cite("Kernel runs under 10 µs", format!("{count} of {all}"), Link::tool("kernel_stats"));
    d.finish()
}

/// With steps, the device's idle time in them that no other finding names:
/// the step breakdown's categories add up to the step, and those in which
/// the device waits for input, host work, launches or compilation are
/// findings of their own, which leaves the host's op time ("host compute").
fn idle_in_steps(f: &Frame<'_>) -> Outcome {
    if f.cpu_only {
        return Outcome::Clear;
    }
    let part: Part = |s| s.host_compute_ms;
    let cost = f.per_step(part);
    if cost <= 0.0 || f.share(cost) < IDLE_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("device_idle", cost, (0.25, 0.75));
    d.title = "The device waits while the host runs ops".into();
    d.summary = format!(
        "For {} of each {} step ({}) the host computes and the device has nothing to run.",
        ms(cost),
        ms(f.step_ms),
        pct(f.share(cost))
    );
    d.reasoning = "Ops moved to the device, or host work overlapped with the device's (prefetching, async dispatch), close 25-75% of it, by how much depends on the host's result.".into();
    d.cite("Host compute per step (average)", ms(cost), Link::tool("input_pipeline_analyzer"));
    if let Some(step) = f.worst_step(part) {
        d.cite("The step with the most of it", "timeline".into(), step);
    }
    d.finish()
}

/// Without steps: the device's measured time in which neither an op nor a kernel ran. A
/// GPU's kernels may map to no framework op (XLA programs without their
/// HLO): their time then counts as busy all the same, since the op table's
/// "idle" would be the whole device.
fn device_idle(f: &Frame<'_>, device: &OpMetricsDb, kernels: &[KernelRow]) -> Outcome {
    if f.basis == Basis::Step {
        return idle_in_steps(f);
    }
    let kernel_ps = total(kernels.iter().map(|k| k.total_ns.saturating_mul(1000)));
    let busy = device.total_op_time_ps.max(kernel_ps);
    if device.total_time_ps == 0 {
        return Outcome::Clear;
    }
    if busy == 0 {
        return Outcome::Unmeasured {
            title: "Device idle".into(),
            why: "no op or kernel time is recorded on the device".into(),
        };
    }
    let idle = device.total_time_ps.saturating_sub(busy);
    let share = idle as f64 / device.total_time_ps as f64;
    if share < IDLE_MIN_SHARE {
        return Outcome::Clear;
    }
    let cost = f.scaled(idle, device.total_time_ps);
    let mut d = f.draft("device_idle", cost, (0.25, 0.75));
    d.title = "The device sits idle between its ops".into();
    d.summary = format!(
        "No op or kernel ran on the device for {} of its measured time: about {} of each step.",
        pct(share),
        ms(cost)
    );
    d.reasoning = "Idle time closes as far as the host can queue work ahead: 25-75%, since some gaps are dependencies on the host.".into();
    let shown_in = if kernel_ps > device.total_op_time_ps { "kernel_stats" } else { "framework_op_stats" };
    d.cite("Device idle share", pct(share), Link::tool(shown_in));
    d.finish()
}

fn is_transpose(op: &OpMetrics) -> bool {
    let name = op.name.to_ascii_lowercase();
    op.category.eq_ignore_ascii_case("transpose")
        || name.contains("nchwtonhwc")
        || name.contains("nhwctonchw")
        || name.contains("transpose")
}

fn transposes(f: &Frame<'_>, device: &OpMetricsDb) -> Outcome {
    let ps = total(device.ops.iter().filter(|o| !o.is_idle() && is_transpose(o)).map(|o| o.self_time_ps));
    let cost = f.scaled(ps, device.total_time_ps);
    if ps == 0 || f.share(cost) < OP_MIN_SHARE {
        return Outcome::Clear;
    }
    let mut d = f.draft("layout_transposes", cost, (0.7, 1.0));
    d.title = "Layout transposes (NCHW ↔ NHWC) on the device".into();
    d.summary = format!("Transposes between data layouts take about {} of each step.", ms(cost));
    d.reasoning = "With one layout throughout, the transposes go: 70-100% of their time (some reshapes stay).".into();
    d.cite("Transpose op time per step", ms(cost), Link::tool("framework_op_stats"));
    d.finish()
}

fn xla_category(f: &Frame<'_>, xla: Option<&XlaOpDb>, id: &str, category: &str) -> Outcome {
    let Some(db) = xla.filter(|db| !db.ops.is_empty()) else { return Outcome::Clear };
    let ps = total(db.ops.iter().filter(|o| o.category == category).map(|o| o.self_time_ps.max(o.time_ps)));
    let cost = f.scaled(ps, db.total_time_ps);
    if ps == 0 || f.share(cost) < OP_MIN_SHARE {
        return Outcome::Clear;
    }
    let copies = id == "xla_copies";
    let mut d = f.draft(id, cost, if copies { (0.5, 1.0) } else { (0.3, 0.7) });
    d.title = if copies {
        "XLA copies and transposes that only change layout".into()
    } else {
        "Elementwise XLA ops that did not fuse".into()
    };
    d.summary = format!("XLA ops of category “{category}” take about {} of each step.", ms(cost));
    d.reasoning = if copies {
        "A layout the consumer accepts removes the copy: 50-100% of their time.".into()
    } else {
        "Fused into their neighbours, elementwise ops stop reading and writing memory: 30-70% of their time.".into()
    };
    d.cite(format!("“{category}” time per step"), ms(cost), Link::tool("hlo_stats"));
    d.finish()
}
