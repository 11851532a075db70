//! Each event's group in 2 bytes: a run has thousands of steps, not 65,535,
//! and 4 bytes an event were the largest part of the grouping that stays.
//! A column holds its ids as offsets from its smallest, so that a profile of
//! more steps than that (a long run: a line's steps are a few of them) keeps
//! 2 bytes an event in each line all the same.

/// Group ids of a run of events. Narrow holds `id - base + 1` (0: no group)
/// while every id is within [`NARROW_LIMIT`] of `base`; the first farther one
/// widens the whole column to `i32`s (-1: no group).
#[derive(Debug, Clone)]
pub enum GroupIds {
    Narrow { base: i32, ids: Vec<u16> },
    Wide(Vec<i32>),
}

/// Narrow columns hold the ids from their base to below base + this.
const NARROW_LIMIT: i32 = u16::MAX as i32;

impl Default for GroupIds {
    fn default() -> GroupIds {
        GroupIds::none(0)
    }
}

impl GroupIds {
    /// `len` events in no group.
    pub fn none(len: usize) -> GroupIds {
        GroupIds::Narrow { base: 0, ids: vec![0; len] }
    }

    /// `len` events in no group, in a column that will hold ids 0 to
    /// `groups` - 1: wide at once where narrow could not (widening holds
    /// both columns for a moment).
    pub fn none_for(len: usize, groups: usize) -> GroupIds {
        if groups > NARROW_LIMIT as usize {
            GroupIds::Wide(vec![-1; len])
        } else {
            GroupIds::none(len)
        }
    }

    pub fn len(&self) -> usize {
        match self {
            GroupIds::Narrow { ids, .. } => ids.len(),
            GroupIds::Wide(ids) => ids.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Event `i`'s group; none past the end.
    pub fn get(&self, i: usize) -> Option<i32> {
        match self {
            GroupIds::Narrow { base, ids } => ids.get(i).filter(|&&id| id != 0).map(|&id| base + i32::from(id) - 1),
            GroupIds::Wide(ids) => ids.get(i).copied().filter(|&g| g >= 0),
        }
    }

    /// Puts event `i` in group `group`; a negative one takes it out of any.
    pub fn set(&mut self, i: usize, group: i32) {
        let group = group.max(-1);
        if let GroupIds::Narrow { base, ids } = self {
            if group < 0 {
                ids[i] = 0;
                return;
            }
            if (*base..*base + NARROW_LIMIT).contains(&group) {
                ids[i] = (group - *base + 1) as u16;
                return;
            }
            let base = *base;
            let wide = ids.iter().map(|&id| if id == 0 { -1 } else { base + i32::from(id) - 1 }).collect();
            *self = GroupIds::Wide(wide);
        }
        if let GroupIds::Wide(ids) = self {
            ids[i] = group;
        }
    }

    /// The groups from `at` on, leaving those before it.
    pub fn split_off(&mut self, at: usize) -> GroupIds {
        match self {
            GroupIds::Narrow { base, ids } => GroupIds::Narrow { base: *base, ids: ids.split_off(at) },
            GroupIds::Wide(ids) => GroupIds::Wide(ids.split_off(at)),
        }
    }

    /// The same groups, held narrow where they lie close enough together.
    pub fn narrowed(self) -> GroupIds {
        let GroupIds::Wide(wide) = &self else { return self };
        let groups = wide.iter().copied().filter(|&g| g >= 0);
        let Some((low, high)) = groups.fold(None, |range, g| match range {
            None => Some((g, g)),
            Some((low, high)) => Some((g.min(low), g.max(high))),
        }) else {
            return GroupIds::none(wide.len());
        };
        if high - low >= NARROW_LIMIT {
            return self;
        }
        let ids = wide.iter().map(|&g| if g < 0 { 0 } else { (g - low + 1) as u16 }).collect();
        GroupIds::Narrow { base: low, ids }
    }

    pub fn shrink_to_fit(&mut self) {
        match self {
            GroupIds::Narrow { ids, .. } => ids.shrink_to_fit(),
            GroupIds::Wide(ids) => ids.shrink_to_fit(),
        }
    }

    /// Every event's group, in order.
    pub fn iter(&self) -> impl Iterator<Item = Option<i32>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Equal when every event has the same group, however each column is held.
impl PartialEq for GroupIds {
    fn eq(&self, other: &GroupIds) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_until_an_id_needs_more_than_two_bytes() {
        let mut ids = GroupIds::none(4);
        ids.set(0, 0);
        ids.set(1, NARROW_LIMIT - 1);
        ids.set(3, -5);
        assert!(matches!(ids, GroupIds::Narrow { .. }));
        assert_eq!(ids.iter().collect::<Vec<_>>(), [Some(0), Some(NARROW_LIMIT - 1), None, None]);
        ids.set(2, NARROW_LIMIT);
        assert!(matches!(ids, GroupIds::Wide(_)));
        assert_eq!(ids.iter().collect::<Vec<_>>(), [Some(0), Some(NARROW_LIMIT - 1), Some(NARROW_LIMIT), None]);
        assert_eq!(ids.get(4), None);
    }

    #[test]
    fn a_column_of_many_groups_is_wide_from_the_start_and_narrowed_by_line() {
        let mut ids = GroupIds::none_for(5, 100_000);
        assert!(matches!(ids, GroupIds::Wide(_)));
        for (i, g) in [(0, 90_000), (1, 90_000 + NARROW_LIMIT - 1), (3, 90_001)] {
            ids.set(i, g);
        }
        let before: Vec<_> = ids.iter().collect();
        let line = ids.clone().narrowed();
        assert!(matches!(line, GroupIds::Narrow { base: 90_000, .. }));
        assert_eq!(line.iter().collect::<Vec<_>>(), before);
        // One more id past the narrow range keeps it wide; a column in no group is narrow.
        ids.set(2, 90_000 + NARROW_LIMIT);
        assert!(matches!(ids.clone().narrowed(), GroupIds::Wide(_)));
        assert!(matches!(GroupIds::none_for(3, 100_000).narrowed(), GroupIds::Narrow { .. }));
        // A narrow column with a base widens on an id below it.
        let mut line = line;
        line.set(2, 5);
        assert_eq!(
            line.iter().collect::<Vec<_>>(),
            [Some(90_000), Some(90_000 + NARROW_LIMIT - 1), Some(5), Some(90_001), None]
        );
    }

    #[test]
    fn columns_compare_by_their_groups() {
        let mut narrow = GroupIds::none(3);
        narrow.set(1, 7);
        let mut wide = GroupIds::none(3);
        wide.set(0, i32::MAX);
        wide.set(0, -1);
        wide.set(1, 7);
        assert!(matches!(wide, GroupIds::Wide(_)));
        assert_eq!(narrow, wide);
        let tail = wide.split_off(1);
        assert_eq!((wide.len(), tail.get(0)), (1, Some(7)));
    }
}
