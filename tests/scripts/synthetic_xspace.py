#!/usr/bin/env python3
"""Writes a SYNTHETIC XSpace as large as wanted, from a real one: every line
of every plane is written COPIES times, each copy's `timestamp_ns` shifted
by SHIFT_NS more than the last and its id made unique (`id + copy << 32`);
events, metadata and other stats are the original bytes. It exists to
measure decoding and analysis past 2 GiB (`proflens info`,
`proflens tool F overview_page`), not as a profile of anything that ran.

    python3 tests/scripts/synthetic_xspace.py IN.xplane.pb OUT.xplane.pb COPIES [SHIFT_NS]

Context ids are made distinct per copy. Events are linked by the stats
producer id and consumer id (named `_p` and `_c`, as XProf writes them, or
`producer_id` and `consumer_id`; with `_pt` / `_ct`, the context's type):
grouping connects every producer of a context (type, id) to every consumer
of it, so copies that repeated the ids would give each context COPIES
producers times COPIES consumers (COPIES^2 edges, not COPIES), an
unrealistic load. Copy 0's events are the original bytes; in copy c >= 1
every such value (uint64 or int64 stat, taken as its 64 bits) is XORed with
`c << 42`. That is a bijection on 64-bit values (its own inverse), so
producers and consumers of one context still meet, in every plane, and
copies never collide unless two original ids differ in bits 42..48 alone
(ids below 2^42, counters, never do; nor do 64-bit hashes in practice).
An id v below 2^42 becomes v + c * 2^42 (4398046511104 + v in copy 1).
Bits 42..48 are the payload of a varint's 7th byte, so:
  - ids of 7 or more varint bytes (real ones are 8-10 byte hashes and
    negative int64s) keep their length; the byte is patched in place;
  - shorter ids (counters: 1-3 bytes in real profiles) become 7-byte ids,
    for every c. Each line is re-encoded once, into a template holding those
    ids padded to 7 bytes (bits 42..48 zero), with every enclosing length
    prefix recomputed (stat, event, then line and plane sizes); each copy
    is then the template with that byte XORed with c, so no copy parses or
    re-encodes anything;
  - a copy for which a 7-byte id would shrink (its bits 42..48 equal c; no
    real profile seen has any) is re-encoded alone from the original.
COPIES is at most 128 (c must fit in those 7 bits).

The output is written as it is built, one line copy at a time, so it may be
larger than memory; held meanwhile are the input, each line's events and
template (each about the input's size) and the one copy being written. A
225 MB input (10.4 M events) peaks at 2.2 GB whatever COPIES, and makes
9 copies (2.2 GB) in about 70 s: each line is parsed once.

Needs only the standard library: it walks protobuf framing itself.
"""

import sys
from array import array

PLANES, LINES, PLANE_STAT_METADATA = 1, 3, 5
LINE_ID, LINE_TIMESTAMP, LINE_EVENTS = 1, 3, 4
EVENT_STATS = 4
STAT_METADATA_ID, STAT_UINT64, STAT_INT64 = 1, 3, 4
# Wire tags (field << 3 | wire type) the event walk compares byte by byte.
EVENT_TAG = LINE_EVENTS << 3 | 2
STATS_TAG = EVENT_STATS << 3 | 2
STAT_ID_TAG = STAT_METADATA_ID << 3
VALUE_TAGS = (STAT_UINT64 << 3, STAT_INT64 << 3)

CONTEXT_ID_NAMES = {b"_p", b"_c", b"producer_id", b"consumer_id"}
# Copy c XORs context ids with c << CONTEXT_SHIFT: exactly the 7 payload bits
# of a varint's byte CONTEXT_BYTE, so in any encoding at least that long the
# change is one byte, patched in place, and the length stays.
CONTEXT_SHIFT = 42
CONTEXT_BYTE = CONTEXT_SHIFT // 7
MAX_COPIES = 1 << 7
# Sets the continuation bit of every byte (to pad a varint).
WITH_MORE = bytes(b | 0x80 for b in range(256))


def varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def put_varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def put_padded_varint(value):
    """value's varint, padded to CONTEXT_BYTE + 1 bytes if shorter (the
    padding's payload bits are zero, so the value is the same): the form a
    context id takes in a line's template."""
    out = put_varint(value)
    if len(out) > CONTEXT_BYTE:
        return out
    return out.translate(WITH_MORE) + b"\x80" * (CONTEXT_BYTE - len(out)) + b"\x00"


def skip_field(data, pos):
    """Where the field starting at pos ends."""
    tag, pos = varint(data, pos)
    wire = tag & 7
    if wire == 0:
        while data[pos] & 0x80:
            pos += 1
        return pos + 1
    if wire == 1:
        return pos + 8
    if wire == 5:
        return pos + 4
    if wire == 2:
        length, pos = varint(data, pos)
        return pos + length
    raise ValueError(f"wire type {wire} at byte {pos}")


