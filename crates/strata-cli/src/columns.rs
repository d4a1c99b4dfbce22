//! The `--columns` list of `strata read` and `strata tail`: column names and MAP key
//! accesses (`m['key']`) separated by commas outside quotes.

use crate::error::{msg, Result};

/// Splits a `--columns` list at commas outside quotes (`'…'` and `"…"`, doubled quotes
/// included), trimming each item: `id, m['a,b']` is `id` and `m['a,b']`.
pub fn split_columns(text: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (None, ',') => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        current.push(c);
    }
    if quote.is_some() {
        return Err(msg(format!("--columns {text:?}: unterminated quote")));
    }
    out.push(current);
    let out: Vec<String> = out.into_iter().map(|s| s.trim().to_string()).collect();
    if out.iter().any(String::is_empty) {
        return Err(msg(format!("--columns {text:?}: empty column name")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::split_columns;

    #[test]
    fn splits_outside_quotes() {
        let s = |t: &str| split_columns(t).unwrap();
        assert_eq!(s("id"), ["id"]);
        assert_eq!(s("id, m['usage'] ,v"), ["id", "m['usage']", "v"]);
        assert_eq!(s("m['a,b'],m['it''s,x']"), ["m['a,b']", "m['it''s,x']"]);
        assert_eq!(s("\"a,b\"['k'],x"), ["\"a,b\"['k']", "x"]);
        assert!(split_columns("m['a").is_err());
        assert!(split_columns("a,,b").is_err());
    }
}
