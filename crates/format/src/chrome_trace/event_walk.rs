//! The events of a trace, walked in passes rather than indexed (see
//! [`super::walk`]): a parsed file's list, or the file read again
//! ([`super::stream`]).

use super::RawEvent;
use crate::Error;

/// Events that can be walked, in file order, as often as needed.
pub(crate) trait EventWalk {
    /// Calls `f` with each event and its index (the same in every pass).
    fn each(&mut self, f: &mut dyn FnMut(usize, &RawEvent)) -> Result<(), Error>;
}

impl EventWalk for &[RawEvent<'_>] {
    fn each(&mut self, f: &mut dyn FnMut(usize, &RawEvent)) -> Result<(), Error> {
        self.iter().enumerate().for_each(|(n, e)| f(n, e));
        Ok(())
    }
}
