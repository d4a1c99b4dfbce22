//! The STS endpoint refuses what AWS refuses before minting anything: an unsigned
//! `AssumeRole`, and one signed with a wrong secret (s3s verifies the SigV4 signature for
//! service `sts`). Raw HTTP over a socket: this crate has no HTTP client.

use std::io::{Read, Write};

use strata_s3_test_server::S3Server;

fn status_of(server: &S3Server, request: &str) -> String {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn assume_role_needs_a_valid_signature() {
    let server = S3Server::start().unwrap();
    let body = "Action=AssumeRole&RoleArn=arn:aws:iam::1:role/r&RoleSessionName=s";
    let unsigned = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.port(),
        body.len()
    );
    let answer = status_of(&server, &unsigned);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(!answer.contains("<AccessKeyId>"), "{answer}");

    let forged = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         X-Amz-Date: 20261208T000000Z\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential={ak}/20261208/us-east-1/sts/aws4_request, \
         SignedHeaders=content-type;host;x-amz-date, Signature={sig}\r\n\
         Content-Length: {len}\r\nConnection: close\r\n\r\n{body}",
        port = server.port(),
        ak = strata_s3_test_server::ACCESS_KEY,
        sig = "0".repeat(64),
        len = body.len()
    );
    let answer = status_of(&server, &forged);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(!answer.contains("<AccessKeyId>"), "{answer}");
}
