//! Everything the step-based tools share for one host, computed once:
//! groups, steps, op metrics and the run environment.

use crate::hlo::gpu::GpuHlo;
use crate::passes::device_env::DeviceEnv;
use crate::passes::duty_cycle::{duty_cycle, DutyCycle};
use crate::passes::grouping::{group_events, group_events_with, Grouping, KERAS_BATCH_MARKER};
use crate::passes::input_pipeline::{self, InputPipelineAnalysis};
use crate::passes::op_metrics::{device_op_metrics_with_hlo, host_op_metrics, OpMetricsDb};
use crate::passes::performance_counters::{performance_counters, PerformanceCounters};
use crate::passes::run_environment::{run_environment, RunEnvironment};
use crate::passes::steps::{self, step_db, StepDb};
use proflens_model::hlo::HloModule;
use proflens_model::Profile;

/// Serialisable: a host's summary (`context::summary`) is this analysis,
/// written beside the profile or computed on another thread.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HostAnalysis {
    /// Steps as XProf finds them.
    pub steps: StepDb,
    /// Steps Proflens infers where XProf finds none (Keras 3 batch markers),
    /// with the reason shown to the user.
    pub inferred_steps: Option<(StepDb, String)>,
    pub host_ops: OpMetricsDb,
    pub device_ops: OpMetricsDb,
    /// TPU busy and idle time (zero without TPUs).
    pub duty_cycle: DutyCycle,
    /// MXU and HBM utilisation, where the host plane records them.
    pub counters: PerformanceCounters,
    /// GPU kernel stats.
    pub kernels: Vec<crate::passes::kernels::KernelRow>,
    pub environment: RunEnvironment,
    /// Device peaks for the roofline columns.
    pub device_env: DeviceEnv,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

impl HostAnalysis {
    /// The analysis of a profile, without the HLO of its XLA programs (XLA
    /// kernels on GPUs then count as no op).
    pub fn new(profile: &Profile) -> HostAnalysis {
        HostAnalysis::with_hlo(profile, &[])
    }

    /// The analysis of a profile whose XLA programs' HLO are `modules`: XLA
    /// kernels on GPUs count as the HLO instructions they ran for, and the
    /// programs' framework ops tell whether the run trains.
    pub fn with_hlo(profile: &Profile, modules: &[HloModule]) -> HostAnalysis {
        HostAnalysis::of(profile, &group_events(profile), &GpuHlo::new(modules), modules)
    }

    /// The analysis from the host's event grouping and HLO index (passes
    /// that [`crate::context::HostContext`] computes once and shares).
    pub fn of(profile: &Profile, grouping: &Grouping, hlo: &GpuHlo<'_>, modules: &[HloModule]) -> HostAnalysis {
        // XProf drops the first and last step (cut by the capture) when there are more than five.
        let steps = step_db(profile, grouping, true);
        let inferred_steps = if steps.steps.is_empty() { keras_steps(profile) } else { None };
        let host_ops = host_op_metrics(profile, grouping);
        let device_ops = device_op_metrics_with_hlo(profile, grouping, hlo);
        let kernels = crate::passes::kernels::kernel_stats_with_hlo(profile, hlo);
        HostAnalysis {
            steps,
            inferred_steps,
            host_ops,
            device_ops,
            duty_cycle: duty_cycle(profile),
            counters: performance_counters(profile),
            kernels,
            environment: RunEnvironment {
                is_training: crate::passes::training::programs_train(modules),
                ..run_environment(profile)
            },
            device_env: DeviceEnv::of(profile),
            errors: profile.errors.clone(),
            warnings: profile.warnings.clone(),
        }
    }

