//! A JSON scanner over borrowed text that checks JSON's grammar as it goes
//! and gives up ([`Bail`]) on anything it is not sure to read exactly as
//! serde_json does: escapes it would have to decode in a key, nesting past
//! [`MAX_DEPTH`], bytes that are not JSON. Giving up is never an error: the
//! caller then reads the same bytes with serde, which says what is wrong
//! (or reads them, more slowly). So the fast path can only ever accept what
//! serde accepts, with the same values, and every error message stays
//! serde's.
//!
//! Strings are scanned eight bytes at a time (SWAR: the quote, the
//! backslash and control characters found with integer arithmetic), which
//! is as fast natively as a SIMD search on short strings, and the same code
//! in wasm needs no SIMD extension.

/// The scanner gave up; serde reads the bytes instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bail;

pub(crate) type Scan<T> = Result<T, Bail>;

/// Nesting the scanner follows inside one event (serde_json refuses 128
/// levels from the document's root; an event starts two levels down).
const MAX_DEPTH: usize = 100;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` below `n` (n ≤ 128); exact for the
/// lowest such byte, which is all that is read.
#[inline]
fn below(x: u64, n: u8) -> u64 {
    x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS
}

/// The high bit of each byte of `x` equal to `b` (exact for the lowest).
#[inline]
fn equal(x: u64, b: u8) -> u64 {
    below(x ^ (ONES * u64::from(b)), 1)
}

/// The index of the first `"` or `\\` (or, with `controls`, byte below
/// 0x20) at or after `i`; `b.len()` when none. Eight bytes at a time while
/// eight remain.
#[inline]
fn special(b: &[u8], mut i: usize, controls: bool) -> usize {
    while let Some(word) = b.get(i..i + 8) {
        let mut x = [0u8; 8];
        x.copy_from_slice(word);
        let x = u64::from_le_bytes(x);
        let mut hits = equal(x, b'"') | equal(x, b'\\');
        if controls {
            hits |= below(x, 0x20);
        }
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || (controls && c < 0x20) {
            return i;
        }
        i += 1;
    }
    i
}

/// Where the object, list or string that `b` starts with ends (the length
/// of its bytes), minding strings, escapes and nesting but nothing else:
/// the grammar is checked when the value is read. `None` when `b` ends
/// first, or a bracket closes the wrong kind (the caller's byte-wise reader
/// then says which).
pub(crate) fn extent(b: &[u8]) -> Option<usize> {
    let mut open = [0u8; MAX_DEPTH];
    let mut depth = 0;
    let mut i = 0;
    loop {
        match *b.get(i)? {
            b'"' => loop {
                i = special(b, i + 1, false);
                match b.get(i)? {
                    b'"' => break,
                    // A backslash: the byte after it is skipped.
                    _ => i += 1,
                }
            },
            c @ (b'{' | b'[') => {
                *open.get_mut(depth)? = if c == b'{' { b'}' } else { b']' };
                depth += 1;
            }
            c @ (b'}' | b']') => {
                if depth == 0 || open[depth - 1] != c {
                    return None;
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
        if depth == 0 {
            return Some(i);
        }
    }
}

/// A cursor over JSON text (already checked to be UTF-8, so slices between
/// ASCII delimiters are `str`s).
pub(crate) struct Cursor<'a> {
    pub text: &'a str,
    pub at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, at: 0 }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte after JSON whitespace (space, tab, CR, LF only, as
    /// serde), left unread; `None` at the end.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        let b = self.bytes();
        while let Some(&c) = b.get(self.at) {
            if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(c);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes `c`, after whitespace, or gives up.
    #[inline]
    pub fn expect(&mut self, c: u8) -> Scan<()> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(Bail)
        }
    }

    /// A string, its `"` next (after whitespace): its text between the
    /// quotes as written, and whether it has escapes.
    #[inline]
    pub fn string(&mut self) -> Scan<(&'a str, bool)> {
        self.expect(b'"')?;
        let start = self.at;
        let b = self.bytes();
        let mut i = start;
        let mut escaped = false;
        loop {
            i = special(b, i, true);
            match b.get(i) {
                Some(b'"') => {
                    self.at = i + 1;
                    let text = self.text.get(start..i).ok_or(Bail)?;
                    if escaped {
                        check_escapes(text)?;
                    }
                    return Ok((text, escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    // The escaped byte is skipped; what it means is checked above.
                    i += 2;
                }
                Some(c) if *c < 0x20 => return Err(Bail),
                Some(_) => i += 1,
                None => return Err(Bail),
            }
        }
    }

    /// A string's text: borrowed, or decoded when it has escapes.
    pub fn text(&mut self) -> Scan<std::borrow::Cow<'a, str>> {
        let (s, escaped) = self.string()?;
        Ok(if escaped { std::borrow::Cow::Owned(unescape(s)?) } else { std::borrow::Cow::Borrowed(s) })
    }

    /// A number's text, its grammar checked as JSON's.
    #[inline]
    pub fn number(&mut self) -> Scan<&'a str> {
        self.peek();
        let b = self.bytes();
        let start = self.at;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - from
        };
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                digits(&mut i);
            }
            _ => return Err(Bail),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                return Err(Bail);
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                return Err(Bail);
            }
        }
        self.at = i;
        self.text.get(start..i).ok_or(Bail)
    }

    /// `true`, `false` or `null`, whichever is next.
    fn literal(&mut self) -> Scan<&'a str> {
        let start = self.at;
        for word in ["true", "false", "null"] {
            if self.bytes()[start..].starts_with(word.as_bytes()) {
                self.at += word.len();
                return Ok(word);
            }
        }
        Err(Bail)
    }

    /// Skips one value (its grammar checked); its text as written.
    pub fn value(&mut self) -> Scan<&'a str> {
        let first = self.peek().ok_or(Bail)?;
        let start = self.at;
        match first {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => self.nested()?,
            b't' | b'f' | b'n' => {
                self.literal()?;
            }
            _ => {
                self.number()?;
            }
        }
        self.text.get(start..self.at).ok_or(Bail)
    }

    /// An object or list, its bracket next; nested ones followed without
    /// recursion, up to [`MAX_DEPTH`].
    fn nested(&mut self) -> Scan<()> {
        // The closing bracket of each open level.
        let mut open = [0u8; MAX_DEPTH];
        let mut depth = 0;
        loop {
            // At the start of a value.
            match self.peek().ok_or(Bail)? {
                c @ (b'{' | b'[') => {
                    if depth == MAX_DEPTH {
                        return Err(Bail);
                    }
                    self.at += 1;
                    open[depth] = if c == b'{' { b'}' } else { b']' };
                    depth += 1;
                    let close = open[depth - 1];
                    if self.peek() == Some(close) {
                        self.at += 1;
                        depth -= 1;
                    } else {
                        if close == b'}' {
                            self.key()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b't' | b'f' | b'n' => {
                    self.literal()?;
                }
                _ => {
                    self.number()?;
                }
            }
            // After a value: the next of its level, or the end of levels.
            loop {
                if depth == 0 {
                    return Ok(());
                }
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if open[depth - 1] == b'}' {
                            self.key()?;
                        }
                        break;
                    }
                    Some(c) if c == open[depth - 1] => {
                        self.at += 1;
                        depth -= 1;
                    }
                    _ => return Err(Bail),
                }
            }
        }
    }

    /// An object's key and its `:`.
    #[inline]
    pub fn key(&mut self) -> Scan<(&'a str, bool)> {
        let key = self.string()?;
        self.expect(b':')?;
        Ok(key)
    }
}

