//! The [`FileIO`] contract (see `io/mod.rs`) as one check, run against every backend: the unit
//! tests of `io/mod.rs` run it on the local filesystem and the memory store, and
//! `tests/object_store_s3.rs` includes this file to run it on a real S3-compatible server. It
//! uses only public API and takes its imports from the including module (`FileIO`, `Path`,
//! `Bytes`).

use super::{Bytes, FileIO, Path};

/// Exercises every operation of the contract under `root`, which must be empty; leaves it empty.
pub(super) async fn contract(io: FileIO, root: Path) {
    let p = root.clone().join("a").join("x");
    assert!(io.get_opt(&p).await.unwrap().is_none());
    assert!(!io.exists(&p).await.unwrap());
    assert!(io.get(&p).await.is_err(), "reading a missing object fails");

    // Create-if-absent: the first wins, the second is refused and changes nothing.
    assert!(io
        .put_if_absent(&p, Bytes::from_static(b"one"))
        .await
        .unwrap());
    assert!(!io
        .put_if_absent(&p, Bytes::from_static(b"two"))
        .await
        .unwrap());
    assert_eq!(io.get(&p).await.unwrap(), Bytes::from_static(b"one"));

    // Plain put replaces the whole object.
    io.put(&p, Bytes::from_static(b"three")).await.unwrap();
    assert_eq!(io.get(&p).await.unwrap(), Bytes::from_static(b"three"));
    assert_eq!(
        io.get_range(&p, 1..3).await.unwrap(),
        Bytes::from_static(b"hr")
    );
    assert_eq!(
        io.get_range(&p, 0..5).await.unwrap(),
        Bytes::from_static(b"three")
    );
    assert_eq!(io.head(&p).await.unwrap().size, 5);
    assert!(io.head(&root.clone().join("nope")).await.is_err());

    // Listing: recursive and one level.
    io.put(
        &root.clone().join("a").join("d").join("y"),
        Bytes::from_static(b"y"),
    )
    .await
    .unwrap();
    io.put(
        &root.clone().join("a").join("d").join("e").join("z"),
        Bytes::from_static(b"z"),
    )
    .await
    .unwrap();
    // A prefix of other keys is not an object.
    assert!(!io.exists(&root.clone().join("a").join("d")).await.unwrap());
    assert!(io
        .get_opt(&root.clone().join("a").join("d"))
        .await
        .unwrap()
        .is_none());
    let (dirs, files) = io.list_dir(&root.clone().join("a")).await.unwrap();
    assert_eq!(dirs, vec![root.clone().join("a").join("d")]);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].location, p);
    assert_eq!(files[0].size, 5);
    let mut all: Vec<String> = io
        .list(&root)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.location.to_string())
        .collect();
    all.sort();
    let want: Vec<String> = ["a/d/e/z", "a/d/y", "a/x"]
        .iter()
        .map(|s| {
            format!("{}/{s}", root.as_ref())
                .trim_start_matches('/')
                .to_string()
        })
        .collect();
    assert_eq!(all, want);
    // A prefix is a path, not a string prefix: "a/d" does not list "a/dd".
    io.put(&root.clone().join("a").join("dd"), Bytes::from_static(b"q"))
        .await
        .unwrap();
    assert_eq!(
        io.list(&root.clone().join("a").join("d"))
            .await
            .unwrap()
            .len(),
        2
    );
    io.delete(&root.clone().join("a").join("dd")).await.unwrap();

    // Delete is idempotent.
    io.delete(&p).await.unwrap();
    io.delete(&p).await.unwrap();
    assert!(!io.exists(&p).await.unwrap());
    assert!(io.get_opt(&p).await.unwrap().is_none());

    // Missing directories list as empty.
    assert!(io
        .list(&root.clone().join("missing"))
        .await
        .unwrap()
        .is_empty());
    let (dirs, files) = io.list_dir(&root.clone().join("missing")).await.unwrap();
    assert!(dirs.is_empty() && files.is_empty());

    // delete_prefix removes everything below, and only that.
    io.put(&root.clone().join("keep"), Bytes::from_static(b"k"))
        .await
        .unwrap();
    io.delete_prefix(&root.clone().join("a")).await.unwrap();
    let left: Vec<_> = io.list(&root).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].location, root.clone().join("keep"));
    let (dirs, _) = io.list_dir(&root).await.unwrap();
    assert!(
        dirs.is_empty(),
        "no directory survives delete_prefix: {dirs:?}"
    );
    io.delete(&root.clone().join("keep")).await.unwrap();
    assert!(io.list(&root).await.unwrap().is_empty());
}
