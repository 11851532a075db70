//! A step table's serde form for the page: names, and one column of
//! little-endian `f64` bytes per category (`#[serde(with = "step_columns")]`).
//!
//! Why: the worker's JS serialiser made one JS object of twelve fields per
//! step, the page copied and read each back (3,498 steps: 12 ms to build,
//! 9 to copy, 9-12 to read). As bytes the numbers are one `Uint8Array`.
//! `--format json` still writes rows (the tools' `Rendered::json` puts them
//! back), and reading accepts either form.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::StepBreakdown;
use crate::common::byte_column;

/// The numbers of a step, in column order.
const FIELDS: usize = 11;

fn numbers(s: &StepBreakdown) -> [f64; FIELDS] {
    [
        s.step_time_ms,
        s.device_compute_ms,
        s.device_to_device_ms,
        s.device_collectives_ms,
        s.host_compute_ms,
        s.kernel_launch_ms,
        s.host_wait_input_ms,
        s.host_to_device_ms,
        s.output_ms,
        s.compile_ms,
        s.other_ms,
    ]
}

fn step(name: String, n: [f64; FIELDS]) -> StepBreakdown {
    StepBreakdown {
        name,
        step_time_ms: n[0],
        device_compute_ms: n[1],
        device_to_device_ms: n[2],
        device_collectives_ms: n[3],
        host_compute_ms: n[4],
        kernel_launch_ms: n[5],
        host_wait_input_ms: n[6],
        host_to_device_ms: n[7],
        output_ms: n[8],
        compile_ms: n[9],
        other_ms: n[10],
    }
}

/// The columns' form: `numbers` holds column 0 of every step, then column 1…
#[derive(Serialize, Deserialize)]
struct Columns {
    names: Vec<String>,
    #[serde(with = "byte_column")]
    numbers: Vec<f64>,
}

/// `model` as `--format json` writes it: its step table at `pointer` as rows.
pub fn json_with_rows<T: Serialize + ?Sized>(
    model: &T,
    pointer: &str,
    steps: &[StepBreakdown],
) -> Result<serde_json::Value, serde_json::Error> {
    let mut value = serde_json::to_value(model)?;
    if let Some(slot) = value.pointer_mut(pointer) {
        *slot = serde_json::to_value(steps)?;
    }
    Ok(value)
}

pub fn serialize<S: Serializer>(steps: &[StepBreakdown], serializer: S) -> Result<S::Ok, S::Error> {
    let rows: Vec<[f64; FIELDS]> = steps.iter().map(numbers).collect();
    let numbers = (0..FIELDS).flat_map(|c| rows.iter().map(move |r| r[c])).collect();
    Columns { names: steps.iter().map(|s| s.name.clone()).collect(), numbers }.serialize(serializer)
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<StepBreakdown>, D::Error> {
    deserializer.deserialize_any(StepsVisitor)
}

struct StepsVisitor;

impl<'de> Visitor<'de> for StepsVisitor {
    type Value = Vec<StepBreakdown>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of steps, or their names and columns")
    }

    /// Rows, as `--format json` writes them.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut steps = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(step) = seq.next_element::<StepBreakdown>()? {
            steps.push(step);
        }
        Ok(steps)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let Columns { names, numbers } = Columns::deserialize(de::value::MapAccessDeserializer::new(map))?;
        let n = names.len();
        if numbers.len() != n * FIELDS {
            return Err(de::Error::custom(format!(
                "{n} steps need {} numbers, the columns hold {}",
                n * FIELDS,
                numbers.len()
            )));
        }
        Ok(names
            .into_iter()
            .enumerate()
            .map(|(i, name)| step(name, std::array::from_fn(|c| numbers[c * n + i])))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Table {
        #[serde(with = "super")]
        steps: Vec<StepBreakdown>,
    }

    fn steps() -> Vec<StepBreakdown> {
        (0..3)
            .map(|i| {
                let f = f64::from(i);
                step(format!("train {i}"), std::array::from_fn(|c| f * 100.0 + c as f64 + 0.125))
            })
            .collect()
    }

    #[test]
    fn columns_read_back_as_the_steps_they_were() {
        let table = Table { steps: steps() };
        let json = serde_json::to_value(&table).unwrap();
        assert_eq!(json["steps"]["names"], serde_json::json!(["train 0", "train 1", "train 2"]));
        // Column-major: the three steps' step times first.
        let bytes: Vec<u8> = serde_json::from_value(json["steps"]["numbers"].clone()).unwrap();
        assert_eq!(bytes.len(), 3 * FIELDS * 8);
        assert_eq!(f64::from_le_bytes(bytes[8..16].try_into().unwrap()), 100.125);
        assert_eq!(serde_json::from_value::<Table>(json).unwrap(), table);
    }

    #[test]
    fn rows_are_read_too_and_a_short_column_is_an_error() {
        let rows = serde_json::json!({ "steps": serde_json::to_value(steps()).unwrap() });
        assert_eq!(serde_json::from_value::<Table>(rows).unwrap().steps, steps());
        let short = serde_json::json!({ "steps": { "names": ["a"], "numbers": [0, 0, 0, 0, 0, 0, 0, 0] } });
        let e = serde_json::from_value::<Table>(short).unwrap_err().to_string();
        assert!(e.contains("1 steps need 11 numbers, the columns hold 1"), "{e}");
    }
}
