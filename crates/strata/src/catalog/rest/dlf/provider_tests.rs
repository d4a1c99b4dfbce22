//! The provider as Java's `DLFAuthProviderFactory` builds it and `AuthProviderTest` checks it:
//! options, token sources and their precedence, refresh before expiry, the token file picked
//! up when it changes, the ECS metadata service (a small HTTP server in the test).

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const GET: SignRequest<'static> = SignRequest {
    method: "GET",
    path: "/v1/config",
    query: &[],
    body: None,
};

fn token_json(id: &str, expiration: Option<chrono::DateTime<Utc>>) -> String {
    let mut v = serde_json::json!({
        "AccessKeyId": id,
        "AccessKeySecret": format!("{id}-secret"),
        "SecurityToken": format!("{id}-sts"),
    });
    if let Some(e) = expiration {
        v["Expiration"] = e.format("%Y-%m-%dT%H:%M:%SZ").to_string().into();
    }
    v.to_string()
}

fn key_id(h: &Headers) -> String {
    let a = &h["Authorization"];
    let rest = a
        .strip_prefix("DLF4-HMAC-SHA256 Credential=")
        .or_else(|| a.strip_prefix("acs "))
        .unwrap();
    rest.split(['/', ':']).next().unwrap().to_string()
}

#[test]
fn regions_algorithms_and_hosts_read_from_the_uri_as_java() {
    assert_eq!(
        region_of_uri("https://cn-hangzhou-vpc.dlf.aliyuncs.com").as_deref(),
        Some("cn-hangzhou")
    );
    assert_eq!(
        region_of_uri("http://pre-cn-beijing-1.dlf.aliyuncs.com").as_deref(),
        Some("cn-beijing-1")
    );
    assert_eq!(
        region_of_uri("https://dlf-cn-hangzhou.aliyuncs.com").as_deref(),
        Some("dlf-cn")
    );
    assert_eq!(region_of_uri("http://127.0.0.1:8080"), None);
    for (uri, algo) in [
        ("dlfnext.cn-hangzhou.aliyuncs.com", OPENAPI),
        ("dlfnext-vpc.cn-hangzhou.aliyuncs.com", OPENAPI),
        ("https://DLFNEXT.cn-hangzhou.aliyuncs.com", OPENAPI),
        ("cn-hangzhou-vpc.dlf.aliyuncs.com", DEFAULT),
        ("http://127.0.0.1:8080", DEFAULT),
        ("", DEFAULT),
    ] {
        assert_eq!(signing_algorithm_of_uri(uri), algo, "{uri}");
    }
    for (uri, host) in [
        ("http://hostname/prefix", "hostname"),
        ("https://hostname:8080/prefix", "hostname:8080"),
        ("http://hostname", "hostname"),
        ("hostname:8080", "hostname:8080"),
    ] {
        assert_eq!(host_of_uri(uri), host);
    }
}

