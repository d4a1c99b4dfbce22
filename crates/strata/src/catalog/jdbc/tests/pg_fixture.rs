//! A throw-away PostgreSQL server for the JDBC catalog's tests: `initdb` into a temp directory,
//! `pg_ctl start` on a free loopback port (Unix socket in the same directory), stopped and
//! deleted on drop. PostgreSQL refuses to run as root: when the tests run as root (CI), the
//! directory is given to the `postgres` user the PostgreSQL packages create and every server
//! command runs as that user through `runuser`. The binaries: `$STRATA_PG_BIN`, else the newest
//! `/usr/lib/postgresql/<version>/bin`. A machine without them fails the test, naming them.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::Command;

pub(crate) struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    run_as: Option<String>,
}

fn find_bin() -> PathBuf {
    if let Ok(b) = std::env::var("STRATA_PG_BIN") {
        return PathBuf::from(b);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, b)| b).unwrap_or_else(|| {
        panic!(
            "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin \
             and STRATA_PG_BIN is not set: install postgresql (Debian: apt-get install postgresql)"
        )
    })
}

/// uid and gid of `user` from /etc/passwd.
fn user_ids(user: &str) -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    passwd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.first() == Some(&user)).then(|| (f[2].parse().unwrap(), f[3].parse().unwrap()))
        })
        .unwrap_or_else(|| {
            panic!(
                "running as root, and PostgreSQL refuses to run as root: the `{user}` user (made \
                 by the postgresql packages) is needed to run the test server"
            )
        })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Postgres {
    fn command(&self, program: &str) -> Command {
        let exe = self.bin.join(program);
        match &self.run_as {
            None => Command::new(exe),
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(exe);
                c
            }
        }
    }

    fn run(&self, mut c: Command, what: &str) {
        let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
        if !out.status.success() {
            let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
            panic!(
                "{what} failed ({}): {}\n{}\nserver log:\n{log}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// Starts a server (initdb + pg_ctl start); superuser `postgres`, trust authentication.
    pub(crate) fn start() -> Postgres {
        let bin = find_bin();
        let dir = tempfile::Builder::new()
            .prefix("strata-pg-")
            .tempdir()
            .unwrap();
        let root = std::fs::metadata("/proc/self")
            .map(|m| m.uid() == 0)
            .unwrap_or(false);
        let run_as = if root {
            let (uid, gid) = user_ids("postgres");
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
            Some("postgres".to_string())
        } else {
            None
        };
        let mut pg = Postgres {
            dir,
            bin,
            port: 0,
            run_as,
        };
        let data = pg.data();
        let mut initdb = pg.command("initdb");
        initdb.arg("-D").arg(&data).args([
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ]);
        pg.run(initdb, "initdb");
        // A port taken between free_port and the server's bind fails the start: retry.
        for attempt in 0..5 {
            pg.port = free_port();
            let mut ctl = pg.command("pg_ctl");
            ctl.arg("-D")
                .arg(&data)
                .arg("-l")
                .arg(pg.dir.path().join("log"))
                .args(["-w", "-t", "60", "-o"])
                .arg(format!(
                    "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
                    pg.port,
                    pg.dir.path().display()
                ))
                .arg("start");
            let out = ctl.output().expect("pg_ctl start");
            if out.status.success() {
                return pg;
            }
            if attempt == 4 {
                pg.run(ctl, "pg_ctl start");
            }
        }
        unreachable!()
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Creates database `name` (as the superuser) and returns it.
    pub(crate) async fn create_database(&self, name: &str) -> String {
        let (client, conn) = tokio_postgres::Config::new()
            .host("127.0.0.1")
            .port(self.port)
            .user("postgres")
            .dbname("postgres")
            .connect(tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        name.to_string()
    }

    /// The JDBC URL of database `db`.
    pub(crate) fn uri(&self, db: &str) -> String {
        format!("jdbc:postgresql://127.0.0.1:{}/{db}", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let mut ctl = self.command("pg_ctl");
        ctl.arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"]);
        let _ = ctl.output();
    }
}
