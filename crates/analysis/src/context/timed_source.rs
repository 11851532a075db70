//! A file of events whose reads are timed: a decode that streams reads the
//! file as it goes, and its reads are reported apart from its own work.

use super::Hooks;
use proflens_format::{ByteSource, Error};
use std::cell::Cell;

pub(super) struct TimedSource<'a> {
    inner: &'a dyn ByteSource,
    hooks: &'a dyn Hooks,
    read_ms: Cell<f64>,
}

impl<'a> TimedSource<'a> {
    pub(super) fn new(inner: &'a dyn ByteSource, hooks: &'a dyn Hooks) -> TimedSource<'a> {
        TimedSource { inner, hooks, read_ms: Cell::new(0.0) }
    }

    /// Wall-clock ms its reads have taken so far.
    pub(super) fn read_ms(&self) -> f64 {
        self.read_ms.get()
    }
}

impl ByteSource for TimedSource<'_> {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        let started = self.hooks.now_ms();
        let read = self.inner.read_at(offset, buf);
        self.read_ms.set(self.read_ms.get() + self.hooks.now_ms() - started);
        read
    }

    fn as_slice(&self) -> Option<&[u8]> {
        self.inner.as_slice()
    }
}
