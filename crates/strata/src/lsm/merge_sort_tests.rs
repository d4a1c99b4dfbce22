//! Property tests of [`MergeSorter::keep_all_records`], the raw stream of the input changelog:
//! every record of the runs, sorted by key then sequence number; reducing it as one run gives
//! what reducing the runs themselves gives.

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