#[test]
fn options_choose_the_source_as_java_and_refuse_what_it_would_ignore() {
    let base = [("uri", "http://127.0.0.1:1"), ("dlf.region", "cn-hangzhou")];
    let with = |extra: &[(&str, &str)]| {
        let mut o = opts(&base);
        o.extend(opts(extra));
        DlfAuth::from_options(&o)
    };
    let a = with(&[("dlf.access-key-id", "ak"), ("dlf.access-key-secret", "sk")]).unwrap();
    assert!(matches!(a.source, Source::Static(_)));
    assert_eq!(
        a.signer,
        Signer::Default {
            region: "cn-hangzhou".into()
        }
    );
    let a = with(&[("dlf.token-path", "/x")]).unwrap();
    assert!(matches!(a.source, Source::Loader(TokenLoader::File(_))));
    let a = with(&[("dlf.token-loader", "local_file"), ("dlf.token-path", "/x")]).unwrap();
    assert!(matches!(a.source, Source::Loader(TokenLoader::File(_))));
    let a = with(&[
        ("dlf.token-loader", "ecs"),
        ("dlf.token-ecs-role-name", "r"),
    ])
    .unwrap();
    assert!(matches!(a.source, Source::Loader(TokenLoader::Ecs(_))));
    let a = with(&[
        ("dlf.access-key-id", "ak"),
        ("dlf.access-key-secret", "sk"),
        ("dlf.signing-algorithm", "openapi"),
    ])
    .unwrap();
    assert_eq!(a.signer, Signer::OpenApi);

    let refused = |extra: &[(&str, &str)], key: &str| {
        let e = with(extra).unwrap_err();
        assert_eq!(e.context().option(), Some(key), "{e}");
    };
    // Java takes the token path over the keys, and the loader over both: never silently.
    refused(
        &[
            ("dlf.token-path", "/x"),
            ("dlf.access-key-id", "ak"),
            ("dlf.access-key-secret", "sk"),
        ],
        "dlf.access-key-id",
    );
    refused(
        &[("dlf.token-loader", "ecs"), ("dlf.token-path", "/x")],
        "dlf.token-path",
    );
    refused(
        &[("dlf.token-path", "/x"), ("dlf.token-ecs-role-name", "r")],
        "dlf.token-ecs-role-name",
    );
    refused(&[("dlf.token-loader", "custom")], "dlf.token-loader");
    refused(&[("dlf.token-loader", "local_file")], "dlf.token-path");
    refused(&[("dlf.access-key-id", "ak")], "dlf.access-key-id");
    refused(
        &[
            ("dlf.access-key-id", "ak"),
            ("dlf.access-key-secret", "sk"),
            ("dlf.signing-algorithm", "v4"),
        ],
        "dlf.signing-algorithm",
    );
    let e = DlfAuth::from_options(&opts(&[
        ("uri", "http://127.0.0.1:1"),
        ("dlf.access-key-id", "ak"),
        ("dlf.access-key-secret", "sk"),
    ]))
    .unwrap_err();
    assert_eq!(e.context().option(), Some("dlf.region"), "{e}");
    let e = with(&[("dlf.token-loader", "custom")]).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
}

#[tokio::test]
async fn static_keys_sign_every_request_and_carry_the_security_token() {
    let a = DlfAuth::from_options(&opts(&[
        ("uri", "https://cn-shanghai-vpc.dlf.aliyuncs.com"),
        ("dlf.access-key-id", "ak"),
        ("dlf.access-key-secret", "sk"),
        ("dlf.security-token", "sts"),
    ]))
    .unwrap();
    let h = a.headers(&GET).await.unwrap();
    assert!(
        h["Authorization"].contains("/cn-shanghai/DlfNext/"),
        "{h:?}"
    );
    assert_eq!(h["x-dlf-security-token"], "sts");
    assert_eq!(key_id(&h), "ak");
    // OpenAPI nonces never repeat.
    let o = DlfAuth::from_options(&opts(&[
        ("uri", "https://dlfnext.cn-shanghai.aliyuncs.com"),
        ("dlf.access-key-id", "ak"),
        ("dlf.access-key-secret", "sk"),
    ]))
    .unwrap();
    let n1 = o.headers(&GET).await.unwrap()["x-acs-signature-nonce"].clone();
    let n2 = o.headers(&GET).await.unwrap()["x-acs-signature-nonce"].clone();
    assert_ne!(n1, n2);
    assert_eq!(
        o.headers(&GET).await.unwrap()["Host"],
        "dlfnext.cn-shanghai.aliyuncs.com"
    );
}

fn file_auth(path: &std::path::Path) -> DlfAuth {
    let mut a = DlfAuth::from_options(&opts(&[
        ("uri", "http://127.0.0.1:1"),
        ("dlf.region", "cn-hangzhou"),
        ("dlf.token-path", path.to_str().unwrap()),
    ]))
    .unwrap();
    // Fast retries for the test (Java's loader pauses 1 s, 2 s, …).
    a.source = Source::Loader(TokenLoader::File(
        FileLoader::new(path).with_retries(2, std::time::Duration::from_millis(1)),
    ));
    a
}

/// Rewrites `path` and moves its modification time by `secs` (so the change shows even on
/// file systems with coarse timestamps).
fn rewrite(path: &std::path::Path, text: &str, secs: u64) {
    std::fs::write(path, text).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + secs))
        .unwrap();
}

