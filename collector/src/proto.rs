//! The ProfilerService messages, client and server generated from
//! `proto/profiler_service.proto` (XSpace types are proflens-format's).

#![allow(clippy::all, clippy::pedantic, missing_docs)]
include!(concat!(env!("OUT_DIR"), "/tensorflow.rs"));
