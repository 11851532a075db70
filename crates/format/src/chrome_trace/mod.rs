//! Chrome trace-event JSON → [`Profile`]: PyTorch profiler (Kineto) traces,
//! XProf's legacy `trace.json.gz`, and other trace-event files.
//!
//! The file is parsed once into borrowed events (only the fields used, times
//! kept as their decimal text; by a hand scanner, [`scan_event`], with serde
//! reading whatever it gives up on), then one of two mappings builds the model:
//! [`kineto`] maps PyTorch traces onto XPlane conventions (`/host:CPU` thread
//! lines, `/device:GPU:<n>` stream lines, XProf stat names) so the existing
//! tools work; [`generic`] keeps processes as planes and threads as lines.
//! Times become ps relative to the earliest event.

mod args;
mod builder;
mod counter_events;
mod event_walk;
mod flows;
mod generic;
mod kept;
mod kineto;
mod names;
mod scan;
mod scan_event;
#[cfg(test)]
mod scan_tests;
mod stream;
mod stream_sync;
#[cfg(test)]
mod stream_tests;
mod time;
mod unclosed_list;
mod value_end;
mod walk;

use crate::{Error, Progress};
use proflens_model::{Origin, Profile};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

pub(crate) use args::{ArgValue, Args, LazyArgs, Raw, Text};
use event_walk::EventWalk;
pub use flows::{FLOW_IN, FLOW_OUT};
pub(crate) use stream::decode_stream;
pub(crate) use time::us_text_to_ps;
use walk::Survey;

/// The top level of a trace object; unknown keys are ignored. `E` is the
/// event type: [`RawEvent`] on the fast path, the raw JSON of each event on
/// the lenient one (which skips events with wrong field types).
#[derive(Deserialize)]
pub(crate) struct RawTrace<'a, E> {
    #[serde(rename = "traceEvents", default = "Option::default")]
    trace_events: Option<Vec<E>>,
    #[serde(rename = "baseTimeNanoseconds", borrow, default)]
    base_time_ns: Option<&'a RawValue>,
    #[serde(rename = "deviceProperties", default)]
    device_properties: Option<Value>,
    #[serde(rename = "distributedInfo", default)]
    distributed_info: Option<Value>,
    #[serde(rename = "schemaVersion", default)]
    schema_version: Option<Value>,
    #[serde(default)]
    cuda_runtime_version: Option<Value>,
    #[serde(default)]
    cuda_driver_version: Option<Value>,
    #[serde(default)]
    cupti_version: Option<Value>,
    #[serde(default)]
    roctracer_version: Option<Value>,
    #[serde(default)]
    hip_runtime_version: Option<Value>,
}

/// What the mappings need of the trace's top level.
#[derive(Default)]
pub(crate) struct Head {
    pub base_time_ns: Option<i128>,
    pub device_properties: Vec<Value>,
    pub distributed_info: Option<Value>,
    /// Top-level version keys (`cuda_runtime_version`, …) as (name, value).
    pub versions: Vec<(&'static str, Value)>,
    pub schema_version: bool,
}

/// One trace event, borrowed from the input; fields the mappings don't
/// read are skipped (by [`scan_event`], else by serde) and not written back
/// ([`kept`]).
#[derive(Deserialize, Serialize, Default)]
pub(crate) struct RawEvent<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub ph: Option<Text<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Text<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub cat: Option<Text<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<Raw<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<Raw<'a>>,
    /// A number of µs, or a string holding one ([`time`]).
    #[serde(borrow, default, deserialize_with = "time::ts_raw", skip_serializing_if = "Option::is_none")]
    pub ts: Option<Raw<'a>>,
    #[serde(borrow, default, deserialize_with = "time::dur_raw", skip_serializing_if = "Option::is_none")]
    pub dur: Option<Raw<'a>>,
    #[serde(borrow, default, skip_serializing_if = "LazyArgs::is_none")]
    pub args: LazyArgs<'a>,
    /// Flow fields ([`flows`]): the flow id and binding point of `s`/`t`/`f`
    /// phases, and `bind_id` with `flow_in`/`flow_out` on slices.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Raw<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub bp: Option<Text<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub bind_id: Option<Raw<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub flow_in: Option<Raw<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub flow_out: Option<Raw<'a>>,
}

