//! `proflens`: the analysis core on the command line.
//!
//! Every failure is one line on stderr (`proflens: …`) and a non-zero exit;
//! the panic hook keeps even a bug from printing a backtrace at users.

mod advise;
mod archives;
mod bench;
mod combine;
mod compare;
mod export_trace;
mod hosts;
mod info;
mod output;
mod parallel;
mod serve;
mod static_files;
mod summaries;
mod summarize;
mod tool;
mod tools;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "proflens",
    version,
    about = "Analyse TensorFlow / JAX profiles (*.xplane.pb) and PyTorch traces offline: tools, comparisons, \
             and the Advisor's ranked findings (`proflens advise`)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the runs, hosts, planes, lines and event counts of PATH as JSON.
    Info {
        /// A profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive of profiles.
        path: PathBuf,
    },
    /// Write a timeline as Chrome Trace Event JSON (for Perfetto, about:tracing): one host's,
    /// or every host of the run (one process per host and plane, on the run's clock).
    ExportTrace {
        /// A profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive of profiles.
        path: PathBuf,
        /// The JSON file to write.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// The run, when PATH holds several; `RUN1+RUN2` combines runs captured together (their
        /// capture windows overlap, as the run folders of one multi-host JAX job; `info` lists them).
        #[arg(long)]
        run: Option<String>,
        /// One host of the run (without it, every host).
        #[arg(long)]
        host: Option<String>,
    },
    /// Time decoding and each tool on one host file; print JSON.
    Bench {
        /// A host's profile file.
        path: PathBuf,
        /// Repeats per phase; the best time is reported.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        /// Thread counts to compare (e.g. 1,2,4): per count, the decode and
        /// shared passes' times and the speed-up against the first count.
        #[arg(long, value_delimiter = ',')]
        threads: Vec<usize>,
    },
    /// Compare two profiles with one tool: baseline, candidate, change and verdict.
    ///
    /// Exit code 2 (with --fail-if-slower) means the candidate's step time is slower than allowed;
    /// any failure exits 1.
    Compare {
        /// The baseline: a profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive.
        base: PathBuf,
        /// The candidate (may be the same path as the baseline, with other --*-run/--*-host).
        candidate: PathBuf,
        /// overview_page, advisor (the findings that grew or are new), framework_op_stats, kernel_stats, hlo_stats, op_profile, memory_profile,
        /// memory_viewer, or trace_diff (HTA's trace diff of two PyTorch traces).
        #[arg(long, default_value = "overview_page")]
        tool: String,
        /// The run of both sides, when a path holds several.
        #[arg(long)]
        run: Option<String>,
        /// The host of both sides; without it, all hosts of the run together.
        #[arg(long)]
        host: Option<String>,
        /// The baseline's run (overrides --run).
        #[arg(long)]
        base_run: Option<String>,
        /// The baseline's host (overrides --host).
        #[arg(long)]
        base_host: Option<String>,
        /// The candidate's run (overrides --run).
        #[arg(long)]
        candidate_run: Option<String>,
        /// The candidate's host (overrides --host).
        #[arg(long)]
        candidate_host: Option<String>,
        /// json: the whole comparison; csv: its main table; md: a Markdown report.
        #[arg(long, value_enum, default_value = "json")]
        format: compare::Format,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// memory_viewer: the XLA module of both sides.
        #[arg(long)]
        module: Option<String>,
        /// Exit 2 when the candidate's average step time is more than PCT % above the baseline's.
        #[arg(long, value_name = "PCT")]
        fail_if_slower: Option<f64>,
    },
    /// The Advisor: what costs the profile the most, ranked by what a fix would gain, with the
    /// evidence (each with its tool and the app's link) and the fix.
    ///
    /// Exit code 2 (with --fail-on) means a named finding is present; any failure exits 1.
    Advise {
        /// A profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive of profiles.
        path: PathBuf,
        /// The run, when PATH holds several; `RUN1+RUN2` combines runs captured together (their
        /// capture windows overlap, as the run folders of one multi-host JAX job; `info` lists them).
        #[arg(long)]
        run: Option<String>,
        /// One host (or rank) of the run; without it, all hosts of the run together.
        #[arg(long)]
        host: Option<String>,
        /// json: the findings ranked, with evidence and fixes; md: a Markdown report.
        #[arg(long, value_enum, default_value = "json")]
        format: advise::Format,
        /// Exit 2 when any of these findings is present (finding ids, comma-separated).
        #[arg(long, value_name = "ID[,ID…]", value_delimiter = ',')]
        fail_on: Vec<String>,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Write each XSpace host's summary, and each PyTorch rank's, beside its profile
    /// (<host>.proflens-summary.bin.gz): the tools of all hosts (overview, input pipeline,
    /// framework op stats, kernel stats, pod viewer) and of all ranks (all but the trace viewer)
    /// then read the summaries instead of the profiles, and the summaries alone are a run.
    Summarize {
        /// A profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive of profiles.
        path: PathBuf,
        /// Only this run, when PATH holds several (default: every run).
        #[arg(long)]
        run: Option<String>,
        /// Hosts analysed at once, one per thread (default: one per core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// Serve the page and LOGDIR on 127.0.0.1 (read-only) and print the URL to open:
    /// the page lists LOGDIR's runs and hosts and reads a profile when it is chosen.
    Serve {
        /// A log directory (or any folder of profiles).
        logdir: PathBuf,
        /// The port on 127.0.0.1 (0: any free port, printed).
        #[arg(long, default_value_t = 6060)]
        port: u16,
        /// Open the URL in the default browser too.
        #[arg(long)]
        open: bool,
        /// The built page (default: PROFLENS_PAGE, the page installed beside the program, or a dist/ above it).
        #[arg(long, value_name = "DIR")]
        page: Option<PathBuf>,
    },
    /// List the tools: id, label, what each reads, output formats.
    Tools {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Run one analysis tool on one host and print its result.
    Tool {
        /// A profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive of profiles.
        path: PathBuf,
        /// A tool of `proflens tools` (XProf's names: overview_page, framework_op_stats, …).
        tool: String,
        /// The run, when PATH holds several; `RUN1+RUN2` combines runs captured together (their
        /// capture windows overlap, as the run folders of one multi-host JAX job; `info` lists them).
        #[arg(long)]
        run: Option<String>,
        /// One host of the run; without it, all hosts together (XProf's "all hosts").
        #[arg(long)]
        host: Option<String>,
        /// json: Proflens's view model; csv: the main table; xprof: XProf 2.24's JSON
        /// (graph_viewer: its long_txt HLO text); hta: HolisticTraceAnalysis 0.5.0's numbers
        /// (PyTorch analyses HTA has); txt, svg: graph_viewer's HLO text and graph drawing;
        /// md: the advisor's Markdown report.
        #[arg(long, value_enum, default_value = "json")]
        format: output::Format,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// PyTorch analyses that follow HTA: keep the last ProfilerStep (HTA's
        /// include_last_profiler_step=True); by default it is left out, as HTA does.
        #[arg(long)]
        include_last_step: bool,
        /// memory_viewer, graph_viewer: the XLA module, as XProf names it (`jit_f(12)`) or by
        /// plain name; default: the module with the most memory (graph_viewer: the most
        /// instructions).
        #[arg(long)]
        module: Option<String>,
        /// op_profile --format xprof: group by program (XProf's default) or by category.
        #[arg(long, value_enum, default_value = "program")]
        group_by: tool::Grouping,
        /// graph_viewer: the instruction to draw the graph around; default: the entry's root.
        #[arg(long)]
        node: Option<String>,
        /// graph_viewer: hops around the node (XProf's graph_width; default 3, at most 10).
        #[arg(long)]
        graph_width: Option<u32>,
        /// graph_viewer: draw each fusion as one node instead of its fused instructions.
        #[arg(long)]
        merge_fusion: bool,
        /// critical_path: find only this step's path (its place among the steps, from 0;
        /// HTA's instance_id); the other steps are listed without theirs. Default: every step's.
        #[arg(long, value_name = "N", visible_alias = "instance")]
        step: Option<usize>,
        /// critical_path: the iterations are the host events whose name contains NAME (HTA's
        /// annotation; "" for the whole trace). Default: ProfilerStep, or on a trace without it
        /// the longest top-level user annotation if its instances cover half the trace (else the
        /// whole trace).
        #[arg(long, value_name = "NAME")]
        annotation: Option<String>,
        /// All hosts: hosts analysed at once, one per thread (default: one per core).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
}

/// A user-facing failure: printed as one line, exit code 1.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("proflens: internal error{location}; please report it with the file that caused it");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Usage errors exit 1 like every failure: 2 is `compare`'s "slower"
        // and `advise`'s "found".
        Err(e) if e.use_stderr() => {
            let _ = e.print();
            return ExitCode::FAILURE;
        }
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Info { path } => info::run(&path),
        Command::Bench { path, repeat, threads } if threads.is_empty() => bench::run(&path, repeat),
        Command::Bench { path, repeat, threads } => bench::threads(&path, repeat, &threads),
        Command::Tools { json } => tools::run(json),
        Command::Advise { path, run, host, format, fail_on, output } => {
            match advise::run(&advise::Args { path, run, host, format, fail_on, output }) {
                Ok(advise::Verdict::Found) => return ExitCode::from(advise::FOUND),
                other => other.map(|_| ()),
            }
        }
        Command::Summarize { path, run, jobs } => summarize::run(&path, run.as_deref(), jobs),
        Command::Serve { logdir, port, open, page } => serve::run(&serve::Args { logdir, port, open, page }),
        Command::ExportTrace { path, output, run, host } => {
            export_trace::run(&path, &output, run.as_deref(), host.as_deref())
        }
        Command::Tool {
            path,
            tool,
            run,
            host,
            format,
            output,
            module,
            group_by,
            include_last_step,
            node,
            graph_width,
            merge_fusion,
            step,
            annotation,
            jobs,
        } => tool::run(&tool::Args {
            path,
            tool,
            run,
            host,
            format,
            output,
            module,
            group_by,
            include_last_step,
            node,
            graph_width,
            merge_fusion,
            step,
            annotation,
            jobs,
        }),
        Command::Compare {
            base,
            candidate,
            tool,
            run,
            host,
            base_run,
            base_host,
            candidate_run,
            candidate_host,
            format,
            output,
            module,
            fail_if_slower,
        } => {
            let args = compare::Args {
                base,
                candidate,
                tool,
                base_run: base_run.or_else(|| run.clone()),
                base_host: base_host.or_else(|| host.clone()),
                candidate_run: candidate_run.or(run),
                candidate_host: candidate_host.or(host),
                format,
                output,
                module,
                fail_if_slower,
            };
            match compare::run(&args) {
                Ok(compare::Verdict::Slower) => return ExitCode::from(compare::SLOWER),
                other => other.map(|_| ()),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            // Paths and names in a message come from files: one line, no terminal escapes.
            eprintln!("proflens: {}", proflens_format::escape_controls(&message));
            ExitCode::FAILURE
        }
    }
}
