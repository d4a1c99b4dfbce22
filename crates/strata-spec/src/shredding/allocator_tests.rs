use super::*;
use proptest::prelude::*;

fn run_with(
    mut a: ColumnAllocator,
    rows: &[&[i32]],
) -> (Vec<Vec<i32>>, Vec<Vec<i32>>, ColumnAllocator) {
    let mut out = RowAllocation::default();
    let (mut cols, mut over) = (Vec::new(), Vec::new());
    for ids in rows {
        a.allocate(ids, &mut out);
        cols.push(
            out.columns
                .iter()
                .map(|&p| if p < 0 { -1 } else { ids[p as usize] })
                .collect(),
        );
        over.push(out.overflow.iter().map(|&p| ids[p]).collect());
    }
    (cols, over, a)
}

fn run(
    policy: PlacementPolicy,
    k: usize,
    rows: &[&[i32]],
) -> (Vec<Vec<i32>>, Vec<Vec<i32>>, ColumnAllocator) {
    run_with(ColumnAllocator::new(k, policy), rows)
}

#[test]
fn lru_hit_retain_evict_and_overflow() {
    // paimon-cpp LruMapSharedShreddingColumnAllocatorTest.AllocatesWithHitRetainEvictAndOverflow
    let (cols, over, a) = run(
        PlacementPolicy::Lru,
        3,
        &[&[0, 1, 2], &[0, 1], &[3, 4, 5], &[0, 3, 4, 5]],
    );
    assert_eq!(
        cols,
        vec![vec![0, 1, 2], vec![0, 1, -1], vec![4, 5, 3], vec![4, 5, 3]]
    );
    assert_eq!(over, vec![vec![], vec![], vec![], vec![0]]);
    assert_eq!(a.stats().max_row_width, 4);
    assert_eq!(a.stats().max_shared_width, 4);
    assert_eq!(a.stats().overflow, BTreeSet::from([0]));
    assert_eq!(a.stats().field_columns[0], vec![0]);
    assert_eq!(a.stats().field_columns[3], vec![2]);
}

#[test]
fn lru_row_order_does_not_matter() {
    let (cols, _, _) = run(PlacementPolicy::Lru, 3, &[&[2, 0, 1], &[1, 0]]);
    assert_eq!(cols, vec![vec![0, 1, 2], vec![0, 1, -1]]);
}

#[test]
fn plain_and_sequential() {
    let (cols, over, _) = run(PlacementPolicy::Plain, 2, &[&[2, 0, 1]]);
    assert_eq!((cols[0].clone(), over[0].clone()), (vec![2, 0], vec![1]));
    let (cols, over, _) = run(PlacementPolicy::Sequential, 2, &[&[2, 0, 1]]);
    assert_eq!((cols[0].clone(), over[0].clone()), (vec![0, 1], vec![2]));
}

#[test]
fn policies_choose_different_overflow_victims() {
    // ids a=0 b=1 c=2 d=3; the second row is written as c, d, a, b with K = 3: plain
    // overflows the last entry in row order (b), sequential and lru the largest id (d).
    let rows: &[&[i32]] = &[&[0, 1, 2], &[2, 3, 0, 1]];
    let (_, over, _) = run(PlacementPolicy::Plain, 3, rows);
    assert_eq!(over[1], vec![1]);
    let (_, over, _) = run(PlacementPolicy::Sequential, 3, rows);
    assert_eq!(over[1], vec![3]);
    let (_, over, _) = run(PlacementPolicy::Lru, 3, rows);
    assert_eq!(over[1], vec![3]);
}

#[test]
fn dedicated_columns_hold_one_key_each_under_every_policy() {
    // K = 4, columns 0 and 1 dedicated to ids 5 and 2; the others share columns 2 and 3.
    let rows: &[&[i32]] = &[&[0, 5, 1], &[2, 3, 4, 0], &[5, 2, 6], &[7, 8, 9]];
    for policy in [
        PlacementPolicy::Plain,
        PlacementPolicy::Sequential,
        PlacementPolicy::Lru,
    ] {
        let mut a = ColumnAllocator::with_dedicated(4, 2, policy);
        a.dedicate(5, 0);
        a.dedicate(2, 1);
        let (cols, over, a) = run_with(a, rows);
        for (row, c) in cols.iter().enumerate() {
            assert!(c[0] == 5 || c[0] == -1, "{policy:?} row {row}: {c:?}");
            assert!(c[1] == 2 || c[1] == -1, "{policy:?} row {row}: {c:?}");
            assert!(
                !c[2..].contains(&5) && !c[2..].contains(&2),
                "{policy:?}: {c:?}"
            );
        }
        assert_eq!(a.stats().field_columns[5], vec![0]);
        assert_eq!(a.stats().field_columns[2], vec![1]);
        assert_eq!(a.stats().max_row_width, 4);
        assert_eq!(a.stats().max_shared_width, 3, "{policy:?}");
        // Row 1 has three non-dedicated keys for two shared columns; row 3 likewise.
        assert_eq!(over[1].len(), 1, "{policy:?}");
        assert_eq!(over[3].len(), 1, "{policy:?}");
        assert!(over[0].is_empty() && over[2].is_empty(), "{policy:?}");
    }
    let mut a = ColumnAllocator::with_dedicated(4, 2, PlacementPolicy::Lru);
    a.dedicate(5, 0);
    a.dedicate(2, 1);
    let (cols, over, _) = run_with(a, rows);
    assert_eq!(
        cols,
        vec![
            vec![5, -1, 0, 1],
            vec![-1, 2, 0, 3],
            vec![5, 2, 6, -1],
            vec![-1, -1, 8, 7]
        ]
    );
    assert_eq!(over[1], vec![4]);
    assert_eq!(over[3], vec![9]);
}