/// One event's bytes read: by the scanner, else (what it gives up on) by serde.
pub(crate) fn parse_event(bytes: &[u8]) -> Result<RawEvent<'_>, serde_json::Error> {
    match scan_event::event_bytes(bytes) {
        Ok(e) => Ok(e),
        Err(_) => serde_json::from_slice(bytes),
    }
}

impl<'a> RawEvent<'a> {
    pub fn ph(&self) -> &str {
        self.ph.as_ref().map_or("", |t| &t.0)
    }
    pub fn name(&self) -> &str {
        self.name.as_ref().map_or("", |t| &t.0)
    }
    pub fn cat(&self) -> &str {
        self.cat.as_ref().map_or("", |t| &t.0)
    }
    pub fn ts_ps(&self) -> Option<i128> {
        self.ts.and_then(|t| us_text_to_ps(t.get()))
    }
    pub fn dur_ps(&self) -> i128 {
        self.dur.and_then(|t| us_text_to_ps(t.get())).unwrap_or(0).max(0)
    }
    pub fn pid(&self) -> Id<'a> {
        Id::of(self.pid)
    }
    pub fn tid(&self) -> Id<'a> {
        Id::of(self.tid)
    }
    pub fn arg(&self, key: &str) -> Option<&ArgValue<'a>> {
        self.args.get().and_then(|a| a.get(key))
    }
    pub fn arg_i64(&self, key: &str) -> Option<i64> {
        self.arg(key).and_then(ArgValue::as_i64)
    }
    pub fn arg_str(&self, key: &str) -> Option<&str> {
        self.arg(key).and_then(ArgValue::as_str)
    }
    /// Every arg, sorted by key.
    pub fn args(&self) -> impl Iterator<Item = (&str, &ArgValue<'a>)> {
        self.args.get().into_iter().flat_map(Args::iter)
    }
}

/// A pid or tid: an integer, or a label (`"Spans"`, `"stream 7"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Id<'a> {
    /// The text as written, without quotes (the identity of the process/thread).
    pub text: Cow<'a, str>,
    /// The integer it is, or ends with (`"stream 7"` → 7).
    pub number: Option<i64>,
    /// Whether it is an integer (or integer text) as a whole.
    pub numeric: bool,
}

impl<'a> Id<'a> {
    fn of(raw: Option<Raw<'a>>) -> Id<'a> {
        let raw = raw.map_or("", |r| r.get().trim());
        let text = if raw.starts_with('"') {
            match raw.get(1..raw.len() - 1) {
                // Without escapes, the text between the quotes is the string.
                Some(inner) if !inner.contains('\\') => Cow::Borrowed(inner),
                _ => Cow::Owned(serde_json::from_str::<String>(raw).unwrap_or_default()),
            }
        } else if raw == "null" {
            Cow::Borrowed("")
        } else {
            Cow::Borrowed(raw)
        };
        let trimmed = text.trim();
        let whole = trimmed.parse::<i64>().ok().or_else(|| trimmed.parse::<f64>().ok().map(|f| f as i64));
        let trailing = {
            let digits = text.bytes().rev().take_while(u8::is_ascii_digit).count();
            text[text.len() - digits..].parse::<i64>().ok()
        };
        Id { numeric: whole.is_some(), number: whole.or(trailing), text }
    }
}

/// Relative times: ps from `t0`, narrowed to the model's i64.
pub(crate) fn rel_ps(ps: i128, t0: i128) -> i64 {
    i64::try_from(ps - t0).unwrap_or(if ps < t0 { i64::MIN } else { i64::MAX })
}

impl<E> Default for RawTrace<'_, E> {
    fn default() -> Self {
        RawTrace {
            trace_events: None,
            base_time_ns: None,
            device_properties: None,
            distributed_info: None,
            schema_version: None,
            cuda_runtime_version: None,
            cuda_driver_version: None,
            cupti_version: None,
            roctracer_version: None,
            hip_runtime_version: None,
        }
    }
}

