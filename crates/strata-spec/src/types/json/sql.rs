//! The SQL text form of Paimon types (`DataTypeJsonParser.parseAtomicTypeSQLString`).
//!
//! Accepts everything Java's parser accepts for the types strata models:
//! keywords in any case, `INTEGER`, `NUMERIC`/`DEC`, `DOUBLE PRECISION`, `TIMESTAMP_LTZ(p)`,
//! `… WITHOUT TIME ZONE`, `… WITH LOCAL TIME ZONE`, an explicit `NULL` / `NOT NULL` suffix,
//! default lengths (CHAR/VARCHAR/BINARY/VARBINARY 1) and precisions (DECIMAL(10, 0), TIME(0),
//! TIMESTAMP(6)), and the suffix forms `<T> ARRAY` / `<T> MULTISET`.
//!
//! Beyond Java (handy in hand-written schema files): nested types as text,
//! `ARRAY<T>`, `MULTISET<T>`, `MAP<K, V>`, `ROW<name T, …>` (also `ROW(…)`, `STRUCT<…>`,
//! `name: T`, backquoted names, a trailing `'comment'` or `COMMENT 'comment'` per field).
//! Nested ROW fields written as text take their ids from the caller's [`FieldIds`].

use super::field_ids::FieldIds;
use crate::error::{Result, SpecError};
use crate::types::{DataField, DataType, TypeKind, MAX_LENGTH};

/// Parses SQL type text such as `DECIMAL(10, 2) NOT NULL` or `ARRAY<INT>`. Nested ROW fields
/// are numbered 0, 1, 2, … in text order.
pub fn parse_type_text(text: &str) -> Result<DataType> {
    parse_type_text_with(text, &mut FieldIds::sequential())
}

/// [`parse_type_text`] with an explicit id policy for nested ROW fields.
pub fn parse_type_text_with(text: &str, ids: &mut FieldIds) -> Result<DataType> {
    let tokens = tokenize(text)?;
    let mut p = Parser {
        text,
        tokens,
        pos: 0,
        ids,
    };
    let t = p.type_with_nullability()?;
    if let Some(tok) = p.peek() {
        let tok = tok.clone();
        return Err(p.error_at(&tok, format!("unexpected {}", tok.tok.describe())));
    }
    Ok(t)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Open,   // <
    Close,  // >
    LParen, // (
    RParen, // )
    Comma,
    Colon,
    Dot,
    /// 'text' (a comment)
    Str(String),
    Int(String),
    /// a bare word: keyword or identifier, original case
    Word(String),
    /// `quoted identifier`
    Quoted(String),
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Open => "`<`".into(),
            Tok::Close => "`>`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Dot => "`.`".into(),
            Tok::Str(s) => format!("string '{s}'"),
            Tok::Int(s) => format!("number {s}"),
            Tok::Word(s) => format!("`{s}`"),
            Tok::Quoted(s) => format!("identifier `{s}`"),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    /// Character offset of the token's start.
    at: usize,
    tok: Tok,
}

fn type_error(text: &str, message: impl Into<String>) -> SpecError {
    SpecError::invalid(format!("data type `{text}`"), message)
}

