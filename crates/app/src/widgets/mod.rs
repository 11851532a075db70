//! What the views share: tables, charts, numbers and times for people,
//! downloads, measures, keyboard shortcuts' rules, the step-time graphs, the TPU tool files' tables
//! and the title every tool starts with, with its "How to read this" guide. No widget knows a tool or the worker.

pub mod chart;
pub mod chart_frame;
pub mod chart_svg;
pub mod describe;
pub mod diagnostics;
pub mod download;
pub mod fmt;
pub mod how_to_read;
pub mod keys;
pub mod measure;
pub mod picture;
pub mod report;
pub mod roofline;
pub mod step_lines;
pub mod step_time;
pub mod table;
pub mod table_csv;
pub mod title;
pub mod tpu;
