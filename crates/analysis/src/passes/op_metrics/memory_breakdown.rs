//! Decoding the `memory_access_breakdown` stat of TPU ops. The protobuf
//! walking is format's (`proflens_format::wire`): one wire reader for the
//! workspace, so that a fix to it reaches these small messages too.

use super::MemoryBreakdown;
use proflens_format::wire::{fields, Value};

impl MemoryBreakdown {
    /// Decodes a serialized `MemoryAccessBreakdown` proto (repeated
    /// `MemoryAccessed {operation_type = 1; memory_space = 2; bytes_accessed = 3}`
    /// in field 1); `None` when it is malformed or holds no entry.
    pub fn decode(bytes: &[u8]) -> Option<MemoryBreakdown> {
        let mut out = MemoryBreakdown::default();
        let mut entries = 0;
        for field in fields(bytes, "memory access breakdown") {
            // Any malformed field makes the whole stat unusable.
            let field = field.ok()?;
            let (1, Value::Bytes(entry)) = (field.number, field.value) else { continue };
            let (mut op_type, mut space, mut amount) = (0, 0, 0);
            for inner in fields(entry, "memory access") {
                let inner = inner.ok()?;
                match (inner.number, inner.value) {
                    (1, Value::Varint(v)) => op_type = v,
                    (2, Value::Varint(v)) => space = v,
                    (3, Value::Varint(v)) => amount = v,
                    _ => {}
                }
            }
            entries += 1;
            // Memory spaces: 1 HBM, 2 CMEM, 3 VMEM; operation 1 read, 2 write.
            let slot = match (space, op_type) {
                (1, _) => &mut out.hbm,
                (2, 1) => &mut out.cmem_read,
                (2, 2) => &mut out.cmem_write,
                (3, 1) => &mut out.vmem_read,
                (3, 2) => &mut out.vmem_write,
                _ => continue,
            };
            *slot = slot.saturating_add(amount);
        }
        (entries > 0).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::op_metrics::test_builder::breakdown_bytes;

    #[test]
    fn memory_breakdown_decodes_and_rejects_garbage() {
        let b = MemoryBreakdown::decode(&breakdown_bytes()).expect("decodes");
        assert_eq!(b, MemoryBreakdown { hbm: 120, vmem_read: 8, ..MemoryBreakdown::default() });
        assert_eq!(MemoryBreakdown::decode(&[]), None);
        assert_eq!(MemoryBreakdown::decode(&[0x0a, 50, 1]), None);
        assert_eq!(MemoryBreakdown::decode(&[0xff; 12]), None);
        assert_eq!(MemoryBreakdown::decode(&[0x0f]), None);
    }
}
