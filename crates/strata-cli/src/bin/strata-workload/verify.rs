//! `strata-workload verify`: the table after any mix of concurrent, killed and faulted writers
//! must be exactly the landed commits, each once.
//!
//! Checks, each failing with what it found:
//! 1. snapshot ids are consecutive (none lost, none skipped);
//! 2. per writer, the APPEND snapshots carry identifiers 1, 2, ..., max — each exactly once —
//!    and each COMPACT identifier appears at most once, after its APPEND;
//! 3. every commit a log acknowledged is among them, at the snapshot id it reported;
//! 4. the rows read equal the model of the landed prefixes (`model::apply_writer`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use arrow::array::{Array, AsArray};
use arrow::datatypes::{Int32Type, Int64Type};
use strata_spec::snapshot::CommitKind;

use crate::model;
use crate::table_args::{open, Res, TableArgs};

pub async fn verify(
    t: &TableArgs,
    logs: &[PathBuf],
    expect_commits: Option<i64>,
    rows: i32,
    expected_out: Option<&Path>,
) -> Res<()> {
    let (catalog, id) = open(t).await?;
    let table = catalog.get_table(&id).await.map_err(|e| e.to_string())?;
    let sm = table.snapshot_manager();
    let ids = sm.list_ids().await.map_err(|e| e.to_string())?;
    if let (Some(first), Some(last)) = (ids.first(), ids.last()) {
        if ids.len() as i64 != last - first + 1 {
            return Err(format!("snapshot ids are not consecutive: {ids:?}"));
        }
        let latest = sm.latest_id().await.map_err(|e| e.to_string())?;
        if latest != Some(*last) {
            return Err(format!(
                "latest snapshot is {latest:?}, files go up to {last}"
            ));
        }
    }
    let complete = ids.first().is_none_or(|f| *f == 1);

    // (writer) → identifier → APPEND snapshot id; COMPACT identifiers.
    let mut appends: BTreeMap<String, BTreeMap<i64, i64>> = BTreeMap::new();
    let mut compacts: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    let (mut n_append, mut n_compact) = (0usize, 0usize);
    for sid in &ids {
        let s = sm.snapshot(*sid).await.map_err(|e| e.to_string())?;
        let Some(w) = model::writer_of(&s.commit_user) else {
            continue;
        };
        match s.commit_kind {
            CommitKind::Append => {
                n_append += 1;
                let prev = appends
                    .entry(w.to_string())
                    .or_default()
                    .insert(s.commit_identifier, s.id);
                if let Some(prev) = prev {
                    return Err(format!(
                        "{}: identifier {} committed twice (snapshots {prev} and {})",
                        s.commit_user, s.commit_identifier, s.id
                    ));
                }
            }
            CommitKind::Compact => {
                n_compact += 1;
                let has_append = appends
                    .get(w)
                    .is_some_and(|a| a.contains_key(&s.commit_identifier));
                if complete && !has_append {
                    return Err(format!(
                        "{}: COMPACT snapshot {} of identifier {} without its APPEND before it",
                        s.commit_user, s.id, s.commit_identifier
                    ));
                }
                if !compacts
                    .entry(w.to_string())
                    .or_default()
                    .insert(s.commit_identifier)
                {
                    return Err(format!(
                        "{}: COMPACT of identifier {} committed twice",
                        s.commit_user, s.commit_identifier
                    ));
                }
            }
            other => return Err(format!("unexpected {other:?} snapshot {}", s.id)),
        }
    }
    let mut max_of: BTreeMap<String, i64> = BTreeMap::new();
    for (w, idents) in &appends {
        let got: Vec<i64> = idents.keys().copied().collect();
        let first = if complete { 1 } else { got[0] };
        let want: Vec<i64> =
            (first..=*got.last().expect("a writer entry has an identifier")).collect();
        if got != want {
            return Err(format!(
                "wl-{w}: identifiers landed are {got:?}, expected {want:?}"
            ));
        }
        if let Some(n) = expect_commits {
            if *got.last().expect("non-empty") != n {
                return Err(format!(
                    "wl-{w}: {} identifiers landed, expected {n}",
                    got.len()
                ));
            }
        }
        max_of.insert(w.clone(), *got.last().expect("non-empty"));
    }

    let mut acked = 0usize;
    for log in logs {
        let text = match std::fs::read_to_string(log) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot read {}: {e}", log.display())),
        };
        for line in text.lines() {
            // A writer killed mid-line leaves a partial last line: it was never acknowledged.
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let user = v["user"].as_str().unwrap_or_default();
            let ident = v["identifier"].as_i64().unwrap_or_default();
            let w = model::writer_of(user).unwrap_or_default();
            let landed = appends.get(w).and_then(|a| a.get(&ident));
            match (landed, v["snapshot"].as_i64()) {
                (None, _) if complete => {
                    return Err(format!(
                        "{user}: acknowledged commit {ident} is not in the table"
                    ))
                }
                (Some(got), Some(said)) if *got != said => {
                    return Err(format!(
                        "{user}: commit {ident} acknowledged as snapshot {said}, is {got}"
                    ))
                }
                _ => acked += 1,
            }
        }
    }

    let mut want = model::Model::new();
    for (w, max) in &max_of {
        model::apply_writer(&mut want, w, *max, rows);
    }
    let got = read_rows(&table).await?;
    if got != want {
        let missing: Vec<_> = want
            .iter()
            .filter(|(k, v)| got.get(*k) != Some(v))
            .take(5)
            .collect();
        let extra: Vec<_> = got
            .iter()
            .filter(|(k, v)| want.get(*k) != Some(v))
            .take(5)
            .collect();
        return Err(format!(
            "rows differ from the model of the landed commits: {} rows read, {} expected; \
             expected but not read (first 5): {missing:?}; read but not expected: {extra:?}",
            got.len(),
            want.len()
        ));
    }
    if let Some(out) = expected_out {
        let mut f = std::fs::File::create(out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        for ((u, k), (ident, v)) in &want {
            let line = serde_json::json!({"u": u, "k": k, "ident": ident, "v": v});
            writeln!(f, "{line}").map_err(|e| format!("{}: {e}", out.display()))?;
        }
    }
    println!(
        "{}",
        serde_json::json!({
            "snapshots": ids.len(),
            "writers": max_of.len(),
            "appendCommits": n_append,
            "compactCommits": n_compact,
            "acknowledged": acked,
            "rows": got.len(),
        })
    );
    Ok(())
}

async fn read_rows(table: &strata::table::Table) -> Res<model::Model> {
    let plan = table.new_scan().plan().await.map_err(|e| e.to_string())?;
    let batches = table
        .new_read()
        .to_batches(plan.splits)
        .await
        .map_err(|e| e.to_string())?;
    let mut out = model::Model::new();
    for b in batches {
        let col = |name: &str| {
            b.column_by_name(name)
                .cloned()
                .ok_or_else(|| format!("column {name} missing from the read"))
        };
        let (u, k, i, v) = (col("u")?, col("k")?, col("ident")?, col("v")?);
        let (u, k, i, v) = (
            u.as_string::<i32>(),
            k.as_primitive::<Int32Type>(),
            i.as_primitive::<Int64Type>(),
            v.as_string::<i32>(),
        );
        for r in 0..b.num_rows() {
            let key = (u.value(r).to_string(), k.value(r));
            if out.contains_key(&key) {
                return Err(format!("key {key:?} read twice"));
            }
            let ident = if i.is_null(r) { -1 } else { i.value(r) };
            out.insert(key, (ident, v.value(r).to_string()));
        }
    }
    Ok(out)
}
