//! A trace event's `args`, parsed without building a JSON map per event:
//! keys and strings borrow from the input where they can, scalars are kept
//! as themselves, and only lists and objects (kernel grid/block, input
//! dims) become [`Value`]s. Parsing args this way instead of as a
//! `serde_json::Map` is what makes decoding PyTorch traces cheap: most of
//! their events carry several args.

use super::scan::{Bail, Cursor, Scan};
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;

/// One arg's value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ArgValue<'a> {
    Null,
    Bool(bool),
    Int(i64),
    /// Only integers above `i64::MAX`.
    UInt(u64),
    Float(f64),
    Str(Cow<'a, str>),
    /// A list or an object.
    Json(Value),
    /// A list of only lists, plain integers and strings, kept as written
    /// ([`super::scan_event`]); without its whitespace it is the compact
    /// JSON serde_json would write for it.
    JsonText(&'a str),
}

impl ArgValue<'_> {
    /// A list or object as a JSON value (a kept list parsed now).
    pub fn json(&self) -> Option<Cow<'_, Value>> {
        match self {
            ArgValue::Json(v) => Some(Cow::Borrowed(v)),
            ArgValue::JsonText(text) => serde_json::from_str(text).ok().map(Cow::Owned),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            ArgValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            ArgValue::Int(i) => Some(i),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            ArgValue::Int(i) => u64::try_from(i).ok(),
            ArgValue::UInt(u) => Some(u),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            ArgValue::Int(i) => Some(i as f64),
            ArgValue::UInt(u) => Some(u as f64),
            ArgValue::Float(f) => Some(f),
            _ => None,
        }
    }
}

/// An event's args sorted by key, one value per key (the last one written,
/// as a JSON object keeps it).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Args<'a>(Vec<(Cow<'a, str>, ArgValue<'a>)>);

impl<'a> Args<'a> {
    /// The args of `entries` in the order written: sorted as a JSON map
    /// iterates; of equal keys the last wins.
    pub fn of_entries(mut entries: Vec<(Cow<'a, str>, ArgValue<'a>)>) -> Args<'a> {
        // Stable: equal keys stay in the order written.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        // `dedup_by` keeps the first of equal neighbours: the later value is
        // swapped into it first.
        entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(later, kept);
            }
            same
        });
        Args(entries)
    }

    pub fn get(&self, key: &str) -> Option<&ArgValue<'a>> {
        self.0.binary_search_by(|(k, _)| k.as_ref().cmp(key)).ok().map(|i| &self.0[i].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &ArgValue<'a>)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ArgValue<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ArgValueVisitor(std::marker::PhantomData))
    }
}

struct ArgValueVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ArgValueVisitor<'a> {
    type Value = ArgValue<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(ArgValue::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(ArgValue::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(ArgValue::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(ArgValue::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(i64::try_from(v).map_or(ArgValue::UInt(v), ArgValue::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(ArgValue::Float(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(ArgValue::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(ArgValue::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(ArgValue::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(ArgValue::Json)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(ArgValue::Json)
    }
}

/// A string borrowed from the input unless it has escapes. (serde borrows
/// a `Cow<str>` field only when it is not wrapped, as in `Option<Cow<str>>`.)
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Text<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(TextVisitor(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Args<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ArgsVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for ArgsVisitor<'a> {
            type Value = Args<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of args")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut args = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some((Text(k), v)) = map.next_entry::<Text<'a>, ArgValue<'a>>()? {
                    args.push((k, v));
                }
                Ok(Args::of_entries(args))
            }
        }
        deserializer.deserialize_map(ArgsVisitor(std::marker::PhantomData))
    }
}

/// A JSON value's text as written (what a `&RawValue` holds), borrowed
/// from the input: the scanner makes one without serde.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Raw<'a>(pub &'a str);

impl<'a> Raw<'a> {
    pub fn get(&self) -> &'a str {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&RawValue>::deserialize(deserializer).map(|r| Raw(r.get()))
    }
}

/// An event's `args`, read when first asked for: the scanner keeps their
/// text (its grammar checked), serde gives them read.
#[derive(Default)]
pub(crate) struct LazyArgs<'a> {
    text: Option<&'a str>,
    read: OnceCell<Option<Args<'a>>>,
}

impl<'a> LazyArgs<'a> {
    pub fn of_text(text: &'a str) -> LazyArgs<'a> {
        LazyArgs { text: Some(text), read: OnceCell::new() }
    }

    pub fn get(&self) -> Option<&Args<'a>> {
        // The text was checked to be a JSON object when it was scanned, and
        // everything of one reads as args: this cannot fail.
        self.read.get_or_init(|| self.text.map(|t| read(t).unwrap_or_default())).as_ref()
    }

    pub fn is_none(&self) -> bool {
        self.get().is_none()
    }
}

// Between any two lifetimes: the cell makes `LazyArgs` invariant, the args are not.
impl<'b> PartialEq<LazyArgs<'b>> for LazyArgs<'_> {
    fn eq(&self, other: &LazyArgs<'b>) -> bool {
        fn shorter<'s>(args: Option<&'s Args<'_>>) -> Option<&'s Args<'s>> {
            args
        }
        shorter(self.get()) == shorter(other.get())
    }
}

impl fmt::Debug for LazyArgs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LazyArgs<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let args = Option::<Args>::deserialize(deserializer)?;
        Ok(LazyArgs { text: None, read: OnceCell::from(args) })
    }
}

