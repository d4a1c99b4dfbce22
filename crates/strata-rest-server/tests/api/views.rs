//! Every view endpoint over raw HTTP: create / get / alter / rename / drop with Java's
//! `RESTCatalogServer` answers (404 `VIEW`, 409 `VIEW`, 409 / 404 `DIALECT`), lists with
//! patterns and pages, globally, the `.views` files in the warehouse (not tables to strata's
//! filesystem catalog), and views surviving a restart.

use serde_json::{json, Value};
use strata::catalog::FileSystemCatalog;

use crate::support::{assert_error, create_table, delete, get, post, Answer, Running};

fn view_body(db: &str, name: &str) -> String {
    json!({
        "identifier": {"database": db, "object": name},
        "schema": {
            "fields": [{"id": 0, "name": "id", "type": "BIGINT NOT NULL"},
                       {"id": 1, "name": "v", "type": "STRING"}],
            "query": "SELECT id, v FROM t",
            "dialects": {"spark": "SELECT id, v FROM db.t"},
            "comment": "first",
            "options": {"k": "v"}
        }
    })
    .to_string()
}

async fn create_view(s: &Running, db: &str, name: &str) -> Answer {
    post(
        &s.api(&format!("/databases/{db}/views")),
        &view_body(db, name),
    )
    .await
}

async fn alter(s: &Running, view: &str, changes: Value) -> Answer {
    post(
        &s.api(&format!("/databases/db/views/{view}")),
        &json!({ "changes": changes }).to_string(),
    )
    .await
}

