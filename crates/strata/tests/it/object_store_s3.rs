//! strata on S3-compatible object storage, against a real S3 server on loopback
//! (`strata-s3-test-server`: s3s over a temporary directory, SigV4-authenticated, conditional
//! creates atomic): the FileIO contract, the conditional-put race that snapshot commits rely
//! on, clear errors for bad locations and unreachable endpoints, and whole tables — append and
//! primary-key, several commits, compaction, time travel, concurrent committers — written and
//! read through the catalog on `s3://`. Assertions read objects back through the server and
//! check the files it stores on its disk.

use std::collections::HashMap;
use std::sync::Arc;

use crate::common::read_ids;
use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use bytes::Bytes;
use object_store::path::Path;
use strata::catalog::{FileSystemCatalog, Identifier};
use strata::io::{FileIO, StoreKind};
use strata::table::Table;
use strata_s3_test_server::S3Server;
use strata_spec::schema::Schema;

#[path = "../../src/io/contract.rs"]
mod contract;

fn options(server: &S3Server) -> HashMap<String, String> {
    server
        .catalog_options()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

fn catalog(server: &S3Server) -> FileSystemCatalog {
    FileSystemCatalog::open_with_options(&server.warehouse(), &options(server)).unwrap()
}

async fn create(cat: &FileSystemCatalog, name: &str, schema_json: &str) -> Table {
    let id: Identifier = name.parse().unwrap();
    let schema = Schema::from_json(schema_json).unwrap();
    assert!(cat.create_table(&id, &schema, false).await.unwrap());
    cat.get_table(&id).await.unwrap()
}

/// The file the server stores for `key` of its bucket.
fn on_server_disk(server: &S3Server, key: &str) -> std::path::PathBuf {
    server.root().join(server.bucket()).join(key)
}

fn append_batch(ids: &[i64], dts: &[&str]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("dt", ArrowType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(dts.to_vec())),
        ],
    )
    .unwrap()
}

const APPEND: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"dt","type":"STRING"}],
 "partitionKeys":["dt"],"options":{"bucket":"-1"}}"#;

fn pk_batch(ids: &[i64], vs: &[i32]) -> RecordBatch {
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", ArrowType::Int64, false),
        Field::new("v", ArrowType::Int32, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(Int32Array::from(vs.to_vec())),
        ],
    )
    .unwrap()
}

const PK: &str = r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"INT"}],
 "primaryKeys":["id"],"options":{"bucket":"2","write-only":"true"}}"#;