/// The args of an `args` object's text, as serde reads them ([`Args`]).
pub(crate) fn read(text: &str) -> Scan<Args<'_>> {
    let mut c = Cursor::new(text);
    c.expect(b'{')?;
    let mut entries = Vec::with_capacity(8);
    if c.peek() != Some(b'}') {
        loop {
            let key = c.text()?;
            c.expect(b':')?;
            entries.push((key, arg_value(&mut c)?));
            if c.peek() == Some(b',') {
                c.at += 1;
            } else {
                break;
            }
        }
    }
    c.expect(b'}')?;
    Ok(Args::of_entries(entries))
}

/// One arg's value, as [`ArgValue`]'s serde visitor reads it. Numbers other
/// than plain integers are left to serde_json, so floats round as they do there.
fn arg_value<'a>(c: &mut Cursor<'a>) -> Scan<ArgValue<'a>> {
    Ok(match c.peek().ok_or(Bail)? {
        b'"' => ArgValue::Str(c.text()?),
        b'{' => ArgValue::Json(serde_json::from_str::<Value>(c.value()?).map_err(|_| Bail)?),
        b'[' => {
            let text = c.value()?;
            if is_compact_list(text) {
                ArgValue::JsonText(text)
            } else {
                ArgValue::Json(serde_json::from_str::<Value>(text).map_err(|_| Bail)?)
            }
        }
        b't' | b'f' | b'n' => match c.value()? {
            "true" => ArgValue::Bool(true),
            "false" => ArgValue::Bool(false),
            _ => ArgValue::Null,
        },
        _ => {
            let text = c.number()?;
            match plain_integer(text) {
                Some(i) => ArgValue::Int(i),
                None => serde_json::from_str::<ArgValue>(text).map_err(|_| Bail)?,
            }
        }
    })
}

/// A JSON integer of at most 18 digits (so it fits an `i64`), other than
/// `-0` (which serde_json reads as the float -0.0).
fn plain_integer(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value = digits.bytes().fold(0i64, |v, b| v * 10 + i64::from(b - b'0'));
    match (text.len() > digits.len(), value) {
        (true, 0) => None,
        (true, v) => Some(-v),
        (false, v) => Some(v),
    }
}

/// Whether a (grammar-checked) list holds only lists, integers of at most
/// 18 digits and strings without escapes: then its text without the
/// whitespace between values ([`compact`]) is what serde_json would write
/// for it. Input shapes and types, grid and block sizes are such lists;
/// they are kept as their text instead of being parsed and written again.
fn is_compact_list(text: &str) -> bool {
    let mut in_string = false;
    let mut run = 0;
    for b in text.bytes() {
        if in_string {
            match b {
                b'"' => in_string = false,
                b'\\' => return false,
                _ => {}
            }
            continue;
        }
        match b {
            b'0'..=b'9' => {
                run += 1;
                if run > 18 {
                    return false;
                }
                continue;
            }
            b'"' => in_string = true,
            b'[' | b']' | b',' | b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => return false,
        }
        run = 0;
    }
    true
}

