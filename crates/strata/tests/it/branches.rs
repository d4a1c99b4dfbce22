//! Branches (Java's `FileSystemBranchManager`): created empty, from a tag or a snapshot;
//! `db.t$branch_b` opened through the catalog reads and writes the branch's own snapshots,
//! schemas and tags while data files stay shared; fast-forward makes main take the branch's
//! history; delete removes the branch directory; rename moves it; names validated as Java
//! does; orphan cleanup keeps every file a branch or its tags reference. Schema rollback
//! (Java's `SchemaManager.rollbackTo`) keeps what snapshots and tags need.

use crate::lifecycle_support::*;
use strata::catalog::Identifier;
use strata::maintenance::{OrphanFilesClean, TableLifecycle};
use strata::table::branches::BranchStart;

fn id(s: &str) -> Identifier {
    s.parse().unwrap()
}

#[tokio::test]
async fn branch_from_tag_reads_and_writes_its_own_history() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    write(&t, batch(0..10, "a")).await;
    write(&t, batch(10..20, "b")).await;
    t.create_tag("tag2", Some(2), None).await.unwrap();
    write(&t, batch(20..30, "c")).await;

    t.create_branch("dev", BranchStart::Tag("tag2".into()))
        .await
        .unwrap();
    assert_eq!(t.branches().await.unwrap(), vec!["dev".to_string()]);
    let dir = lake.table_dir("db.t").join("branch/branch-dev");
    assert!(dir.join("snapshot/snapshot-2").is_file());
    assert!(dir.join("schema/schema-0").is_file());
    assert!(dir.join("tag/tag-tag2").is_file());
    assert!(!dir.join("snapshot/snapshot-3").exists());

    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    assert_eq!(dev.branch(), "dev");
    assert_eq!(dev.identifier().to_string(), "db.t$branch_dev");
    assert_eq!(dev.options().get("branch"), Some("dev"));
    assert_eq!(rows(&dev, None).await.len(), 20);
    // A write on the branch is the branch's snapshot 3; main's snapshot 3 is untouched.
    let s = write(&dev, batch(100..105, "dev")).await;
    assert_eq!(s, 3);
    assert!(dir.join("snapshot/snapshot-3").is_file());
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    let dev_rows = rows(&dev, None).await;
    assert_eq!(dev_rows.len(), 25);
    assert!(dev_rows.contains_key(&100) && !dev_rows.contains_key(&20));
    let main = lake.table("db.t").await;
    let main_rows = rows(&main, None).await;
    assert_eq!(main_rows.len(), 30);
    assert!(!main_rows.contains_key(&100));
    // Data files of the branch sit in the shared bucket directories.
    assert!(!dir.join("bucket-0").exists());

    // ALTER TABLE on the branch writes the branch's schema-1 and keeps the handle on it.
    let altered = dev
        .alter(&[strata_spec::schema::SchemaChange::set_option(
            "snapshot.num-retained.min",
            "5",
        )])
        .await
        .unwrap();
    assert_eq!(altered.branch(), "dev");
    assert_eq!(altered.options().get("branch"), Some("dev"));
    assert!(dir.join("schema/schema-1").is_file());
    assert!(!lake.table_dir("db.t").join("schema/schema-1").exists());

    // Tags and rollback on the branch are the branch's.
    dev.create_tag("devtag", None, None).await.unwrap();
    assert!(dir.join("tag/tag-devtag").is_file());
    assert!(!lake.table_dir("db.t").join("tag/tag-devtag").exists());
    dev.rollback_to_snapshot(2).await.unwrap();
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    assert_eq!(rows(&dev, None).await.len(), 20);
    assert_eq!(rows(&lake.table("db.t").await, None).await.len(), 30);
}

