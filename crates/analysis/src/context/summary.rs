//! A host's summary: what the tools of all hosts read of a host (its
//! [`HostAnalysis`]: steps, op metrics, kernels, environment), small enough
//! to be written beside the profile (`proflens summarize`), computed on
//! another thread or worker, and given to a [`HostContext`] in place of its
//! events ([`HostContext::give_analysis`]). A run of many hosts is then
//! combined from summaries, one host's events in memory per worker at most,
//! or none at all where the summaries were written before.
//!
//! The file is the summary in postcard's binary encoding, gzipped:
//! `<host>.proflens-summary.bin.gz` (`proflens_format::logdir::SUMMARY_SUFFIX`).
//! Binary because a pod's summaries are read one after the other before its
//! first tool: 64 hosts of 3,498 steps were 38 MB of JSON, whose parsing was
//! most of the 0.57 s the page spent before asking for the overview. It names
//! the Proflens that wrote it (another release may compute other numbers) and
//! the profile's size and modification time, so that a summary of a changed
//! profile is not read.

use super::HostContext;
use crate::passes::host_analysis::HostAnalysis;
use serde::{Deserialize, Serialize};

/// The `format` of every summary.
pub const FORMAT: &str = "proflens-host-summary";
/// The layout of the summary: bumped when [`HostAnalysis`] or the encoding
/// changes (1: JSON).
pub const VERSION: u32 = 2;
/// The Proflens release that writes and reads summaries.
pub const PROFLENS: &str = env!("CARGO_PKG_VERSION");

/// The tools whose "all hosts" combination reads only each host's analysis:
/// they answer from summaries without loading any host's events. (A test
/// runs each on hosts that have nothing but a summary.)
pub const COMBINED_FROM_SUMMARIES: [&str; 5] =
    ["overview_page", "input_pipeline_analyzer", "framework_op_stats", "kernel_stats", "pod_viewer"];

/// A summary file's decompressed size is refused past this (a real one is
/// a MiB or so at most: its size grows with ops and steps, not events).
const MAX_BYTES: u64 = 512 << 20;

/// One host's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostSummary {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] of the writer.
    pub version: u32,
    /// The Proflens release that computed it ([`PROFLENS`]).
    pub proflens: String,
    /// The host, as discovery named it from its file name.
    pub host: String,
    /// The profile it summarises, to tell when the profile changed.
    pub source: Option<Source>,
    pub analysis: HostAnalysis,
}

/// The profile a summary was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The file's name (without its folder: the run may move).
    pub name: String,
    pub bytes: u64,
    /// Modification time, ms since 1970 (a browser `File`'s `lastModified`).
    pub modified_ms: Option<u64>,
}

/// The fields read before the rest, so that another layout is refused with
/// a message rather than a parse error: [`HostSummary`]'s first three, which
/// postcard writes first, in this order.
#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
    proflens: String,
}

/// Whether a summary of `source` was computed from `file` (same name, size
/// and modification time, where both know it).
pub fn describes(source: Option<&Source>, file: &Source) -> bool {
    let Some(source) = source else { return false };
    source.name == file.name
        && source.bytes == file.bytes
        && match (source.modified_ms, file.modified_ms) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
}

/// A summary file's bytes ungzipped (a file may be gzipped or not).
pub fn plain(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, String> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let plain = proflens_format::inflate::gunzip(bytes, MAX_BYTES, &mut |_| {}).map_err(|e| e.to_string())?;
        Ok(plain.into())
    } else {
        Ok(bytes.into())
    }
}

/// The kind a summary's (ungzipped) bytes name: its `format` field, which
/// every kind of summary writes first.
pub fn format_of(bytes: &[u8]) -> Option<String> {
    postcard::take_from_bytes::<Header>(bytes).ok().map(|(h, _)| h.format)
}

/// Refuses bytes that are no summary of `format` (`what`, in words), or one
/// another release or layout than `version` wrote.
pub fn check_header(bytes: &[u8], format: &str, version: u32, what: &str) -> Result<(), String> {
    let not_one = || format!("not a Proflens {what}");
    let (header, _) = postcard::take_from_bytes::<Header>(bytes).map_err(|_| not_one())?;
    if header.format != format {
        return Err(not_one());
    }
    if header.version != version || header.proflens != PROFLENS {
        return Err(format!(
            "written by Proflens {} (layout {}), not this release ({PROFLENS}, layout {version}); \
             run `proflens summarize` again",
            header.proflens, header.version
        ));
    }
    Ok(())
}

