//! Reading one protobuf field's value the way every Perfetto message
//! needs it: the low layer the packet, track, event, annotation and
//! sequence readers share (so none of them imports another for it).

use crate::wire::{Field, Value as Wire};

/// A varint field's value.
pub(crate) fn varint(v: &Wire) -> Option<u64> {
    match v {
        Wire::Varint(v) => Some(*v),
        _ => None,
    }
}

/// A length-delimited field's bytes.
pub(crate) fn bytes_of<'a>(v: &Wire<'a>) -> Option<&'a [u8]> {
    match v {
        Wire::Bytes(b) => Some(b),
        _ => None,
    }
}

/// Protobuf `string` bytes as text (invalid UTF-8 replaced, not refused:
/// a name is still worth showing).
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Appends a repeated varint field's values: one, or a packed run.
pub(crate) fn push_varints(field: &Field, out: &mut Vec<u64>) {
    match field.value {
        Wire::Varint(v) => out.push(v),
        Wire::Bytes(packed) => {
            let mut at = 0;
            while let Some((v, next)) = crate::sniff::read_varint(packed, at) {
                out.push(v);
                at = next;
            }
        }
        Wire::Fixed => {}
    }
}