/// A list's text without the whitespace between its values (strings kept
/// as they are; they have no escapes: [`is_compact_list`]).
pub(crate) fn compact(text: &str) -> Cow<'_, str> {
    let mut in_string = false;
    let spaced = text.bytes().any(|b| {
        in_string ^= b == b'"';
        !in_string && matches!(b, b' ' | b'\t' | b'\n' | b'\r')
    });
    if !spaced {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    in_string = false;
    for ch in text.chars() {
        in_string ^= ch == '"';
        if in_string || !matches!(ch, ' ' | '\t' | '\n' | '\r') {
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_kind_of_value_like_a_json_map() {
        let json = r#"{"z":1,"s":"a\"b","b":true,"n":null,"f":1.5,"big":18446744073709551615,
            "neg":-3,"list":[1,2],"obj":{"k":"v"},"z":2,"plain":"text"}"#;
        let args: Args = serde_json::from_str(json).unwrap();
        let map: serde_json::Map<String, Value> = serde_json::from_str(json).unwrap();
        let keys: Vec<&str> = args.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, map.keys().map(String::as_str).collect::<Vec<_>>(), "sorted, one per key");
        assert_eq!(args.get("z"), Some(&ArgValue::Int(2)), "the last of a repeated key wins");
        assert_eq!(args.get("s").and_then(ArgValue::as_str), Some("a\"b"));
        assert!(matches!(args.get("plain"), Some(ArgValue::Str(Cow::Borrowed("text")))));
        assert_eq!(args.get("b"), Some(&ArgValue::Bool(true)));
        assert_eq!(args.get("n"), Some(&ArgValue::Null));
        assert_eq!(args.get("f").and_then(ArgValue::as_f64), Some(1.5));
        assert_eq!(args.get("f").and_then(ArgValue::as_i64), None);
        assert_eq!(args.get("big").and_then(ArgValue::as_u64), Some(u64::MAX));
        assert_eq!(args.get("neg").and_then(ArgValue::as_u64), None);
        assert_eq!(args.get("neg").and_then(ArgValue::as_i64), Some(-3));
        assert_eq!(args.get("list"), Some(&ArgValue::Json(serde_json::json!([1, 2]))));
        assert_eq!(args.get("obj"), Some(&ArgValue::Json(serde_json::json!({"k": "v"}))));
        assert_eq!(args.get("missing"), None);
    }

    #[test]
    fn args_must_be_an_object() {
        assert!(serde_json::from_str::<Args>("[1]").is_err());
        assert!(serde_json::from_str::<Args>("5").is_err());
    }

    #[test]
    fn compact_lists_are_kept_as_written_only_when_serde_would_write_them_so() {
        for (list, kept) in [
            ("[[1,2],[3]]", true),
            (r#"["float","","c10::Half"]"#, true),
            ("[]", true),
            ("[1, 2]", true),
            ("[ [64, 1, 1] ,\n[\"a b\", \"\"]]", true),
            ("[1.0]", false),
            ("[-1]", false),
            (r#"["a\"b"]"#, false),
            ("[1234567890123456789]", false),
            ("[{\"a\":1}]", false),
        ] {
            assert_eq!(is_compact_list(list), kept, "{list}");
            if kept {
                assert_eq!(serde_json::from_str::<Value>(list).unwrap().to_string(), compact(list));
            }
        }
    }

    #[test]
    fn plain_integers_read_as_serde_reads_them() {
        for text in ["0", "-0", "7", "-12", "999999999999999999", "-999999999999999999", "9223372036854775807"] {
            let serde: ArgValue = serde_json::from_str(text).unwrap();
            if let Some(i) = plain_integer(text) {
                assert_eq!(ArgValue::Int(i), serde, "{text}");
            }
        }
        assert_eq!(plain_integer("-0"), None);
    }
}
