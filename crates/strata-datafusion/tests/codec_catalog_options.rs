//! The plan codecs carry a table's catalog options, never its secrets: a codec given
//! `with_catalog_options` writes `metastore`, `warehouse`, ... into the plan bytes but not
//! `token`, `jdbc.password`, `header.*` or any `*secret*` key; the decoding process adds its own
//! secrets; a table whose catalog decides its commits is refused by a codec that does not know
//! the catalog's options (re-opened by path, its commits would bypass the catalog).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::util::pretty::pretty_format_batches;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::prelude::SessionContext;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use strata::catalog::{Catalog, CatalogSnapshotCommit, FileSystemCatalog};
use strata_datafusion::codec::is_secret_catalog_option;
use strata_datafusion::{SqlSession, StrataLogicalCodec, StrataPhysicalCodec, StrataTable};

const SECRETS: &[(&str, &str)] = &[
    ("token", "tok-8f3a91"),
    ("jdbc.password", "pw-55c2e0"),
    ("s3.secret-key", "sk-0d9b17"),
    ("header.Authorization", "Bearer hdr-7e61aa"),
    ("dlf.access-key-secret", "dlf-3b4c5d"),
];

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

async fn rows(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_bytes_carry_catalog_options_but_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap().to_string();
    let catalog = FileSystemCatalog::open(&warehouse).unwrap();
    SqlSession::new(Arc::new(catalog.clone()))
        .execute_script(
            "CREATE TABLE db.t (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) \
                 WITH ('bucket' = '2');
             INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c');",
        )
        .await
        .unwrap();
    let table = catalog.get_table(&"db.t".parse().unwrap()).await.unwrap();
    let provider: Arc<dyn TableProvider> = Arc::new(StrataTable::new(table).await.unwrap());

    let mut options = BTreeMap::from([
        ("metastore".to_string(), "filesystem".to_string()),
        ("warehouse".to_string(), warehouse.clone()),
    ]);
    for (k, v) in SECRETS {
        assert!(is_secret_catalog_option(k), "{k}");
        options.insert(k.to_string(), v.to_string());
    }
    assert!(!is_secret_catalog_option("token.provider"));
    assert!(!is_secret_catalog_option("uri"));

    // Logical: the table provider.
    let codec = StrataLogicalCodec::default().with_catalog_options(options.clone());
    let mut bytes = Vec::new();
    codec
        .try_encode_table_provider(&TableReference::bare("t"), provider.clone(), &mut bytes)
        .unwrap();
    for (k, v) in SECRETS {
        assert!(
            !contains(&bytes, v),
            "the value of {k} is in the plan bytes"
        );
        let key = format!("\"{k}\"");
        assert!(!contains(&bytes, &key), "{k} is in the plan bytes");
    }
    for needed in ["metastore", "filesystem", warehouse.as_str()] {
        assert!(
            contains(&bytes, needed),
            "{needed} is missing from the plan bytes"
        );
    }
    assert!(
        !format!("{codec:?}").contains("tok-8f3a91"),
        "Debug shows a secret"
    );

    // Physical: a scan with its splits.
    let ctx = SessionContext::new();
    ctx.register_table("t", provider.clone()).unwrap();
    let plan = ctx
        .sql("SELECT id, v FROM t ORDER BY id")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let physical = StrataPhysicalCodec::default().with_catalog_options(options.clone());
    let plan_bytes =
        datafusion_proto::bytes::physical_plan_to_bytes_with_extension_codec(plan, &physical)
            .unwrap();
    assert!(
        contains(&plan_bytes, warehouse.as_str()),
        "no scan node encoded"
    );
    for (k, v) in SECRETS {
        assert!(
            !contains(&plan_bytes, v),
            "the value of {k} is in the plan bytes"
        );
    }

    // Decoded in a process without the secrets: the node's options open the same table.
    let task = SessionContext::new().task_ctx();
    let decoded = StrataLogicalCodec::default()
        .try_decode_table_provider(&bytes, &TableReference::bare("t"), provider.schema(), &task)
        .unwrap();
    let other = SessionContext::new();
    other.register_table("t", decoded).unwrap();
    let sql = "SELECT id, v FROM t ORDER BY id";
    let got = rows(&other, sql).await;
    assert_eq!(got, rows(&ctx, sql).await);
    assert!(got.contains("| 3  | c |"), "{got}");
    let scan = datafusion_proto::bytes::physical_plan_from_bytes_with_extension_codec(
        &plan_bytes,
        &task,
        &StrataPhysicalCodec::default(),
    )
    .unwrap();
    let batches = datafusion::physical_plan::collect(scan, task.clone())
        .await
        .unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 3);

    // The decoding process's own secrets are added to the node's options: a filesystem
    // catalog refuses a token, naming it — so the token did reach the opener.
    let with_token = StrataLogicalCodec::default().with_catalog_options(BTreeMap::from([(
        "token".to_string(),
        "decoder-side".to_string(),
    )]));
    let e = with_token
        .try_decode_table_provider(&bytes, &TableReference::bare("t"), provider.schema(), &task)
        .unwrap_err()
        .to_string();
    assert!(e.contains("token"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_committed_table_needs_the_catalog_options() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = Arc::new(FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap());
    SqlSession::new(catalog.clone())
        .execute_script("CREATE TABLE db.t (id BIGINT); INSERT INTO db.t VALUES (1);")
        .await
        .unwrap();
    let id: strata::catalog::Identifier = "db.t".parse().unwrap();
    let table = catalog
        .get_table(&id)
        .await
        .unwrap()
        .with_snapshot_commit(Arc::new(CatalogSnapshotCommit::new(
            catalog.clone() as Arc<dyn Catalog>,
            id,
        )));
    let provider: Arc<dyn TableProvider> = Arc::new(StrataTable::new(table).await.unwrap());
    let mut bytes = Vec::new();
    let e = StrataLogicalCodec::default()
        .try_encode_table_provider(&TableReference::bare("t"), provider.clone(), &mut bytes)
        .unwrap_err()
        .to_string();
    assert!(e.contains("with_catalog_options"), "{e}");
    // With the catalog's options it ships.
    let mut bytes = Vec::new();
    StrataLogicalCodec::default()
        .with_catalog_options(BTreeMap::from([(
            "warehouse".to_string(),
            dir.path().to_str().unwrap().to_string(),
        )]))
        .try_encode_table_provider(&TableReference::bare("t"), provider, &mut bytes)
        .unwrap();
}
