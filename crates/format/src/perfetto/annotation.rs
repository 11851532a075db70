//! Debug annotations (debug_annotation.proto) → JSON values, the form a
//! trace-event file's `args` take, so that an annotation becomes the same
//! event stat as the arg a JSON trace would carry.
//!
//! Perfetto's importer flattens nested values into `debug.a.b` / `debug.a[0]`
//! arg keys, and its JSON export writes them back as nested objects and
//! lists under the annotation's name (trace_processor/export_json.cc): the
//! nested form is kept here, as lists and objects become one stat of compact
//! JSON text, as they do from a JSON trace.

use super::field::text;
use super::sequence::Sequence;
use crate::wire::{fields, Field, Value as Wire};
use crate::Error;
use serde_json::{Map, Number, Value};

/// Deepest nesting of dicts and arrays read; deeper values are cut, so a
/// crafted annotation cannot exhaust the stack.
const MAX_DEPTH: usize = 32;

// DebugAnnotation fields.
const NAME_IID: u64 = 1;
const BOOL_VALUE: u64 = 2;
const UINT_VALUE: u64 = 3;
const INT_VALUE: u64 = 4;
const DOUBLE_VALUE: u64 = 5;
const STRING_VALUE: u64 = 6;
const POINTER_VALUE: u64 = 7;
const NESTED_VALUE: u64 = 8;
const LEGACY_JSON_VALUE: u64 = 9;
const NAME: u64 = 10;
const DICT_ENTRIES: u64 = 11;
const ARRAY_VALUES: u64 = 12;
const STRING_VALUE_IID: u64 = 17;

/// One annotation: its name (interned or not) and value.
pub(crate) fn read(bytes: &[u8], seq: &Sequence) -> Result<(String, Value), Error> {
    read_at(bytes, seq, 0)
}

fn read_at(bytes: &[u8], seq: &Sequence, depth: usize) -> Result<(String, Value), Error> {
    let mut name = String::new();
    let mut value = Value::Null;
    let mut dict = Map::new();
    let mut array = Vec::new();
    let (mut is_dict, mut is_array) = (false, false);
    for field in fields(bytes, "debug annotation") {
        let field = field?;
        match (field.number, &field.value) {
            (NAME_IID, Wire::Varint(iid)) => name = seq.annotation_name(*iid).to_string(),
            (NAME, Wire::Bytes(b)) => name = text(b),
            (BOOL_VALUE, Wire::Varint(v)) => value = Value::Bool(*v != 0),
            (UINT_VALUE, Wire::Varint(v)) => value = Value::from(*v),
            (INT_VALUE, Wire::Varint(v)) => value = Value::from(*v as i64),
            (DOUBLE_VALUE, _) => value = double(&field),
            (STRING_VALUE, Wire::Bytes(b)) => value = Value::String(text(b)),
            (STRING_VALUE_IID, Wire::Varint(iid)) => value = Value::String(seq.annotation_string(*iid).to_string()),
            // The JSON export writes pointers as hex text.
            (POINTER_VALUE, Wire::Varint(v)) => value = Value::String(format!("0x{v:x}")),
            (LEGACY_JSON_VALUE, Wire::Bytes(b)) => {
                let t = text(b);
                value = serde_json::from_str(&t).unwrap_or(Value::String(t));
            }
            (NESTED_VALUE, Wire::Bytes(b)) => value = nested(b, depth)?,
            (DICT_ENTRIES, Wire::Bytes(b)) if depth < MAX_DEPTH => {
                is_dict = true;
                let (k, v) = read_at(b, seq, depth + 1)?;
                dict.insert(k, v);
            }
            (ARRAY_VALUES, Wire::Bytes(b)) if depth < MAX_DEPTH => {
                is_array = true;
                array.push(read_at(b, seq, depth + 1)?.1);
            }
            _ => {}
        }
    }
    if is_dict {
        value = Value::Object(dict);
    } else if is_array {
        value = Value::Array(array);
    }
    Ok((name, value))
}

/// The deprecated `NestedValue` form (dict keys and values side by side).
fn nested(bytes: &[u8], depth: usize) -> Result<Value, Error> {
    let (mut kind, mut keys, mut dict_values, mut array) = (0, Vec::new(), Vec::new(), Vec::new());
    let mut leaf = Value::Null;
    for field in fields(bytes, "debug annotation") {
        let field = field?;
        match (field.number, &field.value) {
            (1, Wire::Varint(v)) => kind = *v,
            (2, Wire::Bytes(b)) => keys.push(text(b)),
            (3, Wire::Bytes(b)) if depth < MAX_DEPTH => dict_values.push(nested(b, depth + 1)?),
            (4, Wire::Bytes(b)) if depth < MAX_DEPTH => array.push(nested(b, depth + 1)?),
            (5, Wire::Varint(v)) => leaf = Value::from(*v as i64),
            (6, _) => leaf = double(&field),
            (7, Wire::Varint(v)) => leaf = Value::Bool(*v != 0),
            (8, Wire::Bytes(b)) => leaf = Value::String(text(b)),
            _ => {}
        }
    }
    Ok(match kind {
        1 => Value::Object(keys.into_iter().zip(dict_values).collect()),
        2 => Value::Array(array),
        _ => leaf,
    })
}

/// A `double` field as a JSON number; NaN and infinities (which JSON has
/// no number for) as their text.
fn double(field: &Field) -> Value {
    let v = f64::from_bits(field.fixed_bits().unwrap_or(0));
    Number::from_f64(v).map_or_else(|| Value::String(v.to_string()), Value::Number)
}
