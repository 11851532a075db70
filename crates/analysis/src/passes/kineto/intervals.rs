//! Time intervals as sorted, merged `[start, end)` lists: the union,
//! intersection and "covered by higher-priority roles" arithmetic of the
//! PyTorch breakdowns.

/// Sorted, non-overlapping, non-empty `[start, end)` intervals in ps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intervals(Vec<(i64, i64)>);

impl Intervals {
    /// The union of arbitrary intervals (empty ones dropped).
    pub fn union_of(mut spans: Vec<(i64, i64)>) -> Intervals {
        spans.retain(|&(s, e)| e > s);
        spans.sort_unstable();
        let mut out: Vec<(i64, i64)> = Vec::with_capacity(spans.len());
        for (s, e) in spans {
            match out.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => out.push((s, e)),
            }
        }
        Intervals(out)
    }

    pub fn len_ps(&self) -> i64 {
        self.0.iter().fold(0i64, |sum, &(s, e)| sum.saturating_add(e - s))
    }

    pub fn spans(&self) -> &[(i64, i64)] {
        &self.0
    }

    pub fn union(&self, other: &Intervals) -> Intervals {
        let mut all = self.0.clone();
        all.extend_from_slice(&other.0);
        Intervals::union_of(all)
    }

    pub fn intersect(&self, other: &Intervals) -> Intervals {
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        while i < self.0.len() && j < other.0.len() {
            let (a, b) = (self.0[i], other.0[j]);
            let (s, e) = (a.0.max(b.0), a.1.min(b.1));
            if e > s {
                out.push((s, e));
            }
            if a.1 < b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        Intervals(out)
    }

    /// The part inside `[start, end)`.
    pub fn clip(&self, start: i64, end: i64) -> Intervals {
        self.intersect(&Intervals::union_of(vec![(start, end)]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_and_intersection() {
        let a = Intervals::union_of(vec![(5, 10), (0, 3), (2, 4), (10, 12), (7, 7)]);
        assert_eq!(a.spans(), &[(0, 4), (5, 12)]);
        assert_eq!(a.len_ps(), 11);
        let b = Intervals::union_of(vec![(3, 6), (11, 20)]);
        assert_eq!(a.intersect(&b).spans(), &[(3, 4), (5, 6), (11, 12)]);
        assert_eq!(a.union(&b).spans(), &[(0, 20)]);
        assert_eq!(a.clip(1, 6).spans(), &[(1, 4), (5, 6)]);
    }
}