#[test]
fn all_columns_dedicated_sends_other_keys_to_overflow() {
    let mut a = ColumnAllocator::with_dedicated(2, 2, PlacementPolicy::Lru);
    a.dedicate(0, 0);
    a.dedicate(1, 1);
    let (cols, over, a) = run_with(a, &[&[1, 0], &[2, 1], &[5, 3, 0, 4]]);
    assert_eq!(cols, vec![vec![0, 1], vec![-1, 1], vec![0, -1]]);
    assert_eq!(over, vec![vec![], vec![2], vec![5, 3, 4]], "row order");
    assert_eq!(a.stats().overflow, BTreeSet::from([2, 3, 4, 5]));
}

/// Java's `LruMapSharedShreddingColumnAllocator`, transcribed literally (O(K) per miss):
/// returns the column → id row and the overflowed ids.
struct LiteralLru {
    owner: Vec<i32>,
    last_used: Vec<u64>,
    clock: u64,
}

impl LiteralLru {
    fn allocate(&mut self, ids: &[i32]) -> (Vec<i32>, Vec<i32>) {
        let k = self.owner.len();
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        let mut row = vec![-1; k];
        let mut used = vec![false; k];
        let mut overflow = Vec::new();
        for &id in &sorted {
            if let Some(c) = self.owner.iter().position(|&o| o == id) {
                row[c] = id;
                used[c] = true;
            }
        }
        for &id in &sorted {
            if row.contains(&id) {
                continue;
            }
            let candidates: Vec<usize> = (0..k).filter(|&c| !used[c]).collect();
            if candidates.is_empty() {
                overflow.push(id);
                continue;
            }
            let c = match candidates.iter().find(|&&c| self.owner[c] == -1) {
                Some(&c) => c,
                None => *candidates
                    .iter()
                    .min_by_key(|&&c| (self.last_used[c], c))
                    .expect("non-empty"),
            };
            self.owner[c] = id;
            row[c] = id;
            used[c] = true;
        }
        if used.iter().any(|&u| u) {
            for (last, _) in self.last_used.iter_mut().zip(&used).filter(|(_, &u)| u) {
                *last = self.clock;
            }
            self.clock += 1;
        }
        (row, overflow)
    }
}

fn rows_strategy() -> impl Strategy<Value = (usize, Vec<Vec<i32>>)> {
    (1usize..8).prop_flat_map(|k| {
        (
            Just(k),
            prop::collection::vec(
                prop::collection::btree_set(0i32..14, 0..10)
                    .prop_map(|s| s.into_iter().collect::<Vec<_>>())
                    .prop_shuffle(),
                0..40,
            ),
        )
    })
}

proptest! {
    #[test]
    fn lru_equals_javas_algorithm((k, rows) in rows_strategy()) {
        let mut literal = LiteralLru { owner: vec![-1; k], last_used: vec![0; k], clock: 0 };
        let mut a = ColumnAllocator::new(k, PlacementPolicy::Lru);
        let mut out = RowAllocation::default();
        for ids in &rows {
            let (want_cols, want_over) = literal.allocate(ids);
            a.allocate(ids, &mut out);
            let got: Vec<i32> = out
                .columns
                .iter()
                .map(|&p| if p < 0 { -1 } else { ids[p as usize] })
                .collect();
            let got_over: Vec<i32> = out.overflow.iter().map(|&p| ids[p]).collect();
            prop_assert_eq!(&got, &want_cols, "row {:?}", ids);
            prop_assert_eq!(&got_over, &want_over);
        }
    }

    #[test]
    fn every_entry_is_placed_once_and_recorded(
        (k, rows) in rows_strategy(),
        dedicated in 0usize..3,
        policy in prop_oneof![
            Just(PlacementPolicy::Plain),
            Just(PlacementPolicy::Sequential),
            Just(PlacementPolicy::Lru)
        ],
    ) {
        let dedicated = dedicated.min(k);
        let mut a = ColumnAllocator::with_dedicated(k, dedicated, policy);
        // ids 0.. dedicated get the dedicated columns.
        for d in 0..dedicated {
            a.dedicate(d as i32, d);
        }
        let mut out = RowAllocation::default();
        for ids in &rows {
            a.allocate(ids, &mut out);
            let mut seen = vec![0; ids.len()];
            for (c, &p) in out.columns.iter().enumerate() {
                if p >= 0 {
                    seen[p as usize] += 1;
                    let id = ids[p as usize];
                    prop_assert!(a.stats().field_columns[id as usize].contains(&(c as u32)));
                    if c < dedicated {
                        prop_assert_eq!(id, c as i32, "dedicated column {} holds {}", c, id);
                    } else {
                        prop_assert!(id as usize >= dedicated, "dedicated id {} shared", id);
                    }
                }
            }
            for &p in &out.overflow {
                seen[p] += 1;
                prop_assert!(a.stats().overflow.contains(&ids[p]));
            }
            prop_assert!(seen.iter().all(|&n| n == 1), "{:?} placed {:?}", ids, seen);
        }
    }
}