/// The trace's top level and events, parsed as `E`, and whether the events
/// are a list that ends without its `]` ([`unclosed_list`]).
fn parse<'a, E: Deserialize<'a>>(bytes: &'a [u8]) -> Result<(RawTrace<'a, E>, Vec<E>, bool), Error> {
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        None => Err(Error::Empty),
        Some(b'[') => match serde_json::from_slice(bytes) {
            Ok(events) => Ok((RawTrace::default(), events, false)),
            Err(_) if unclosed_list::is_unclosed_list(bytes) => {
                Ok((RawTrace::default(), unclosed_list::complete_elements(bytes)?, true))
            }
            Err(e) => Err(json_error(e)),
        },
        Some(b'{') => {
            let mut raw: RawTrace<E> = serde_json::from_slice(bytes).map_err(json_error)?;
            let events = raw.trace_events.take().ok_or_else(|| Error::NotATrace {
                detail: "it is an object without a \"traceEvents\" list".to_string(),
            })?;
            Ok((raw, events, false))
        }
        Some(_) => Err(Error::NotATrace { detail: "it is neither a JSON object nor a list".to_string() }),
    }
}

/// Decodes uncompressed trace JSON held in memory.
pub fn decode(bytes: &[u8], progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    progress(Progress::Parsing);
    // The scanner reads what it can be sure of ([`scan_event`])…
    if let Ok((head, events)) = scan_event::document(bytes) {
        let mut walk = events.as_slice();
        let survey = Survey::of(&mut walk)?;
        return build(&head, &survey, &mut walk, Skipped::default(), progress);
    }
    decode_with_serde(bytes, progress)
}

/// [`decode`] by serde alone: what the scanner gives up on. One pass
/// straight into events; only when some event has fields of the wrong
/// type, a second, lenient pass that skips such events.
fn decode_with_serde(bytes: &[u8], progress: &mut dyn FnMut(Progress)) -> Result<Profile, Error> {
    let (raw, parsed, skipped) = match parse::<RawEvent>(bytes) {
        Ok((raw, events, unclosed)) => (raw, events, Skipped { unclosed, ..Skipped::default() }),
        Err(Error::BadJson { .. }) if !is_syntax_error(bytes) => lenient(bytes)?,
        Err(e) => return Err(e),
    };
    let head = head(raw)?;
    let mut walk = parsed.as_slice();
    let survey = Survey::of(&mut walk)?;
    build(&head, &survey, &mut walk, skipped, progress)
}

/// Events skipped for fields of the wrong type: how many, and the first's
/// problem; and whether the events after the end of an unclosed list (an
/// event cut short) are lost ([`unclosed_list`]).
#[derive(Default)]
pub(crate) struct Skipped {
    pub count: usize,
    pub first: Option<String>,
    pub unclosed: bool,
}

/// The profile of a trace's events, from its top level ([`Head`]), the first
/// pass over its events (`survey`), and `walk` to go over them again.
pub(crate) fn build(
    head: &Head,
    survey: &Survey,
    walk: &mut dyn EventWalk,
    skipped: Skipped,
    progress: &mut dyn FnMut(Progress),
) -> Result<Profile, Error> {
    let kineto = is_kineto(head, survey);
    let mut profile =
        if kineto { kineto::build(head, survey, walk, progress)? } else { generic::build(survey, walk, progress)? };
    profile.origin = if kineto { Origin::Kineto } else { Origin::ChromeTrace };
    if skipped.unclosed {
        profile.warnings.push(unclosed_list::WARNING.to_string());
    }
    if skipped.count > 0 {
        profile.warnings.push(format!(
            "{} trace events were skipped because their fields have the wrong types (first: {})",
            skipped.count,
            skipped.first.unwrap_or_default()
        ));
    }
    if profile.event_count() == 0 && profile.planes.iter().all(|p| p.stats.is_empty()) {
        return Err(if survey.count == 0 { Error::Empty } else { Error::NoEvents { detail: nothing_drawn(walk)? } });
    }
    Ok(profile)
}

