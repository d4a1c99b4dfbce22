//! The audit log: one JSON line per call, written by the router's guard after the handler
//! answered — `{"ts","principal","op","db","table","status","ms"}`, e.g.
//! `{"ts":"2026-12-07T20:41:07.123Z","principal":"alice","op":"commitTable","db":"db1",
//! "table":"t","status":200,"ms":12}`.
//!
//! The record holds what the guard knows from the URL and the grants, never a header, a body or
//! a token (a failed authentication is logged with `"principal":null`). With
//! `ServerConfig::audit_log` the lines are appended to that file (opened once, created if
//! missing, written with one `write_all` per line so concurrent calls never interleave);
//! without it they go to the server's `tracing` log (target `strata_rest_server::audit`, level
//! INFO, the JSON line as the `audit` field). The timestamp is formatted here from
//! `SystemTime` (UTC, milliseconds) rather than pulling a date crate into the server.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::json;

use crate::config::ServerConfig;
use crate::ops::Op;

/// One call, as the guard saw it.
#[derive(Debug)]
pub struct AuditEvent<'a> {
    /// The principal's name (`None` when authentication failed).
    pub principal: Option<&'a str>,
    /// The operation.
    pub op: Op,
    /// The database named in the URL, if any.
    pub db: Option<&'a str>,
    /// The table object named in the URL, if any.
    pub table: Option<&'a str>,
    /// The HTTP status answered.
    pub status: u16,
    /// How long the call took, in milliseconds.
    pub millis: u128,
}

impl AuditEvent<'_> {
    /// The record as one JSON line (no trailing newline), stamped `now`.
    pub fn to_json_line(&self, now: SystemTime) -> String {
        let ms = u64::try_from(self.millis).unwrap_or(u64::MAX);
        json!({
            "ts": rfc3339_millis(now),
            "principal": self.principal,
            "op": self.op.operation_id(),
            "db": self.db,
            "table": self.table,
            "status": self.status,
            "ms": ms,
        })
        .to_string()
    }
}

/// Where audit records go.
#[derive(Debug)]
pub struct Audit {
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    Tracing,
    File(Mutex<File>),
}

impl Audit {
    /// The audit log `config` asks for: the file `audit_log` (appended to) or the `tracing` log.
    pub fn from_config(config: &ServerConfig) -> Result<Self, String> {
        let Some(path) = &config.audit_log else {
            return Ok(Audit {
                sink: Sink::Tracing,
            });
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open the audit log {}: {e}", path.display()))?;
        Ok(Audit {
            sink: Sink::File(Mutex::new(file)),
        })
    }

    /// Records one call.
    pub fn record(&self, event: &AuditEvent<'_>) {
        let line = event.to_json_line(SystemTime::now());
        match &self.sink {
            Sink::Tracing => tracing::info!(target: "strata_rest_server::audit", audit = %line),
            Sink::File(file) => {
                let mut bytes = line.into_bytes();
                bytes.push(b'\n');
                let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
                if let Err(e) = file.write_all(&bytes) {
                    // The call was answered already; losing its audit line is logged loudly.
                    tracing::error!(error = %e, "cannot append to the audit log");
                }
            }
        }
    }
}

/// `time` as RFC 3339 UTC with milliseconds: `2026-12-07T20:41:07.123Z`.
fn rfc3339_millis(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 → (year, month, day), Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc_with_millis() {
        let at = |ms: u64| rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms));
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (leap day), 2026-12-07T20:41:07.123Z, 2100-03-01 (2100 is no leap year).
        assert_eq!(at(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(1_796_676_067_123), "2026-12-07T20:41:07.123Z");
        assert_eq!(at(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn one_json_line_per_call_with_the_seven_fields() {
        let event = AuditEvent {
            principal: Some("alice"),
            op: Op::CommitTable,
            db: Some("db1"),
            table: Some("t$branch_b"),
            status: 200,
            millis: 12,
        };
        let line = event.to_json_line(UNIX_EPOCH);
        assert!(!line.contains('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["ts", "principal", "op", "db", "table", "status", "ms"]
        );
        assert_eq!(v["op"], "commitTable");
        assert_eq!(v["table"], "t$branch_b");
        assert_eq!(v["status"], 200);
        let anonymous = AuditEvent {
            principal: None,
            op: Op::ListDatabases,
            db: None,
            table: None,
            status: 401,
            millis: 0,
        };
        let v: serde_json::Value =
            serde_json::from_str(&anonymous.to_json_line(UNIX_EPOCH)).unwrap();
        assert!(v["principal"].is_null() && v["db"].is_null());
    }

    #[test]
    fn the_file_sink_appends_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let mut config = ServerConfig::new(dir.path().to_string_lossy());
        config.audit_log = Some(path.clone());
        let audit = Audit::from_config(&config).unwrap();
        for status in [200, 403] {
            audit.record(&AuditEvent {
                principal: Some("bob"),
                op: Op::DropTable,
                db: Some("db"),
                table: Some("t"),
                status,
                millis: 1,
            });
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let statuses: Vec<u64> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["status"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(statuses, [200, 403]);
    }
}
