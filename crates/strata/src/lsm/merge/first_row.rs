//! `merge-engine = first-row` (Java `FirstRowMergeFunction`): the oldest record of a key wins.
//! Retract records are an error unless `ignore-delete` (then they are skipped; a group of only
//! retracts disappears). Only system fields are needed.

use super::function::{KvMeta, MergeFunction, MergeResult};
use crate::error::ErrorDetail;
use crate::Result;

#[derive(Debug, Clone)]
pub(crate) struct FirstRowMergeFunction {
    ignore_delete: bool,
}

impl FirstRowMergeFunction {
    pub(crate) fn new(ignore_delete: bool) -> Self {
        FirstRowMergeFunction { ignore_delete }
    }
}

/// Java's message for a retract reaching first-row without `ignore-delete`.
pub(crate) const FIRST_ROW_RETRACT_ERROR: &str =
    "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE records.\n\
     You can config 'ignore-delete' to ignore the DELETE/UPDATE_BEFORE records.";

impl MergeFunction for FirstRowMergeFunction {
    fn needs_values(&self) -> bool {
        false
    }

    fn merge(
        &self,
        metas: &[KvMeta],
        _values: Option<&[Vec<super::Value>]>,
    ) -> Result<MergeResult> {
        // Java feeds every record, so a retract anywhere in the group fails, even after the
        // first add was found.
        let mut first = None;
        for (i, m) in metas.iter().enumerate() {
            if m.kind.is_retract() {
                if self.ignore_delete {
                    continue;
                }
                return Err(ErrorDetail::InvalidArgument(FIRST_ROW_RETRACT_ERROR.into()).into());
            }
            first.get_or_insert(i);
        }
        Ok(first.map_or(MergeResult::Drop, MergeResult::Pick))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_spec::kv::RowKind;

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
    fn oldest_wins() {
        let f = FirstRowMergeFunction::new(false);
        assert!(!f.needs_values());
        let m = metas(&[RowKind::Insert, RowKind::UpdateAfter, RowKind::Insert]);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Pick(0));
    }

    #[test]
    fn retract_is_error_unless_ignored() {
        let m = metas(&[RowKind::Insert, RowKind::Delete]);
        let err = FirstRowMergeFunction::new(false)
            .merge(&m, None)
            .unwrap_err();
        assert!(err.to_string().contains("ignore-delete"), "{err}");
        let f = FirstRowMergeFunction::new(true);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Pick(0));
        let m = metas(&[RowKind::UpdateBefore, RowKind::Insert]);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Pick(1));
        let m = metas(&[RowKind::UpdateBefore, RowKind::Delete]);
        assert_eq!(f.merge(&m, None).unwrap(), MergeResult::Drop);
    }

    proptest! {
        #[test]
        fn matches_reference(adds in proptest::collection::vec(any::<bool>(), 2..10)) {
            let kinds: Vec<RowKind> = adds.iter().map(|a| if *a { RowKind::Insert } else { RowKind::Delete }).collect();
            let f = FirstRowMergeFunction::new(true);
            let expected = adds.iter().position(|a| *a).map_or(MergeResult::Drop, MergeResult::Pick);
            prop_assert_eq!(f.merge(&metas(&kinds), None).unwrap(), expected);
            let strict = FirstRowMergeFunction::new(false).merge(&metas(&kinds), None);
            prop_assert_eq!(strict.is_err(), adds.iter().any(|a| !a));
        }
    }
}