#[tokio::test]
async fn a_token_file_is_reloaded_before_expiry_and_when_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token");
    let now = Utc::now();

    // No Expiration: kept while the file stays as it was (Java never refreshes it).
    rewrite(&path, &token_json("first", None), 1);
    let a = file_auth(&path);
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "first");
    // A rewritten file is picked up at once.
    rewrite(&path, &token_json("second", None), 2);
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "second");
    // A change that does not read keeps the valid token.
    rewrite(&path, "{ half-written", 3);
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "second");

    // Expiring within the hour: read again before every request, as Java's getFreshToken.
    let soon = now + chrono::Duration::minutes(30);
    rewrite(&path, &token_json("expiring", Some(soon)), 4);
    let a = file_auth(&path);
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "expiring");
    std::fs::write(&path, token_json("renewed", Some(soon))).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    // Same modification time as before: only the expiry rule can pick it up.
    f.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_004))
        .unwrap();
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "renewed");

    // Far from expiry and unchanged: the cached token, even if the file vanished.
    rewrite(
        &path,
        &token_json("lasting", Some(now + chrono::Duration::hours(5))),
        5,
    );
    let a = file_auth(&path);
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "lasting");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "lasting");
    // An expired one whose file is gone fails, naming the option.
    let gone = file_auth(&dir.path().join("missing"));
    let e = gone.headers(&GET).await.unwrap_err();
    assert_eq!(e.context().option(), Some("dlf.token-path"), "{e}");
}

/// A tiny ECS metadata service: `GET {base}` → the role, `GET {base}{role}` → `token()`;
/// counts the role lookups.
async fn ecs_service(
    role: &'static str,
    token: Arc<std::sync::Mutex<String>>,
    role_lookups: Arc<AtomicU64>,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = listener.accept().await else {
                return;
            };
            let token = token.clone();
            let lookups = role_lookups.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
                let base = "/latest/meta-data/Ram/security-credentials/";
                let (status, body) = if path == base {
                    lookups.fetch_add(1, Ordering::SeqCst);
                    ("200 OK", role.to_string())
                } else if path == format!("{base}{role}") {
                    ("200 OK", token.lock().unwrap().clone())
                } else {
                    ("404 Not Found", String::new())
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(answer.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/latest/meta-data/Ram/security-credentials/")
}

#[tokio::test]
async fn the_ecs_loader_asks_the_role_once_and_refreshes_the_token() {
    let now = Utc::now();
    let token = Arc::new(std::sync::Mutex::new(token_json(
        "ecs-1",
        Some(now + chrono::Duration::minutes(20)),
    )));
    let lookups = Arc::new(AtomicU64::new(0));
    let url = ecs_service("EcsTestRole", token.clone(), lookups.clone()).await;
    let a = DlfAuth::from_options(&opts(&[
        ("uri", "http://127.0.0.1:1"),
        ("dlf.region", "cn-hangzhou"),
        ("dlf.token-loader", "ecs"),
        ("dlf.token-ecs-metadata-url", &url),
    ]))
    .unwrap();
    let h = a.headers(&GET).await.unwrap();
    assert_eq!(key_id(&h), "ecs-1");
    assert_eq!(h["x-dlf-security-token"], "ecs-1-sts");
    // Within the safe margin: the next request loads the service's new token.
    *token.lock().unwrap() = token_json("ecs-2", Some(now + chrono::Duration::hours(6)));
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "ecs-2");
    // Far from expiry: kept, the service is not asked again.
    *token.lock().unwrap() = token_json("ecs-3", Some(now + chrono::Duration::hours(6)));
    assert_eq!(key_id(&a.headers(&GET).await.unwrap()), "ecs-2");
    assert_eq!(lookups.load(Ordering::SeqCst), 1);

    // A role the service does not know: a named failure, never a panic; nothing quoted.
    let bad = DlfAuth::from_options(&opts(&[
        ("uri", "http://127.0.0.1:1"),
        ("dlf.region", "cn-hangzhou"),
        ("dlf.token-loader", "ecs"),
        ("dlf.token-ecs-metadata-url", &url),
        ("dlf.token-ecs-role-name", "CustomRole"),
    ]))
    .unwrap();
    let e = bad.headers(&GET).await.unwrap_err();
    assert!(e.to_string().contains("ECS metadata"), "{e}");
    assert!(e.to_string().contains("404"), "{e}");
}