#[tokio::test]
async fn empty_branch_fast_forward_and_delete() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    write(&t, batch(0..10, "a")).await;
    t.create_branch("b1", BranchStart::Empty).await.unwrap();
    let b1 = lake.catalog.get_table(&id("db.t$branch_b1")).await.unwrap();
    assert_eq!(rows(&b1, None).await.len(), 0);
    assert_eq!(b1.snapshot_manager().latest_id().await.unwrap(), None);
    // Fast-forward needs a snapshot on the branch.
    let e = t.fast_forward("b1").await.unwrap_err();
    assert!(e.to_string().contains("does not have snapshot"), "{e}");

    t.create_branch("b2", BranchStart::Snapshot(1))
        .await
        .unwrap();
    let b2 = lake.catalog.get_table(&id("db.t$branch_b2")).await.unwrap();
    write(&b2, batch(50..60, "b2")).await;
    write(&b2, batch(60..70, "b2")).await;
    b2.create_tag("b2tag", None, None).await.unwrap();
    write(&t, batch(10..20, "main-only")).await; // main's snapshot 2, replaced below

    t.fast_forward("b2").await.unwrap();
    let main = lake.table("db.t").await;
    let got = rows(&main, None).await;
    assert_eq!(got.len(), 30);
    assert!(got.contains_key(&65) && !got.contains_key(&15));
    assert_eq!(main.snapshot_manager().latest_id().await.unwrap(), Some(3));
    assert!(main.tags().await.unwrap().iter().any(|t| t.name == "b2tag"));
    // Main writes on from the branch's history.
    assert_eq!(write(&main, batch(70..71, "m")).await, 4);

    // Names as Java validates them.
    for bad in ["main", "", "  ", "123", "b1"] {
        assert!(
            t.create_branch(bad, BranchStart::Empty).await.is_err(),
            "{bad:?}"
        );
    }
    assert!(t.fast_forward("main").await.is_err());
    assert!(t.delete_branch("nope").await.is_err());
    assert!(t
        .create_branch("x", BranchStart::Tag("nope".into()))
        .await
        .is_err());
    t.delete_branch("b1").await.unwrap();
    assert!(!lake.table_dir("db.t").join("branch/branch-b1").exists());
    assert_eq!(t.branches().await.unwrap(), vec!["b2".to_string()]);
    let e = lake
        .catalog
        .get_table(&id("db.t$branch_b1"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), strata::ErrorKind::NotFound, "{e}");
    // Creating or dropping a branch identifier is refused as Java's checkNotBranch does.
    assert!(lake
        .catalog
        .drop_table(&id("db.t$branch_b2"), false)
        .await
        .is_err());
    // A handle stays on its branch: the `branch` dynamic option cannot switch it.
    assert!(t
        .with_dynamic_options([("branch".to_string(), "b2".to_string())])
        .is_err());
}

#[tokio::test]
async fn orphan_cleanup_keeps_what_branches_reference() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    write(&t, batch(0..100, "a")).await;
    t.create_tag("t1", Some(1), None).await.unwrap();
    t.create_branch("dev", BranchStart::Tag("t1".into()))
        .await
        .unwrap();
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    write(&dev, batch(100..200, "dev")).await;
    full_compact(&dev).await;
    let dev_rows = rows(&dev, None).await;
    let main_rows = rows(&t, None).await;
    // A leftover in the branch's snapshot directory is a candidate.
    let leftover = lake
        .table_dir("db.t")
        .join("branch/branch-dev/snapshot/.snapshot-9.tmp");
    std::fs::write(&leftover, b"x").unwrap();
    sleep_ms(20).await;

    let report = OrphanFilesClean::new(&t, t.clock().now_millis() + 1)
        .clean()
        .await
        .unwrap();
    let names: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].ends_with(".snapshot-9.tmp"));
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    assert_eq!(rows(&dev, None).await, dev_rows);
    assert_eq!(rows(&lake.table("db.t").await, None).await, main_rows);

    // A branch without a schema aborts the cleanup, as Java's validBranches does.
    std::fs::create_dir_all(lake.table_dir("db.t").join("branch/branch-broken")).unwrap();
    let e = OrphanFilesClean::new(&t, t.clock().now_millis() + 1)
        .clean()
        .await
        .unwrap_err();
    assert!(e.to_string().contains("have no schemas"), "{e}");
}

#[tokio::test]
async fn streaming_read_and_expiry_of_a_branch_are_the_branch_s() {
    use futures::StreamExt;
    use strata::maintenance::{ExpireConfig, ExpireSnapshots};
    use strata::stream::StartingPosition;

    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    write(&t, batch(0..10, "a")).await;
    t.create_tag("t1", Some(1), None).await.unwrap();
    t.create_branch("dev", BranchStart::Tag("t1".into()))
        .await
        .unwrap();
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    write(&dev, batch(10..13, "dev")).await; // branch snapshot 2
    write(&t, batch(100..150, "main")).await; // main snapshot 2: not in the branch's stream
    write(&dev, batch(13..15, "dev")).await; // branch snapshot 3

    // A stream of the branch from its snapshot 2 sees the branch's changes only.
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    let mut changes = dev
        .new_stream_read()
        .with_start(StartingPosition::FromSnapshot(2))
        .until_snapshot(3)
        .changes()
        .unwrap();
    let mut seen = Vec::new();
    while let Some(c) = changes.next().await {
        let c = c.unwrap();
        seen.push((c.snapshot_id, c.batch.num_rows()));
    }
    assert_eq!(seen, vec![(2, 3), (3, 2)]);

    // Expiry on the branch removes the branch's snapshots, never main's.
    write(&dev, batch(15..16, "dev")).await;
    let report = ExpireSnapshots::new(&dev)
        .unwrap()
        .with_config(ExpireConfig {
            retain_max: 1,
            retain_min: 1,
            time_retained: std::time::Duration::ZERO,
            max_deletes: 100,
        })
        .expire()
        .await
        .unwrap();
    assert!(!report.expired.is_empty());
    let dir = lake.table_dir("db.t");
    assert!(!dir.join("branch/branch-dev/snapshot/snapshot-2").exists());
    assert!(dir.join("snapshot/snapshot-1").is_file());
    assert!(dir.join("snapshot/snapshot-2").is_file());
    assert_eq!(rows(&lake.table("db.t").await, None).await.len(), 60);
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    assert_eq!(rows(&dev, None).await.len(), 16);
    // The tag the branch copied keeps snapshot 1's files for the branch.
    let (at, scan) = dev
        .travel_to(&strata::maintenance::TravelTarget::Tag("t1".into()))
        .await
        .unwrap();
    assert_eq!(rows_of(&at, scan).await.len(), 10);
}