/// Escapes serde_json decodes: `\uXXXX` must be four hex digits and
/// surrogates must pair (checked by serde itself, as it decodes strings).
fn check_escapes(text: &str) -> Scan<()> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = bytes[i..].iter().position(|&b| b == b'\\') {
        i += at + 1;
        match bytes.get(i) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 1,
            Some(b'u') => return unescape(text).map(drop),
            _ => return Err(Bail),
        }
    }
    Ok(())
}

/// The decoded text of a string with escapes (its text between the quotes).
pub(crate) fn unescape(text: &str) -> Scan<String> {
    serde_json::from_str::<String>(&format!("\"{text}\"")).map_err(|_| Bail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(json: &str) -> Scan<&str> {
        let mut c = Cursor::new(json);
        let v = c.value()?;
        if c.peek().is_some() {
            return Err(Bail);
        }
        Ok(v)
    }

    #[test]
    fn accepts_what_serde_accepts_and_gives_up_on_the_rest() {
        let cases = [
            r#"{"a":[1,-2.5e3,0,"x\"y",true,false,null,{}],"b":{"c":[]}}"#,
            r#" [ 1 , 2 ] "#,
            r#""a string long enough to be read eight bytes at a time, twice over""#,
            r#""\u00e9\n\t\\\/""#,
            "-0",
            "0.5",
            "1E+2",
            // Not JSON.
            "01",
            "1.",
            "-",
            ".5",
            "1e",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "[1 2]",
            "[1}",
            "\"tab\there\"",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"unterminated",
            "tru",
            "nul",
            "{\"a\":1",
            "[[[[",
            "\u{c}1",
        ];
        for json in cases {
            let ours = value(json).is_ok();
            let serde = serde_json::from_str::<serde_json::Value>(json).is_ok();
            assert_eq!(ours, serde, "{json}");
        }
        assert_eq!(value(r#" {"k": [1, "two"]} "#), Ok(r#"{"k": [1, "two"]}"#));
    }

    #[test]
    fn strings_end_at_their_quote_wherever_it_falls() {
        for pad in 0..20 {
            let body = "x".repeat(pad);
            let json = format!("\"{body}\\\"{body}\" ,");
            let mut c = Cursor::new(&json);
            let (text, escaped) = c.string().unwrap();
            assert_eq!((text, escaped), (&json[1..json.len() - 3], true));
            assert_eq!(c.peek(), Some(b','));
            let bad = format!("\"{body}\u{1}\"");
            assert_eq!(Cursor::new(&bad).string(), Err(Bail));
        }
    }

    #[test]
    fn extent_ends_where_the_value_ends() {
        for json in [r#"{"a":"}\"]","b":[1,{"c":[]}]} ,"#, r#""x\"y\\" "#, "[[],{}] 1"] {
            let end = extent(json.as_bytes()).unwrap();
            assert_eq!(value(&json[..end]), Ok(json[..end].trim()), "{json}");
            assert_eq!(extent(&json.as_bytes()[..end - 1]), None, "cut short");
        }
        assert_eq!(extent(b"[1}"), None);
    }

    #[test]
    fn deep_nesting_gives_up_instead_of_recursing() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(value(&deep), Err(Bail));
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(value(&ok).is_ok());
    }
}