/// Why none of the events became an event of the profile, counted by reason.
fn nothing_drawn(walk: &mut dyn EventWalk) -> Result<String, Error> {
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    let mut count = 0;
    walk.each(&mut |_, e| {
        count += 1;
        let reason = match e.ph() {
            "" => "without a \"ph\" phase".to_string(),
            _ if e.ts_ps().is_none() => "without a \"ts\" time".to_string(),
            "B" => "\"B\" begins without a matching \"E\" end".to_string(),
            "E" => "\"E\" ends without a matching \"B\" begin".to_string(),
            "X" | "i" | "I" => "on no process".to_string(),
            other => format!("of phase {}, which Proflens does not draw", crate::quoted(other)),
        };
        *reasons.entry(reason).or_default() += 1;
    })?;
    let counts: Vec<String> = reasons.into_iter().map(|(reason, n)| format!("{n} {reason}")).collect();
    Ok(format!("of its {count} events, {}", counts.join(", ")))
}

/// Whether the bytes break JSON's syntax (rather than a field's type); a
/// list that only lacks its end ([`unclosed_list`]) does not.
fn is_syntax_error(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_err() && !unclosed_list::is_unclosed_list(bytes)
}

type Lenient<'a> = (RawTrace<'a, RawEvent<'a>>, Vec<RawEvent<'a>>, Skipped);

/// The second pass: every event that parses, and the count of those that don't.
fn lenient(bytes: &[u8]) -> Result<Lenient<'_>, Error> {
    let (raw, events, unclosed) = parse::<&RawValue>(bytes)?;
    let mut parsed = Vec::with_capacity(events.len());
    let mut skipped = 0usize;
    let mut first_problem = None;
    for ev in events {
        match parse_event(ev.get().as_bytes()) {
            Ok(e) => parsed.push(e),
            Err(e) => {
                skipped += 1;
                first_problem.get_or_insert_with(|| e.to_string());
            }
        }
    }
    if parsed.is_empty() && skipped > 0 {
        return Err(Error::BadJson {
            detail: format!(
                "none of its {skipped} trace events has the expected fields ({})",
                first_problem.unwrap_or_default()
            ),
        });
    }
    let raw = RawTrace {
        trace_events: None,
        base_time_ns: raw.base_time_ns,
        device_properties: raw.device_properties,
        distributed_info: raw.distributed_info,
        schema_version: raw.schema_version,
        cuda_runtime_version: raw.cuda_runtime_version,
        cuda_driver_version: raw.cuda_driver_version,
        cupti_version: raw.cupti_version,
        roctracer_version: raw.roctracer_version,
        hip_runtime_version: raw.hip_runtime_version,
    };
    Ok((raw, parsed, Skipped { count: skipped, first: first_problem, unclosed }))
}

