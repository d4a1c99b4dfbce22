//! Time as strata reads it: a [`Clock`] each table carries ([`crate::table::Table::clock`]).
//!
//! Commits stamp snapshots (`timeMillis`) and schemas with it, snapshot and changelog expiry
//! and orphan-file cleanup measure ages against it, writers stamp data files'
//! `_CREATION_TIME`, and compaction's off-peak hours read its local hour. Production uses
//! [`SystemClock`]; a test, a simulation or an embedding engine with its own notion of time
//! injects another ([`ManualClock`], or its own implementation) through
//! [`crate::catalog::FileSystemCatalog::with_clock`] or [`crate::table::Table::with_clock`],
//! instead of sleeping or patching timestamps.
//!
//! Durations (retry back-off, metrics) are measured with `std::time::Instant`, not here.

use std::fmt::Debug;
use std::sync::atomic::{AtomicI64, Ordering};

/// A source of the current time.
pub trait Clock: Send + Sync + Debug {
    /// Milliseconds since the Unix epoch (UTC): Java's `System.currentTimeMillis()`.
    fn now_millis(&self) -> i64;

    /// This machine's local wall-clock time at [`Self::now_millis`], encoded as if it were UTC:
    /// Java's `Timestamp.fromLocalDateTime(LocalDateTime.now())`, which Paimon stores as a data
    /// file's `_CREATION_TIME` and compares with off-peak hours.
    fn local_now_millis(&self) -> i64 {
        let now = self.now_millis();
        match chrono::DateTime::from_timestamp_millis(now) {
            Some(utc) => utc
                .with_timezone(&chrono::Local)
                .naive_local()
                .and_utc()
                .timestamp_millis(),
            None => now,
        }
    }
}

/// The system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> i64 {
        chrono::Utc::now().timestamp_millis()
    }
}

/// A clock that stands still until it is set or advanced: for tests and simulations.
#[derive(Debug, Default)]
pub struct ManualClock {
    millis: AtomicI64,
}

impl ManualClock {
    /// A clock reading `millis` (milliseconds since the Unix epoch).
    pub fn new(millis: i64) -> Self {
        ManualClock {
            millis: AtomicI64::new(millis),
        }
    }

    /// Sets the time.
    pub fn set(&self, millis: i64) {
        self.millis.store(millis, Ordering::SeqCst);
    }

    /// Moves the time forward by `millis`.
    pub fn advance(&self, millis: i64) {
        self.millis.fetch_add(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.millis.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_stands_still_until_moved() {
        let c = ManualClock::new(1_000);
        assert_eq!(c.now_millis(), 1_000);
        c.advance(500);
        assert_eq!(c.now_millis(), 1_500);
        c.set(7);
        assert_eq!(c.now_millis(), 7);
    }

    #[test]
    fn local_time_is_the_same_instant_on_the_local_wall_clock() {
        let c = ManualClock::new(1_700_000_000_000);
        let offset_ms = chrono::DateTime::from_timestamp_millis(1_700_000_000_000)
            .unwrap()
            .with_timezone(&chrono::Local)
            .offset()
            .local_minus_utc() as i64
            * 1000;
        assert_eq!(c.local_now_millis(), 1_700_000_000_000 + offset_ms);
    }
}
