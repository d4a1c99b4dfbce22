//! `merge-engine = deduplicate` (Java `DeduplicateMergeFunction`): the newest record of a key
//! wins, kind included (so a newest `-D` deletes the key). With `ignore-delete`, retract
//! records are skipped; a group of only retracts then disappears. Only system fields are
//! needed, so the caller never decodes value columns for it.

use super::function::{KvMeta, MergeFunction, MergeResult};
use crate::Result;

#[derive(Debug, Clone)]
pub(crate) struct DeduplicateMergeFunction {
    ignore_delete: bool,
}

impl DeduplicateMergeFunction {
    pub(crate) fn new(ignore_delete: bool) -> Self {
        DeduplicateMergeFunction { ignore_delete }
    }
}

impl MergeFunction for DeduplicateMergeFunction {
    fn needs_values(&self) -> bool {
        false
    }

    fn merge(
        &self,
        metas: &[KvMeta],
        _values: Option<&[Vec<super::Value>]>,
    ) -> Result<MergeResult> {
        // Tables written by Paimon 0.7 and older may hold retracts despite ignore-delete, so the
        // flag is honoured here too (as Java does).
        let last = if self.ignore_delete {
            metas.iter().rposition(|m| m.kind.is_add())
        } else {
            metas.len().checked_sub(1)
        };
        Ok(last.map_or(MergeResult::Drop, MergeResult::Pick))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_spec::kv::RowKind;

    fn kind() -> impl Strategy<Value = RowKind> {
        prop_oneof![
            Just(RowKind::Insert),
            Just(RowKind::UpdateBefore),
            Just(RowKind::UpdateAfter),
            Just(RowKind::Delete)
        ]
    }

    fn metas(kinds: &[RowKind]) -> Vec<KvMeta> {
        kinds
            .iter()
            .enumerate()
            .map(|(i, k)| KvMeta {
                sequence: i as i64,
                kind: *k,
            })
            .collect()
    }

    #[test]
    fn newest_wins_even_delete() {
        let f = DeduplicateMergeFunction::new(false);
        assert!(!f.needs_values());
        let m = metas(&[RowKind::Insert, RowKind::Delete]);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Pick(1));
        let m = metas(&[RowKind::Delete, RowKind::Insert]);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Pick(1));
    }

    #[test]
    fn ignore_delete_skips_retracts() {
        let f = DeduplicateMergeFunction::new(true);
        let m = metas(&[RowKind::Insert, RowKind::UpdateAfter, RowKind::Delete]);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Pick(1));
        let m = metas(&[RowKind::Delete, RowKind::UpdateBefore]);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Drop);
    }

    proptest! {
        #[test]
        fn matches_reference(kinds in proptest::collection::vec(kind(), 2..10), ignore in any::<bool>()) {
            // Reference: replay Java's add() loop.
            let mut latest = None;
            for (i, k) in kinds.iter().enumerate() {
                if ignore && k.is_retract() { continue; }
                latest = Some(i);
            }
            let expected = latest.map_or(MergeResult::Drop, MergeResult::Pick);
            let f = DeduplicateMergeFunction::new(ignore);
            prop_assert_eq!(f.merge(&metas(&kinds), None).unwrap(), expected);
        }
    }
}
