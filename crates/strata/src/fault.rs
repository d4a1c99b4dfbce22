//! Fault injection: named points in the write, commit and compaction paths where a test can
//! make strata fail (an error, as a full disk or a lost connection would) or die (abort the
//! process, as `kill -9` or a power cut would).
//!
//! **Only in builds with the `failpoints` cargo feature**, which strata's own tests and
//! crash-test binaries enable (`cargo test` turns it on through a dev-dependency; a normal or
//! release build of strata or of the `strata` CLI leaves it off). Without the feature every
//! point is an inlined `Ok(())`, nothing reads the environment, and nothing here can abort or
//! exit the host process; [`ENABLED`] tells which build this is.
//!
//! Every point is one call, `inject`, placed right after a durable step (a data file
//! written, the manifests written, the snapshot published, ...). Nothing is armed in normal
//! operation, and then a point costs one relaxed atomic load. Points are armed either by a
//! test through `arm` / `FaultGuard`, or for a whole process by the environment variable
//! `STRATA_FAILPOINTS` (read once, at the first point reached):
//!
//! ```text
//! STRATA_FAILPOINTS="commit.before-snapshot=abort"          abort at the first hit
//! STRATA_FAILPOINTS="write.after-data-file=error@3"         fail the 3rd hit (and only it)
//! STRATA_FAILPOINTS="commit.after-manifests=error@2+,x=abort" fail the 2nd hit and every later one
//! ```
//!
//! An invalid `STRATA_FAILPOINTS` does not run the process without its faults: every point
//! then fails with an error quoting the variable and what is wrong with it.
//!
//! The registry is process-wide: tests that arm points must not run concurrently with other
//! tests of the same binary that reach those points (the fault-injection tests serialize
//! themselves). [`POINTS`] lists every point so tests can iterate over all of them.

#[cfg(feature = "failpoints")]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(feature = "failpoints")]
use std::sync::{Mutex, OnceLock};

#[cfg(feature = "failpoints")]
use crate::error::ErrorDetail;
use crate::Result;

/// Whether this build has fault points (the `failpoints` feature).
pub const ENABLED: bool = cfg!(feature = "failpoints");

/// Every fault point strata has, in the order a write → commit → compaction reaches them.
pub const POINTS: &[&str] = &[
    // A data file (Parquet) of a writer is complete on storage; nothing references it yet.
    "write.after-data-file",
    // The commit's delta manifest (and index manifest) is written.
    "commit.after-manifests",
    // The base and delta manifest lists are written; the snapshot is not.
    "commit.after-manifest-list",
    // Everything but the snapshot file is written.
    "commit.before-snapshot",
    // snapshot-N is published (the commit is durable); the LATEST hint is not updated yet.
    "commit.after-snapshot",
    // The LATEST hint update itself (an error here is swallowed by design: hints are advisory).
    "commit.hint-update",
    // A compaction rewrite wrote an output file; the compaction is not committed.
    "compact.after-rewrite-file",
];

/// What an armed point does when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultAction {
    /// Return `ErrorDetail::InjectedFault` from the point.
    Error,
    /// `std::process::abort()`: the process dies on the spot, no destructor or cleanup runs.
    Abort,
}

/// When an armed point fires, counted in hits of that point since it was armed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultWhen {
    /// Only the n-th hit (1-based).
    Nth(u64),
    /// The n-th hit and every later one.
    From(u64),
}

#[cfg(feature = "failpoints")]
#[derive(Debug)]
struct Armed {
    point: String,
    action: FaultAction,
    when: FaultWhen,
    hits: u64,
}

#[cfg(feature = "failpoints")]
static ANY_ARMED: AtomicBool = AtomicBool::new(false);
#[cfg(feature = "failpoints")]
static REGISTRY: Mutex<Vec<Armed>> = Mutex::new(Vec::new());
/// `Err(message)` when `STRATA_FAILPOINTS` is set but invalid.
#[cfg(feature = "failpoints")]
static ENV_SPEC: OnceLock<std::result::Result<(), String>> = OnceLock::new();

/// Arms `point`. Replaces an earlier arming of the same point and resets its hit count.
#[cfg(feature = "failpoints")]
pub fn arm(point: &str, action: FaultAction, when: FaultWhen) {
    let mut reg = registry();
    reg.retain(|a| a.point != point);
    reg.push(Armed {
        point: point.to_string(),
        action,
        when,
        hits: 0,
    });
    ANY_ARMED.store(true, Ordering::SeqCst);
}

/// Disarms every point.
#[cfg(feature = "failpoints")]
pub fn disarm_all() {
    let mut reg = registry();
    reg.clear();
    ANY_ARMED.store(false, Ordering::SeqCst);
}

/// Arms a point for the life of the guard (disarms everything when dropped).
#[cfg(feature = "failpoints")]
#[must_use = "the point is disarmed when the guard is dropped"]
pub struct FaultGuard(());

#[cfg(feature = "failpoints")]
impl FaultGuard {
    /// Arms `point` to take `action` at the hits `when` selects, until the guard is dropped.
    pub fn new(point: &str, action: FaultAction, when: FaultWhen) -> Self {
        arm(point, action, when);
        FaultGuard(())
    }
}

