//! Every function endpoint over raw HTTP: create / get / alter / drop with Java's
//! `RESTCatalogServer` answers (404 `FUNCTION`, 409, 409 / 404 `DEFINITION`), Java's name rule,
//! the three definition kinds kept as sent, lists with patterns and pages, globally, and
//! functions surviving a restart.

use serde_json::{json, Value};

use crate::support::{assert_error, delete, get, post, Answer, Running};
use crate::views::all_pages;

fn definitions() -> Value {
    json!({
        "flink": {"type": "file", "fileResources": [{"resourceType": "JAR", "uri": "/lib/f.jar"}],
                  "language": "JAVA", "className": "com.example.F", "functionName": "eval"},
        "spark": {"type": "lambda", "definition": "(Integer x) -> x + 1", "language": "JAVA"},
        "trino": {"type": "sql", "definition": "x + 1"}
    })
}

async fn create_function(s: &Running, db: &str, name: &str) -> Answer {
    post(
        &s.api(&format!("/databases/{db}/functions")),
        &json!({
            "name": name,
            "inputParams": [{"id": 0, "name": "x", "type": "INT"}],
            "returnParams": [{"id": 0, "name": "y", "type": "INT NOT NULL"}],
            "deterministic": true,
            "definitions": definitions(),
            "comment": "adds one",
            "options": {"k": "v"}
        })
        .to_string(),
    )
    .await
}

