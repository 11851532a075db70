//! A PyTorch rank's summary: what each tool of all ranks reduces one rank
//! to before it combines the ranks (docs/design.md: "map per rank, then
//! reduce"), written beside the rank's trace by `proflens summarize`
//! (`<rank>.proflens-summary.bin.gz`, the host summaries' name) and given
//! to the rank's [`HostContext`] in place of its events. A job's tools of
//! all ranks then combine without decoding any trace.
//!
//! The file is a host summary's sibling ([`crate::context::summary`]): the
//! same header (format, layout, release) with another `format`, so that a
//! host summary is never read as a rank's nor the other way round, the
//! same gzipped postcard, and the same check of the trace it describes.
//! The parts are those of each tool's default request; a tool asked for
//! the last profiler step too reads the trace.
//!
//! It sits above the tools (`lib.rs`'s layers) because it names each
//! tool's part; the tools find their parts in the context, type-erased.

use crate::context::summary::{self, HostSummary, Source, PROFLENS};
use crate::context::{HostContext, ToolError};
use crate::tools::{
    advisor, framework_op_stats, idle_time_breakdown, kernel_launch_stats, kernel_stats, memory_bandwidth, overview,
    queue_length, stragglers,
};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The `format` of every rank summary.
pub const FORMAT: &str = "proflens-rank-summary";
/// The layout of the rank summary: bumped when a [`Part`] or the encoding changes.
pub const VERSION: u32 = 1;

/// The tools of all ranks whose combination reads only each rank's part:
/// they answer from rank summaries without any trace. (The trace viewer of
/// all ranks draws every event, so it reads the traces.)
pub const COMBINED_FROM_RANK_SUMMARIES: [&str; 9] = [
    "overview_page",
    "framework_op_stats",
    "kernel_stats",
    "stragglers",
    "idle_time_breakdown",
    "queue_length",
    "memory_bandwidth",
    "kernel_launch_stats",
    "advisor",
];

/// One rank's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankSummary {
    /// Always [`FORMAT`]; with the next two, the header every summary starts with.
    pub format: String,
    /// [`VERSION`] of the writer.
    pub version: u32,
    /// The Proflens release that computed it ([`PROFLENS`]).
    pub proflens: String,
    /// The rank's host name, as discovery named it from the trace's file
    /// name: the parts' labels are this name.
    pub host: String,
    /// The trace it summarises, to tell when the trace changed.
    pub source: Option<Source>,
    /// One part per tool of [`COMBINED_FROM_RANK_SUMMARIES`].
    pub parts: Vec<Part>,
}

/// One tool's part of a rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Part {
    // Boxed: the two largest parts, so that a part is as small as the rest.
    Overview(Box<overview::pytorch::OverviewPart>),
    /// Stored as JSON: a row skips an empty list of shapes, which postcard
    /// (no field names) cannot tell apart.
    OperatorStats(#[serde(with = "as_json")] Vec<framework_op_stats::pytorch::OperatorRow>),
    KernelStats(Vec<crate::passes::kernels::KernelRow>),
    Stragglers(stragglers::StragglerPart),
    IdleTime(idle_time_breakdown::IdlePart),
    QueueLength(queue_length::QueueLength),
    MemoryBandwidth(memory_bandwidth::MemoryBandwidth),
    KernelLaunches(kernel_launch_stats::RankLaunches),
    /// Stored as JSON: the advice skips its fields that are not set.
    Advice(#[serde(with = "as_json")] Box<crate::advice::Advice>),
}

impl Part {
    /// The tool whose part it is.
    pub fn tool(&self) -> &'static str {
        match self {
            Part::Overview(_) => "overview_page",
            Part::OperatorStats(_) => "framework_op_stats",
            Part::KernelStats(_) => "kernel_stats",
            Part::Stragglers(_) => "stragglers",
            Part::IdleTime(_) => "idle_time_breakdown",
            Part::QueueLength(_) => "queue_length",
            Part::MemoryBandwidth(_) => "memory_bandwidth",
            Part::KernelLaunches(_) => "kernel_launch_stats",
            Part::Advice(_) => "advisor",
        }
    }

    /// `tool`'s part of a PyTorch rank, from its trace; `None` for a tool
    /// with no part (not of [`COMBINED_FROM_RANK_SUMMARIES`]).
    pub fn of(tool: &str, host: &HostContext) -> Option<Result<Part, ToolError>> {
        let part = match tool {
            "overview_page" => overview::rank_part(host).map(|p| Part::Overview(Box::new(p))),
            "framework_op_stats" => framework_op_stats::rank_part(host).map(Part::OperatorStats),
            "kernel_stats" => kernel_stats::rank_part(host).map(Part::KernelStats),
            "stragglers" => stragglers::rank_part(host).map(Part::Stragglers),
            "idle_time_breakdown" => idle_time_breakdown::rank_part(host).map(Part::IdleTime),
            "queue_length" => queue_length::rank_part(host).map(Part::QueueLength),
            "memory_bandwidth" => memory_bandwidth::rank_part(host).map(Part::MemoryBandwidth),
            "kernel_launch_stats" => kernel_launch_stats::rank_part(host).map(Part::KernelLaunches),
            "advisor" => advisor::rank_part(host).map(|p| Part::Advice(Box::new(p))),
            _ => return None,
        };
        Some(part)
    }

    /// Gives the part to the rank's context, where its tool finds it.
    pub fn give(self, host: &HostContext) {
        let tool = self.tool();
        let part: Rc<dyn std::any::Any> = match self {
            Part::Overview(p) => Rc::new(*p),
            Part::OperatorStats(p) => Rc::new(p),
            Part::KernelStats(p) => Rc::new(p),
            Part::Stragglers(p) => Rc::new(p),
            Part::IdleTime(p) => Rc::new(p),
            Part::QueueLength(p) => Rc::new(p),
            Part::MemoryBandwidth(p) => Rc::new(p),
            Part::KernelLaunches(p) => Rc::new(p),
            Part::Advice(p) => Rc::new(*p),
        };
        host.give_rank_part(tool, part);
    }
}

