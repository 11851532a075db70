//! GPU kernel stats: every kernel launch aggregated per kernel and launch
//! shape, with TensorCore use (xprof/convert/xplane_to_kernel_stats_db.cc).

use crate::common::schema::{is_derived_line, StatKeys, StatPicker, GPU_PLANE_PREFIX};
use crate::common::tf_op;
use crate::hlo::gpu::GpuHlo;
use crate::passes::tensor_core::{op_tensor_core_eligible, plane_vendor, uses_tensor_core_of};
use proflens_model::Profile;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// XProf keeps the kernels with the most total time.
const MAX_KERNELS: usize = 1000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelRow {
    pub name: String,
    pub registers_per_thread: u64,
    pub static_shmem_bytes: u64,
    pub dynamic_shmem_bytes: u64,
    pub block: [u64; 3],
    pub grid: [u64; 3],
    pub occupancy_pct: f64,
    pub op_tensor_core_eligible: bool,
    pub uses_tensor_core: bool,
    /// The framework op the kernel ran for (empty when not recorded).
    pub op_name: String,
    pub occurrences: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

impl KernelRow {
    /// The row of a kernel with these launch parameters and op, before any run.
    pub fn not_run(name: String, d: &KernelDetails, op_name: String, uses: bool, op_eligible: bool) -> KernelRow {
        KernelRow {
            name,
            registers_per_thread: d.registers,
            static_shmem_bytes: d.static_shmem,
            dynamic_shmem_bytes: d.dynamic_shmem,
            block: d.block,
            grid: d.grid,
            occupancy_pct: d.occupancy_pct,
            op_tensor_core_eligible: op_eligible,
            uses_tensor_core: uses,
            op_name,
            occurrences: 0,
            total_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    /// Counts one run of the kernel, `ns` long.
    pub fn add_run(&mut self, ns: u64) {
        self.occurrences += 1;
        self.total_ns += ns;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }
}

/// Launch parameters from a `kernel_details` stat (`regs:32 static_shared:0
/// dynamic_shared:0 grid:160,1,1 block:1024,1,1 occ_pct:50`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct KernelDetails {
    pub registers: u64,
    pub static_shmem: u64,
    pub dynamic_shmem: u64,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub occupancy_pct: f64,
}

pub fn parse_kernel_details(text: &str) -> KernelDetails {
    let dims = |v: &str| {
        let mut out = [1u64; 3];
        for (slot, part) in out.iter_mut().zip(v.split(',')) {
            *slot = part.trim().parse().unwrap_or(1);
        }
        out
    };
    let mut d = KernelDetails { grid: [1; 3], block: [1; 3], ..KernelDetails::default() };
    for token in text.split_whitespace() {
        let Some((key, value)) = token.split_once(':') else { continue };
        match key {
            "regs" => d.registers = value.parse().unwrap_or(0),
            "static_shared" | "shm" => d.static_shmem = value.parse().unwrap_or(0),
            "dynamic_shared" => d.dynamic_shmem = value.parse().unwrap_or(0),
            "grid" => d.grid = dims(value),
            "block" => d.block = dims(value),
            "occ_pct" => d.occupancy_pct = value.parse().unwrap_or(0.0),
            _ => {}
        }
    }
    d
}

pub fn kernel_stats(profile: &Profile) -> Vec<KernelRow> {
    kernel_stats_with_hlo(profile, &GpuHlo::new(&[]))
}

/// [`kernel_stats`] with the HLO of the profile's XLA programs, which names
/// the framework op of XLA kernels (from the instruction's `op_name`).
pub fn kernel_stats_with_hlo(profile: &Profile, hlo: &GpuHlo<'_>) -> Vec<KernelRow> {
    let keys = StatKeys::new(profile);
    let picker = StatPicker::new(profile, &[keys.kernel_details, keys.tf_op, keys.hlo_op, keys.program_id]);
    let mut values = [None; 4];
    type Key = (String, [u64; 3], [u64; 3], u64, u64, u64, String);
    let mut rows: FxHashMap<Key, KernelRow> = FxHashMap::default();
    for plane in profile.planes.iter().filter(|p| profile.str(p.name).starts_with(GPU_PLANE_PREFIX)) {
        // XProf reads each device plane's vendor for the matrix-unit rule.
        let vendor = plane_vendor(profile, plane);
        for line in plane.lines.iter().filter(|l| !is_derived_line(l)) {
            let ev = &line.events;
            for i in 0..ev.len() {
                if ev.duration_ps.at(i) <= 0 {
                    continue;
                }
                picker.pick(profile, plane, line, i, &mut values);
                let Some(details) = values[0].map(|v| v.to_string()) else { continue };
                let d = parse_kernel_details(&details);
                let name = profile.str(plane.event_metadata[ev.metadata[i] as usize].name);
                // XLA kernels (with `hlo_op`) take their op from the HLO
                // (empty without it); others from the framework op annotation.
                let op_name = match values[2] {
                    Some(hlo_op) => {
                        let program = values[3].and_then(|v| v.as_u64()).unwrap_or(u64::MAX);
                        hlo_op.as_str().and_then(|op| hlo.framework_op(program, op)).unwrap_or_default().to_string()
                    }
                    None => values[1].map(|v| tf_op::parse(&v.to_string()).name.to_string()).unwrap_or_default(),
                };
                let ns = (ev.duration_ps.at(i) / 1000) as u64;
                let key =
                    (name.to_string(), d.grid, d.block, d.registers, d.static_shmem, d.dynamic_shmem, op_name.clone());
                let row = rows.entry(key).or_insert_with(|| {
                    let uses = uses_tensor_core_of(vendor, name);
                    let op_eligible = uses || op_tensor_core_eligible(&op_name);
                    KernelRow::not_run(name.to_string(), &d, op_name, uses, op_eligible)
                });
                row.add_run(ns);
            }
        }
    }
    let mut out: Vec<KernelRow> = rows.into_values().collect();
    sort_and_cut(&mut out);
    out
}

/// Kernels of several hosts as one table: rows with the same kernel, launch
/// shape and op add up.
pub fn combine(tables: &[&[KernelRow]]) -> Vec<KernelRow> {
    type Key = (String, [u64; 3], [u64; 3], u64, u64, u64, String);
    let mut merged: FxHashMap<Key, KernelRow> = FxHashMap::default();
    for row in tables.iter().flat_map(|t| t.iter()) {
        let key = (
            row.name.clone(),
            row.grid,
            row.block,
            row.registers_per_thread,
            row.static_shmem_bytes,
            row.dynamic_shmem_bytes,
            row.op_name.clone(),
        );
        match merged.get_mut(&key) {
            Some(m) => {
                m.occurrences += row.occurrences;
                m.total_ns += row.total_ns;
                m.min_ns = m.min_ns.min(row.min_ns);
                m.max_ns = m.max_ns.max(row.max_ns);
            }
            None => {
                merged.insert(key, row.clone());
            }
        }
    }
    let mut out: Vec<KernelRow> = merged.into_values().collect();
    sort_and_cut(&mut out);
    out
}

/// XProf's kernel table over several hosts (op_stats_combiner.cc): every
/// host's rows side by side, not merged, ranked again by total time and cut
/// to the top 1000. Each row comes with the index of its table; rows that
/// rank alike keep the tables' order.
pub fn side_by_side(tables: &[&[KernelRow]]) -> Vec<(usize, KernelRow)> {
    let mut rows: Vec<(usize, KernelRow)> =
        tables.iter().enumerate().flat_map(|(i, t)| t.iter().map(move |r| (i, r.clone()))).collect();
    rows.sort_by(|(_, a), (_, b)| rank_order(a, b));
    rows.truncate(MAX_KERNELS);
    rows
}

/// Longest total time first; ties by name, then grid.
fn rank_order(a: &KernelRow, b: &KernelRow) -> std::cmp::Ordering {
    b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)).then_with(|| a.grid.cmp(&b.grid))
}

