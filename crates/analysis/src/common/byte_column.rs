//! Columns of numbers serialised as their little-endian bytes, for serde's
//! `#[serde(with = "byte_column")]`. The worker's JS serialiser makes one
//! `Uint8Array` of them, copied to the page at once, where a `Vec` of
//! numbers would be a JS array built and read back one number at a time
//! (a pod viewer of 224 K core steps took 2.5 s so). Text formats write
//! the bytes as a list of numbers and read them back from it.

use serde::{Deserializer, Serializer};

/// A number of a column: a fixed number of little-endian bytes.
pub trait LeBytes: Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! le_bytes {
    ($($t:ty),*) => {$(
        impl LeBytes for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("a chunk of SIZE bytes"))
            }
        }
    )*};
}
le_bytes!(u8, u32, f64);

pub fn serialize<T: LeBytes, S: Serializer>(values: &[T], serializer: S) -> Result<S::Ok, S::Error> {
    let mut bytes = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.put(&mut bytes);
    }
    serializer.serialize_bytes(&bytes)
}

pub fn deserialize<'de, T: LeBytes, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    let bytes = deserializer.deserialize_byte_buf(BytesVisitor)?;
    if bytes.len() % T::SIZE != 0 {
        return Err(serde::de::Error::custom(format!(
            "a column of {}-byte numbers has {} bytes",
            T::SIZE,
            bytes.len()
        )));
    }
    Ok(bytes.chunks_exact(T::SIZE).map(T::get).collect())
}

struct BytesVisitor;

impl<'de> serde::de::Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("bytes")
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(b) = seq.next_element::<u8>()? {
            out.push(b);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Columns {
        #[serde(with = "super")]
        f: Vec<f64>,
        #[serde(with = "super")]
        u: Vec<u32>,
    }

    #[test]
    fn columns_round_trip_through_text_and_refuse_a_ragged_one() {
        let columns = Columns { f: vec![1.5, f64::NAN.copysign(1.0), -0.0], u: vec![7, u32::MAX] };
        let json = serde_json::to_string(&columns).unwrap();
        let back: Columns = serde_json::from_str(&json).unwrap();
        assert_eq!(back.u, columns.u);
        assert_eq!(
            back.f.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            columns.f.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        let ragged = r#"{"f": [0, 0, 0], "u": []}"#;
        let e = serde_json::from_str::<Columns>(ragged).unwrap_err().to_string();
        assert!(e.contains("8-byte numbers has 3 bytes"), "{e}");
    }
}