fn tokenize(text: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at = i;
        let single = match c {
            '<' => Some(Tok::Open),
            '>' => Some(Tok::Close),
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            ',' => Some(Tok::Comma),
            ':' => Some(Tok::Colon),
            '.' => Some(Tok::Dot),
            _ => None,
        };
        if let Some(tok) = single {
            out.push(Token { at, tok });
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '\'' || c == '`' {
            // Quoted text; a doubled delimiter stands for itself.
            let mut s = String::new();
            i += 1;
            let mut closed = false;
            while i < chars.len() {
                if chars[i] == c {
                    if chars.get(i + 1) == Some(&c) {
                        s.push(c);
                        i += 2;
                        continue;
                    }
                    closed = true;
                    i += 1;
                    break;
                }
                s.push(chars[i]);
                i += 1;
            }
            if !closed {
                return Err(type_error(
                    text,
                    format!("unterminated quote {c} at position {at}"),
                ));
            }
            let tok = if c == '\'' {
                Tok::Str(s)
            } else {
                Tok::Quoted(s)
            };
            out.push(Token { at, tok });
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Token {
                at,
                tok: Tok::Int(chars[start..i].iter().collect()),
            });
            continue;
        }
        while i < chars.len() && !is_delimiter(chars[i]) {
            i += 1;
        }
        out.push(Token {
            at,
            tok: Tok::Word(chars[start..i].iter().collect()),
        });
    }
    Ok(out)
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '<' | '>' | '(' | ')' | ',' | ':' | '.' | '\'' | '`')
}

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    ids: &'a mut FieldIds,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_at(&self, ahead: usize) -> Option<&Tok> {
        self.tokens.get(self.pos + ahead).map(|t| &t.tok)
    }

    fn error_at(&self, tok: &Token, message: impl Into<String>) -> SpecError {
        type_error(
            self.text,
            format!("{} at position {}", message.into(), tok.at),
        )
    }

    fn error_here(&self, message: impl Into<String>) -> SpecError {
        match self.peek() {
            Some(t) => {
                let t = t.clone();
                let m = format!("{}, found {}", message.into(), t.tok.describe());
                self.error_at(&t, m)
            }
            None => type_error(self.text, format!("{}, found end of text", message.into())),
        }
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    /// True (and consumes it) when the next token is the keyword `kw`.
    fn eat_keyword(&mut self, kw: &str) -> bool {
        if self.peek_keyword(0, kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn peek_keyword(&self, ahead: usize, kw: &str) -> bool {
        matches!(self.peek_at(ahead), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw))
    }

    fn expect_keyword(&mut self, kw: &str) -> Result<()> {
        if self.eat_keyword(kw) {
            Ok(())
        } else {
            Err(self.error_here(format!("expected `{kw}`")))
        }
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek_at(0) == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &Tok) -> Result<()> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.error_here(format!("expected {}", tok.describe())))
        }
    }

    fn int(&mut self, what: &str) -> Result<u32> {
        match self.peek_at(0).cloned() {
            Some(Tok::Int(s)) => {
                let tok = self.next().expect("peeked token exists");
                // Java parses with Integer.parseInt: the value must fit an int.
                s.parse::<u32>()
                    .ok()
                    .filter(|v| *v <= MAX_LENGTH)
                    .ok_or_else(|| self.error_at(&tok, format!("{what} {s} is out of range")))
            }
            _ => Err(self.error_here(format!("expected {what}"))),
        }
    }

    /// `NOT NULL` → false; `NULL` or nothing → true.
    fn nullability(&mut self) -> bool {
        if self.peek_keyword(0, "NOT") && self.peek_keyword(1, "NULL") {
            self.pos += 2;
            false
        } else {
            self.eat_keyword("NULL");
            true
        }
    }

    fn type_with_nullability(&mut self) -> Result<DataType> {
        let kind = self.kind()?;
        let mut t = DataType::new(kind, self.nullability());
        // Suffix notation: `INT ARRAY`, `STRING NOT NULL MULTISET NOT NULL`.
        loop {
            if self.eat_keyword("ARRAY") {
                t = DataType::new(TypeKind::Array(Box::new(t)), self.nullability());
            } else if self.eat_keyword("MULTISET") {
                t = DataType::new(TypeKind::Multiset(Box::new(t)), self.nullability());
            } else {
                return Ok(t);
            }
        }
    }

    fn kind(&mut self) -> Result<TypeKind> {
        let Some(tok) = self.next() else {
            return Err(type_error(self.text, "expected a type, found end of text"));
        };
        let word = match &tok.tok {
            Tok::Word(w) => w.to_ascii_uppercase(),
            other => {
                let m = format!("expected a type, found {}", other.describe());
                return Err(self.error_at(&tok, m));
            }
        };
        let kind = match word.as_str() {
            "BOOLEAN" => TypeKind::Boolean,
            "TINYINT" => TypeKind::TinyInt,
            "SMALLINT" => TypeKind::SmallInt,
            "INT" | "INTEGER" => TypeKind::Int,
            "BIGINT" => TypeKind::BigInt,
            "FLOAT" => TypeKind::Float,
            "DOUBLE" => {
                self.eat_keyword("PRECISION");
                TypeKind::Double
            }
            "DECIMAL" | "NUMERIC" | "DEC" => self.decimal(&tok)?,
            "CHAR" => TypeKind::Char(self.length(&tok)?),
            "VARCHAR" => TypeKind::VarChar(self.length(&tok)?),
            "STRING" => TypeKind::VarChar(MAX_LENGTH),
            "BINARY" => TypeKind::Binary(self.length(&tok)?),
            "VARBINARY" => TypeKind::VarBinary(self.length(&tok)?),
            "BYTES" => TypeKind::VarBinary(MAX_LENGTH),
            "DATE" => TypeKind::Date,
            "TIME" => {
                let p = self.precision(&tok, 0)?;
                self.without_time_zone()?;
                TypeKind::Time(p)
            }
            "TIMESTAMP" => {
                let p = self.precision(&tok, 6)?;
                if self.peek_keyword(0, "WITHOUT") {
                    self.without_time_zone()?;
                    TypeKind::Timestamp(p)
                } else if self.eat_keyword("WITH") {
                    if !self.peek_keyword(0, "LOCAL") {
                        return Err(self.error_here(
                            "only TIMESTAMP WITH LOCAL TIME ZONE is supported; expected `LOCAL`",
                        ));
                    }
                    self.expect_keyword("LOCAL")?;
                    self.expect_keyword("TIME")?;
                    self.expect_keyword("ZONE")?;
                    TypeKind::LocalZonedTimestamp(p)
                } else {
                    TypeKind::Timestamp(p)
                }
            }
            "TIMESTAMP_LTZ" => TypeKind::LocalZonedTimestamp(self.precision(&tok, 6)?),
            "VARIANT" => TypeKind::Variant,
            "BLOB" => TypeKind::Blob,
            "ARRAY" => {
                self.expect(&Tok::Open)?;
                let e = self.type_with_nullability()?;
                self.expect(&Tok::Close)?;
                TypeKind::Array(Box::new(e))
            }
            "MULTISET" => {
                self.expect(&Tok::Open)?;
                let e = self.type_with_nullability()?;
                self.expect(&Tok::Close)?;
                TypeKind::Multiset(Box::new(e))
            }
            "MAP" => {
                self.expect(&Tok::Open)?;
                let key = self.type_with_nullability()?;
                self.expect(&Tok::Comma)?;
                let value = self.type_with_nullability()?;
                self.expect(&Tok::Close)?;
                TypeKind::Map {
                    key: Box::new(key),
                    value: Box::new(value),
                }
            }
            "ROW" | "STRUCT" => TypeKind::Row(self.row_fields()?),
            "VECTOR" | "GEOMETRY" | "GEOGRAPHY" | "INTERVAL" | "RAW" => {
                return Err(SpecError::Unsupported(format!(
                    "data type `{}`: {word} columns are not supported",
                    self.text
                )))
            }
            _ => {
                let m = format!("unknown type `{}`", word);
                return Err(self.error_at(&tok, m));
            }
        };
        Ok(kind)
    }

    fn without_time_zone(&mut self) -> Result<()> {
        if self.eat_keyword("WITHOUT") {
            self.expect_keyword("TIME")?;
            self.expect_keyword("ZONE")?;
        }
        Ok(())
    }

    /// Optional `(n)` of CHAR/VARCHAR/BINARY/VARBINARY; default 1, minimum 1.
    fn length(&mut self, tok: &Token) -> Result<u32> {
        if !self.eat(&Tok::LParen) {
            return Ok(1);
        }
        let n = self.int("length")?;
        self.expect(&Tok::RParen)?;
        if n < 1 {
            return Err(self.error_at(tok, "length must be between 1 and 2147483647"));
        }
        Ok(n)
    }

    /// Optional `(p)` of TIME/TIMESTAMP; 0..=9.
    fn precision(&mut self, tok: &Token, default: u32) -> Result<u32> {
        if !self.eat(&Tok::LParen) {
            return Ok(default);
        }
        let p = self.int("precision")?;
        self.expect(&Tok::RParen)?;
        if p > 9 {
            return Err(self.error_at(tok, format!("precision {p} must be between 0 and 9")));
        }
        Ok(p)
    }

    /// `DECIMAL`, `DECIMAL(p)`, `DECIMAL(p, s)`: p 1..=38 (default 10), s 0..=p (default 0).
    fn decimal(&mut self, tok: &Token) -> Result<TypeKind> {
        let (mut precision, mut scale) = (10, 0);
        if self.eat(&Tok::LParen) {
            precision = self.int("precision")?;
            if self.eat(&Tok::Comma) {
                scale = self.int("scale")?;
            }
            self.expect(&Tok::RParen)?;
        }
        if !(1..=38).contains(&precision) {
            let m = format!("decimal precision {precision} must be between 1 and 38");
            return Err(self.error_at(tok, m));
        }
        if scale > precision {
            let m =
                format!("decimal scale {scale} must be between 0 and the precision {precision}");
            return Err(self.error_at(tok, m));
        }
        Ok(TypeKind::Decimal { precision, scale })
    }

    /// `<f1 T1, f2 T2 'comment', …>` or `(…)`, possibly empty.
    fn row_fields(&mut self) -> Result<Vec<DataField>> {
        let close = if self.eat(&Tok::Open) {
            Tok::Close
        } else if self.eat(&Tok::LParen) {
            Tok::RParen
        } else {
            return Err(self.error_here("expected `<` after ROW"));
        };
        let mut fields = Vec::new();
        if self.eat(&close) {
            return Ok(fields);
        }
        loop {
            let name = match self.next() {
                Some(Token {
                    tok: Tok::Word(w) | Tok::Quoted(w),
                    ..
                }) => w,
                Some(t) => {
                    let m = format!("expected a field name, found {}", t.tok.describe());
                    return Err(self.error_at(&t, m));
                }
                None => return Err(self.error_here("expected a field name")),
            };
            self.eat(&Tok::Colon);
            let id = self.ids.take(None, &name)?;
            let data_type = self.type_with_nullability()?;
            let description = if self.eat_keyword("COMMENT") {
                match self.next() {
                    Some(Token {
                        tok: Tok::Str(s), ..
                    }) => Some(s),
                    _ => return Err(self.error_here("expected a quoted comment after COMMENT")),
                }
            } else if let Some(Tok::Str(s)) = self.peek_at(0).cloned() {
                self.pos += 1;
                Some(s)
            } else {
                None
            };
            fields.push(DataField {
                id,
                name,
                data_type,
                description,
                default_value: None,
            });
            if self.eat(&close) {
                return Ok(fields);
            }
            self.expect(&Tok::Comma)?;
        }
    }
}
