//! The command line: its arguments (clap) and what each subcommand runs.

use crate::{advise, bench, compare, export_trace, info, serve, summarize, tool, tools, Failure};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "proflens",
    version,
    about = "Analyse TensorFlow / JAX profiles (*.xplane.pb) and PyTorch traces offline: tools, comparisons, \
             and the Advisor's ranked findings (`proflens advise`)"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Print the runs, hosts, planes, lines and event counts of PATH as JSON.
    Info {
        /// A profile file, a run directory, a whole log directory, or a .tar / .tar.gz archive of profiles.
        path: PathBuf,
        /// Only the runs, their hosts and each host's files, without reading the profiles.
        #[arg(long)]
        list: bool,
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
        /// Write the summaries under DIR (each in its run's folder, as found under PATH)
        /// instead of beside the profiles: DIR is then a log directory of summaries.
        #[arg(long, value_name = "DIR")]
        output_dir: Option<PathBuf>,
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
    Tool(tool::Args),
}

/// Runs the parsed command: the exit code it asks for, or a failure (exit 1).
pub fn dispatch(cli: Cli) -> Result<u8, Failure> {
    let result = match cli.command {
        Command::Info { path, list } => info::run(&path, list),
        Command::Bench { path, repeat, threads } if threads.is_empty() => bench::run(&path, repeat),
        Command::Bench { path, repeat, threads } => bench::threads(&path, repeat, &threads),
        Command::Tools { json } => tools::run(json),
        Command::Advise { path, run, host, format, fail_on, output } => {
            match advise::run(&advise::Args { path, run, host, format, fail_on, output }) {
                Ok(advise::Verdict::Found) => return Ok(advise::FOUND),
                other => other.map(|_| ()),
            }
        }
        Command::Summarize { path, run, jobs, output_dir } => {
            summarize::run(&path, run.as_deref(), jobs, output_dir.as_deref())
        }
        Command::Serve { logdir, port, open, page } => serve::run(&serve::Args { logdir, port, open, page }),
        Command::ExportTrace { path, output, run, host } => {
            export_trace::run(&path, &output, run.as_deref(), host.as_deref())
        }
        Command::Tool(args) => tool::run(&args),
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
                Ok(compare::Verdict::Slower) => return Ok(compare::SLOWER),
                other => other.map(|_| ()),
            }
        }
    };
    result.map(|()| 0)
}