def fields(data):
    """(number, wire type, value or payload, raw encoding) of each field."""
    pos = 0
    while pos < len(data):
        start = pos
        tag, pos = varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == 2:
            length, pos = varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        else:
            raise ValueError(f"wire type {wire} at byte {start}")
        yield number, wire, value, data[start:pos]


def field_bytes(number, payload_len):
    return put_varint(number << 3 | 2) + put_varint(payload_len)


def context_stat_ids(plane):
    """The plane's stat metadata ids (map keys) named as context ids. The
    map (field 5) follows the lines, so it is read before them."""
    ids = set()
    for number, wire, entry, _ in fields(plane):
        if number != PLANE_STAT_METADATA or wire != 2:
            continue
        key, name = 0, b""
        for n, w, v, _ in fields(entry):
            if n == 1 and w == 0:
                key = v
            elif n == 2 and w == 2:
                name = next((bytes(x) for m, _, x, _ in fields(v) if m == 2), b"")
        if name in CONTEXT_ID_NAMES:
            ids.add(key)
    return ids


def line_parts(line):
    """A line's id, timestamp, its other header fields and its events' bytes."""
    line_id, timestamp, header, events = 0, 0, bytearray(), bytearray()
    for number, wire, value, raw in fields(line):
        if number == LINE_ID and wire == 0:
            line_id = value
        elif number == LINE_TIMESTAMP and wire == 0:
            timestamp = value
        elif number == LINE_EVENTS:
            if wire != 2:
                raise ValueError(f"XLine.events with wire type {wire}")
            events += raw
        else:
            header += raw
    return line_id, timestamp, bytes(header), bytes(events)


def context_values(events, ids):
    """Every context id in a line's events (the XLine.events fields, end to
    end), in order, as arrays: where the enclosing event's and stat's length
    prefixes are, where the value's varint starts and ends, and the value.
    One walk; stats not named in `ids` are skipped after their metadata id."""
    event_len_at, stat_len_at = array("q"), array("q")
    starts, ends, values = array("q"), array("q"), array("Q")
    pos, size = 0, len(events) if ids else 0
    while pos < size:
        # Each event: tag, length, payload. This loop is most of the run
        # time: one-byte tags and stat lengths are read inline.
        if events[pos] != EVENT_TAG:
            raise ValueError(f"not an event at byte {pos}")
        length, p = varint(events, pos + 1)
        end = p + length
        while p < end:
            tag = events[p]
            if tag != STATS_TAG:
                if tag < 0x80 and not tag & 7:  # metadata id, offset, duration...
                    p += 1
                    while events[p] & 0x80:
                        p += 1
                    p += 1
                else:
                    p = skip_field(events, p)
                continue
            stat_at = p + 1
            byte = events[stat_at]
            if byte < 0x80:
                s, stat_end = stat_at + 1, stat_at + 1 + byte
            else:
                length, s = varint(events, stat_at)
                stat_end = s + length
            p = stat_end
            # Writers put the metadata id first: reject other stats by it.
            if s < stat_end and events[s] == STAT_ID_TAG:
                byte = events[s + 1]
                if (byte if byte < 0x80 else varint(events, s + 1)[0]) not in ids:
                    continue
            # A context id's stat (or an unusual one): walk all its fields.
            stat_id, found, q = 0, [], s
            while q < stat_end:
                tag, r = varint(events, q)
                if tag == STAT_ID_TAG:
                    stat_id, q = varint(events, r)
                elif tag in VALUE_TAGS:
                    value, q = varint(events, r)
                    found.append((r, q, value))
                else:
                    q = skip_field(events, q)
            if q != stat_end:
                raise ValueError(f"stat overruns its length at byte {s}")
            if stat_id in ids:
                for start, stop, value in found:
                    event_len_at.append(pos + 1)
                    stat_len_at.append(stat_at)
                    starts.append(start)
                    ends.append(stop)
                    values.append(value)
        if p != end:
            raise ValueError(f"event overruns its length at byte {pos}")
        pos = end
    return event_len_at, stat_len_at, starts, ends, values