/// All (id, v) rows of a primary-key table, sorted.
async fn pk_rows(t: &Table, snapshot: Option<i64>) -> Vec<(i64, i32)> {
    let mut scan = t.new_scan();
    if let Some(s) = snapshot {
        scan = scan.with_snapshot(s);
    }
    let plan = scan.plan().await.unwrap();
    let mut out = Vec::new();
    for b in t.new_read().to_batches(plan.splits).await.unwrap() {
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
        for i in 0..b.num_rows() {
            out.push((id.value(i), v.value(i)));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn s3_backend_meets_the_file_io_contract() {
    let server = S3Server::start().unwrap();
    let (io, root) =
        FileIO::for_location_with_options("s3://strata/contract", &options(&server)).unwrap();
    assert_eq!(io.kind(), StoreKind::S3);
    assert_eq!(io.endpoint(), Some(server.endpoint().as_str()));
    contract::contract(io.clone(), root.clone()).await;
    // The objects really went through the server to its disk, and are gone after the deletes.
    io.put(&root.clone().join("probe"), Bytes::from_static(b"on disk"))
        .await
        .unwrap();
    assert_eq!(
        std::fs::read(on_server_disk(&server, "contract/probe")).unwrap(),
        b"on disk"
    );
    // A bucket root works as a location too; an endpoint given with a trailing '/' as well.
    let mut opts = options(&server);
    opts.insert("s3.endpoint".into(), format!("{}/", server.endpoint()));
    let (io, root) = FileIO::for_location_with_options("s3://strata", &opts).unwrap();
    assert_eq!(root.as_ref(), "");
    assert_eq!(
        io.display(&Path::from("contract/probe")),
        "s3://strata/contract/probe"
    );
    assert_eq!(
        io.get(&Path::from("contract/probe")).await.unwrap(),
        Bytes::from_static(b"on disk")
    );
}

#[tokio::test]
async fn a_database_created_on_s3_exists_before_its_first_table() {
    // Object stores have no directories: a database is an empty marker object inside its
    // prefix (as S3A's `db.db/` marker for Java), listed, never a table, dropped with it.
    let server = S3Server::start().unwrap();
    let cat = catalog(&server);
    cat.create_database("empty", false).await.unwrap();
    assert!(cat.database_exists("empty").await.unwrap());
    assert_eq!(
        cat.list_databases().await.unwrap(),
        vec!["empty".to_string()]
    );
    assert!(cat.list_tables("empty").await.unwrap().is_empty());
    let err = cat.create_database("empty", false).await.unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::AlreadyExists, "{err}");
    cat.create_database("empty", true).await.unwrap();
    create(
        &cat,
        "empty.t",
        r#"{"fields":[{"id":0,"name":"id","type":"BIGINT"}]}"#,
    )
    .await;
    assert_eq!(
        cat.list_tables("empty").await.unwrap(),
        vec!["t".to_string()]
    );
    assert!(cat.drop_database("empty", false, false).await.is_err());
    cat.drop_database("empty", false, true).await.unwrap();
    assert!(!cat.database_exists("empty").await.unwrap());
    assert!(!on_server_disk(&server, "wh/empty.db/.strata-database").exists());
}

#[tokio::test]
async fn a_restarted_server_serves_the_same_table() {
    // What a crash test of the store itself does: stop the server, start it again over the
    // same directory on the same port; clients configured for the old one carry on.
    let dir = tempfile::tempdir().unwrap();
    let server = S3Server::start_in(dir.path(), 0, "strata").unwrap();
    let port = server.port();
    let opts = options(&server);
    let cat = FileSystemCatalog::open_with_options(&server.warehouse(), &opts).unwrap();
    let t = create(&cat, "db.t", APPEND).await;
    t.write_batches([append_batch(&[1, 2], &["a", "b"])], None)
        .await
        .unwrap();
    drop(server);
    let server = S3Server::start_in(dir.path(), port, "strata").unwrap();
    assert_eq!(server.port(), port);
    t.write_batches([append_batch(&[3], &["a"])], None)
        .await
        .unwrap();
    assert_eq!(read_ids(&t, None, None).await, vec![1, 2, 3]);
    assert_eq!(t.snapshot_manager().latest_id().await.unwrap(), Some(2));
}

#[tokio::test]
async fn large_objects_go_up_in_parts_and_come_back_whole() {
    // The Parquet writer streams through object_store's BufWriter, which switches to a
    // multipart upload above its 10 MiB buffer: CreateMultipartUpload, UploadPart...,
    // CompleteMultipartUpload.
    use tokio::io::AsyncWriteExt;
    let server = S3Server::start().unwrap();
    let (io, root) =
        FileIO::for_location_with_options(&server.warehouse(), &options(&server)).unwrap();
    let path = root.join("big.bin");
    let body: Vec<u8> = (0..(12u32 << 20)).map(|i| (i % 251) as u8).collect();
    let mut w = object_store::buffered::BufWriter::new(io.store(), path.clone());
    for chunk in body.chunks(1 << 20) {
        w.write_all(chunk).await.unwrap();
    }
    w.shutdown().await.unwrap();
    assert_eq!(io.head(&path).await.unwrap().size, body.len() as u64);
    assert_eq!(
        io.get_range(&path, (5 << 20)..(5 << 20) + 7).await.unwrap(),
        Bytes::copy_from_slice(&body[5 << 20..(5 << 20) + 7])
    );
    assert!(io.get(&path).await.unwrap() == body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_put_if_absent_has_exactly_one_winner() {
    let server = S3Server::start().unwrap();
    let (io, root) =
        FileIO::for_location_with_options(&server.warehouse(), &options(&server)).unwrap();
    const RACERS: usize = 16;
    for round in 0..5 {
        let key = root.clone().join(format!("snapshot-{round}"));
        let barrier = Arc::new(tokio::sync::Barrier::new(RACERS));
        let mut tasks = Vec::new();
        for racer in 0..RACERS {
            let (io, key, barrier) = (io.clone(), key.clone(), barrier.clone());
            tasks.push(tokio::spawn(async move {
                barrier.wait().await;
                let body = Bytes::from(format!("racer {racer}"));
                (racer, io.put_if_absent(&key, body).await.unwrap())
            }));
        }
        let mut winners = Vec::new();
        for t in tasks {
            let (racer, won) = t.await.unwrap();
            if won {
                winners.push(racer);
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: winners {winners:?}");
        assert_eq!(
            io.get(&key).await.unwrap(),
            Bytes::from(format!("racer {}", winners[0])),
            "the stored object is the winner's"
        );
    }
}

#[tokio::test]
async fn bad_locations_and_unreachable_endpoints_are_reported_clearly() {
    let server = S3Server::start().unwrap();
    let opts = options(&server);
    for (location, needle) in [
        ("s3://", "no bucket"),
        ("s3:///wh", "no bucket"),
        ("s3://Upper/wh", "invalid bucket name"),
        ("s3://b/a//c", "empty path segment"),
        ("gs://b/wh", "gs:// is not supported"),
    ] {
        let err = FileSystemCatalog::open_with_options(location, &opts).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(location) && text.contains(needle), "{text}");
    }

    let mut typo = opts.clone();
    typo.insert("s3.secret".into(), "x".into());
    let text = FileSystemCatalog::open_with_options(&server.warehouse(), &typo)
        .unwrap_err()
        .to_string();
    assert!(text.contains("s3.secret"), "{text}");

    // A bucket the server does not have: the error names the object and bucket.
    let cat = FileSystemCatalog::open_with_options("s3://no-such-bucket/wh", &opts).unwrap();
    let id: Identifier = "db.t".parse().unwrap();
    let err = cat
        .create_table(&id, &Schema::from_json(APPEND).unwrap(), false)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("s3://no-such-bucket/wh/db.db/t/schema"),
        "{text}"
    );
    assert!(text.contains("NoSuchBucket"), "{text}");

    // Wrong credentials are refused by the server (SigV4 is checked).
    let mut wrong = opts.clone();
    wrong.insert("s3.secret-key".into(), "wrong".into());
    let cat = FileSystemCatalog::open_with_options(&server.warehouse(), &wrong).unwrap();
    let text = cat
        .create_table(&id, &Schema::from_json(APPEND).unwrap(), false)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("SignatureDoesNotMatch") || text.contains("403"),
        "{text}"
    );

    // Nothing listens on the endpoint: the error names it.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let mut unreachable = opts.clone();
    unreachable.insert("s3.endpoint".into(), endpoint.clone());
    unreachable.insert("s3.max-retries".into(), "1".into());
    let cat = FileSystemCatalog::open_with_options(&server.warehouse(), &unreachable).unwrap();
    let started = std::time::Instant::now();
    let text = cat.list_databases().await.unwrap_err().to_string();
    assert!(text.contains(&endpoint), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[tokio::test]
async fn append_table_commits_reads_and_time_travels_on_s3() {
    let server = S3Server::start().unwrap();
    let cat = catalog(&server);
    let t = create(&cat, "db.events", APPEND).await;
    assert_eq!(t.location(), "s3://strata/wh/db.db/events");
    assert_eq!(
        t.write_batches([append_batch(&[1, 2, 3], &["a", "b", "a"])], None)
            .await
            .unwrap(),
        Some(1)
    );
    assert_eq!(
        t.write_batches([append_batch(&[4, 5], &["b", "c"])], None)
            .await
            .unwrap(),
        Some(2)
    );
    assert_eq!(
        t.write_batches(
            [append_batch(&[6], &["a"])],
            Some(strata::commit::OverwriteScope::Dynamic)
        )
        .await
        .unwrap(),
        Some(3)
    );
    assert_eq!(read_ids(&t, None, None).await, vec![2, 4, 5, 6]);
    assert_eq!(read_ids(&t, None, Some(1)).await, vec![1, 2, 3]);
    assert_eq!(read_ids(&t, None, Some(2)).await, vec![1, 2, 3, 4, 5]);
    assert_eq!(read_ids(&t, Some("dt = 'b'"), None).await, vec![2, 4]);

    // A fresh catalog (a new client) sees the same table: the state is on the server.
    let again = catalog(&server)
        .get_table(&"db.events".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(read_ids(&again, None, None).await, vec![2, 4, 5, 6]);
    assert_eq!(cat.list_databases().await.unwrap(), vec!["db"]);
    assert_eq!(cat.list_tables("db").await.unwrap(), vec!["events"]);

    // The server's disk holds the Paimon layout.
    let table = "wh/db.db/events";
    for f in [
        "snapshot/snapshot-1",
        "snapshot/snapshot-3",
        "schema/schema-0",
    ] {
        assert!(
            on_server_disk(&server, &format!("{table}/{f}")).is_file(),
            "{f}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(on_server_disk(&server, &format!("{table}/snapshot/LATEST")))
            .unwrap(),
        "3"
    );
    let parquet = std::fs::read_dir(on_server_disk(&server, &format!("{table}/dt=c/bucket-0")))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".parquet"))
        .count();
    assert_eq!(parquet, 1);

    // Dropping the table leaves nothing of it in the bucket; the database stays (its marker
    // object, as Java's database directory stays), and goes with `drop_database`.
    cat.drop_table(&"db.events".parse().unwrap(), false)
        .await
        .unwrap();
    assert_eq!(cat.list_databases().await.unwrap(), vec!["db".to_string()]);
    let left: Vec<String> = cat
        .file_io()
        .list(&Path::from("wh"))
        .await
        .unwrap()
        .into_iter()
        .map(|o| o.location.to_string())
        .collect();
    assert_eq!(left, vec!["wh/db.db/.strata-database".to_string()]);
    cat.drop_database("db", false, false).await.unwrap();
    assert!(cat.list_databases().await.unwrap().is_empty());
    assert!(cat
        .file_io()
        .list(&Path::from("wh"))
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn primary_key_table_upserts_compacts_and_time_travels_on_s3() {
    let server = S3Server::start().unwrap();
    let cat = catalog(&server);
    let t = create(&cat, "db.accounts", PK).await;
    t.write_batches([pk_batch(&[1, 2, 3, 4], &[10, 20, 30, 40])], None)
        .await
        .unwrap();
    t.write_batches([pk_batch(&[2, 4, 5], &[21, 41, 50])], None)
        .await
        .unwrap();
    t.write_batches([pk_batch(&[1, 5], &[12, 52])], None)
        .await
        .unwrap();
    let want = vec![(1, 12), (2, 21), (3, 30), (4, 41), (5, 52)];
    assert_eq!(pk_rows(&t, None).await, want);
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(latest.id, 3);

    // Full compaction: one COMPACT snapshot, same rows, every file at the max level.
    let mut w = t.new_write().unwrap();
    assert_eq!(w.compact(&|_, _| true, true).await.unwrap(), 2);
    let msgs = w.prepare_commit().await.unwrap();
    let id = t.new_commit().unwrap().commit(msgs).await.unwrap();
    assert_eq!(id, Some(4));
    let snap = t.snapshot_manager().snapshot(4).await.unwrap();
    assert_eq!(snap.commit_kind.as_str(), "COMPACT");
    assert_eq!(pk_rows(&t, None).await, want);
    let plan = t.new_scan().plan().await.unwrap();
    assert!(plan
        .splits
        .iter()
        .flat_map(|s| s.files.iter())
        .all(|f| f.level == 5));

    // Time travel to before the compaction and the upserts.
    assert_eq!(
        pk_rows(&t, Some(1)).await,
        vec![(1, 10), (2, 20), (3, 30), (4, 40)]
    );
    assert_eq!(
        pk_rows(&t, Some(2)).await,
        vec![(1, 10), (2, 21), (3, 30), (4, 41), (5, 50)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_committers_on_s3_each_land_exactly_once() {
    let server = S3Server::start().unwrap();
    let t = create(&catalog(&server), "db.race", APPEND).await;
    const COMMITTERS: i64 = 8;
    let barrier = Arc::new(tokio::sync::Barrier::new(COMMITTERS as usize));
    let mut tasks = Vec::new();
    for i in 0..COMMITTERS {
        // Each committer loads the table through its own catalog (its own client), writes,
        // and commits with its own TableCommit.
        let cat = catalog(&server);
        let barrier = barrier.clone();
        tasks.push(tokio::spawn(async move {
            let t = cat.get_table(&"db.race".parse().unwrap()).await.unwrap();
            let mut w = t.new_write().unwrap();
            w.write(&append_batch(&[i * 10, i * 10 + 1], &["p", "q"]))
                .await
                .unwrap();
            let msgs = w.prepare_commit().await.unwrap();
            barrier.wait().await;
            t.new_commit().unwrap().commit(msgs).await.unwrap().unwrap()
        }));
    }
    let mut ids = Vec::new();
    for task in tasks {
        ids.push(task.await.unwrap());
    }
    ids.sort();
    assert_eq!(
        ids,
        (1..=COMMITTERS).collect::<Vec<_>>(),
        "consecutive, none shared"
    );
    let all = t.snapshot_manager().all().await.unwrap();
    assert_eq!(
        all.iter().map(|s| s.id).collect::<Vec<_>>(),
        (1..=COMMITTERS).collect::<Vec<_>>()
    );
    assert!(all.iter().all(|s| s.delta_record_count == 2));
    assert_eq!(all.last().unwrap().total_record_count, 2 * COMMITTERS);
    let mut want: Vec<i64> = (0..COMMITTERS).flat_map(|i| [i * 10, i * 10 + 1]).collect();
    want.sort();
    assert_eq!(read_ids(&t, None, None).await, want);
}
