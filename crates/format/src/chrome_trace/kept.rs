//! An event kept past its pass (a `B` until its `E`, a `[memory]` instant
//! until all are sorted): written back as compact JSON and parsed again
//! when needed, since a streamed event's bytes are gone once the next is
//! read. Writing keeps every field a mapping reads exactly: times, ids and
//! flow fields are the raw text, strings and args round-trip.

use super::args::{ArgValue, Args, LazyArgs, Raw, Text};
use super::RawEvent;
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde::Serialize;

/// One event as compact JSON.
pub(crate) struct Kept(Vec<u8>);

impl Kept {
    pub fn of(e: &RawEvent) -> Kept {
        // Every field serializes (strings, numbers, raw JSON): it cannot fail.
        Kept(serde_json::to_vec(e).unwrap_or_default())
    }

    /// Calls `f` with the event again.
    pub fn with<R>(&self, f: impl FnOnce(&RawEvent) -> R) -> Option<R> {
        super::parse_event(&self.0).ok().map(|e| f(&e))
    }
}

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl Serialize for Args<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Serialize for ArgValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ArgValue::Null => s.serialize_unit(),
            ArgValue::Bool(b) => s.serialize_bool(*b),
            ArgValue::Int(i) => s.serialize_i64(*i),
            ArgValue::UInt(u) => s.serialize_u64(*u),
            ArgValue::Float(f) => s.serialize_f64(*f),
            ArgValue::Str(t) => s.serialize_str(t),
            ArgValue::Json(v) => v.serialize(s),
            ArgValue::JsonText(text) => Raw(text).serialize(s),
        }
    }
}

impl Serialize for Raw<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The text is JSON (the scanner or serde read it as such).
        let raw = serde_json::from_str::<&serde_json::value::RawValue>(self.0).map_err(S::Error::custom)?;
        raw.serialize(s)
    }
}

impl Serialize for LazyArgs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_event_reads_back_the_same() {
        let json = r#"{"ph":"B","name":"a\"b","cat":"c","pid":"p 1","tid":7,"ts":1623142623460111.123456789,
            "dur":2e3,"id":"0x1","bp":"e","bind_id":5,"flow_in":true,"flow_out":"1",
            "args":{"f":1.1,"big":18446744073709551615,"n":null,"l":[1,{"k":"v"}],"s":"x\u00e9","b":false}}"#;
        let e: RawEvent = serde_json::from_str(json).unwrap();
        fn raw(v: Option<Raw>) -> Option<String> {
            v.map(|r| r.get().to_string())
        }
        let kept = Kept::of(&e);
        kept.with(|back| {
            assert_eq!((back.ph(), back.name(), back.cat()), (e.ph(), e.name(), e.cat()));
            assert_eq!((back.pid(), back.tid()), (e.pid(), e.tid()));
            assert_eq!((back.ts_ps(), back.dur_ps()), (e.ts_ps(), e.dur_ps()));
            assert_eq!((raw(back.id), raw(back.bind_id)), (raw(e.id), raw(e.bind_id)));
            assert_eq!((raw(back.flow_in), raw(back.flow_out)), (raw(e.flow_in), raw(e.flow_out)));
            assert_eq!(back.bp, e.bp);
            assert_eq!(back.args, e.args);
        })
        .unwrap();
    }
}