fn sort_and_cut(rows: &mut Vec<KernelRow>) {
    rows.sort_by(rank_order);
    rows.truncate(MAX_KERNELS);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, total_ns: u64) -> KernelRow {
        KernelRow {
            name: name.into(),
            registers_per_thread: 32,
            static_shmem_bytes: 0,
            dynamic_shmem_bytes: 0,
            block: [128, 1, 1],
            grid: [4, 1, 1],
            occupancy_pct: 50.0,
            op_tensor_core_eligible: false,
            uses_tensor_core: false,
            op_name: String::new(),
            occurrences: 2,
            total_ns,
            min_ns: total_ns / 2,
            max_ns: total_ns / 2,
        }
    }

    #[test]
    fn hosts_side_by_side_keep_their_rows() {
        let (a, b) = (vec![row("k1", 10), row("k2", 4)], vec![row("k1", 6), row("k3", 8)]);
        let rows = side_by_side(&[&a, &b]);
        let got: Vec<(usize, &str, u64)> = rows.iter().map(|(h, r)| (*h, r.name.as_str(), r.total_ns)).collect();
        assert_eq!(got, [(0, "k1", 10), (1, "k3", 8), (1, "k1", 6), (0, "k2", 4)]);
        // Merging instead adds the two k1 rows up.
        let merged = combine(&[&a, &b]);
        assert_eq!((merged.len(), merged[0].total_ns, merged[0].occurrences), (3, 16, 4));
    }

    #[test]
    fn parses_both_detail_formats() {
        let new =
            parse_kernel_details("regs:32 static_shared:48 dynamic_shared:16 grid:4,2,1 block:128,1,1 occ_pct:62.5");
        assert_eq!((new.registers, new.static_shmem, new.dynamic_shmem), (32, 48, 16));
        assert_eq!((new.grid, new.block, new.occupancy_pct), ([4, 2, 1], [128, 1, 1], 62.5));
        let old = parse_kernel_details("regs:38 shm:0 grid:160,1,1 block:1024,1,1");
        assert_eq!((old.registers, old.grid), (38, [160, 1, 1]));
        assert_eq!(parse_kernel_details("").grid, [1, 1, 1]);
    }
}
