//! Fast paths for the three JSON values of the shredding footer, with serde_json behind them.
//!
//! Every read of a shredded file parses its field dictionary (`{"name": id, …}`, thousands of
//! keys), overflow set (`[id, …]`) and field-columns (`{"id": [col, …], …}`). Through
//! serde_json that costs about 50 instructions a byte (a `String` per key, the visitor
//! machinery), which made the footer the largest cost of a one-key query. These parsers accept
//! only the plain shapes writers produce — keys without escapes, integers without sign `+`,
//! fraction or exponent, optional whitespace — and return `None` for anything else, so the
//! caller falls back to serde_json, which then parses it or reports the error. They never
//! accept a text serde_json would read differently (property-tested against it).

/// Tokens over a byte slice.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(b: &'a [u8]) -> Self {
        Cursor { b, at: 0 }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.at) {
            self.at += 1;
        }
    }

    /// Skips whitespace, then consumes `c` if it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.b.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// A string without escapes or control characters.
    fn plain_string(&mut self) -> Option<&'a str> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        let len = self.b[start..].iter().position(|&c| c == b'"')?;
        let raw = &self.b[start..start + len];
        if raw.iter().any(|&c| c == b'\\' || c < 0x20) {
            return None;
        }
        self.at = start + len + 1;
        std::str::from_utf8(raw).ok()
    }

    /// An integer: `-`? digits, no leading zeros (as JSON), within i64.
    fn int(&mut self) -> Option<i64> {
        self.ws();
        let neg = self.b.get(self.at) == Some(&b'-');
        if neg {
            self.at += 1;
        }
        let start = self.at;
        let mut v: i64 = 0;
        while let Some(&c @ b'0'..=b'9') = self.b.get(self.at) {
            v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            self.at += 1;
        }
        let digits = self.at - start;
        if digits == 0 || (digits > 1 && self.b[start] == b'0') {
            return None;
        }
        // A fraction or exponent is serde's to judge.
        if let Some(b'.' | b'e' | b'E') = self.b.get(self.at) {
            return None;
        }
        Some(if neg { -v } else { v })
    }

    fn end(mut self) -> Option<()> {
        self.ws();
        (self.at == self.b.len()).then_some(())
    }

    /// `[int, …]`.
    fn int_list(&mut self) -> Option<Vec<i64>> {
        if !self.eat(b'[') {
            return None;
        }
        let mut out = Vec::new();
        if self.eat(b']') {
            return Some(out);
        }
        loop {
            out.push(self.int()?);
            if self.eat(b']') {
                return Some(out);
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// `{"key": value, …}` with `value` read by `f`.
    fn object<T>(
        &mut self,
        mut f: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<(&'a str, T)>> {
        if !self.eat(b'{') {
            return None;
        }
        let mut out = Vec::new();
        if self.eat(b'}') {
            return Some(out);
        }
        loop {
            let key = self.plain_string()?;
            if !self.eat(b':') {
                return None;
            }
            out.push((key, f(self)?));
            if self.eat(b'}') {
                return Some(out);
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }
}

/// `{"name": id, …}` → members in order, ids as i64.
pub(super) fn string_to_int(json: &[u8]) -> Option<Vec<(String, i64)>> {
    let mut c = Cursor::new(json);
    let members = c.object(|c| c.int())?;
    c.end()?;
    Some(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// `{"id": [col, …], …}` → members in order (keys as text).
pub(super) fn string_to_int_list(json: &str) -> Option<Vec<(String, Vec<i64>)>> {
    let mut c = Cursor::new(json.as_bytes());
    let members = c.object(|c| c.int_list())?;
    c.end()?;
    Some(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// `[int, …]`.
pub(super) fn int_list(json: &str) -> Option<Vec<i64>> {
    let mut c = Cursor::new(json.as_bytes());
    let list = c.int_list()?;
    c.end()?;
    Some(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What serde_json reads, members in order (the shape the caller collects).
    fn serde_object<T: serde::de::DeserializeOwned>(json: &str) -> Option<Vec<(String, T)>> {
        let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json).ok()?;
        v.into_iter()
            .map(|(k, v)| Some((k, serde_json::from_value(v).ok()?)))
            .collect()
    }

    #[test]
    fn plain_shapes() {
        assert_eq!(
            string_to_int(br#"{"a":1,"b b":-2, "c" : 30 }"#),
            Some(vec![("a".into(), 1), ("b b".into(), -2), ("c".into(), 30)])
        );
        assert_eq!(string_to_int(b"{}"), Some(vec![]));
        assert_eq!(int_list("[1, 2,3]"), Some(vec![1, 2, 3]));
        assert_eq!(int_list("[]"), Some(vec![]));
        assert_eq!(
            string_to_int_list(r#"{"0":[1,2],"7":[]}"#),
            Some(vec![("0".into(), vec![1, 2]), ("7".into(), vec![])])
        );
        // Left to serde: escapes, fractions, exponents, leading zeros, trailing text.
        for bad in [
            r#"{"a\"b":1}"#,
            r#"{"a":1.0}"#,
            r#"{"a":1e3}"#,
            r#"{"a":01}"#,
            r#"{"a":1}x"#,
            r#"{"a":1,}"#,
        ] {
            assert_eq!(string_to_int(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(int_list("[1,]"), None);
        assert_eq!(int_list("[99999999999999999999]"), None);
    }

    proptest! {
        #[test]
        fn dictionaries_agree_with_serde(
            keys in prop::collection::btree_map("\\PC{0,8}|[a-z\"\\\\ ]{0,6}", -5i64..100_000, 0..20),
            pretty in any::<bool>(),
        ) {
            let json = if pretty {
                serde_json::to_string_pretty(&keys).unwrap()
            } else {
                serde_json::to_string(&keys).unwrap()
            };
            if let Some(fast) = string_to_int(json.as_bytes()) {
                prop_assert_eq!(Some(fast), serde_object::<i64>(&json));
            }
            let plain = keys.keys().all(|k| !k.contains(['"', '\\']) && !k.chars().any(char::is_control));
            prop_assert!(!plain || string_to_int(json.as_bytes()).is_some(), "{}", json);
        }

        #[test]
        fn lists_agree_with_serde(text in "[\\[\\]0-9, .e+-]{0,24}") {
            if let Some(fast) = int_list(&text) {
                prop_assert_eq!(Some(fast), serde_json::from_str::<Vec<i64>>(&text).ok());
            }
        }

        #[test]
        fn column_maps_agree_with_serde(
            cols in prop::collection::btree_map(0i32..5000, prop::collection::vec(0i64..300, 0..5), 0..10),
        ) {
            let json = serde_json::to_string(&cols).unwrap();
            let fast = string_to_int_list(&json);
            prop_assert!(fast.is_some());
            prop_assert_eq!(fast, serde_object::<Vec<i64>>(&json));
        }
    }
}
