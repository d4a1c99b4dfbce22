//! The per-file field dictionary of a shredded MAP column (Java's
//! `MapSharedShreddingFieldDict`): each new key gets the next id from 0, in first-seen order
//! within the file.

use std::collections::{BTreeMap, HashMap};

/// Key name → field id for one column of one file.
#[derive(Clone, Debug, Default)]
pub struct FieldDict {
    ids: HashMap<Box<str>, i32, foldhash::fast::RandomState>,
}

impl FieldDict {
    pub fn new() -> Self {
        FieldDict::default()
    }

    /// The id of `key`, assigning the next one if it is new.
    pub fn get_or_assign(&mut self, key: &str) -> i32 {
        self.lookup(key).0
    }

    /// The id of `key` and whether it was assigned just now.
    pub fn lookup(&mut self, key: &str) -> (i32, bool) {
        if let Some(&id) = self.ids.get(key) {
            return (id, false);
        }
        let id = self.ids.len() as i32;
        self.ids.insert(key.into(), id);
        (id, true)
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The dictionary ordered by key, as stored in the footer.
    pub fn to_sorted(&self) -> BTreeMap<String, i32> {
        self.ids.iter().map(|(k, &v)| (k.to_string(), v)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_first_seen_order() {
        let mut d = FieldDict::new();
        assert_eq!(d.get_or_assign("c"), 0);
        assert_eq!(d.get_or_assign("a"), 1);
        assert_eq!(d.get_or_assign("c"), 0);
        assert_eq!(d.get_or_assign("b"), 2);
        let sorted: Vec<_> = d.to_sorted().into_iter().collect();
        assert_eq!(
            sorted,
            vec![("a".into(), 1), ("b".into(), 2), ("c".into(), 0)]
        );
    }
}
