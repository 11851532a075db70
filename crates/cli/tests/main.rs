//! The `proflens` binary's tests, one module per file, in one test binary:
//! `cargo test -p proflens-cli --test cli_tests registry::` runs one file's.

mod common;

mod advise;
mod archives;
mod bench;
mod cli;
mod combine;
mod compare;
mod input;
mod kineto;
mod legacy;
mod library;
mod output;
mod perfetto;
mod rank_summaries;
mod registry;
mod serve;
mod summaries;
mod threads;
mod trace_hosts;
