//! Op metrics databases (host and device): per op occurrences, total and self time.
