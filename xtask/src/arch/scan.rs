//! Reading one Rust file without compiling it: its `mod x;` declarations and
//! every `crate::` / `super::` / `self::` path it names.
//!
//! The text is first blanked of comments and literals (keeping line breaks,
//! so line numbers stay right): `"crate::x"` in a string or a comment is not
//! a dependency. Then a small tokenizer and a `use`-tree parser read the rest.
//! Items under `#[cfg(test)]` are skipped: tests may import anything. A
//! `mod x;` under `#[path = ".."]` names a file of another tree, not a child.

/// What one file declares and names.
#[derive(Debug, Default)]
pub struct FileScan {
    /// `mod x;` declarations outside test code (inline `mod x { .. }` are part of the file).
    pub mods: Vec<String>,
    /// Paths starting with `crate`, `super` or `self`.
    pub refs: Vec<PathRef>,
}

/// One path as written, e.g. `super::super::a::f` at line 12.
#[derive(Debug, PartialEq)]
pub struct PathRef {
    /// Inline modules (`mod x { .. }`) around the path, outermost first: `super` starts from there.
    pub inline: Vec<String>,
    pub segments: Vec<String>,
    pub line: usize,
}

struct Token {
    text: String,
    line: usize,
}

pub fn scan(text: &str) -> FileScan {
    let tokens = tokenize(&strip(text));
    let get = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    let mut out = FileScan::default();
    let mut depth = 0usize;
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut test_only = false;
    // `#[path = ".."] mod x;` includes another crate's file (checked in that crate's tree).
    let mut by_path = false;
    let mut i = 0;
    while i < tokens.len() {
        let word = get(i);
        if word == "#" && (get(i + 1) == "[" || (get(i + 1) == "!" && get(i + 2) == "[")) {
            let inner = get(i + 1) == "!";
            let open = if inner { i + 2 } else { i + 1 };
            let close = matching(&tokens, open);
            let is_cfg_test = close == open + 5 && (open + 1..close).map(get).eq(["cfg", "(", "test", ")"]);
            if is_cfg_test && inner && depth == 0 {
                // `#![cfg(test)]` at the top: the whole file is test code.
                return FileScan::default();
            }
            test_only |= is_cfg_test && !inner;
            by_path |= !inner && get(open + 1) == "path";
            i = close + 1;
            continue;
        }
        if test_only {
            test_only = false;
            i = skip_item(&tokens, i);
            continue;
        }
        match word {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if get(i + 2) == ";" => {
                if depth == 0 && !std::mem::take(&mut by_path) {
                    out.mods.push(get(i + 1).to_string());
                }
                i += 3;
                continue;
            }
            "mod" if get(i + 2) == "{" => {
                inline.push((get(i + 1).to_string(), depth));
                i += 2;
                continue;
            }
            "use" => {
                let mut paths = Vec::new();
                i += 1;
                if get(i) == "::" {
                    i += 1;
                }
                use_tree(&tokens, &mut i, Vec::new(), &mut paths);
                for (segments, line) in paths {
                    if matches!(segments.first().map(String::as_str), Some("crate" | "super" | "self")) {
                        let inline = inline.iter().map(|(name, _)| name.clone()).collect();
                        out.refs.push(PathRef { inline, segments, line });
                    }
                }
                continue;
            }
            "crate" | "super" | "self"
                if get(i + 1) == "::" && !matches!(i.checked_sub(1).map(get), Some("$" | "::")) =>
            {
                // An inline path such as `crate::a::b::f(..)`: its identifiers up to the first non-`::`.
                let mut segments = vec![word.to_string()];
                let mut line = tokens[i].line;
                i += 1;
                while get(i) == "::" && get(i + 1).starts_with(is_ident_start) {
                    segments.push(get(i + 1).to_string());
                    line = tokens[i + 1].line;
                    i += 2;
                }
                let inline = inline.iter().map(|(name, _)| name.clone()).collect();
                out.refs.push(PathRef { inline, segments, line });
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Parses a `use` tree starting at `tokens[*i]` (after `use`), collecting each leaf path with
/// the line of its last segment; `*i` ends after the tree (at `,`, `}` or `;`).
fn use_tree(tokens: &[Token], i: &mut usize, prefix: Vec<String>, out: &mut Vec<(Vec<String>, usize)>) {
    let get = |i: usize| tokens.get(i).map_or("", |t| t.text.as_str());
    let mut path = prefix;
    loop {
        match get(*i) {
            "{" => {
                *i += 1;
                while !matches!(get(*i), "}" | "" | ";") {
                    use_tree(tokens, i, path.clone(), out);
                    if get(*i) == "," {
                        *i += 1;
                    }
                }
                if get(*i) == "}" {
                    *i += 1;
                }
                return;
            }
            "*" => {
                out.push((path, tokens[*i].line));
                *i += 1;
                return;
            }
            word if word.starts_with(is_ident_start) => {
                path.push(word.to_string());
                let line = tokens[*i].line;
                *i += 1;
                if get(*i) == "::" {
                    *i += 1;
                    continue;
                }
                if get(*i) == "as" {
                    *i += 2;
                }
                out.push((path, line));
                return;
            }
            // Anything else (`;`, a stray token): stop without a path, but always move on.
            _ => {
                *i += 1;
                return;
            }
        }
    }
}

/// The index of the bracket closing the one at `open` (or the last token).
fn matching(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len().saturating_sub(1)
}

/// The index after the item starting at `start`: after its `;` or its closing `}`.
fn skip_item(tokens: &[Token], start: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(start) {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            ";" if depth == 0 => return i + 1,
            _ => {}
        }
    }
    tokens.len()
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Identifiers (and numbers), `::`, and single punctuation characters, with their lines.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '\n' {
            line += 1;
        } else if is_ident(c) {
            while i + 1 < chars.len() && is_ident(chars[i + 1]) {
                i += 1;
            }
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            i += 1;
        }
        if !c.is_whitespace() {
            tokens.push(Token { text: chars[start..=i].iter().collect(), line });
        }
        i += 1;
    }
    tokens
}

/// The text with comments, string, raw-string and char literals blanked out (line breaks kept).
pub fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let after_ident = i > 0 && is_ident(c[i - 1]);
        // The end (exclusive) of a comment or literal starting at i, if one does.
        let end = if at(i) == '/' && at(i + 1) == '/' {
            Some((i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len()))
        } else if at(i) == '/' && at(i + 1) == '*' {
            let (mut j, mut depth) = (i + 2, 1);
            while j < c.len() && depth > 0 {
                if at(j) == '/' && at(j + 1) == '*' {
                    (depth, j) = (depth + 1, j + 2);
                } else if at(j) == '*' && at(j + 1) == '/' {
                    (depth, j) = (depth - 1, j + 2);
                } else {
                    j += 1;
                }
            }
            Some(j.min(c.len()))
        } else if !after_ident && raw_string_start(&c, i).is_some() {
            let (quote, hashes) = raw_string_start(&c, i).expect("checked");
            let closes = |j: usize| c[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#');
            Some((quote + 1..c.len()).find(|&j| closes(j)).map_or(c.len(), |j| j + 1 + hashes))
        } else if at(i) == '"' {
            // Byte and C strings too: their `b` or `c` stays as a harmless identifier.
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            Some((j + 1).min(c.len()))
        } else if at(i) == '\'' && at(i + 1) == '\\' {
            // An escaped char literal: '\n', '\'', '\u{1F600}'.
            Some((i + 3..c.len()).find(|&j| c[j] == '\'').map_or(c.len(), |j| j + 1))
        } else if at(i) == '\'' && at(i + 2) == '\'' {
            Some(i + 3)
        } else {
            None // Lifetimes ('a) and everything else stay.
        };
        match end {
            Some(end) => {
                out.extend(c[i..end].iter().map(|&ch| if ch == '\n' { '\n' } else { ' ' }));
                i = end;
            }
            None => {
                out.push(c[i]);
                i += 1;
            }
        }
    }
    out
}

/// For a raw string starting at `i` (`r"`, `r#"`, `br##"`, `cr"`): the index of its opening quote
/// and its number of `#`.
fn raw_string_start(c: &[char], i: usize) -> Option<(usize, usize)> {
    let r = if matches!(c.get(i), Some('b' | 'c')) { i + 1 } else { i };
    if c.get(r) != Some(&'r') {
        return None;
    }
    let hashes = c[r + 1..].iter().take_while(|&&ch| ch == '#').count();
    (c.get(r + 1 + hashes) == Some(&'"')).then_some((r + 1 + hashes, hashes))
}
