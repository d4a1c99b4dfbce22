//! Vended data tokens that really scope and refresh: `strata serve` over an S3 warehouse on
//! strata's S3 test server (STS `AssumeRole`, session policies and expiry enforced by the
//! store), with `s3.sts.role-arn` set. Real HTTP throughout: strata's REST client, the server,
//! the store.
//!
//! * a reader's keys GET and list the table but the store refuses their PUT and DELETE;
//! * a table's keys cannot read or list another table's files;
//! * a writer holding no warehouse keys writes and commits with vended keys only, and the rows
//!   are read back through the warehouse's own keys;
//! * a `Table` held past its token's life (4 s here) keeps writing and reading: the client
//!   fetches the token again, while the first keys are refused by the store as expired;
//! * without `s3.sts.role-arn` the static-keys mode is unchanged (writers get the warehouse's
//!   keys, readers none).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use object_store::path::Path;
use serde_json::Value;
use strata::io::FileIO;
use strata_rest_server::{Server, ServerConfig};
use strata_s3_test_server::S3Server;

const TOKENS: &str = "admin-tok admin\nwriter-tok writer write db.t1\nreader-tok reader read db\n";

struct Running {
    url: String,
    name: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// `strata serve` over `s3://strata/wh` of `s3`, vending with `extra` options.
async fn serve(s3: &S3Server, extra: &[(&str, &str)]) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, TOKENS).unwrap();
    let mut config = ServerConfig::new(s3.warehouse());
    config.warehouse_options = s3
        .catalog_options()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    for (k, v) in extra {
        config
            .warehouse_options
            .insert(k.to_string(), v.to_string());
    }
    config.token_file = Some(tokens);
    let server = Server::new(config).await.unwrap();
    let name = server.warehouse_name().to_string();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.serve(listener, async {
        let _ = rx.await;
    }));
    Running {
        url,
        name,
        stop: Some(tx),
        _dir: dir,
    }
}

const STS: &[(&str, &str)] = &[("s3.sts.role-arn", "arn:aws:iam::000000000000:role/strata")];

impl Running {
    /// strata's REST client as `token`'s principal: vended tokens on, no store keys at all.
    async fn catalog(&self, token: &str) -> Arc<dyn strata::catalog::Catalog> {
        let opts: BTreeMap<String, String> = [
            ("metastore", "rest"),
            ("uri", self.url.as_str()),
            ("warehouse", self.name.as_str()),
            ("token.provider", "bear"),
            ("token", token),
            ("data-token.enabled", "true"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        strata::catalog::open(&opts).await.unwrap()
    }

    /// `GET …/token` of `db.table` as `token`'s principal.
    async fn token(&self, token: &str, table: &str) -> Value {
        let url = format!(
            "{}/v1/{}/databases/db/tables/{table}/token",
            self.url, self.name
        );
        let resp = reqwest::Client::new()
            .get(url)
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        resp.json().await.unwrap()
    }
}

/// The `s3.*` options of a vended token (Java's and pypaimon's spelling; the token also
/// carries Hadoop S3A's session-token keys for Java's `S3FileIO`).
fn s3_options(token: &Value) -> HashMap<String, String> {
    let t = &token["token"];
    assert_eq!(t["fs.s3a.session.token"], t["s3.session-token"], "{token}");
    assert_eq!(
        t["fs.s3a.aws.credentials.provider"],
        "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"
    );
    t.as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with("s3."))
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

/// A FileIO on the bucket with exactly the keys of a vended token.
fn store_of(token: &Value) -> FileIO {
    let opts = s3_options(token);
    assert!(opts.contains_key("s3.session-token"), "{token}");
    FileIO::s3("strata", &opts).unwrap()
}

fn batch(ids: &[i64]) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("v", DataType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids.to_vec())),
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

async fn read_ids(table: &strata::table::Table) -> Vec<i64> {
    let plan = table.new_scan().plan().await.unwrap();
    let batches = table.new_read().to_batches(plan.splits).await.unwrap();
    let mut ids: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            b.column_by_name("id")
                .unwrap()
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .values()
                .to_vec()
        })
        .collect();
    ids.sort();
    ids
}

