//! The error type's contract: every detail maps onto a kind, the retryable answers, the
//! context a detail implies and the one attached at a boundary, and how `Display` shows them.

use std::error::Error as _;

use strata_spec::SpecError;

use super::*;

fn os_generic() -> object_store::Error {
    object_store::Error::Generic {
        store: "S3",
        source: "connection reset by peer".into(),
    }
}

fn os_not_found() -> object_store::Error {
    object_store::Error::NotFound {
        path: "p".into(),
        source: "missing".into(),
    }
}

/// One of every detail, with the kind and the retryable answer it must have.
fn every_detail() -> Vec<(ErrorDetail, ErrorKind, bool)> {
    use ErrorDetail as D;
    use ErrorKind as K;
    let s = |m: &str| m.to_string();
    vec![
        (
            D::CorruptFile {
                path: s("f"),
                source: SpecError::invalid("c", "m"),
            },
            K::Corrupt,
            false,
        ),
        (
            D::Spec(SpecError::invalid("c", "m")),
            K::InvalidInput,
            false,
        ),
        (
            D::Spec(SpecError::ColumnNotFound { column: s("c") }),
            K::NotFound,
            false,
        ),
        (
            D::Spec(SpecError::ColumnAlreadyExists { column: s("c") }),
            K::AlreadyExists,
            false,
        ),
        (
            D::Io {
                path: s("f"),
                source: os_generic(),
            },
            K::Io,
            true,
        ),
        (
            D::Io {
                path: s("f"),
                source: os_not_found(),
            },
            K::Io,
            false,
        ),
        (
            D::LocalIo {
                path: s("f"),
                source: std::io::Error::from(std::io::ErrorKind::TimedOut),
            },
            K::Io,
            true,
        ),
        (
            D::LocalIo {
                path: s("f"),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            },
            K::Io,
            false,
        ),
        (
            D::Parquet {
                path: s("f"),
                source: parquet::errors::ParquetError::External(Box::new(os_generic())),
            },
            K::Corrupt,
            true,
        ),
        (
            D::Parquet {
                path: s("f"),
                source: parquet::errors::ParquetError::General(s("bad page")),
            },
            K::Corrupt,
            false,
        ),
        (
            D::DataFile {
                format: "ORC",
                path: s("f"),
                message: s("m"),
            },
            K::Corrupt,
            false,
        ),
        (
            D::Arrow {
                context: s("c"),
                source: arrow_schema::ArrowError::ComputeError(s("m")),
            },
            K::Internal,
            false,
        ),
        (D::DatabaseNotFound(s("db")), K::NotFound, false),
        (D::DatabaseAlreadyExists(s("db")), K::AlreadyExists, false),
        (D::DatabaseNotEmpty(s("db")), K::Conflict, false),
        (D::TableNotFound(s("db.t")), K::NotFound, false),
        (D::TableAlreadyExists(s("db.t")), K::AlreadyExists, false),
        (
            D::ColumnNotFound {
                table: s("db.t"),
                column: s("c"),
                available: s("a"),
            },
            K::NotFound,
            false,
        ),
        (
            D::ColumnAlreadyExists {
                table: s("db.t"),
                column: s("c"),
            },
            K::AlreadyExists,
            false,
        ),
        (
            D::SchemaMismatch {
                column: s("c"),
                message: s("m"),
            },
            K::InvalidInput,
            false,
        ),
        (
            D::InvalidOption {
                key: s("bucket"),
                message: s("m"),
            },
            K::InvalidInput,
            false,
        ),
        (D::InvalidArgument(s("m")), K::InvalidInput, false),
        (
            D::InvalidLocation {
                location: s("ftp://x"),
                message: s("m"),
            },
            K::InvalidInput,
            false,
        ),
        (
            D::SnapshotNotFound {
                table: s("db.t"),
                id: 3,
            },
            K::NotFound,
            false,
        ),
        (D::NotFound(s("m")), K::NotFound, false),
        (
            D::TagNotFound {
                table: s("db.t"),
                name: s("x"),
            },
            K::NotFound,
            false,
        ),
        (
            D::TagAlreadyExists {
                table: s("db.t"),
                name: s("x"),
            },
            K::AlreadyExists,
            false,
        ),
        (
            D::CommitConflict {
                table: s("db.t"),
                message: s("m"),
            },
            K::Conflict,
            false,
        ),
        (
            D::CommitOutcomeUnknown {
                table: s("db.t"),
                message: s("m"),
            },
            K::OutcomeUnknown,
            false,
        ),
        (
            D::CommittedNotVisible {
                table: s("db.t"),
                snapshot: 4,
                message: s("m"),
            },
            K::Conflict,
            false,
        ),
        (D::Unsupported(s("m")), K::Unsupported, false),
        (
            D::UnsupportedOption {
                key: s("bucket"),
                message: s("m"),
            },
            K::Unsupported,
            false,
        ),
        (D::Invariant(s("m")), K::Corrupt, false),
        (
            D::TaskPanicked {
                what: s("w"),
                message: s("m"),
            },
            K::Internal,
            false,
        ),
        (D::InjectedFault(s("p")), K::Internal, false),
    ]
}

