//! Unit tests of `authz.rs`: the token-file grammar and the grant decisions.

use super::*;

const FILE: &str = "\
# grants of the test warehouse
adm-token  root
rd-token   reader read
w1-token   w1 write db1
w1-token   w1 read db2.t1

t21-token  t21\tread   db2.t1
";

fn principal(file: &TokenFile, token: &str) -> Principal {
    file.principal_of(token).expect("a known token").clone()
}

#[test]
fn the_grammar_gives_principals_their_grants() {
    let file = TokenFile::parse(FILE).unwrap();
    let names: Vec<&str> = file.principals.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["root", "reader", "w1", "t21"]);
    let w1 = principal(&file, "w1-token");
    assert_eq!(
        *w1.grants,
        [
            Grant {
                level: Level::Write,
                scope: Scope::Database("db1".into())
            },
            Grant {
                level: Level::Read,
                scope: Scope::Table("db2".into(), "t1".into())
            },
        ]
    );
    let root = principal(&file, "adm-token");
    assert_eq!(
        root.grants[0],
        Grant {
            level: Level::Admin,
            scope: Scope::All
        }
    );
    assert!(file.principal_of("w1-toke").is_none() && file.principal_of("").is_none());
    let debug = format!("{file:?}");
    assert!(
        !debug.contains("adm-token") && !debug.contains("rd-token"),
        "{debug}"
    );
}

#[test]
fn malformed_lines_are_refused_naming_the_line() {
    let cases = [
        ("only-a-token", 1, "found 1 field"),
        ("# c\n\nt p read db1 extra", 3, "found 5 field"),
        ("t p reed", 1, "unknown level 'reed'"),
        ("t p read ../x", 1, "invalid"),
        ("t p read db/x", 1, "invalid database name"),
        ("t p read db.t.u", 1, "invalid scope"),
        ("t p read db.t$branch_b", 1, "grant the table db.t"),
        ("t p!x", 1, "invalid principal name"),
        ("t a\nt b read", 2, "a token belongs to one principal"),
        ("# nothing\n", 0, "no token"),
    ];
    for (text, line, what) in cases {
        let e = TokenFile::parse(text).unwrap_err();
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.to_string().contains(what), "{text:?}: {e}");
        if line > 0 {
            assert!(e
                .to_string()
                .starts_with(&format!("token file line {line}: ")));
        }
    }
}

#[test]
fn checks_follow_levels_and_scopes() {
    let file = TokenFile::parse(FILE).unwrap();
    let (rd, w1, t21) = (
        principal(&file, "rd-token"),
        principal(&file, "w1-token"),
        principal(&file, "t21-token"),
    );
    let status = |p: &Principal, op: Op, db: &str, t: Option<&str>| {
        check(p, op, Some(db), t).err().map(|e| e.status.as_u16())
    };
    // read everything, change nothing
    assert_eq!(status(&rd, Op::GetTable, "db9", Some("t")), None);
    assert_eq!(status(&rd, Op::CommitTable, "db9", Some("t")), Some(403));
    assert_eq!(status(&rd, Op::CreateTag, "db9", Some("t")), Some(403));
    assert_eq!(status(&rd, Op::DropDatabase, "db9", None), Some(403));
    assert!(!may_write(&rd, "db9", "t"));
    // write db1 (branches and system tables included), read db2.t1, nothing else exists
    assert_eq!(
        status(&w1, Op::CommitTable, "db1", Some("t$branch_b")),
        None
    );
    assert_eq!(status(&w1, Op::CreateTable, "db1", None), None);
    assert_eq!(status(&w1, Op::DropDatabase, "db1", None), Some(403));
    assert_eq!(status(&w1, Op::CommitTable, "db2", Some("t1")), Some(403));
    assert_eq!(status(&w1, Op::GetTable, "db2", Some("t1$snapshots")), None);
    assert_eq!(status(&w1, Op::GetTable, "db2", Some("t2")), Some(404));
    assert_eq!(status(&w1, Op::GetDatabase, "db3", None), Some(404));
    assert_eq!(status(&w1, Op::CreateDatabase, "db3", None), Some(403));
    assert!(may_write(&w1, "db1", "t") && !may_write(&w1, "db2", "t1"));
    // a table grant shows its database, not the other tables
    assert!(visible(&t21, "db2", None) && visible(&t21, "db2", Some("t1")));
    assert!(!visible(&t21, "db2", Some("t2")) && !visible(&t21, "db1", None));
    assert_eq!(status(&t21, Op::ListTables, "db2", None), None);
    assert_eq!(status(&t21, Op::ListTables, "db1", None), Some(404));
    // names in the body: a coarse check first (the level held somewhere)
    assert!(check(&rd, Op::CreateDatabase, None, None).is_err());
    assert!(check(&w1, Op::RenameTable, None, None).is_ok());
    assert!(check(&t21, Op::ListDatabases, None, None).is_ok());
}

#[test]
fn bearer_headers_and_constant_time_comparison() {
    assert_eq!(bearer_token("Bearer abc"), Some("abc"));
    assert_eq!(bearer_token("bearer   abc "), Some("abc"));
    assert_eq!(bearer_token("Basic abc"), None);
    assert_eq!(bearer_token("Bearer "), None);
    assert!(constant_time_eq(b"abc", b"abc"));
    assert!(!constant_time_eq(b"abc", b"abd") && !constant_time_eq(b"abc", b"abcd"));
    assert!(!constant_time_eq(b"", b"a") && constant_time_eq(b"", b""));
}