    /// All hosts of a run as one, as XProf's "all hosts" view: ops add up,
    /// steps are matched by name and each takes its slowest host's time and
    /// breakdown, the devices of every host count.
    pub fn combine(hosts: &[&HostAnalysis]) -> HostAnalysis {
        let mut host_ops = OpMetricsDb::default();
        let mut device_ops = OpMetricsDb::default();
        let mut duty_cycle = DutyCycle::default();
        for h in hosts {
            host_ops.combine(&h.host_ops);
            device_ops.combine(&h.device_ops);
            duty_cycle.add(&h.duty_cycle);
        }
        let steps = steps::combine_hosts(&hosts.iter().map(|h| &h.steps).collect::<Vec<_>>());
        let inferred: Vec<&StepDb> = hosts.iter().filter_map(|h| h.inferred_steps.as_ref().map(|(db, _)| db)).collect();
        let inferred_steps = (steps.steps.is_empty() && !inferred.is_empty() && inferred.len() == hosts.len())
            .then(|| hosts[0].inferred_steps.as_ref().map(|(_, why)| (steps::combine_hosts(&inferred), why.clone())))
            .flatten();
        let mut environment = hosts.first().map(|h| h.environment.clone()).unwrap_or_else(|| RunEnvironment {
            hardware_type: crate::common::hardware::HardwareType::CpuOnly,
            device_type: "CPU".into(),
            device_core_count: 0,
            host_count: 0,
            task_count: 0,
            hostnames: Vec::new(),
            device: None,
            is_training: false,
        });
        environment.device_core_count = hosts.iter().map(|h| h.environment.device_core_count).sum();
        environment.task_count = hosts.len() as u64;
        environment.is_training = hosts.iter().any(|h| h.environment.is_training);
        let mut names: Vec<String> = hosts.iter().flat_map(|h| h.environment.hostnames.iter().cloned()).collect();
        names.sort();
        names.dedup();
        environment.host_count = names.len().max(1) as u64;
        environment.hostnames = names;
        HostAnalysis {
            steps,
            inferred_steps,
            host_ops,
            device_ops,
            duty_cycle,
            // Counters are per host; the combined view shows the first host's.
            counters: hosts.first().map(|h| h.counters).unwrap_or_default(),
            kernels: crate::passes::kernels::combine(&hosts.iter().map(|h| h.kernels.as_slice()).collect::<Vec<_>>()),
            environment,
            device_env: hosts.first().map(|h| h.device_env).unwrap_or_default(),
            errors: hosts.iter().flat_map(|h| h.errors.iter().cloned()).collect(),
            warnings: hosts.iter().flat_map(|h| h.warnings.iter().cloned()).collect(),
        }
    }

    /// The steps Proflens shows: XProf's, or inferred ones where XProf has none.
    pub fn shown_steps(&self) -> (&StepDb, Option<&str>) {
        match &self.inferred_steps {
            Some((db, why)) => (db, Some(why.as_str())),
            None => (&self.steps, None),
        }
    }

    /// The input pipeline analysis Proflens shows.
    pub fn input_pipeline(&self) -> InputPipelineAnalysis {
        let (steps, note) = self.shown_steps();
        let mut analysis = self.input_pipeline_of(steps);
        analysis.steps_note = note.map(str::to_owned);
        analysis
    }

    /// The input pipeline analysis exactly as XProf computes it.
    pub fn input_pipeline_xprof(&self) -> InputPipelineAnalysis {
        self.input_pipeline_of(&self.steps)
    }

    fn input_pipeline_of(&self, steps: &StepDb) -> InputPipelineAnalysis {
        let host_ops = input_pipeline::host_input_ops(&self.host_ops);
        input_pipeline::analyze(steps, self.environment.hardware_type, &host_ops)
    }
}

/// Keras 3's `Profiled batch` TraceMe carries `step_num` but no root marker, so
/// XProf finds no steps in `model.fit` profiles. Keras starts and stops the
/// trace at batch boundaries, so every marked batch is complete: none is dropped.
fn keras_steps(profile: &Profile) -> Option<(StepDb, String)> {
    let has_marker =
        profile.planes.iter().flat_map(|p| &p.event_metadata).any(|m| profile.str(m.name) == KERAS_BATCH_MARKER);
    if !has_marker {
        return None;
    }
    let grouping = group_events_with(profile, true);
    let db = step_db(profile, &grouping, false);
    (!db.steps.is_empty()).then(|| {
        (
            db,
            "Steps inferred from Keras's \"Profiled batch\" markers, which XProf does not recognise as steps."
                .to_string(),
        )
    })
}