async fn alter(s: &Running, f: &str, changes: Value) -> Answer {
    post(
        &s.api(&format!("/databases/db/functions/{f}")),
        &json!({ "changes": changes }).to_string(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_create_get_alter_list_drop() {
    let dir = tempfile::tempdir().unwrap();
    let s = Running::start(dir.path()).await;
    let d = s.dir.clone();
    for db in ["db", "other"] {
        let a = post(&s.api("/databases"), &format!(r#"{{"name":"{db}"}}"#)).await;
        assert_eq!(a.status, 200);
    }

    assert_eq!(create_function(&s, "db", "f1").await.status, 200);
    assert!(d.join("db.db/.functions/f1.json").is_file());
    let dup = create_function(&s, "db", "f1").await;
    assert_error(&dup, 409, &d);
    assert_eq!(dup.body["resourceType"], "FUNCTION");
    assert_error(&create_function(&s, "nope", "f1").await, 404, &d);
    // Java's RESTFunctionValidator: letters, digits, `._-`, at least one letter
    for bad in ["123", "_-", "a$b", "a b", "a@b"] {
        assert_error(&create_function(&s, "db", bad).await, 400, &d);
    }
    assert_error(&get(&s.api("/databases/db/functions/1")).await, 400, &d);

    let g = get(&s.api("/databases/db/functions/f1")).await;
    assert_eq!(g.status, 200, "{}", g.text);
    assert_eq!(g.body["name"], "f1");
    assert_eq!(g.body["definitions"], definitions());
    assert_eq!(
        g.body["inputParams"],
        json!([{"id": 0, "name": "x", "type": "INT"}])
    );
    assert_eq!(g.body["returnParams"][0]["type"], "INT NOT NULL");
    assert_eq!(
        (g.body["deterministic"].clone(), g.body["comment"].clone()),
        (json!(true), json!("adds one"))
    );
    assert!(g.body["uuid"].is_string() && g.body["createdBy"].is_string());
    let missing = get(&s.api("/databases/db/functions/nope")).await;
    assert_error(&missing, 404, &d);
    assert_eq!(missing.body["resourceType"], "FUNCTION");

    // alter: all changes or none
    let ok = alter(
        &s,
        "f1",
        json!([{"action": "addDefinition", "name": "hive", "definition": {"type": "sql", "definition": "x+1"}},
               {"action": "updateDefinition", "name": "trino", "definition": {"type": "sql", "definition": "x + 2"}},
               {"action": "dropDefinition", "name": "spark"},
               {"action": "setOption", "key": "a", "value": "b"},
               {"action": "removeOption", "key": "k"},
               {"action": "updateComment", "comment": "adds"}]),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    let g = get(&s.api("/databases/db/functions/f1")).await.body;
    let mut dialects: Vec<&String> = g["definitions"].as_object().unwrap().keys().collect();
    dialects.sort();
    assert_eq!(dialects, ["flink", "hive", "trino"]);
    assert_eq!(g["definitions"]["trino"]["definition"], "x + 2");
    assert_eq!(
        (g["options"].clone(), g["comment"].clone()),
        (json!({"a": "b"}), json!("adds"))
    );
    let twice = alter(&s, "f1", json!([{"action": "addDefinition", "name": "hive", "definition": {"type": "sql", "definition": "1"}}])).await;
    assert_error(&twice, 409, &d);
    assert_eq!(
        (
            twice.body["resourceType"].clone(),
            twice.body["resourceName"].clone()
        ),
        (json!("DEFINITION"), json!("hive"))
    );
    let partial = alter(
        &s,
        "f1",
        json!([{"action": "setOption", "key": "a", "value": "c"},
               {"action": "updateDefinition", "name": "nope", "definition": {"type": "sql", "definition": "1"}}]),
    )
    .await;
    assert_error(&partial, 404, &d);
    assert_eq!(partial.body["resourceType"], "DEFINITION");
    assert_eq!(
        get(&s.api("/databases/db/functions/f1")).await.body["options"],
        json!({"a": "b"})
    );
    assert_error(&alter(&s, "nope", json!([])).await, 404, &d);
    assert_error(
        &alter(
            &s,
            "f1",
            json!([{"action": "dropDefinition", "name": "spark"}]),
        )
        .await,
        404,
        &d,
    );

    // lists
    assert_eq!(create_function(&s, "db", "f2").await.status, 200);
    assert_eq!(create_function(&s, "db", "g.1").await.status, 200);
    assert_eq!(create_function(&s, "other", "h").await.status, 200);
    let l = get(&s.api("/databases/db/functions")).await;
    assert_eq!(l.body["functions"], json!(["f1", "f2", "g.1"]));
    assert_eq!(l.body.get("nextPageToken"), Some(&Value::Null));
    let l = get(&s.api("/databases/db/functions?functionNamePattern=f%25")).await;
    assert_eq!(l.body["functions"], json!(["f1", "f2"]));
    assert_error(&get(&s.api("/databases/nope/functions")).await, 404, &d);
    let pages = all_pages(&s, "/databases/db/functions", "functions").await;
    assert_eq!(
        pages,
        vec![vec![json!("f1")], vec![json!("f2")], vec![json!("g.1")]]
    );
    let details = all_pages(&s, "/databases/db/function-details", "functionDetails").await;
    let names: Vec<Value> = details
        .iter()
        .flatten()
        .map(|f| f["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("f1"), json!("f2"), json!("g.1")]);
    assert_eq!(details[1][0]["definitions"], definitions());
    let global = get(&s.api("/functions?databaseNamePattern=oth%25")).await;
    assert_eq!(
        global.body["functions"],
        json!([{"database": "other", "object": "h"}])
    );
    assert_eq!(
        all_pages(&s, "/functions", "functions")
            .await
            .concat()
            .len(),
        4
    );
    // a function is no table, no view
    assert_eq!(
        get(&s.api("/databases/db/tables")).await.body["tables"],
        json!([])
    );
    assert_eq!(
        get(&s.api("/databases/db/views")).await.body["views"],
        json!([])
    );

    // drop
    assert_eq!(
        delete(&s.api("/databases/db/functions/f2")).await.status,
        200
    );
    let again = delete(&s.api("/databases/db/functions/f2")).await;
    assert_error(&again, 404, &d);
    assert_eq!(again.body["resourceType"], "FUNCTION");
    s.stop().await;

    // functions are files: a restarted server has them
    let s = Running::start(dir.path()).await;
    let g = get(&s.api("/databases/db/functions/f1")).await;
    assert_eq!(g.body["definitions"]["trino"]["definition"], "x + 2");
    let l = get(&s.api("/databases/db/functions")).await;
    assert_eq!(l.body["functions"], json!(["f1", "g.1"]));
    s.stop().await;
}
