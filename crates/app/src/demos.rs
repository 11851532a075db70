// The demos: real profiles of the test fixtures, one per kind of job, each
// opening on the Advisor (what to fix first, its evidence linked to the
// tools) with a one-line caption of what else to look at.
//
// Not bundled in the wasm: `cargo xtask dist` copies each demo's files
// (gzipped) into `dist/demos/`, where the worker fetches them on demand,
// and embeds them in `dist/proflens.html` as `<script
// type="application/octet-stream" id="proflens-demo-<served>">` elements,
// which the page reads when opened from disk. This file is data only:
// `xtask/src/dist.rs` includes it (`include!`, hence no `//!` comments here)
// so the list is written once.

/// One demo of the menu.
pub struct Demo {
    /// Its name in the URL (`#demo=jax`) and the menu's option value.
    pub id: &'static str,
    /// The menu's label.
    pub title: &'static str,
    /// What to look at, shown above the tool while the demo is open.
    pub caption: &'static str,
    /// The run its files make (the run selector shows it).
    pub run: &'static str,
    /// The tool it opens on (from the menu; a link's own tool wins); `None`
    /// keeps the chosen one. The Advisor for all: whatever tool was on
    /// screen, a demo opens on what it would fix first.
    pub tool: Option<&'static str>,
    pub files: &'static [DemoFile],
}

/// One file of a demo.
pub struct DemoFile {
    /// The fixture, from the repository's root (read by xtask only).
    #[allow(dead_code)]
    pub source: &'static str,
    /// Its gzip under `dist/demos/` (and its embedded element's id suffix);
    /// several files of a demo may share one.
    pub served: &'static str,
    /// The file name the run lists it by: the host's name and format.
    pub name: &'static str,
}

/// `#demo` alone opens this one (the smallest).
pub const DEFAULT: &str = "cpu";
/// Where the served files are, beside index.html.
pub const DIR: &str = "demos";
/// The id of a demo file's element in the single-file build, before `served`.
pub const ELEMENT_PREFIX: &str = "proflens-demo-";

/// The tool every demo opens on.
const ADVISOR: &str = "advisor";

const BERT: &str = "tests/data/xspace/external/34.83.195.179_6003.xplane.pb";

pub const DEMOS: &[Demo] = &[
    Demo {
        id: "cpu",
        title: "TensorFlow training loop on CPU (smallest)",
        caption: "a small TensorFlow custom training loop on one CPU host — look at the step-time graph and what each step spends its time on.",
        run: "custom_loop (demo)",
        tool: Some(ADVISOR),
        files: &[DemoFile {
            source: "tests/data/xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb",
            served: "custom_loop.xplane.pb.gz",
            name: "vm.xplane.pb.gz",
        }],
    },
    Demo {
        id: "tf-gpu",
        title: "TensorFlow GPU job on two hosts (BERT)",
        caption: "XProf's public BERT multi-worker profile, all hosts together — look at where the step time goes, and at the run environment: 16 GPUs. Both hosts are one file served twice, so their numbers match.",
        run: "bert_multiworker (demo)",
        tool: Some(ADVISOR),
        files: &[
            DemoFile { source: BERT, served: "bert.xplane.pb.gz", name: "34.83.195.179_6003.xplane.pb.gz" },
            DemoFile { source: BERT, served: "bert.xplane.pb.gz", name: "34.83.195.180_6003.xplane.pb.gz" },
        ],
    },
    Demo {
        id: "jax",
        title: "JAX XLA program on a GPU (MI300X GEMM)",
        caption: "a JAX matrix-multiply program compiled by XLA — look at where each XLA op sits under the memory and compute roofs; op profile, HLO op stats, memory viewer and graph viewer show the same program.",
        run: "jax_gemm_mi300x (demo)",
        tool: Some(ADVISOR),
        files: &[DemoFile {
            source: "tests/data/xspace/external/tw003.xplane.pb",
            served: "jax_gemm.xplane.pb.gz",
            name: "tw003.xplane.pb.gz",
        }],
    },
    Demo {
        id: "pytorch",
        title: "PyTorch job on two ranks (NCCL)",
        caption: "two ranks of a PyTorch job, all ranks together — look at which rank starts its NCCL collective late.",
        run: "pytorch_two_ranks (demo)",
        tool: Some(ADVISOR),
        files: &[
            DemoFile {
                source: "tests/data/kineto/kineto-multirank-sampled/sampled_rank-0.json.gz",
                served: "sampled_rank-0.json.gz",
                name: "sampled_rank-0.json.gz",
            },
            DemoFile {
                source: "tests/data/kineto/kineto-multirank-sampled/sampled_rank-1.json.gz",
                served: "sampled_rank-1.json.gz",
                name: "sampled_rank-1.json.gz",
            },
        ],
    },
    Demo {
        id: "input-bound",
        title: "Input-bound tf.data job",
        caption: "a TensorFlow job whose steps wait for input — look at how much of each step is input, then at the tf.data bottleneck analysis.",
        run: "input_bound (demo)",
        tool: Some(ADVISOR),
        files: &[DemoFile {
            source: "tests/data/xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb",
            served: "input_bound.xplane.pb.gz",
            name: "vm.xplane.pb.gz",
        }],
    },
];

/// The demo named `id`; the default one for an empty or unknown name.
pub fn find(id: &str) -> &'static Demo {
    DEMOS.iter().find(|d| d.id == id).or_else(|| DEMOS.iter().find(|d| d.id == DEFAULT)).expect("the default demo")
}

/// A demo file's path as the worker lists it: `<run>/<name>`, so that its
/// run is named by the demo.
pub fn listed_path(demo: &Demo, file: &DemoFile) -> String {
    format!("{}/{}", demo.run, file.name)
}