#[test]
fn every_detail_has_its_kind_and_retryable_answer() {
    for (detail, kind, retryable) in every_detail() {
        let shown = format!("{detail:?}");
        let e = Error::from(detail);
        assert_eq!(e.kind(), kind, "{shown}");
        assert_eq!(e.is_retryable(), retryable, "{shown}");
        assert_eq!(
            e.may_have_committed(),
            shown.starts_with("CommitOutcomeUnknown") || shown.starts_with("CommittedNotVisible"),
            "{shown}"
        );
    }
}

#[test]
fn a_detail_fills_the_context_its_fields_name() {
    let e = Error::from(ErrorDetail::SnapshotNotFound {
        table: "db.t".into(),
        id: 7,
    });
    assert_eq!((e.table(), e.snapshot()), (Some("db.t"), Some(7)));
    assert_eq!(e.to_string(), "snapshot 7 does not exist in db.t");
    let e = Error::invalid_option("bucket", "must be > 0");
    assert_eq!(e.option(), Some("bucket"));
    assert_eq!(e.message(), "invalid option bucket: must be > 0");
    let e = Error::io("wh/db.db/t/snapshot/snapshot-1", os_not_found());
    assert_eq!(e.file(), Some("wh/db.db/t/snapshot/snapshot-1"));
    assert!(
        e.source().is_some(),
        "the object store's error is the source"
    );
}

#[test]
fn display_shows_the_message_then_the_context_it_does_not_mention() {
    let e = Error::invalid_argument("bad predicate")
        .with_table("db.t")
        .with_bucket(3)
        .with_file("data-1.parquet");
    assert_eq!(e.message(), "invalid argument: bad predicate");
    assert_eq!(
        e.to_string(),
        "invalid argument: bad predicate (table: db.t, bucket: 3, file: data-1.parquet)"
    );
    // Context already in the message is not repeated; the first value set wins.
    let e = Error::from(ErrorDetail::CommitConflict {
        table: "db.t".into(),
        message: "bucket 3 changed".into(),
    })
    .with_table("other.t")
    .with_bucket(3)
    .with_snapshot(9);
    assert_eq!(e.table(), Some("db.t"));
    assert_eq!(
        e.to_string(),
        "commit conflict on db.t: bucket 3 changed (snapshot: 9)"
    );
    assert_eq!(
        e.context().to_string(),
        "table: db.t, bucket: 3, snapshot: 9"
    );
}

#[test]
fn result_ext_attaches_context_only_to_errors() {
    let ok: Result<i32> = Ok(1);
    assert_eq!(ok.with_table("db.t").unwrap(), 1);
    let err: std::result::Result<(), SpecError> = Err(SpecError::invalid("schema", "m"));
    let e = err.with_table("db.t").with_snapshot(2).unwrap_err();
    assert_eq!((e.table(), e.snapshot()), (Some("db.t"), Some(2)));
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

#[test]
fn map_detail_keeps_the_context_and_prefers_the_new_fields() {
    let e = Error::from(ErrorDetail::CommitConflict {
        table: "index".into(),
        message: "m".into(),
    })
    .with_bucket(1)
    .map_detail(|d| match d {
        ErrorDetail::CommitConflict { message, .. } => ErrorDetail::CommitConflict {
            table: "db.t".into(),
            message,
        },
        other => other,
    });
    assert_eq!((e.table(), e.bucket()), (Some("db.t"), Some(1)));
}

#[test]
fn a_reported_error_keeps_kind_context_and_retryable() {
    let e = Error::io("f", os_generic()).with_table("db.t");
    let r = ReportedError::new(&e, "; the compaction was abandoned");
    assert_eq!(r.kind(), ErrorKind::Io);
    assert!(r.is_retryable());
    assert_eq!(r.context().table(), Some("db.t"));
    assert!(
        r.to_string().ends_with("; the compaction was abandoned"),
        "{r}"
    );
    assert_eq!(r.clone(), r);
}
