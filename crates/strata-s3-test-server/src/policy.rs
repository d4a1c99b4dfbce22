//! IAM session policies as the test server enforces them: the subset of AWS's policy language a
//! catalog scopes vended credentials with — `Statement`s with `Effect` (`Allow`, `Deny`),
//! `Action` and `Resource` (a string or a list, `*` and `?` wildcards), and `Condition` with
//! `StringLike` / `StringEquals` on `s3:prefix`. Anything else in a policy (`NotAction`,
//! `NotResource`, `Principal`, other condition operators or keys) is refused when the policy
//! is given (`AssumeRole` answers `MalformedPolicyDocument`), never ignored.
//!
//! Evaluation as AWS's: an explicit `Deny` wins, otherwise some `Allow` must match, otherwise
//! the request is denied. Hand-written because no IAM policy evaluator is in the dependency
//! tree and the subset is small.

use serde_json::Value;

/// A parsed session policy.
#[derive(Clone, Debug)]
pub struct Policy {
    statements: Vec<Statement>,
}

#[derive(Clone, Debug)]
struct Statement {
    allow: bool,
    actions: Vec<String>,
    resources: Vec<String>,
    /// `(exact, patterns)` on `s3:prefix`: all conditions must hold.
    prefix_conditions: Vec<(bool, Vec<String>)>,
}

/// One request as the policy sees it.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// `s3:GetObject`, `s3:PutObject`, `s3:DeleteObject`, `s3:ListBucket`.
    pub action: &'a str,
    /// `arn:aws:s3:::bucket` or `arn:aws:s3:::bucket/key`.
    pub resource: String,
    /// The `prefix` of a listing.
    pub prefix: Option<&'a str>,
}

fn strings(v: &Value, what: &str) -> Result<Vec<String>, String> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{what}: expected strings"))
            })
            .collect(),
        _ => Err(format!("{what}: expected a string or a list of strings")),
    }
}

impl Policy {
    /// Parses a policy document (JSON).
    pub fn parse(text: &str) -> Result<Policy, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let obj = doc.as_object().ok_or("the policy is not a JSON object")?;
        for k in obj.keys() {
            if !matches!(k.as_str(), "Version" | "Statement" | "Id") {
                return Err(format!("unsupported policy element {k}"));
            }
        }
        let stmts = match obj.get("Statement") {
            Some(Value::Array(a)) => a.clone(),
            Some(v @ Value::Object(_)) => vec![v.clone()],
            _ => return Err("no Statement".into()),
        };
        let mut statements = Vec::new();
        for s in &stmts {
            let s = s.as_object().ok_or("a Statement is not an object")?;
            for k in s.keys() {
                if !matches!(
                    k.as_str(),
                    "Sid" | "Effect" | "Action" | "Resource" | "Condition"
                ) {
                    return Err(format!("unsupported statement element {k}"));
                }
            }
            let allow = match s.get("Effect").and_then(Value::as_str) {
                Some("Allow") => true,
                Some("Deny") => false,
                other => return Err(format!("Effect {other:?}: expected Allow or Deny")),
            };
            let actions = strings(
                s.get("Action").ok_or("a Statement has no Action")?,
                "Action",
            )?;
            let resources = strings(
                s.get("Resource").ok_or("a Statement has no Resource")?,
                "Resource",
            )?;
            let mut prefix_conditions = Vec::new();
            if let Some(c) = s.get("Condition") {
                let c = c.as_object().ok_or("Condition is not an object")?;
                for (op, body) in c {
                    let exact = match op.as_str() {
                        "StringEquals" => true,
                        "StringLike" => false,
                        _ => return Err(format!("unsupported condition operator {op}")),
                    };
                    let body = body.as_object().ok_or("a condition is not an object")?;
                    for (key, v) in body {
                        if key != "s3:prefix" {
                            return Err(format!("unsupported condition key {key}"));
                        }
                        prefix_conditions.push((exact, strings(v, "s3:prefix")?));
                    }
                }
            }
            statements.push(Statement {
                allow,
                actions,
                resources,
                prefix_conditions,
            });
        }
        Ok(Policy { statements })
    }

    /// Whether the policy allows `req`.
    pub fn allows(&self, req: &Request<'_>) -> bool {
        let mut allowed = false;
        for s in &self.statements {
            if !s.matches(req) {
                continue;
            }
            if !s.allow {
                return false;
            }
            allowed = true;
        }
        allowed
    }
}

impl Statement {
    fn matches(&self, req: &Request<'_>) -> bool {
        self.actions
            .iter()
            .any(|a| glob(&a.to_ascii_lowercase(), &req.action.to_ascii_lowercase()))
            && self.resources.iter().any(|r| glob(r, &req.resource))
            && self
                .prefix_conditions
                .iter()
                .all(|(exact, patterns)| match req.prefix {
                    None => false,
                    Some(p) => patterns
                        .iter()
                        .any(|pat| if *exact { pat == p } else { glob(pat, p) }),
                })
    }
}

/// `*` (any run of characters) and `?` (one character) wildcards.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(action: &'a str, resource: &str, prefix: Option<&'a str>) -> Request<'a> {
        Request {
            action,
            resource: resource.to_string(),
            prefix,
        }
    }

    #[test]
    fn prefix_scoped_read_policy() {
        let p = Policy::parse(
            r#"{"Version":"2012-10-17","Statement":[
              {"Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::b/wh/db.db/t/*"]},
              {"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::b",
               "Condition":{"StringLike":{"s3:prefix":["wh/db.db/t","wh/db.db/t/*"]}}}]}"#,
        )
        .unwrap();
        assert!(p.allows(&req(
            "s3:GetObject",
            "arn:aws:s3:::b/wh/db.db/t/snapshot/LATEST",
            None
        )));
        assert!(!p.allows(&req("s3:GetObject", "arn:aws:s3:::b/wh/db.db/t2/x", None)));
        assert!(!p.allows(&req("s3:PutObject", "arn:aws:s3:::b/wh/db.db/t/x", None)));
        assert!(p.allows(&req("s3:ListBucket", "arn:aws:s3:::b", Some("wh/db.db/t/"))));
        assert!(!p.allows(&req("s3:ListBucket", "arn:aws:s3:::b", Some("wh/db.db/"))));
        assert!(!p.allows(&req("s3:ListBucket", "arn:aws:s3:::b", None)));
    }

    #[test]
    fn deny_wins_and_unknown_elements_are_refused() {
        let p = Policy::parse(
            r#"{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"},
              {"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}]}"#,
        )
        .unwrap();
        assert!(p.allows(&req("s3:PutObject", "arn:aws:s3:::b/k", None)));
        assert!(!p.allows(&req("s3:DeleteObject", "arn:aws:s3:::b/k", None)));
        for bad in [
            r#"{"Statement":[{"Effect":"Allow","NotAction":"s3:*","Resource":"*"}]}"#,
            r#"{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"IpAddress":{}}}]}"#,
            r#"{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"StringLike":{"s3:delimiter":"/"}}}]}"#,
            "[]",
        ] {
            assert!(Policy::parse(bad).is_err(), "{bad}");
        }
        assert!(glob("a*c?e", "abbbcde"));
        assert!(!glob("a*c?e", "abbbce"));
    }
}