/// The whole of `bytes` as a `T` (a summary whose header was checked).
pub fn whole<T: serde::de::DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, String> {
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((summary, [])) => Ok(summary),
        Ok(_) => Err(format!("a damaged {what} (bytes after its end)")),
        Err(e) => Err(format!("a damaged {what} ({e})")),
    }
}

impl HostSummary {
    /// A summary of `analysis`, written by this release.
    pub fn new(host: &str, source: Option<Source>, analysis: HostAnalysis) -> HostSummary {
        HostSummary {
            format: FORMAT.into(),
            version: VERSION,
            proflens: PROFLENS.into(),
            host: host.into(),
            source,
            analysis,
        }
    }

    /// The summary of a host of XSpace events (loads and analyses them). A
    /// PyTorch trace has a rank summary instead (`crate::rank_summary`).
    pub fn of(host: &HostContext, source: Option<Source>) -> Result<HostSummary, String> {
        if host.is_kineto()? {
            return Err(format!("{}: a PyTorch trace has no host summary (it has a rank summary)", host.name()));
        }
        let analysis = host.analysis()?;
        Ok(HostSummary::new(host.name(), source, HostAnalysis::clone(&analysis)))
    }

    /// The summary as a `.bin.gz` file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        proflens_format::inflate::gzip(&self.to_bytes())
    }

    /// A summary file's bytes (gzipped or not), refused when another
    /// release or layout wrote it.
    pub fn decode(bytes: &[u8]) -> Result<HostSummary, String> {
        HostSummary::from_bytes(&plain(bytes)?)
    }

    /// The summary in its binary encoding (a file's bytes, ungzipped).
    pub fn to_bytes(&self) -> Vec<u8> {
        postcard::to_allocvec(self).expect("a summary is plain data")
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<HostSummary, String> {
        check_header(bytes, FORMAT, VERSION, "host summary")?;
        whole(bytes, "host summary")
    }

    /// Whether the summary was computed from this file (same name, size and
    /// modification time, where both know it).
    pub fn describes(&self, file: &Source) -> bool {
        describes(self.source.as_ref(), file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> HostSummary {
        let profile = proflens_model::Profile::default();
        let source = Source { name: "h.xplane.pb".into(), bytes: 10, modified_ms: Some(5) };
        HostSummary::new("h", Some(source), HostAnalysis::new(&profile))
    }

    #[test]
    fn round_trips_through_its_file() {
        let written = summary();
        assert_eq!(HostSummary::decode(&written.encode()).unwrap(), written);
        assert_eq!(HostSummary::decode(&written.to_bytes()).unwrap(), written);
    }

    #[test]
    fn another_release_or_garbage_is_refused() {
        let mut other = summary();
        other.proflens = "0.0.0-other".into();
        let e = HostSummary::decode(&other.encode()).unwrap_err();
        assert!(e.contains("0.0.0-other") && e.contains("summarize"), "{e}");
        assert!(HostSummary::decode(b"{\"traceEvents\": []}").unwrap_err().contains("not a Proflens"));
        assert!(HostSummary::decode(&[0x1f, 0x8b, 8, 0]).is_err());
        let bytes = summary().to_bytes();
        for cut in [1, bytes.len() / 2, bytes.len() - 1] {
            assert!(HostSummary::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let longer = [bytes.as_slice(), &[0]].concat();
        assert!(HostSummary::decode(&longer).unwrap_err().contains("after its end"));
    }

    #[test]
    fn a_changed_profile_is_not_described() {
        let s = summary();
        let same = Source { name: "h.xplane.pb".into(), bytes: 10, modified_ms: Some(5) };
        assert!(s.describes(&same));
        assert!(!s.describes(&Source { bytes: 11, ..same.clone() }));
        assert!(!s.describes(&Source { modified_ms: Some(6), ..same.clone() }));
        assert!(!s.describes(&Source { name: "g.xplane.pb".into(), ..same }));
    }
}
