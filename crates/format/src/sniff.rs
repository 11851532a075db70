//! Recognising a file by its content, whatever its name says.

/// What a file's bytes look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Empty,
    Gzip,
    Zstd,
    /// A tar archive (each profile in it is a host of its own: [`crate::archive`]).
    Tar,
    /// Protobuf whose top-level fields are all XSpace fields.
    XSpace,
    /// A Perfetto trace: packets (field 1) with TracePacket fields.
    Perfetto,
    /// Protobuf framing, but fields XSpace does not have.
    OtherProtobuf,
    Json,
    Text,
    Unknown,
}

impl FileKind {
    /// Words for error messages: "the content looks like …".
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Empty => "nothing (it is empty)",
            FileKind::Gzip => "gzip-compressed data",
            FileKind::Zstd => "zstd-compressed data, which Proflens does not read",
            FileKind::Tar => "a tar archive, whose profiles open as the hosts of a run when the archive itself is opened",
            FileKind::XSpace => "an XSpace profile",
            FileKind::Perfetto => "a Perfetto trace",
            FileKind::OtherProtobuf => {
                "a protobuf message of another kind (for example a legacy TensorBoard tool file such as overview_page.pb)"
            }
            FileKind::Json => {
                "JSON text (a Chrome or PyTorch trace, or a TensorBoard tool file), not XSpace protobuf"
            }
            FileKind::Text => "plain text",
            FileKind::Unknown => "binary data of an unknown kind",
        }
    }
}

/// How much of a JSON file [`check_json_head`] looks at.
pub const JSON_HEAD_BYTES: usize = 64 << 10;

/// Whether a file named like JSON, judged by its first bytes (raw or gzip),
/// is trace events (Chrome, PyTorch/Kineto) or an XProf tool JSON; else why
/// Proflens does not read it.
pub fn check_json_head(head: &[u8]) -> Result<(), &'static str> {
    let text = crate::text_head(head, JSON_HEAD_BYTES);
    let text: &[u8] = &text;
    if !matches!(text.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{') | Some(b'[')) {
        return Err("named like JSON, but the content is not JSON");
    }
    let has = |needle: &str| text.windows(needle.len()).any(|w| w == needle.as_bytes());
    let trace =
        has("\"traceEvents\"") || (text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') && has("\"ph\""));
    if trace || crate::legacy::is_tool_json_head(text) {
        Ok(())
    } else {
        Err("JSON that is neither a trace (no traceEvents) nor a TensorBoard tool file")
    }
}

pub fn sniff(bytes: &[u8]) -> FileKind {
    if bytes.is_empty() {
        return FileKind::Empty;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return FileKind::Gzip;
    }
    if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        return FileKind::Zstd;
    }
    // Before the JSON test: a packet's length byte after the first (0x0a,
    // a newline) may be `{` or `[`.
    if bytes[0] == 0x0a && perfetto_packets(&bytes[..bytes.len().min(4096)]) {
        return FileKind::Perfetto;
    }
    if crate::tar::is_header(bytes) {
        return FileKind::Tar;
    }
    let first_text = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if matches!(first_text, Some(b'{') | Some(b'[')) {
        return FileKind::Json;
    }
    let head = &bytes[..bytes.len().min(4096)];
    let printable = head.iter().all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace());
    match scan_top_level(bytes) {
        Framing::XSpace => FileKind::XSpace,
        _ if printable => FileKind::Text,
        Framing::Protobuf => FileKind::OtherProtobuf,
        Framing::NotProtobuf => FileKind::Unknown,
    }
}