/// Java's `FileSystemBranchManager.renameBranch`: the branch's files under the new name, the
/// old directory gone; the branch reads as before under its new name.
#[tokio::test]
async fn rename_branch_moves_its_files() {
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    write(&t, batch(0..10, "a")).await;
    t.create_tag("tag1", Some(1), None).await.unwrap();
    t.create_branch("dev", BranchStart::Tag("tag1".into()))
        .await
        .unwrap();
    let dev = lake
        .catalog
        .get_table(&id("db.t$branch_dev"))
        .await
        .unwrap();
    write(&dev, batch(10..15, "d")).await;

    for (from, to, says) in [
        ("main", "x", "Cannot rename the main branch"),
        ("nope", "x", "Branch name 'nope' doesn't exist"),
        ("dev", "dev", "Branch name 'dev' already exists"),
        ("dev", "123", "pure numeric"),
    ] {
        let e = t.rename_branch(from, to).await.unwrap_err();
        assert!(e.to_string().contains(says), "{from} → {to}: {e}");
    }
    t.rename_branch("dev", "prod").await.unwrap();
    assert_eq!(t.branches().await.unwrap(), vec!["prod".to_string()]);
    let root = lake.table_dir("db.t").join("branch");
    assert!(!root.join("branch-dev").exists());
    for f in ["snapshot/snapshot-2", "tag/tag-tag1", "schema/schema-0"] {
        assert!(root.join("branch-prod").join(f).is_file(), "{f}");
    }
    let prod = lake
        .catalog
        .get_table(&id("db.t$branch_prod"))
        .await
        .unwrap();
    assert_eq!(rows(&prod, None).await.len(), 15);
    assert_eq!(write(&prod, batch(15..16, "p")).await, 3);
}

/// Java's `SchemaManager.rollbackTo`: newer schemas deleted unless a snapshot or tag still
/// needs one.
#[tokio::test]
async fn rollback_schema_keeps_what_snapshots_and_tags_need() {
    use strata_spec::schema::SchemaChange;
    let lake = Lake::new();
    let t = lake.pk_table("db.t", "").await;
    write(&t, batch(0..10, "a")).await;
    let opt = |v: &str| [SchemaChange::set_option("snapshot.num-retained.min", v)];
    let t1 = t.alter(&opt("5")).await.unwrap();
    write(&t1, batch(10..20, "b")).await; // snapshot 2 with schema 1
    t1.create_tag("s1", Some(2), None).await.unwrap();
    let t2 = t1.alter(&opt("6")).await.unwrap();
    t2.alter(&opt("7")).await.unwrap();
    let schema = |n: i64| lake.table_dir("db.t").join(format!("schema/schema-{n}"));
    assert!(schema(3).is_file());

    let e = t.rollback_schema(0).await.unwrap_err();
    assert!(
        e.to_string().contains("schema 1 is still referenced"),
        "{e}"
    );
    let e = t.rollback_schema(7).await.unwrap_err();
    assert!(e.to_string().contains("Schema 7 does not exist"), "{e}");
    assert!(schema(3).is_file());
    assert_eq!(t.rollback_schema(1).await.unwrap(), vec![3, 2]);
    assert!(schema(1).is_file() && !schema(2).exists());
    // without the tag, snapshot 2 still needs schema 1; rolled back to snapshot 1, it goes
    t.delete_tag("s1").await.unwrap();
    let e = t.rollback_schema(0).await.unwrap_err();
    assert!(
        e.to_string().contains("schema 1 is still referenced"),
        "{e}"
    );
    t.rollback_to_snapshot(1).await.unwrap();
    assert_eq!(t.rollback_schema(0).await.unwrap(), vec![1]);
    assert_eq!(lake.table("db.t").await.schema().id, 0);
}