pub(crate) fn head<E>(raw: RawTrace<'_, E>) -> Result<Head, Error> {
    let base_time_ns = match raw.base_time_ns {
        Some(v) => Some(v.get().trim().parse::<i128>().map_err(|_| Error::BadJson {
            detail: format!("\"baseTimeNanoseconds\" is {} instead of an integer", v.get()),
        })?),
        None => None,
    };
    let versions = [
        ("cuda_runtime_version", raw.cuda_runtime_version),
        ("cuda_driver_version", raw.cuda_driver_version),
        ("cupti_version", raw.cupti_version),
        ("roctracer_version", raw.roctracer_version),
        ("hip_runtime_version", raw.hip_runtime_version),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    let device_properties = match raw.device_properties {
        Some(Value::Array(list)) => list,
        _ => Vec::new(),
    };
    Ok(Head {
        base_time_ns,
        device_properties,
        distributed_info: raw.distributed_info,
        versions,
        schema_version: raw.schema_version.is_some(),
    })
}

/// A PyTorch trace: by its top-level keys, or a PyTorch-only category.
fn is_kineto(head: &Head, survey: &Survey) -> bool {
    head.schema_version || head.base_time_ns.is_some() || !head.device_properties.is_empty() || survey.kineto_cat
}

pub(crate) fn json_error(e: serde_json::Error) -> Error {
    if e.is_eof() {
        Error::Truncated { detail: format!("the JSON ends early, at line {} column {}", e.line(), e.column()) }
    } else if e.is_data() {
        Error::BadJson { detail: format!("a field has the wrong type ({e})") }
    } else {
        Error::BadJson { detail: format!("it is not valid JSON ({e})") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_str(s: &str) -> Result<Profile, Error> {
        decode(s.as_bytes(), &mut |_| {})
    }

    #[test]
    fn bad_json_is_a_typed_error() {
        assert!(matches!(decode_str(r#"{"traceEvents":[{"ph":"X","ts":1"#), Err(Error::Truncated { .. })));
        assert!(matches!(decode_str(r#"{"traceEvents":[}"#), Err(Error::BadJson { .. })));
        assert!(matches!(decode_str(r#"{"traceEvents":{"a":1}}"#), Err(Error::BadJson { .. })));
        assert!(matches!(decode_str(r#"{"displayTimeUnit":"ns"}"#), Err(Error::NotATrace { .. })));
        assert!(matches!(decode_str(r#"{"traceEvents":[1,2,"x"]}"#), Err(Error::BadJson { .. })));
        assert!(matches!(decode_str(r#"{"traceEvents":[]}"#), Err(Error::Empty)));
        let unusable =
            r#"[{"name":"a","ts":1},{"ph":"X","name":"b"},{"ph":"B","ts":2,"pid":1},{"ph":"B","ts":3,"pid":1}]"#;
        let message = decode_str(unusable).unwrap_err().to_string();
        assert_eq!(
            message,
            "The trace has no event to show: of its 4 events, 2 \"B\" begins without a matching \"E\" end, \
             1 without a \"ph\" phase, 1 without a \"ts\" time."
        );
        assert!(matches!(decode_str("   "), Err(Error::Empty)));
        assert!(matches!(decode_str("\"text\""), Err(Error::NotATrace { .. })));
        let msg = decode_str(r#"{"traceEvents":[{"ph":"X","ts":1"#).unwrap_err().to_string();
        assert!(msg.contains("truncated"), "{msg}");
    }

    #[test]
    fn garbage_never_panics() {
        let base = br#"{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2,"args":{"device":0,"grid":[1,2,3]}},{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":2,"args":{"Bytes":-4}}]}"#;
        for cut in 0..base.len() {
            let _ = decode(&base[..cut], &mut |_| {});
        }
        let mut flipped = base.to_vec();
        for i in 0..flipped.len() {
            let old = flipped[i];
            flipped[i] = b'"';
            let _ = decode(&flipped, &mut |_| {});
            flipped[i] = old;
        }
        assert!(decode(base, &mut |_| {}).is_ok());
    }

    #[test]
    fn wrong_field_types_skip_the_event_with_a_warning() {
        let p = decode_str(
            r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"X","name":7,"pid":1,"tid":1,"ts":0}]"#,
        )
        .unwrap();
        assert_eq!(p.event_count(), 1);
        assert_eq!(p.origin, Origin::ChromeTrace);
        assert!(p.warnings[0].contains("1 trace events were skipped"), "{:?}", p.warnings);
    }
}
