//! Where a JSON object, list or string ends, found byte by byte: strings
//! and their escapes skipped, brackets matched by kind. Shared by the
//! streamed reader (which feeds it a read at a time) and the reader of
//! unclosed lists (which feeds it a slice).

/// What one more byte did to the value being scanned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Step {
    /// The value goes on.
    Inside,
    /// This byte ends the value.
    End,
    /// This byte closes a bracket of the wrong kind (damage).
    Wrong,
}

/// The scan of one value, from its first byte.
#[derive(Default)]
pub(crate) struct ValueEnd {
    open: Vec<u8>,
    in_string: bool,
    escaped: bool,
}

impl ValueEnd {
    #[inline]
    pub(crate) fn feed(&mut self, b: u8) -> Step {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
        } else {
            match b {
                b'"' => self.in_string = true,
                b'{' => self.open.push(b'}'),
                b'[' => self.open.push(b']'),
                // The guard pops: a matching close falls through to `_`.
                b'}' | b']' if self.open.pop() != Some(b) => return Step::Wrong,
                _ => {}
            }
        }
        if self.open.is_empty() && !self.in_string {
            Step::End
        } else {
            Step::Inside
        }
    }
}