#[cfg(feature = "failpoints")]
impl Drop for FaultGuard {
    fn drop(&mut self) {
        disarm_all();
    }
}

/// The fault point `point`: `Ok(())` unless a test armed it and this hit fires.
#[cfg(feature = "failpoints")]
#[inline]
pub(crate) fn inject(point: &'static str) -> Result<()> {
    if let Err(msg) = ENV_SPEC.get_or_init(load_env) {
        return Err(ErrorDetail::InvalidArgument(format!(
            "invalid STRATA_FAILPOINTS (fault point {point} reached): {msg}"
        ))
        .into());
    }
    if !ANY_ARMED.load(Ordering::Relaxed) {
        return Ok(());
    }
    inject_slow(point)
}

/// The fault point `point`: a build without the `failpoints` feature has none.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn inject(_point: &'static str) -> Result<()> {
    Ok(())
}

#[cfg(feature = "failpoints")]
#[cold]
fn inject_slow(point: &'static str) -> Result<()> {
    let action = {
        let mut reg = registry();
        let Some(a) = reg.iter_mut().find(|a| a.point == point) else {
            return Ok(());
        };
        a.hits += 1;
        let fires = match a.when {
            FaultWhen::Nth(n) => a.hits == n,
            FaultWhen::From(n) => a.hits >= n,
        };
        if !fires {
            return Ok(());
        }
        a.action
    };
    match action {
        FaultAction::Error => Err(ErrorDetail::InjectedFault(point.to_string()).into()),
        FaultAction::Abort => {
            eprintln!("strata: fault point {point} armed to abort: aborting the process");
            std::process::abort()
        }
    }
}

#[cfg(feature = "failpoints")]
fn registry() -> std::sync::MutexGuard<'static, Vec<Armed>> {
    // A panic while holding the lock cannot leave the list inconsistent (every mutation is a
    // single push/retain/clear or a counter bump), so a poisoned lock is still usable.
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(feature = "failpoints")]
fn load_env() -> std::result::Result<(), String> {
    let Ok(spec) = std::env::var("STRATA_FAILPOINTS") else {
        return Ok(());
    };
    // A typo must not silently run the test without its fault: the error is returned from
    // every point (see `inject`), never a process exit.
    let points = parse_spec(&spec).map_err(|msg| format!("{spec:?}: {msg}"))?;
    for (point, action, when) in points {
        arm(&point, action, when);
    }
    Ok(())
}

/// Parses `point=action[@n[+]],...` (see the module doc).
#[cfg(feature = "failpoints")]
pub fn parse_spec(
    spec: &str,
) -> std::result::Result<Vec<(String, FaultAction, FaultWhen)>, String> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (point, rest) = item
            .split_once('=')
            .ok_or_else(|| format!("{item:?}: expected point=action"))?;
        if !POINTS.contains(&point) {
            return Err(format!(
                "unknown fault point {point:?} (known: {})",
                POINTS.join(", ")
            ));
        }
        let (action, when) = match rest.split_once('@') {
            Some((a, w)) => (a, Some(w)),
            None => (rest, None),
        };
        let action = match action {
            "error" => FaultAction::Error,
            "abort" => FaultAction::Abort,
            other => return Err(format!("{point}: unknown action {other:?} (error, abort)")),
        };
        let when = match when {
            None => FaultWhen::Nth(1),
            Some(w) => {
                let (n, from) = match w.strip_suffix('+') {
                    Some(n) => (n, true),
                    None => (w, false),
                };
                let n: u64 =
                    n.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("{point}: bad hit number {w:?} (1, 2, ... or 2+)")
                    })?;
                if from {
                    FaultWhen::From(n)
                } else {
                    FaultWhen::Nth(n)
                }
            }
        };
        out.push((point.to_string(), action, when));
    }
    Ok(out)
}

#[cfg(all(test, feature = "failpoints"))]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        let p = parse_spec("commit.before-snapshot=abort, write.after-data-file=error@3+").unwrap();
        assert_eq!(
            p,
            vec![
                (
                    "commit.before-snapshot".to_string(),
                    FaultAction::Abort,
                    FaultWhen::Nth(1)
                ),
                (
                    "write.after-data-file".to_string(),
                    FaultAction::Error,
                    FaultWhen::From(3)
                ),
            ]
        );
        assert!(parse_spec("nope=error")
            .unwrap_err()
            .contains("unknown fault point"));
        assert!(parse_spec("commit.before-snapshot=boom")
            .unwrap_err()
            .contains("unknown action"));
        assert!(parse_spec("commit.before-snapshot=error@0")
            .unwrap_err()
            .contains("bad hit number"));
    }

    #[test]
    fn fires_on_the_armed_hit_only() {
        // A point no code path reaches, so concurrent unit tests cannot take its hits. (The
        // guard disarms everything on drop; no other unit test arms points.)
        let _g = FaultGuard::new("test.unit-only", FaultAction::Error, FaultWhen::Nth(2));
        assert!(inject("test.unit-only").is_ok());
        assert!(matches!(
            inject("test.unit-only"),
            Err(e) if matches!(e.detail(), ErrorDetail::InjectedFault(p) if p == "test.unit-only")
        ));
        assert!(inject("test.unit-only").is_ok());
    }
}
