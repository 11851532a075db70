//! Each event's group in 2 bytes: a run has thousands of steps, not 65,535,
//! and 4 bytes an event were the largest part of the grouping that stays.

/// Group ids of a run of events. Narrow holds `id + 1` (0: no group) while
/// every id is below [`NARROW_LIMIT`]; the first larger one widens the whole
/// column to `i32`s (-1: no group).
#[derive(Debug, Clone)]
pub enum GroupIds {
    Narrow(Vec<u16>),
    Wide(Vec<i32>),
}

/// Narrow columns hold the ids below this.
const NARROW_LIMIT: i32 = u16::MAX as i32;

impl Default for GroupIds {
    fn default() -> GroupIds {
        GroupIds::Narrow(Vec::new())
    }
}

impl GroupIds {
    /// `len` events in no group.
    pub fn none(len: usize) -> GroupIds {
        GroupIds::Narrow(vec![0; len])
    }

    pub fn len(&self) -> usize {
        match self {
            GroupIds::Narrow(ids) => ids.len(),
            GroupIds::Wide(ids) => ids.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Event `i`'s group; none past the end.
    pub fn get(&self, i: usize) -> Option<i32> {
        match self {
            GroupIds::Narrow(ids) => ids.get(i).and_then(|&id| i32::from(id).checked_sub(1)).filter(|&g| g >= 0),
            GroupIds::Wide(ids) => ids.get(i).copied().filter(|&g| g >= 0),
        }
    }

    /// Puts event `i` in group `group`; a negative one takes it out of any.
    pub fn set(&mut self, i: usize, group: i32) {
        let group = group.max(-1);
        if let GroupIds::Narrow(ids) = self {
            if group < NARROW_LIMIT {
                ids[i] = (group + 1) as u16;
                return;
            }
            let wide = ids.iter().map(|&id| i32::from(id) - 1).collect();
            *self = GroupIds::Wide(wide);
        }
        if let GroupIds::Wide(ids) = self {
            ids[i] = group;
        }
    }

    /// The groups from `at` on, leaving those before it.
    pub fn split_off(&mut self, at: usize) -> GroupIds {
        match self {
            GroupIds::Narrow(ids) => GroupIds::Narrow(ids.split_off(at)),
            GroupIds::Wide(ids) => GroupIds::Wide(ids.split_off(at)),
        }
    }

    pub fn shrink_to_fit(&mut self) {
        match self {
            GroupIds::Narrow(ids) => ids.shrink_to_fit(),
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
        assert!(matches!(ids, GroupIds::Narrow(_)));
        assert_eq!(ids.iter().collect::<Vec<_>>(), [Some(0), Some(NARROW_LIMIT - 1), None, None]);
        ids.set(2, NARROW_LIMIT);
        assert!(matches!(ids, GroupIds::Wide(_)));
        assert_eq!(ids.iter().collect::<Vec<_>>(), [Some(0), Some(NARROW_LIMIT - 1), Some(NARROW_LIMIT), None]);
        assert_eq!(ids.get(4), None);
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
