//! Peak memory of the writers and compactions whose memory a table option bounds.
//!
//! * A full compaction whose section holds a long sorted run: 200 key-disjoint level-0 files
//!   (1 MiB each, uncompressed) and one file whose keys span all of them form one section of
//!   two sorted runs, one of them 200 files long. A rewrite must open the long run's files one
//!   after another (with one file of read-ahead): opening them all at once would hold every
//!   file's row group, ≥ 200 MiB, at the same time.
//! * An append write spread over 1,000 partitions: every partition's open file shares the
//!   `write-buffer-size` pool; without it each holds its own row group.
//!
//! This binary holds only these tests, run one at a time, so the process's peak RSS is the
//! running test's: each resets the kernel's high-water mark (`/proc/self/clear_refs`) after
//! building its input and reads `VmHWM` after the measured step. Linux only.

mod common;

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use common::*;

/// The tests run one at a time: each measures the whole process.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const FILES: i64 = 200;
const ROWS_PER_FILE: i64 = 5_000;
/// Bytes of payload per row: 200 B × 5,000 rows ≈ 1 MiB per file.
const PAYLOAD: usize = 200;
/// The stated bound: what the compaction may add to the resident set.
const MAX_GROWTH_MIB: u64 = 96;
/// The append write: rows, partitions, pool, and what the write may add to the resident set.
const APPEND_ROWS: i64 = 1_000_000;
const APPEND_PARTITIONS: i64 = 1_000;
const APPEND_POOL: &str = "32 mb";
const APPEND_MAX_GROWTH_MIB: u64 = 160;

const TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"payload","type":"STRING"}],"primaryKeys":["id"],
 "options":{"bucket":"1","write-only":"true","file.compression":"none",
 "target-file-size":"4 mb","num-sorted-run.stop-trigger":"1000"}}"#;

fn batch(ids: Vec<i64>) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("payload", ArrowType::Utf8, true),
    ]));
    // Incompressible enough: a pseudo-random hex string per row.
    let payload: Vec<String> = ids
        .iter()
        .map(|id| {
            let mut x = (*id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut s = String::with_capacity(PAYLOAD);
            while s.len() < PAYLOAD {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push_str(&format!("{x:016x}"));
            }
            s.truncate(PAYLOAD);
            s
        })
        .collect();
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(StringArray::from(payload)),
        ],
    )
    .unwrap()
}

fn proc_status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("{field} missing from /proc/self/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_compaction_of_a_200_file_run_stays_within_its_memory_bound() {
    let _one = ONE_AT_A_TIME.lock().await;
    if !std::path::Path::new("/proc/self/clear_refs").exists() {
        eprintln!("skipped: needs Linux /proc/self/clear_refs");
        return;
    }
    let wh = Warehouse::new();
    let t = wh.create("db.t", TABLE).await;
    for f in 0..FILES {
        let ids: Vec<i64> = (f * ROWS_PER_FILE..(f + 1) * ROWS_PER_FILE).collect();
        t.write_batches([batch(ids)], None).await.unwrap();
    }
    // One file whose keys span every other file: one section, two runs.
    let spanning: Vec<i64> = (0..FILES).map(|f| f * ROWS_PER_FILE + 7).collect();
    t.write_batches([batch(spanning)], None).await.unwrap();
    assert_eq!(
        count_data_files(&wh.table_dir("db", "t")),
        FILES as usize + 1
    );

    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let before = proc_status_kib("VmHWM:");
    let mut write = t.new_write().unwrap();
    write.compact(&|_, _| true, true).await.unwrap();
    let messages = write.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(messages).await.unwrap();
    let peak = proc_status_kib("VmHWM:");
    let growth_mib = peak.saturating_sub(before) / 1024;
    eprintln!("full compaction: resident {before} KiB before, peak {peak} KiB (+{growth_mib} MiB)");
    assert!(
        growth_mib <= MAX_GROWTH_MIB,
        "a full compaction of {FILES} files of ~1 MiB grew the resident set by {growth_mib} MiB \
         (bound {MAX_GROWTH_MIB} MiB): the run's files are not read one after another"
    );
    let ids = read_ids(&t, None, None).await;
    assert_eq!(ids.len() as i64, FILES * ROWS_PER_FILE);
    assert!(ids.windows(2).all(|w| w[0] + 1 == w[1]));
}

const APPEND_TABLE: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},
 {"name":"dt","type":"STRING NOT NULL"},{"name":"payload","type":"STRING"}],
 "partitionKeys":["dt"],"primaryKeys":[],
 "options":{"bucket":"-1","write-buffer-size":"POOL","file.compression":"none"}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn append_write_over_1000_partitions_stays_within_write_buffer_size() {
    let _one = ONE_AT_A_TIME.lock().await;
    if !std::path::Path::new("/proc/self/clear_refs").exists() {
        eprintln!("skipped: needs Linux /proc/self/clear_refs");
        return;
    }
    let wh = Warehouse::new();
    let t = wh
        .create("db.a", &APPEND_TABLE.replace("POOL", APPEND_POOL))
        .await;
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, false),
        Field::new("payload", ArrowType::Utf8, true),
    ]));
    const BATCH: i64 = 50_000;
    let make = |start: i64| {
        let ids: Vec<i64> = (start..start + BATCH).collect();
        let dts: Vec<String> = ids
            .iter()
            .map(|i| format!("p{:04}", i % APPEND_PARTITIONS))
            .collect();
        let payload = batch(ids.clone()).column(1).clone();
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(StringArray::from(dts)),
                payload,
            ],
        )
        .unwrap()
    };
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let before = proc_status_kib("VmHWM:");
    let mut write = t.new_write().unwrap();
    let mut start = 0;
    while start < APPEND_ROWS {
        write.write(&make(start)).await.unwrap();
        start += BATCH;
    }
    let messages = write.prepare_commit().await.unwrap();
    t.new_commit().unwrap().commit(messages).await.unwrap();
    let peak = proc_status_kib("VmHWM:");
    let growth_mib = peak.saturating_sub(before) / 1024;
    eprintln!(
        "append write over {APPEND_PARTITIONS} partitions: resident {before} KiB before, peak \
         {peak} KiB (+{growth_mib} MiB)"
    );
    assert!(
        growth_mib <= APPEND_MAX_GROWTH_MIB,
        "writing {APPEND_ROWS} rows over {APPEND_PARTITIONS} partitions at write-buffer-size \
         {APPEND_POOL} grew the resident set by {growth_mib} MiB (bound \
         {APPEND_MAX_GROWTH_MIB} MiB)"
    );
    let ids = read_ids(&t, None, None).await;
    assert_eq!(ids.len() as i64, APPEND_ROWS);
    assert!(ids.windows(2).all(|w| w[0] + 1 == w[1]));
}
