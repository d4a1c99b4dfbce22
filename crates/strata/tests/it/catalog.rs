//! The filesystem catalog's directory calls go through `FileIO`: failures are errors naming
//! the path, never an empty answer.

use strata::catalog::FileSystemCatalog;

/// A warehouse path that is a file, not a directory: listing its databases is an error that
/// names it (it used to read as "no databases").
#[tokio::test]
async fn a_warehouse_that_cannot_be_listed_is_an_error_not_an_empty_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let catalog = FileSystemCatalog::open(file.to_str().unwrap()).unwrap();
    let err = catalog.list_databases().await.unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::Io, "{err}");
    assert!(err.to_string().contains("not-a-dir"), "{err}");
    // A warehouse that does not exist yet simply has no databases.
    let fresh = FileSystemCatalog::open(dir.path().join("fresh").to_str().unwrap()).unwrap();
    assert!(fresh.list_databases().await.unwrap().is_empty());
    fresh.create_database("db", false).await.unwrap();
    assert_eq!(
        fresh.list_databases().await.unwrap(),
        vec!["db".to_string()]
    );
}

/// Java's `table-default.*` catalog options: set on tables created through the catalog unless
/// their schema sets the key, validated like the table's own options, not applied on load.
#[tokio::test]
async fn table_defaults_apply_at_create_only() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = strata::catalog::FileSystemCatalog::open(dir.path().to_str().unwrap())
        .unwrap()
        .with_table_defaults([
            ("bucket".to_string(), "3".to_string()),
            ("snapshot.num-retained.max".to_string(), "70".to_string()),
        ]);
    let schema = |opts: &str| {
        strata_spec::schema::Schema::from_json(&format!(
            r#"{{"fields":[{{"name":"id","type":"BIGINT NOT NULL"}}],"primaryKeys":["id"],
            "options":{{{opts}}}}}"#
        ))
        .unwrap()
    };
    let a: strata::catalog::Identifier = "db.a".parse().unwrap();
    let b: strata::catalog::Identifier = "db.b".parse().unwrap();
    catalog.create_table(&a, &schema(""), false).await.unwrap();
    catalog
        .create_table(&b, &schema(r#""bucket":"2""#), false)
        .await
        .unwrap();
    let ta = catalog.get_table(&a).await.unwrap();
    let tb = catalog.get_table(&b).await.unwrap();
    assert_eq!(ta.options().get("bucket"), Some("3"));
    assert_eq!(ta.options().get("snapshot.num-retained.max"), Some("70"));
    assert_eq!(tb.options().get("bucket"), Some("2"));
    // A default strata does not implement is refused like the table's own option.
    let bad = catalog
        .clone()
        .with_table_defaults([("chain-table.enabled".to_string(), "true".to_string())]);
    let c: strata::catalog::Identifier = "db.c".parse().unwrap();
    let e = bad.create_table(&c, &schema(""), false).await.unwrap_err();
    assert!(e.to_string().contains("chain-table.enabled"), "{e}");
}

/// A catalog that decides commits itself (as Paimon's REST catalog does), built on the
/// filesystem catalog: its tables publish through `Catalog::commit_snapshot`
/// (`CatalogSnapshotCommit`), which counts, and refuses every commit while `refuse` is set.
#[derive(Debug)]
struct DecidingCatalog {
    files: FileSystemCatalog,
    commits: std::sync::atomic::AtomicUsize,
    refuse: std::sync::atomic::AtomicBool,
    me: std::sync::Mutex<std::sync::Weak<DecidingCatalog>>,
    /// The context of the last commit asked for.
    last: std::sync::Mutex<Option<strata::catalog::CommitContext>>,
    /// Answer every commit with an error that stores nothing (a REST catalog's 403 or 501).
    deny: std::sync::atomic::AtomicBool,
}

#[async_trait::async_trait]
impl strata::catalog::Catalog for DecidingCatalog {
    fn location(&self) -> String {
        format!("deciding:{}", self.files.location())
    }
    async fn list_databases(&self) -> strata::Result<Vec<String>> {
        self.files.list_databases().await
    }
    async fn database_exists(&self, db: &str) -> strata::Result<bool> {
        self.files.database_exists(db).await
    }
    async fn create_database(&self, db: &str, ignore: bool) -> strata::Result<()> {
        self.files.create_database(db, ignore).await
    }
    async fn drop_database(&self, db: &str, ignore: bool, cascade: bool) -> strata::Result<()> {
        self.files.drop_database(db, ignore, cascade).await
    }
    async fn list_tables(&self, db: &str) -> strata::Result<Vec<String>> {
        self.files.list_tables(db).await
    }
    async fn table_exists(&self, id: &strata::catalog::Identifier) -> strata::Result<bool> {
        self.files.table_exists(id).await
    }
    async fn create_table(
        &self,
        id: &strata::catalog::Identifier,
        schema: &strata_spec::schema::Schema,
        ignore: bool,
    ) -> strata::Result<bool> {
        self.files.create_table(id, schema, ignore).await
    }
    async fn drop_table(
        &self,
        id: &strata::catalog::Identifier,
        ignore: bool,
    ) -> strata::Result<()> {
        self.files.drop_table(id, ignore).await
    }
    async fn alter_table(
        &self,
        id: &strata::catalog::Identifier,
        changes: Vec<strata_spec::schema::SchemaChange>,
        ignore: bool,
    ) -> strata::Result<Option<std::sync::Arc<strata_spec::schema::TableSchema>>> {
        self.files.alter_table(id, changes, ignore).await
    }
    async fn get_table(
        &self,
        id: &strata::catalog::Identifier,
    ) -> strata::Result<strata::table::Table> {
        let me: std::sync::Arc<dyn strata::catalog::Catalog> =
            self.me.lock().unwrap().upgrade().unwrap();
        Ok(self
            .files
            .get_table(id)
            .await?
            .with_snapshot_commit(std::sync::Arc::new(
                strata::catalog::CatalogSnapshotCommit::new(me, id.clone()),
            )))
    }
    async fn commit_snapshot(
        &self,
        id: &strata::catalog::Identifier,
        snapshot: &strata_spec::snapshot::Snapshot,
        ctx: &strata::catalog::CommitContext,
    ) -> strata::Result<bool> {
        use std::sync::atomic::Ordering;
        self.commits.fetch_add(1, Ordering::SeqCst);
        *self.last.lock().unwrap() = Some(ctx.clone());
        if self.deny.load(Ordering::SeqCst) {
            return Err(strata::Error::unsupported("commits are closed"));
        }
        if self.refuse.load(Ordering::SeqCst) {
            return Ok(false);
        }
        self.files.commit_snapshot(id, snapshot, ctx).await
    }
}

/// The commit of a snapshot is the catalog's decision: a table loaded through a catalog that
/// decides commits publishes through it (every derived handle too), and a commit the catalog
/// refuses publishes nothing and fails as a conflict, leaving the table at its last snapshot.
#[tokio::test]
async fn commits_are_the_catalogs_decision() {
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let catalog = Arc::new(DecidingCatalog {
        files: FileSystemCatalog::open(dir.path().to_str().unwrap()).unwrap(),
        commits: Default::default(),
        refuse: Default::default(),
        me: Default::default(),
        last: Default::default(),
        deny: Default::default(),
    });
    *catalog.me.lock().unwrap() = Arc::downgrade(&catalog);
    let dyn_catalog: Arc<dyn strata::catalog::Catalog> = catalog.clone();
    let id: strata::catalog::Identifier = "db.t".parse().unwrap();
    let schema = strata_spec::schema::Schema::from_json(
        r#"{"fields":[{"name":"id","type":"BIGINT NOT NULL"}],"primaryKeys":["id"],
        "options":{"bucket":"1","commit.max-retries":"2","commit.min-retry-wait":"1 ms",
        "commit.max-retry-wait":"2 ms"}}"#,
    )
    .unwrap();
    dyn_catalog.create_table(&id, &schema, false).await.unwrap();
    let ids = |v: &[i64]| {
        arrow_array::RecordBatch::try_new(
            Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
                "id",
                arrow_schema::DataType::Int64,
                false,
            )])),
            vec![Arc::new(arrow_array::Int64Array::from(v.to_vec()))],
        )
        .unwrap()
    };
    let commit = |t: strata::table::Table, v: Vec<i64>| async move {
        let mut w = t.new_write().unwrap();
        w.write(&ids(&v)).await.unwrap();
        let msgs = w.prepare_commit().await.unwrap();
        t.new_commit().unwrap().commit(msgs).await
    };

    let t = dyn_catalog.get_table(&id).await.unwrap();
    assert_eq!(commit(t.clone(), vec![1, 2]).await.unwrap(), Some(1));
    // The decider is told the base (none: the first snapshot), the branch and what changed
    // per partition (Java `PartitionEntry.toPartitionStatistics` of the delta).
    let ctx = catalog.last.lock().unwrap().clone().unwrap();
    assert_eq!(ctx.base_snapshot_uuid, None);
    assert_eq!(ctx.branch, "main");
    assert_eq!(ctx.statistics.len(), 1);
    assert_eq!(ctx.statistics[0].record_count, 2);
    assert_eq!(ctx.statistics[0].file_count, 1);
    assert_eq!(ctx.statistics[0].total_buckets, 1);
    assert!(ctx.statistics[0].spec.is_empty());
    assert!(ctx.statistics[0].file_size_in_bytes > 0);
    // A handle with dynamic options publishes through the catalog too.
    let t2 = t
        .with_dynamic_options([("write-only".to_string(), "true".to_string())])
        .unwrap();
    assert_eq!(commit(t2, vec![3]).await.unwrap(), Some(2));
    let first = t.snapshot_manager().snapshot(1).await.unwrap();
    let ctx = catalog.last.lock().unwrap().clone().unwrap();
    assert_eq!(ctx.base_snapshot_uuid, first.uuid);
    assert!(ctx.base_snapshot_uuid.is_some());
    assert_eq!(ctx.statistics[0].record_count, 1);
    assert_eq!(catalog.commits.load(Ordering::SeqCst), 2);

    catalog.refuse.store(true, Ordering::SeqCst);
    let err = commit(t.clone(), vec![4]).await.unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::Conflict, "{err}");
    assert!(
        catalog.commits.load(Ordering::SeqCst) > 3,
        "the refused commit was retried"
    );
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(latest.id, 2, "nothing the catalog refused was published");
    let mut got = crate::common::read_ids(&t, None, None).await;
    got.sort();
    assert_eq!(got, vec![1, 2, 3]);

    // A decider that answers with a refusal storing nothing (REST 403/501): the commit fails at
    // once with that error (no retries, not "outcome unknown") and deletes the manifests it wrote.
    catalog.refuse.store(false, Ordering::SeqCst);
    catalog.deny.store(true, Ordering::SeqCst);
    let manifests = || {
        std::fs::read_dir(dir.path().join("db.db/t/manifest"))
            .unwrap()
            .count()
    };
    let before_manifests = manifests();
    let before = catalog.commits.load(Ordering::SeqCst);
    let err = commit(t.clone(), vec![5]).await.unwrap_err();
    assert_eq!(err.kind(), strata::ErrorKind::Unsupported, "{err}");
    assert!(!err.may_have_committed(), "{err}");
    assert_eq!(catalog.commits.load(Ordering::SeqCst), before + 1);
    assert_eq!(
        manifests(),
        before_manifests,
        "the refused commit's manifests stay"
    );
    let latest = t.snapshot_manager().latest().await.unwrap().unwrap();
    assert_eq!(latest.id, 2);
}