/// Known `TracePacket` fields (protos/perfetto/trace/trace_packet.proto)
/// numbered above XPlane's (1-6), with their wire types: what tells a
/// Perfetto trace's first packet from an XSpace's first plane, whose
/// framing is the same (field 1, length-delimited).
const PERFETTO_PACKET_FIELDS: [(u64, u64); 18] = [
    (8, 0),  // timestamp
    (10, 0), // trusted_packet_sequence_id
    (11, 2), // track_event
    (12, 2), // interned_data
    (13, 0), // sequence_flags
    (33, 2), // trace_config
    (35, 2), // trace_stats
    (36, 2), // synchronization_marker
    (41, 0), // incremental_state_cleared
    (42, 0), // previous_packet_dropped
    (43, 2), // process_descriptor
    (44, 2), // thread_descriptor
    (45, 2), // system_info
    (50, 2), // compressed_packets
    (58, 0), // timestamp_clock_id
    (59, 2), // trace_packet_defaults
    (60, 2), // track_descriptor
    (87, 0), // first_packet_on_sequence
];

/// Whether `head` (a file's first bytes) is a Perfetto trace: top-level
/// fields that are all packets (field 1, length-delimited; the last may be
/// cut by the head's end), the first of which has a known TracePacket field
/// numbered above 6 with its wire type, and none with the wrong one.
fn perfetto_packets(head: &[u8]) -> bool {
    let mut first = None;
    let mut pos = 0;
    while pos < head.len() {
        let Some((0x0a, after_tag)) = read_varint(head, pos) else { return false };
        let Some((len, start)) = read_varint(head, after_tag) else { return pos > 0 };
        let end = start.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
        first.get_or_insert(&head[start..end.min(head.len())]);
        pos = end;
    }
    let Some(packet) = first else { return false };
    let mut known = false;
    let mut at = 0;
    // The packet's fields, up to the first that breaks (or is cut).
    while let Some((tag, after)) = read_varint(packet, at) {
        let (number, wire_type) = (tag >> 3, tag & 7);
        let next = match wire_type {
            0 => read_varint(packet, after).map(|(_, next)| next),
            1 => Some(after + 8),
            2 => read_varint(packet, after)
                .map(|(len, at)| at.saturating_add(usize::try_from(len).unwrap_or(usize::MAX))),
            5 => Some(after + 4),
            _ => None,
        };
        let Some(next) = next.filter(|&n| n <= packet.len()) else { break };
        match PERFETTO_PACKET_FIELDS.iter().find(|(n, _)| *n == number) {
            Some(&(_, expected)) if expected == wire_type => known = true,
            Some(_) => return false,
            None => {}
        }
        at = next;
    }
    known
}

enum Framing {
    XSpace,
    Protobuf,
    NotProtobuf,
}

/// Reads a base-128 varint at `pos`, returning (value, next position).
pub(crate) fn read_varint(bytes: &[u8], mut pos: usize) -> Option<(u64, usize)> {
    // One byte: most tags and small values.
    if let Some(&byte @ 0..0x80) = bytes.get(pos) {
        return Some((u64::from(byte), pos + 1));
    }
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(pos)?;
        pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some((value, pos));
        }
    }
    None
}

/// One top-level field of an XSpace: its number and where its payload lies.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TopField {
    pub number: u64,
    pub start: usize,
    pub len: u64,
}

/// Walks the top-level fields as XSpace framing (every field length-delimited,
/// numbers 1..=4). Stops at the first field that breaks the framing and says why.
pub(crate) fn top_level_fields(bytes: &[u8]) -> (Vec<TopField>, Option<FramingBreak>) {
    let mut fields = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let Some((tag, after_tag)) = read_varint(bytes, pos) else {
            return (fields, Some(FramingBreak::Truncated { at: pos }));
        };
        let (number, wire_type) = (tag >> 3, tag & 7);
        if wire_type != 2 || !(1..=4).contains(&number) {
            return (fields, Some(FramingBreak::ForeignField { number, wire_type }));
        }
        let Some((len, start)) = read_varint(bytes, after_tag) else {
            return (fields, Some(FramingBreak::Truncated { at: pos }));
        };
        let available = (bytes.len() - start) as u64;
        if len > available {
            return (fields, Some(FramingBreak::Truncated { at: pos }));
        }
        fields.push(TopField { number, start, len });
        pos = start + len as usize;
    }
    (fields, None)
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FramingBreak {
    /// The data ends inside the field starting at byte `at`.
    Truncated { at: usize },
    /// A field XSpace does not have.
    ForeignField { number: u64, wire_type: u64 },
}

