//! A long line decoded as it streams: each event built where it lies in the
//! reader's buffer (or copied out when it spans two reads), the line's
//! other fields kept aside and read at its end.

use super::super::{finish_line, line_base_ps, PlaneBuilder, EVENTS, LINE};
use super::fields::{copy_bytes, event_fields, held_until, put_varint, Message, Value};
use super::{Scan, Stop};
use crate::proto::XLine;
use crate::stream_reader::Reader;
use crate::wire;
use proflens_model::{Interner, Line};

/// What the first pass found of a line, and where its times count from.
pub(super) struct Read {
    /// The length of its encoding, which the reader is at.
    pub len: u64,
    /// How many events it holds, as the first pass counted or estimated them.
    pub events: Option<u64>,
    /// The `timestamp_ns` the first pass read.
    pub timestamp_ns: i64,
    pub origin: Option<i64>,
}

/// The line at the reader, and the `timestamp_ns` it states. The caller
/// takes any failure as `None`: the file is then decoded again with every
/// line read whole, which tells its errors as the slice decoder does.
/// `buffer` holds one event at a time.
pub(super) fn decode(
    r: &mut Reader,
    builder: &mut PlaneBuilder,
    read: &Read,
    strings: &mut Interner,
    buffer: &mut Vec<u8>,
) -> Scan<(Line, i64)> {
    // The events' times count from the timestamp the first pass read; the
    // caller checks the line states it. Its other fields only name it in
    // errors, which a failed line leaves to the decode that reads it whole.
    let head = XLine { timestamp_ns: read.timestamp_ns, ..XLine::default() };
    let base_ps = line_base_ps(&head, read.origin);
    let expected = usize::try_from(read.events.unwrap_or(0)).unwrap_or(0);
    let mut events = builder.start_line(expected);
    let mut count = 0;
    let mut stats_reserved = false;
    let mut kept = Vec::new();
    let mut walk = Message::new(r, read.len, "line");
    loop {
        // Events lying whole in the reader's buffer are built from there.
        let (mut used, mut stats) = (0, Vec::new());
        for (field_end, payload) in event_fields(held_until(r, walk.end)?) {
            builder.push_encoded(&mut events, &head, base_ps, count, payload, &mut stats, strings)?;
            (used, count) = (field_end, count + 1);
        }
        r.consume(used);
        // The stats' room, once, at what the first read's events hold each
        // (and no more than the rest of the line can hold: an event or a stat takes 2 bytes or more).
        if !stats_reserved && count > 0 {
            let most = usize::try_from(walk.end.saturating_sub(r.pos()) / 2).unwrap_or(usize::MAX);
            events.stats.reserve_like(count, expected.saturating_sub(count), most);
            stats_reserved = true;
        }
        let Some((tag, value)) = walk.next(r)? else { break };
        let number = tag >> 3;
        match value {
            // An event spanning two reads is copied out.
            Value::Bytes(len) if number == EVENTS => {
                buffer.clear();
                buffer.resize(usize::try_from(len).map_err(|_| Stop::End)?, 0);
                if !r.read_exact(buffer)? {
                    return Err(Stop::End);
                }
                builder.push_encoded(&mut events, &head, base_ps, count, buffer, &mut Vec::new(), strings)?;
                count += 1;
            }
            // Events encoded as anything else are the slice decoder's to tell of.
            _ if number == EVENTS => return Err(Stop::End),
            _ if !LINE.iter().any(|(n, _)| *n == number) => walk.skip_value(r, value)?,
            Value::Bytes(len) => copy_bytes(r, tag, len, &mut kept)?,
            Value::Varint(v) => {
                put_varint(&mut kept, tag);
                put_varint(&mut kept, v);
            }
            Value::Fixed(n) => {
                let mut fixed = [0; 8];
                if !r.read_exact(&mut fixed[..n])? {
                    return Err(Stop::End);
                }
                put_varint(&mut kept, tag);
                kept.extend_from_slice(&fixed[..n]);
            }
        }
    }
    let header: XLine = wire::decode_except(&kept, EVENTS, LINE, "line")?;
    let timestamp_ns = header.timestamp_ns;
    Ok((finish_line(header, base_ps, events, strings), timestamp_ns))
}

#[cfg(test)]
mod tests {
    use super::super::{decode_with, Heads, Input, Lines, Looks};
    use crate::inflate::gzip;
    use crate::stream_tests::{data, dump};

    /// Lines longer than a read are decoded as they stream (no second
    /// decode) into the profile the slice decoder makes.
    #[test]
    fn long_lines_stream_into_the_slice_decoders_profile() {
        let path = data().join("compare/base/plugins/profile/2026_11_24_13_53_07/vm.xplane.pb");
        let bytes = std::fs::read(path).unwrap();
        let expected = dump(&crate::xspace::decode(&bytes, &mut |_| {}).unwrap());
        let (looks, chunk) = (Looks { printable: false }, 4096);
        let gz = gzip(&bytes);
        let inputs = [
            (Input::Raw(&bytes), Heads::Only { whole_above: chunk as u64 }),
            (Input::Gzip(&gz, u64::MAX), Heads::Whole),
        ];
        for (input, heads) in inputs {
            let streamed = decode_with(input, looks, chunk, heads, Lines::StreamedAbove(chunk as u64), &mut |_| {});
            let profile = streamed.unwrap().expect("decoded without a second try");
            assert_eq!(dump(&profile), expected);
        }
        // The file has such lines: its longest is 5 reads long.
        let longest = crate::wire::payloads(&bytes, 1, "profile")
            .flat_map(|plane| crate::wire::payloads(plane.unwrap(), 3, "plane").map(|line| line.unwrap().len()))
            .max();
        assert!(longest > Some(chunk * 5), "{longest:?}");
    }
}
