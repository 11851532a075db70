#!/usr/bin/env python3
"""Writes a SYNTHETIC XSpace as large as wanted, from a real one: every line
of every plane is written COPIES times, each copy's `timestamp_ns` shifted
by SHIFT_NS more than the last and its id made unique (`id + copy << 32`);
events, metadata and stats are the original bytes. The output is written as
it is built (one line's bytes in memory at a time), so it may be larger than
memory: it exists to measure decoding past 2 GiB (`proflens info`,
`proflens tool F overview_page`), not as a realistic profile.

    python3 tests/scripts/synthetic_xspace.py IN.xplane.pb OUT.xplane.pb COPIES [SHIFT_NS]

Needs only the standard library: it walks protobuf framing itself.
"""

import sys

PLANES, LINES = 1, 3
LINE_ID, LINE_TIMESTAMP, LINE_EVENTS = 1, 3, 4


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


def line_parts(line):
    """A line's id, timestamp, its other header fields and its events' bytes."""
    line_id, timestamp, header, events = 0, 0, bytearray(), bytearray()
    for number, wire, value, raw in fields(line):
        if number == LINE_ID and wire == 0:
            line_id = value
        elif number == LINE_TIMESTAMP and wire == 0:
            timestamp = value
        elif number == LINE_EVENTS:
            events += raw
        else:
            header += raw
    return line_id, timestamp, bytes(header), bytes(events)


def line_copy(parts, copy, shift_ns):
    line_id, timestamp, header, events = parts
    # int64 fields: negative values are 10-byte varints, so sums wrap at 2^64.
    new_id = put_varint(LINE_ID << 3) + put_varint((line_id + (copy << 32)) % 2**64)
    new_ts = put_varint(LINE_TIMESTAMP << 3) + put_varint((timestamp + copy * shift_ns) % 2**64)
    return new_id + header + new_ts + events


def main():
    source, target, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shift_ns = int(sys.argv[4]) if len(sys.argv) > 4 else 10_000_000_000
    data = open(source, "rb").read()
    with open(target, "wb") as out:
        for number, wire, value, raw in fields(data):
            if number != PLANES or wire != 2:
                out.write(raw)
                continue
            # A plane: its fields in order, each line written `copies` times.
            pieces = []
            for n, w, v, r in fields(value):
                if n == LINES and w == 2:
                    pieces.append(line_parts(v))
                else:
                    pieces.append(r)

            def copies_of(parts):
                for copy in range(copies):
                    body = line_copy(parts, copy, shift_ns)
                    yield field_bytes(LINES, len(body)) + body

            size = 0
            for piece in pieces:
                if isinstance(piece, bytes):
                    size += len(piece)
                else:
                    size += sum(len(c) for c in copies_of(piece))
            out.write(field_bytes(PLANES, size))
            for piece in pieces:
                if isinstance(piece, bytes):
                    out.write(piece)
                else:
                    for c in copies_of(piece):
                        out.write(c)


if __name__ == "__main__":
    main()