fn scan_top_level(bytes: &[u8]) -> Framing {
    let (fields, brk) = top_level_fields(bytes);
    match (fields.first(), brk) {
        // A plane must itself start with an XPlane field (1..=6).
        (Some(first), _) if first.number == 1 && first.len > 0 && !plane_starts_well(bytes, first.start) => {
            Framing::NotProtobuf
        }
        (Some(_), None | Some(FramingBreak::Truncated { .. })) => Framing::XSpace,
        // A file cut inside its first plane: judge by how that plane starts.
        (None, Some(FramingBreak::Truncated { .. })) => match first_tag(bytes) {
            Some((1, after)) if read_varint(bytes, after).is_some_and(|(_, at)| plane_starts_well(bytes, at)) => {
                Framing::XSpace
            }
            _ => Framing::NotProtobuf,
        },
        (_, Some(FramingBreak::ForeignField { number, wire_type })) => {
            if (1..=536_870_911).contains(&number) && matches!(wire_type, 0 | 1 | 2 | 5) {
                Framing::Protobuf
            } else {
                Framing::NotProtobuf
            }
        }
        (None, None) => Framing::NotProtobuf,
    }
}

/// Field number of a length-delimited first field, and where its length starts.
fn first_tag(bytes: &[u8]) -> Option<(u64, usize)> {
    let (tag, after) = read_varint(bytes, 0)?;
    (tag & 7 == 2).then_some((tag >> 3, after))
}

/// Whether the XPlane payload at `start` begins with an XPlane field (1..=6).
fn plane_starts_well(bytes: &[u8], start: usize) -> bool {
    match read_varint(bytes, start) {
        Some((tag, _)) => (1..=6).contains(&(tag >> 3)) && matches!(tag & 7, 0 | 2),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_heads_are_traces_tool_files_or_neither() {
        assert_eq!(check_json_head(br#"{"schemaVersion": 1, "traceEvents": [{"ph": "X"}"#), Ok(()));
        assert_eq!(check_json_head(br#"[{"name": "a", "ph": "X", "ts": 1"#), Ok(()));
        assert!(check_json_head(br#"{"generator": "x", "traces": []}"#).is_err());
        assert!(check_json_head(b"not json").is_err());
        // gzip: only a prefix of the compressed file is given.
        let mut body = br#"{"traceEvents": ["#.to_vec();
        body.extend(std::iter::repeat_n(b' ', 200_000));
        let gz = miniz_oxide::deflate::compress_to_vec(&body, 6);
        let mut file = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
        file.extend_from_slice(&gz[..gz.len().min(100)]);
        assert_eq!(check_json_head(&file), Ok(()));
    }

    #[test]
    fn recognises_kinds() {
        assert_eq!(sniff(b""), FileKind::Empty);
        assert_eq!(sniff(&[0x1f, 0x8b, 8, 0]), FileKind::Gzip);
        assert_eq!(sniff(b"  {\"traceEvents\": []}"), FileKind::Json);
        assert_eq!(sniff(b"hello world\n"), FileKind::Text);
        // XSpace with one empty plane and a hostname "vm".
        assert_eq!(sniff(&[0x0a, 0x00, 0x22, 0x02, b'v', b'm']), FileKind::XSpace);
        // Field 6 (legacy OverviewPage.run_environment) is not XSpace.
        assert_eq!(sniff(&[0x32, 0x00]), FileKind::OtherProtobuf);
        assert_eq!(sniff(&[0xff, 0xff, 0x00, 0x01, 0x02]), FileKind::Unknown);
    }

    #[test]
    fn finds_truncation() {
        let (fields, brk) = top_level_fields(&[0x0a, 0x05, 1, 2]);
        assert!(fields.is_empty());
        assert_eq!(brk, Some(FramingBreak::Truncated { at: 0 }));
    }
}
