//! Tests of [`MergeSorter`]: the raw stream of the input changelog ([`MergeSorter::keep_all_records`]:
//! every record, by key then sequence; reducing it as one run gives what reducing the runs gives),
//! and the level-aware merge of lookup tables with its changelog annotations.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, Int8Array, RecordBatch};
use futures::StreamExt;
use proptest::prelude::*;
use strata_spec::schema::TableSchema;
use strata_spec::types::{DataField, DataType, TypeKind};

use super::*;
use crate::lsm::kv_layout::KvLayout;
use crate::lsm::merge::create_merge_function;

fn schema() -> TableSchema {
    TableSchema {
        version: 3,
        id: 0,
        fields: vec![
            DataField::new(0, "id", DataType::not_null(TypeKind::Int)),
            DataField::new(1, "v", DataType::nullable(TypeKind::Int)),
        ],
        highest_field_id: 1,
        partition_keys: vec![],
        primary_keys: vec!["id".into()],
        options: BTreeMap::new(),
        comment: None,
        time_millis: 0,
    }
}

/// (key, sequence, kind byte, value)
type Rec = (i32, i64, i8, i32);

/// One sorted run of `recs` (sorted here), cut into batches of `chunk` records.
fn run(layout: &Arc<KvLayout>, mut recs: Vec<Rec>, chunk: usize) -> SortedRun {
    recs.sort_by_key(|r| (r.0, r.1));
    let batches: Vec<Result<RecordBatch>> = recs
        .chunks(chunk.max(1))
        .map(|c| {
            let values: Vec<ArrayRef> = vec![
                Arc::new(Int32Array::from(c.iter().map(|r| r.0).collect::<Vec<_>>())),
                Arc::new(Int32Array::from(c.iter().map(|r| r.3).collect::<Vec<_>>())),
            ];
            layout.assemble(
                values,
                Arc::new(Int64Array::from(c.iter().map(|r| r.1).collect::<Vec<_>>())),
                Arc::new(Int8Array::from(c.iter().map(|r| r.2).collect::<Vec<_>>())),
            )
        })
        .collect();
    futures::stream::iter(batches).boxed()
}

fn collect(layout: &KvLayout, stream: SortedRun) -> Vec<Rec> {
    let batches: Vec<RecordBatch> = futures::executor::block_on(stream.collect::<Vec<_>>())
        .into_iter()
        .collect::<Result<_>>()
        .unwrap();
    let mut out = Vec::new();
    for b in batches {
        let col = |i: usize| b.column(i).clone();
        let id = col(layout.value_col(0));
        let id = id.as_any().downcast_ref::<Int32Array>().unwrap();
        let v = col(layout.value_col(1));
        let v = v.as_any().downcast_ref::<Int32Array>().unwrap();
        let seq = col(layout.num_keys());
        let seq = seq.as_any().downcast_ref::<Int64Array>().unwrap();
        let kind = col(layout.num_keys() + 1);
        let kind = kind.as_any().downcast_ref::<Int8Array>().unwrap();
        for i in 0..b.num_rows() {
            out.push((id.value(i), seq.value(i), kind.value(i), v.value(i)));
        }
    }
    out
}

/// Runs of records with unique sequence numbers: (run index, key, kind byte, value).
fn runs_strategy() -> impl Strategy<Value = (Vec<(usize, i32, i8, i32)>, usize)> {
    (
        prop::collection::vec((0usize..4, 0i32..30, 0i8..4, any::<i32>()), 0..200),
        1usize..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn keep_all_outputs_every_record_by_key_and_sequence((recs, chunk) in runs_strategy()) {
        let schema = schema();
        let layout = KvLayout::for_table(&schema).unwrap();
        let merge = create_merge_function(&schema).unwrap();
        let mut per_run: Vec<Vec<Rec>> = vec![Vec::new(); 4];
        for (seq, (r, key, kind, v)) in recs.iter().enumerate() {
            per_run[*r].push((*key, seq as i64, *kind, *v));
        }
        let mk_runs = || per_run.iter().map(|r| run(&layout, r.clone(), chunk)).collect();
        let sorter = || MergeSorter::new(layout.clone(), merge.clone(), DeletePolicy::Keep, 16);

        let raw = collect(&layout, sorter().keep_all_records().merge(mk_runs()).unwrap());
        let mut want: Vec<Rec> = per_run.concat();
        want.sort_by_key(|r| (r.0, r.1));
        prop_assert_eq!(&raw, &want);

        // Reducing the raw stream as one run = reducing the runs.
        let direct = collect(&layout, sorter().merge(mk_runs()).unwrap());
        let via_raw = collect(&layout, sorter().merge(vec![run(&layout, raw, chunk)]).unwrap());
        prop_assert_eq!(direct, via_raw);
    }
}

/// Java `LookupMergeFunction` and the annotations of a changelog-producing compaction: a key in
/// levels 3, 1 and 0 of a `sum` table merges only its level-1 record (which already holds level
/// 3's) with level 0; its before-image is the level-1 record (lookup) or the level-3 one (full
/// compaction against level 3); a key only at level 3 is unchanged.
#[test]
fn lookup_merge_takes_the_newest_high_level_record_and_annotates_it() {
    let mut schema = schema();
    schema
        .options
        .insert("merge-engine".into(), "aggregation".into());
    schema
        .options
        .insert("fields.v.aggregate-function".into(), "sum".into());
    let layout = KvLayout::for_table(&schema).unwrap();
    let merge = create_merge_function(&schema).unwrap();
    let runs = || {
        vec![
            run(&layout, vec![(1, 1, 0, 10), (2, 2, 0, 7)], 8), // level 3
            run(&layout, vec![(1, 5, 0, 15)], 8),               // level 1: 10 + 5
            run(&layout, vec![(1, 9, 0, 2)], 8),                // level 0
        ]
    };
    let sorter = || MergeSorter::new(layout.clone(), merge.clone(), DeletePolicy::Keep, 16);
    let plain = collect(&layout, sorter().merge(runs()).unwrap());
    assert_eq!(plain[0].3, 27, "a plain merge sums every level");
    let lookup = collect(
        &layout,
        sorter()
            .with_levels(vec![3, 1, 0], true)
            .merge(runs())
            .unwrap(),
    );
    assert_eq!(lookup, vec![(1, 9, 0, 17), (2, 2, 0, 7)]);

    let annotated = |s: MergeSorter| {
        let batches: Vec<AnnotatedBatch> =
            futures::executor::block_on(s.merge_annotated(runs()).unwrap().collect::<Vec<_>>())
                .into_iter()
                .collect::<Result<_>>()
                .unwrap();
        assert_eq!(batches.len(), 1);
        let a = batches.into_iter().next().unwrap();
        let befores = a.befores.map(|b| {
            let v = b.column(layout.value_col(1)).clone();
            let v = v.as_any().downcast_ref::<Int32Array>().unwrap().clone();
            v.values().to_vec()
        });
        let before: Vec<Option<i32>> = a
            .before
            .iter()
            .map(|i| i.map(|i| befores.as_ref().unwrap()[i]))
            .collect();
        (a.changed, before)
    };
    assert_eq!(
        annotated(sorter().with_levels(vec![3, 1, 0], true)),
        (vec![true, false], vec![Some(15), Some(7)])
    );
    assert_eq!(
        annotated(
            sorter()
                .with_levels(vec![3, 1, 0], false)
                .annotate_against(3)
        ),
        (vec![true, false], vec![Some(10), Some(7)])
    );
}