def rebuild(events, sites, new_values):
    """The events with each site's value replaced by new_values[i] (varint
    bytes) and the length prefixes around it (stat, event) recomputed; and
    where each new value starts in the result."""
    event_len_at, stat_len_at, starts, ends, _ = sites
    out, size, new_starts = [], 0, array("q")
    done, i, count = 0, 0, len(new_values)
    while i < count:
        event_at = event_len_at[i]
        length, cur = varint(events, event_at)
        event_end = cur + length
        # The event's new payload, and where its new values start in it.
        body, body_size, offsets = [], 0, []
        while i < count and event_len_at[i] == event_at:
            stat_at = stat_len_at[i]
            length, scur = varint(events, stat_at)
            stat_end = scur + length
            stat, stat_size, in_stat = [], 0, []
            while i < count and stat_len_at[i] == stat_at:
                before, new = events[scur:starts[i]], new_values[i]
                stat += (before, new)
                in_stat.append(stat_size + len(before))
                stat_size += len(before) + len(new)
                scur = ends[i]
                i += 1
            stat.append(events[scur:stat_end])
            stat_size += stat_end - scur
            head = events[cur:stat_at] + put_varint(stat_size)
            offsets += [body_size + len(head) + o for o in in_stat]
            body.append(head)
            body += stat
            body_size += len(head) + stat_size
            cur = stat_end
        body.append(events[cur:event_end])
        body_size += event_end - cur
        head = events[done:event_at] + put_varint(body_size)
        base = size + len(head)
        new_starts.extend(base + o for o in offsets)
        out.append(head)
        out += body
        size = base + body_size
        done = event_end
    out.append(events[done:])
    return b"".join(out), new_starts


class Line:
    """One input line, parsed once, and its copies."""

    def __init__(self, line, ids):
        self.id, self.timestamp, self.header, self.events = line_parts(line)
        self.sites = context_values(self.events, ids)
        starts, ends, values = self.sites[2:]
        lengths = [stop - start for start, stop in zip(starts, ends)]
        if all(n > CONTEXT_BYTE for n in lengths):
            # Long ids only: the copies are the original, patched in place.
            self.template, at = self.events, starts
        else:
            self.template, at = rebuild(self.events, self.sites, [
                self.events[start:stop] if stop - start > CONTEXT_BYTE else put_padded_varint(value)
                for start, stop, value in zip(starts, ends, values)])
        self.patch = array("q", [start + CONTEXT_BYTE for start in at])
        # A 7-byte id whose bits 42..48 equal c would shrink in copy c (its
        # last byte would become 0): that copy is re-encoded from the original.
        self.shrinking = {self.events[start + CONTEXT_BYTE] & 0x7F
                          for start, n in zip(starts, lengths) if n == CONTEXT_BYTE + 1}
        self.shrunk_sizes = {}
        if not self.shrinking:
            self.sites = None  # not needed again

    def head(self, copy, shift_ns):
        """The copy's line fields before its events."""
        # int64 fields: negative values are 10-byte varints, so sums wrap at 2^64.
        new_id = put_varint(LINE_ID << 3) + put_varint((self.id + (copy << 32)) % 2**64)
        new_ts = put_varint(LINE_TIMESTAMP << 3) + put_varint((self.timestamp + copy * shift_ns) % 2**64)
        return new_id + self.header + new_ts

    def events_size(self, copy):
        if copy == 0:
            return len(self.events)
        if copy in self.shrinking:
            if copy not in self.shrunk_sizes:
                self.shrunk_sizes[copy] = len(self.events_of(copy))
            return self.shrunk_sizes[copy]
        return len(self.template)

    def events_of(self, copy):
        if copy == 0:
            return self.events
        if copy in self.shrinking:
            mask = copy << CONTEXT_SHIFT
            return rebuild(self.events, self.sites, [put_varint(v ^ mask) for v in self.sites[4]])[0]
        out = bytearray(self.template)
        for at in self.patch:
            out[at] ^= copy
        return out


def main():
    source, target, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shift_ns = int(sys.argv[4]) if len(sys.argv) > 4 else 10_000_000_000
    if not 1 <= copies <= MAX_COPIES:
        sys.exit(f"COPIES must be 1 to {MAX_COPIES}")
    # Views, not copies: the planes and lines are slices of the input.
    data = memoryview(open(source, "rb").read())
    with open(target, "wb") as out:
        for number, wire, value, raw in fields(data):
            if number != PLANES or wire != 2:
                out.write(raw)
                continue
            # A plane: its fields in order, each line written `copies` times.
            ids = context_stat_ids(value)
            pieces = [Line(v, ids) if n == LINES and w == 2 else r for n, w, v, r in fields(value)]
            size = 0
            for piece in pieces:
                if not isinstance(piece, Line):
                    size += len(piece)
                    continue
                for copy in range(copies):
                    body = len(piece.head(copy, shift_ns)) + piece.events_size(copy)
                    size += len(field_bytes(LINES, body)) + body
            out.write(field_bytes(PLANES, size))
            for piece in pieces:
                if not isinstance(piece, Line):
                    out.write(piece)
                    continue
                for copy in range(copies):
                    head, events = piece.head(copy, shift_ns), piece.events_of(copy)
                    out.write(field_bytes(LINES, len(head) + len(events)))
                    out.write(head)
                    out.write(events)


if __name__ == "__main__":
    main()
