//! Comparing a tool's JSON with an XProf or HTA golden leaf by leaf, every
//! difference collected (not just the first), so that one run of a parity
//! test shows all of them.

use serde_json::Value;

/// A number's allowed difference: `|a − b| ≤ abs + rel · max(|a|, |b|)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tol {
    pub rel: f64,
    pub abs: f64,
}

impl Tol {
    /// Equal numbers (as f64).
    pub const EXACT: Tol = Tol { rel: 0.0, abs: 0.0 };

    /// A few units in the last place (8 ε relative): the same formula as
    /// XProf's, its operations in another order (a division by a count
    /// before or after a unit change, a sum in another order), changes the
    /// last bits of a double and nothing more.
    pub const LAST_BITS: Tol = Tol { rel: 8.0 * f64::EPSILON, abs: 0.0 };

    pub const fn rel(rel: f64) -> Tol {
        Tol { rel, abs: 0.0 }
    }

    pub const fn abs(abs: f64) -> Tol {
        Tol { rel: 0.0, abs }
    }

    pub fn allows(self, a: f64, b: f64) -> bool {
        a == b || (a - b).abs() <= self.abs + self.rel * a.abs().max(b.abs())
    }
}

/// The differences found, and how many leaves were compared.
#[derive(Debug, Default)]
pub struct Mismatches {
    pub found: Vec<String>,
    pub compared: usize,
}

impl Mismatches {
    pub fn push(&mut self, what: String) {
        self.found.push(what);
    }

    /// Two leaves (numbers within `tol`, anything else equal).
    pub fn leaf(&mut self, here: &str, ours: &Value, theirs: &Value, tol: Tol) {
        self.compared += 1;
        let same = match (ours, theirs) {
            (Value::Number(a), Value::Number(b)) => {
                tol.allows(a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN))
            }
            _ => ours == theirs,
        };
        if !same {
            self.push(format!("{here}: ours {ours}, golden {theirs} ({tol:?})"));
        }
    }

    /// Panics with every difference (the first 60) unless there is none.
    pub fn assert_none(&self, what: &str) {
        let n = self.found.len();
        let shown: Vec<&str> = self.found.iter().take(60).map(String::as_str).collect();
        assert!(n == 0, "{what}: {n} of {} values differ:\n{}", self.compared, shown.join("\n"));
    }
}

/// `ours` against `theirs` everywhere: the same keys, the same array
/// lengths, strings, booleans and nulls equal, numbers within `tol(path)`
/// (paths as `/key/0/key`).
pub fn diff(ours: &Value, theirs: &Value, here: &str, tol: &dyn Fn(&str) -> Tol, out: &mut Mismatches) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let (mut ka, mut kb): (Vec<&String>, Vec<&String>) = (a.keys().collect(), b.keys().collect());
            ka.sort();
            kb.sort();
            if ka != kb {
                out.push(format!("{here}: keys {ka:?}, golden {kb:?}"));
            }
            for (k, v) in b {
                if let Some(o) = a.get(k) {
                    diff(o, v, &format!("{here}/{k}"), tol, out);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{here}: {} items, golden {}", a.len(), b.len()));
            }
            for (i, (o, t)) in a.iter().zip(b).enumerate() {
                diff(o, t, &format!("{here}/{i}"), tol, out);
            }
        }
        _ => out.leaf(here, ours, theirs, tol(here)),
    }
}