/// Every page of `path` (a list endpoint) with `maxResults=1`: the pages' `key` members.
pub(crate) async fn all_pages(s: &Running, path: &str, key: &str) -> Vec<Vec<Value>> {
    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    let sep = if path.contains('?') { '&' } else { '?' };
    loop {
        let url = match &token {
            Some(t) => s.api(&format!("{path}{sep}maxResults=1&pageToken={t}")),
            None => s.api(&format!("{path}{sep}maxResults=1")),
        };
        let a = get(&url).await;
        assert_eq!(a.status, 200, "{}", a.text);
        pages.push(a.body[key].as_array().unwrap().clone());
        token = a.body["nextPageToken"].as_str().map(str::to_string);
        if token.is_none() {
            return pages;
        }
        assert!(pages.len() < 20, "paging does not end");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_create_get_alter_list_rename_drop() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let d = s.dir.clone();
    for db in ["db", "other"] {
        let a = post(&s.api("/databases"), &format!(r#"{{"name":"{db}"}}"#)).await;
        assert_eq!(a.status, 200);
    }

    // create: the file is the answer of getView; 409 VIEW, 404 DATABASE, 400 names
    assert_eq!(create_view(&s, "db", "v1").await.status, 200);
    assert!(d.join("db.db/.views/v1.json").is_file());
    let dup = create_view(&s, "db", "v1").await;
    assert_error(&dup, 409, &d);
    assert_eq!(dup.body["resourceType"], "VIEW");
    let nodb = create_view(&s, "nope", "v1").await;
    assert_error(&nodb, 404, &d);
    assert_eq!(nodb.body["resourceType"], "DATABASE");
    assert!(!d.join("nope.db").exists());
    for bad in [".x", "a$b", "a/b"] {
        assert_error(&create_view(&s, "db", bad).await, 400, &d);
    }
    let mismatch = post(&s.api("/databases/db/views"), &view_body("other", "v9")).await;
    assert_error(&mismatch, 400, &d);

    let g = get(&s.api("/databases/db/views/v1")).await;
    assert_eq!(g.status, 200, "{}", g.text);
    assert_eq!(g.body["name"], "v1");
    assert_eq!(g.body["schema"]["query"], "SELECT id, v FROM t");
    assert_eq!(
        g.body["schema"]["dialects"],
        json!({"spark": "SELECT id, v FROM db.t"})
    );
    assert_eq!(g.body["schema"]["fields"][0]["type"], "BIGINT NOT NULL");
    assert_eq!(g.body["schema"]["comment"], "first");
    assert!(g.body["id"].is_string() && g.body["owner"].is_string());
    assert!(g.body["createdAt"].as_i64().unwrap() > 0);
    let missing = get(&s.api("/databases/db/views/nope")).await;
    assert_error(&missing, 404, &d);
    assert_eq!(missing.body["resourceType"], "VIEW");

    // alter: all changes or none
    let ok = alter(
        &s,
        "v1",
        json!([{"action": "addDialect", "dialect": "flink", "query": "SELECT 2"},
               {"action": "setOption", "key": "x", "value": "1"},
               {"action": "removeOption", "key": "k"},
               {"action": "updateComment", "comment": null},
               {"action": "updateDialect", "dialect": "spark", "query": "SELECT 3"}]),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    let g = get(&s.api("/databases/db/views/v1")).await.body;
    assert_eq!(
        g["schema"]["dialects"],
        json!({"flink": "SELECT 2", "spark": "SELECT 3"})
    );
    assert_eq!(g["schema"]["options"], json!({"x": "1"}));
    assert!(g["schema"].get("comment").is_none());
    let twice = alter(
        &s,
        "v1",
        json!([{"action": "addDialect", "dialect": "flink", "query": "q"}]),
    )
    .await;
    assert_error(&twice, 409, &d);
    assert_eq!(
        (
            twice.body["resourceType"].clone(),
            twice.body["resourceName"].clone()
        ),
        (json!("DIALECT"), json!("flink"))
    );
    let partial = alter(
        &s,
        "v1",
        json!([{"action": "setOption", "key": "x", "value": "2"},
               {"action": "dropDialect", "dialect": "nope"}]),
    )
    .await;
    assert_error(&partial, 404, &d);
    assert_eq!(partial.body["resourceType"], "DIALECT");
    let g = get(&s.api("/databases/db/views/v1")).await.body;
    assert_eq!(g["schema"]["options"], json!({"x": "1"}), "nothing applied");
    assert_error(&alter(&s, "nope", json!([])).await, 404, &d);
    assert_error(
        &alter(&s, "v1", json!([{"action": "renameView"}])).await,
        400,
        &d,
    );

    // a view may share a table's name (Java's server allows it); it is no table
    assert_eq!(create_table(&s, "db", "t").await.status, 200);
    assert_eq!(create_view(&s, "db", "t").await.status, 200);
    assert_eq!(create_view(&s, "db", "v2").await.status, 200);
    assert_eq!(create_view(&s, "other", "w").await.status, 200);
    let tables = get(&s.api("/databases/db/tables")).await;
    assert_eq!(tables.body["tables"], json!(["t"]));
    let fs = FileSystemCatalog::open(d.to_str().unwrap()).unwrap();
    assert_eq!(fs.list_tables("db").await.unwrap(), vec!["t".to_string()]);

    // lists: names, patterns, details, globally, every page
    let l = get(&s.api("/databases/db/views")).await;
    assert_eq!(l.body["views"], json!(["t", "v1", "v2"]));
    assert_eq!(l.body.get("nextPageToken"), Some(&Value::Null));
    let l = get(&s.api("/databases/db/views?viewNamePattern=v%25")).await;
    assert_eq!(l.body["views"], json!(["v1", "v2"]));
    assert_error(
        &get(&s.api("/databases/db/views?viewNamePattern=%25v")).await,
        400,
        &d,
    );
    assert_error(&get(&s.api("/databases/nope/views")).await, 404, &d);
    let pages = all_pages(&s, "/databases/db/views", "views").await;
    assert_eq!(
        pages,
        vec![vec![json!("t")], vec![json!("v1")], vec![json!("v2")]]
    );
    let details = all_pages(
        &s,
        "/databases/db/view-details?viewNamePattern=v%25",
        "viewDetails",
    )
    .await;
    let names: Vec<Value> = details
        .iter()
        .flatten()
        .map(|v| v["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("v1"), json!("v2")]);
    assert_eq!(details[0][0]["schema"]["options"], json!({"x": "1"}));
    let global = get(&s.api("/views")).await;
    assert_eq!(
        global.body["views"],
        json!([{"database": "db", "object": "t"}, {"database": "db", "object": "v1"},
               {"database": "db", "object": "v2"}, {"database": "other", "object": "w"}])
    );
    let global = get(&s.api("/views?databaseNamePattern=oth%25&viewNamePattern=w")).await;
    assert_eq!(
        global.body["views"],
        json!([{"database": "other", "object": "w"}])
    );
    assert_eq!(all_pages(&s, "/views", "views").await.len(), 4);

    // rename: within and across databases; 404 VIEW / DATABASE, 409 VIEW
    let rename = |from: (&str, &str), to: (&str, &str)| {
        json!({"source": {"database": from.0, "object": from.1},
               "destination": {"database": to.0, "object": to.1}})
        .to_string()
    };
    let r = post(&s.api("/views/rename"), &rename(("db", "v2"), ("db", "v3"))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_error(&get(&s.api("/databases/db/views/v2")).await, 404, &d);
    assert_eq!(
        get(&s.api("/databases/db/views/v3")).await.body["name"],
        "v3"
    );
    let r = post(
        &s.api("/views/rename"),
        &rename(("db", "v3"), ("other", "v3")),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(
        d.join("other.db/.views/v3.json").is_file() && !d.join("db.db/.views/v3.json").exists()
    );
    let exists = post(
        &s.api("/views/rename"),
        &rename(("db", "v1"), ("other", "w")),
    )
    .await;
    assert_error(&exists, 409, &d);
    assert_eq!(exists.body["resourceType"], "VIEW");
    let gone = post(&s.api("/views/rename"), &rename(("db", "v2"), ("db", "v4"))).await;
    assert_error(&gone, 404, &d);
    assert_eq!(gone.body["resourceType"], "VIEW");
    let nodb = post(
        &s.api("/views/rename"),
        &rename(("db", "v1"), ("nope", "v1")),
    )
    .await;
    assert_error(&nodb, 404, &d);
    assert_error(
        &post(&s.api("/views/rename"), &rename(("db", "v1"), ("db", ".x"))).await,
        400,
        &d,
    );

    // drop
    assert_eq!(delete(&s.api("/databases/db/views/t")).await.status, 200);
    let again = delete(&s.api("/databases/db/views/t")).await;
    assert_error(&again, 404, &d);
    assert_eq!(again.body["resourceType"], "VIEW");
    assert_eq!(
        get(&s.api("/databases/db/tables/t")).await.status,
        200,
        "the table stays"
    );
    s.stop().await;

    // views are files: a restarted server has them; dropping the database removes them
    let s = Running::start(dir.path()).await;
    let g = get(&s.api("/databases/db/views/v1")).await;
    assert_eq!(g.body["schema"]["dialects"]["flink"], "SELECT 2");
    assert_eq!(
        get(&s.api("/views")).await.body["views"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(delete(&s.api("/databases/other")).await.status, 200);
    assert!(!d.join("other.db").exists());
    s.stop().await;
}

/// Names no plain file name can hold are stored hex-encoded and listed back as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unicode_view_names_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    assert_eq!(
        post(&s.api("/databases"), r#"{"name":"db"}"#).await.status,
        200
    );
    for name in ["vü", "a b", "x%y"] {
        assert_eq!(create_view(&s, "db", name).await.status, 200, "{name}");
    }
    let mut listed: Vec<String> = get(&s.api("/databases/db/views")).await.body["views"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, vec!["a b", "vü", "x%y"]);
    // `a b` arrives as `a+b` from Java's URLEncoder
    assert_eq!(
        get(&s.api("/databases/db/views/a+b")).await.body["name"],
        "a b"
    );
    assert_eq!(
        get(&s.api("/databases/db/views/v%C3%BC")).await.body["name"],
        "vü"
    );
    s.stop().await;
}

/// Concurrent alters of one view all land (the server serializes them; none is lost), and of
/// racing creates of one name exactly one wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_are_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    assert_eq!(
        post(&s.api("/databases"), r#"{"name":"db"}"#).await.status,
        200
    );
    assert_eq!(create_view(&s, "db", "v").await.status, 200);
    let url = s.api("/databases/db/views/v");
    let alters = (0..8).map(|i| {
        let url = url.clone();
        tokio::spawn(async move {
            let body =
                json!({"changes": [{"action": "setOption", "key": format!("k{i}"), "value": "x"}]});
            post(&url, &body.to_string()).await.status
        })
    });
    let creates = (0..8).map(|_| {
        let url = s.api("/databases/db/views");
        tokio::spawn(async move { post(&url, &view_body("db", "race")).await.status })
    });
    let alters: Vec<_> = alters.collect();
    let creates: Vec<_> = creates.collect();
    for a in alters {
        assert_eq!(a.await.unwrap(), 200);
    }
    let mut statuses = Vec::new();
    for c in creates {
        statuses.push(c.await.unwrap());
    }
    statuses.sort();
    assert_eq!(statuses, [200, 409, 409, 409, 409, 409, 409, 409]);
    let options = get(&url).await.body["schema"]["options"].clone();
    let keys: Vec<&String> = options.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 9, "{options}"); // k0..k7 and the created `k`
    s.stop().await;
}
