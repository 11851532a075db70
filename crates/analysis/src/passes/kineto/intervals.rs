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
        // Merged in place: the spans of a role can be millions.
        let mut merged: usize = 0;
        for i in 0..spans.len() {
            let (s, e) = spans[i];
            match merged.checked_sub(1).map(|last| &mut spans[last]) {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => {
                    spans[merged] = (s, e);
                    merged += 1;
                }
            }
        }
        spans.truncate(merged);
        spans.shrink_to_fit();
        Intervals(spans)
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
        // The spans are sorted and disjoint, so their ends are sorted too:
        // the first that ends after `start` is found by binary search.
        let first = self.0.partition_point(|&(_, e)| e <= start);
        let inside = self.0[first..].iter().take_while(|&&(s, _)| s < end);
        Intervals(inside.map(|&(s, e)| (s.max(start), e.min(end))).filter(|&(s, e)| e > s).collect())
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
        assert_eq!(a.clip(4, 5).spans(), &[] as &[(i64, i64)]);
        assert_eq!(a.clip(6, 6).spans(), &[] as &[(i64, i64)]);
        assert_eq!(a.clip(-5, 30), a);
        assert_eq!(a.clip(12, 30).spans(), &[] as &[(i64, i64)]);
    }
}