impl RankSummary {
    /// The summary of a PyTorch rank (decodes its trace once, for every part).
    pub fn of(host: &HostContext, source: Option<Source>) -> Result<RankSummary, String> {
        if !host.is_kineto()? {
            return Err(format!("{}: not a PyTorch trace, so it has no rank summary", host.name()));
        }
        let mut parts = Vec::with_capacity(COMBINED_FROM_RANK_SUMMARIES.len());
        for tool in COMBINED_FROM_RANK_SUMMARIES {
            let part = Part::of(tool, host).expect("every tool listed has a part");
            parts.push(part.map_err(|e| format!("{}: {tool}: {e}", host.name()))?);
        }
        Ok(RankSummary {
            format: FORMAT.into(),
            version: VERSION,
            proflens: PROFLENS.into(),
            host: host.name().into(),
            source,
            parts,
        })
    }

    /// The summary as a `.bin.gz` file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        proflens_format::inflate::gzip(&self.to_bytes())
    }

    /// The summary in its binary encoding (a file's bytes, ungzipped).
    pub fn to_bytes(&self) -> Vec<u8> {
        postcard::to_allocvec(self).expect("a summary is plain data")
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<RankSummary, String> {
        summary::check_header(bytes, FORMAT, VERSION, "rank summary")?;
        summary::whole(bytes, "rank summary")
    }

    /// Gives the rank its parts; refused when the summary names another
    /// host (its parts' labels would say that host).
    pub fn give(self, host: &HostContext) -> Result<(), String> {
        if self.host != host.name() {
            return Err(format!("the summary of “{}”, not of “{}”", self.host, host.name()));
        }
        for part in self.parts {
            part.give(host);
        }
        Ok(())
    }
}

/// A summary file of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    /// Boxed: a host's analysis is much larger than a rank summary's list.
    Host(Box<HostSummary>),
    Rank(RankSummary),
}

impl Summary {
    /// The summary of a host: a rank summary for a PyTorch trace, else a
    /// host summary (loads the events).
    pub fn of(host: &HostContext, source: Option<Source>) -> Result<Summary, String> {
        if host.is_kineto()? {
            RankSummary::of(host, source).map(Summary::Rank)
        } else {
            HostSummary::of(host, source).map(|s| Summary::Host(Box::new(s)))
        }
    }

    /// A summary file's bytes (gzipped or not), of whichever kind they say;
    /// refused when another release or layout wrote them.
    pub fn decode(bytes: &[u8]) -> Result<Summary, String> {
        Summary::from_bytes(&summary::plain(bytes)?)
    }

    /// Ungzipped bytes of either kind.
    pub fn from_bytes(bytes: &[u8]) -> Result<Summary, String> {
        match summary::format_of(bytes).as_deref() {
            Some(FORMAT) => RankSummary::from_bytes(bytes).map(Summary::Rank),
            Some(summary::FORMAT) => HostSummary::from_bytes(bytes).map(|s| Summary::Host(Box::new(s))),
            _ => Err("not a Proflens summary".to_string()),
        }
    }

    /// The summary as a `.bin.gz` file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Summary::Host(s) => s.encode(),
            Summary::Rank(s) => s.encode(),
        }
    }

    /// The summary in its binary encoding (ungzipped).
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Summary::Host(s) => s.to_bytes(),
            Summary::Rank(s) => s.to_bytes(),
        }
    }

    /// Whether the summary was computed from this file (same name, size and
    /// modification time, where both know it).
    pub fn describes(&self, file: &Source) -> bool {
        match self {
            Summary::Host(s) => s.describes(file),
            Summary::Rank(s) => summary::describes(s.source.as_ref(), file),
        }
    }

    /// Gives the host what the summary holds: its analysis, or its parts.
    pub fn give(self, host: &HostContext) -> Result<(), String> {
        match self {
            Summary::Host(s) => {
                host.give_analysis(s.analysis);
                Ok(())
            }
            Summary::Rank(s) => s.give(host),
        }
    }
}

/// A field written as JSON text inside the binary encoding, for types whose
/// serde attributes skip fields (postcard, without field names, cannot).
mod as_json {
    use serde::de::{DeserializeOwned, Error as _};
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&serde_json::to_string(value).map_err(S::Error::custom)?)
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        serde_json::from_str(&String::deserialize(d)?).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests;