/// The warehouse as the server opens it, with the warehouse's own keys.
fn warehouse(s3: &S3Server) -> strata::catalog::FileSystemCatalog {
    let options: HashMap<String, String> = s3
        .catalog_options()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    strata::catalog::FileSystemCatalog::open_with_options(&s3.warehouse(), &options).unwrap()
}

/// Database `db` with append tables `t1` and `t2`, created directly in the warehouse.
async fn tables(s3: &S3Server) {
    let wh = warehouse(s3);
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"id":0,"name":"id","type":"BIGINT NOT NULL"},{"id":1,"name":"v","type":"STRING"}],
            "partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1"},"comment":null}"#,
    )
    .unwrap();
    for t in ["t1", "t2"] {
        let id = format!("db.{t}").parse().unwrap();
        assert!(
            strata::catalog::Catalog::create_table(&wh, &id, &schema, false)
                .await
                .unwrap()
        );
    }
}

fn denied(e: &strata::Error) -> bool {
    let text = e.to_string();
    text.contains("AccessDenied") || text.contains("403") || text.contains("Forbidden")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scoped_keys_split_read_from_write_and_stay_in_their_table() {
    let s3 = S3Server::start().unwrap();
    let s = serve(&s3, STS).await;
    tables(&s3).await;

    // The writer of t1 holds no store keys: it writes and commits with vended keys only.
    let writer = s.catalog("writer-tok").await;
    let t1 = writer.get_table(&"db.t1".parse().unwrap()).await.unwrap();
    t1.write_batches([batch(&[1, 2, 3])], None).await.unwrap();
    // The admin writes t2 the same way.
    let admin = s.catalog("admin-tok").await;
    let t2 = admin.get_table(&"db.t2".parse().unwrap()).await.unwrap();
    t2.write_batches([batch(&[7])], None).await.unwrap();

    // The rows are there for the warehouse's own keys.
    let wh = warehouse(&s3);
    let direct = strata::catalog::Catalog::get_table(&wh, &"db.t1".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(read_ids(&direct).await, vec![1, 2, 3]);

    // A reader reads through the catalog with its read-only keys...
    let reader = s.catalog("reader-tok").await;
    let r1 = reader.get_table(&"db.t1".parse().unwrap()).await.unwrap();
    assert_eq!(read_ids(&r1).await, vec![1, 2, 3]);
    // ...but its commit fails: the store refuses the read-only keys' PUT.
    let e = r1.write_batches([batch(&[9])], None).await.unwrap_err();
    assert!(denied(&e), "{e}");
    assert_eq!(read_ids(&direct).await, vec![1, 2, 3]);

    // The same, object by object, with exactly the vended keys.
    let read = store_of(&s.token("reader-tok", "t1").await);
    let t1_dir = Path::from("wh/db.db/t1");
    let files = read.list(&t1_dir).await.unwrap();
    let snapshot = Path::from("wh/db.db/t1/snapshot/snapshot-1");
    assert!(files.iter().any(|m| m.location == snapshot), "{files:?}");
    assert!(!read.get(&snapshot).await.unwrap().is_empty());
    let e = read
        .put(&Path::from("wh/db.db/t1/data-x.parquet"), "x")
        .await
        .unwrap_err();
    assert!(denied(&e), "{e}");
    let e = read.delete(&snapshot).await.unwrap_err();
    assert!(denied(&e), "{e}");
    assert!(read.get(&snapshot).await.is_ok(), "not deleted");

    // t1's keys (read or write) reach nothing of t2 and nothing above the table.
    let write = store_of(&s.token("writer-tok", "t1").await);
    let t2_snapshot = Path::from("wh/db.db/t2/snapshot/snapshot-1");
    for io in [&read, &write] {
        let e = io.get(&t2_snapshot).await.unwrap_err();
        assert!(denied(&e), "{e}");
        let e = io.list(&Path::from("wh/db.db/t2")).await.unwrap_err();
        assert!(denied(&e), "{e}");
        let e = io.list(&Path::from("wh/db.db")).await.unwrap_err();
        assert!(denied(&e), "{e}");
    }
    let e = write
        .put(&Path::from("wh/db.db/t2/x"), "x")
        .await
        .unwrap_err();
    assert!(denied(&e), "{e}");
    let e = write.delete(&t2_snapshot).await.unwrap_err();
    assert!(denied(&e), "{e}");
    // The writer's keys write and delete inside t1.
    let own = Path::from("wh/db.db/t1/vending-probe");
    write.put(&own, "x").await.unwrap();
    write.delete(&own).await.unwrap();
    // Keys without their session token are refused.
    let mut no_session = s3_options(&s.token("writer-tok", "t1").await);
    no_session.remove("s3.session-token");
    let e = FileIO::s3("strata", &no_session)
        .unwrap()
        .get(&snapshot)
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("InvalidToken") || e.to_string().contains("403"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_outlives_its_token() {
    let s3 = S3Server::start().unwrap();
    let mut opts = STS.to_vec();
    opts.push(("s3.sts.duration-seconds", "4"));
    let s = serve(&s3, &opts).await;
    tables(&s3).await;

    let first = s.token("writer-tok", "t1").await;
    let expires = first["expiresAtMillis"].as_i64().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    assert!(
        (2_000..=4_500).contains(&(expires - now)),
        "{expires} - {now}"
    );

    let writer = s.catalog("writer-tok").await;
    let t1 = writer.get_table(&"db.t1".parse().unwrap()).await.unwrap();
    t1.write_batches([batch(&[1])], None).await.unwrap();
    for round in 2..=3i64 {
        tokio::time::sleep(std::time::Duration::from_millis(4_500)).await;
        // The keys handed out first have expired: the store refuses them.
        let e = store_of(&first)
            .get(&Path::from("wh/db.db/t1/snapshot/snapshot-1"))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("ExpiredToken"), "{e}");
        // The same Table handle keeps writing and reading.
        t1.write_batches([batch(&[round])], None).await.unwrap();
        assert_eq!(read_ids(&t1).await, (1..=round).collect::<Vec<_>>());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn static_keys_mode_is_unscoped_and_reader_tokens_are_empty() {
    let s3 = S3Server::start().unwrap();
    let s = serve(&s3, &[]).await;
    tables(&s3).await;
    let w = s.token("writer-tok", "t1").await;
    assert_eq!(
        w["token"]["s3.access-key"],
        strata_s3_test_server::ACCESS_KEY
    );
    assert!(w["token"].get("s3.session-token").is_none());
    let r = s.token("reader-tok", "t1").await;
    assert_eq!(r["token"], serde_json::json!({}));

    // Databases made through the API exist on the object store before their first table
    // (an empty marker object), so createTable in them succeeds and the table takes writes.
    let admin = s.catalog("admin-tok").await;
    admin.create_database("fresh", false).await.unwrap();
    assert!(admin
        .list_databases()
        .await
        .unwrap()
        .contains(&"fresh".to_string()));
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"id":0,"name":"id","type":"BIGINT NOT NULL"}],"options":{"bucket":"-1"}}"#,
    )
    .unwrap();
    let id: strata::table::Identifier = "fresh.t".parse().unwrap();
    assert!(admin.create_table(&id, &schema, false).await.unwrap());
    assert_eq!(
        admin.list_tables("fresh").await.unwrap(),
        vec!["t".to_string()]
    );
}

#[tokio::test]
async fn sts_misconfiguration_stops_the_server() {
    let s3 = S3Server::start().unwrap();
    let mut config = ServerConfig::new(s3.warehouse());
    config
        .warehouse_options
        .insert("s3.sts.duration-seconds".into(), "60".into());
    let e = Server::new(config).await.unwrap_err().to_string();
    assert!(e.contains("s3.sts.role-arn"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_sts_answers_502_without_secrets() {
    let s3 = S3Server::start().unwrap();
    let mut opts = STS.to_vec();
    opts.push(("s3.sts.endpoint", "http://127.0.0.1:1"));
    let s = serve(&s3, &opts).await;
    tables(&s3).await;
    let url = format!("{}/v1/{}/databases/db/tables/t1/token", s.url, s.name);
    let resp = reqwest::Client::new()
        .get(url)
        .bearer_auth("reader-tok")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 502);
    let text = resp.text().await.unwrap();
    assert!(text.contains("STS"), "{text}");
    assert!(!text.contains(strata_s3_test_server::SECRET_KEY), "{text}");
}
