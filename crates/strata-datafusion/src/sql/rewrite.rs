//! What strata's SQL adds to DataFusion's, resolved before DataFusion plans a statement:
//!
//! * **Time travel** on any table reference: `t VERSION AS OF 3` (a snapshot id),
//!   `t VERSION AS OF 'tag-name'` (a tag), `t TIMESTAMP AS OF '2026-01-01 10:00:00'` (the latest
//!   snapshot committed at or before that local time), `t FOR SYSTEM_TIME AS OF '…'`.
//! * **Dynamic options** per table reference, Flink's hint syntax that Paimon documents:
//!   `t /*+ OPTIONS('scan.snapshot-id' = '1') */`, on a table read or on the target of an
//!   `INSERT` (where a time-travel option is refused: a view of a snapshot is read-only).
//!
//! Both are found in the token stream (sqlparser drops comments, and parses `VERSION AS OF`
//! with a number only): a tag name becomes a numeric placeholder and each hint is remembered
//! with the position of the table name before it, so it applies to that one reference even
//! when the statement names the table twice; a hint after anything else (an alias, a column, a
//! value, a name that is no table read or written) is refused, as is a second hint after the
//! same name. After parsing, every table reference that carries
//! either is renamed to a per-statement table registered by the session with the options
//! applied ([`crate::SqlSession`]).

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use datafusion::common::Result;
use datafusion::sql::sqlparser::ast::{
    Expr, Ident, Insert, ObjectName, ObjectNamePart, Statement, TableAlias, TableFactor,
    TableObject, TableVersion, Value, ValueWithSpan, Visit, VisitMut, Visitor, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::Dialect;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::{Span, Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::error::plan_error;

/// Placeholders for `VERSION AS OF 'tag'` start here (no real snapshot id is this large).
const TAG_PLACEHOLDER_BASE: i64 = 9_000_000_000_000_000_000;

/// Statements parsed from a script, with the time-travel tags and option hints they carry.
pub struct Parsed {
    pub statements: Vec<Statement>,
    tags: Vec<String>,
    /// Each hint with the position of the table name it follows (the name's last part).
    hints: Vec<Hint>,
}

/// One `/*+ OPTIONS(…) */` hint.
struct Hint {
    /// The position of the word before it: the last part of the table name it applies to.
    name: Span,
    /// The word before it, the hint's own position and its text, for errors.
    word: String,
    at: Span,
    text: String,
    options: BTreeMap<String, String>,
}

/// One table reference that needs its own provider.
#[derive(Debug, Clone)]
pub struct TableRef {
    /// The name as written (1 to 3 parts).
    pub name: Vec<String>,
    pub options: BTreeMap<String, String>,
    /// The name it was renamed to (in the session's per-statement schema).
    pub alias: String,
}

/// Parses `sql` (one or more statements) with strata's extensions.
pub fn parse(sql: &str, dialect: &dyn Dialect) -> Result<Parsed> {
    let tokens = Tokenizer::new(dialect, sql)
        .tokenize_with_location()
        .map_err(|e| plan_error(format!("SQL: {e}")))?;
    let mut tags = Vec::new();
    let mut hints = Vec::new();
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for t in tokens {
        if let Token::Whitespace(Whitespace::MultiLineComment(text)) = &t.token {
            if let Some(options) = parse_hint(text)? {
                let (name, word) = previous_word(&out).ok_or_else(|| {
                    plan_error(format!(
                        "SQL hint /*{text}*/{}: a hint follows the table name it applies to",
                        t.span.start
                    ))
                })?;
                if hints.iter().any(|h: &Hint| h.name == name) {
                    return Err(plan_error(format!(
                        "SQL hint /*{text}*/{}: a second hint after the same table name; give \
                         all its options in one OPTIONS(...)",
                        t.span.start
                    )));
                }
                hints.push(Hint {
                    name,
                    word,
                    at: t.span,
                    text: text.clone(),
                    options,
                });
            }
            continue;
        }
        if let Token::SingleQuotedString(tag) = &t.token {
            if follows_version_as_of(&out) {
                let n = TAG_PLACEHOLDER_BASE + tags.len() as i64;
                tags.push(tag.clone());
                out.push(TokenWithSpan::new(
                    Token::Number(n.to_string(), false),
                    t.span,
                ));
                continue;
            }
        }
        out.push(t);
    }
    let out = reset_as_null_options(out);
    let statements = Parser::new(dialect)
        .with_tokens_with_locations(out)
        .parse_statements()
        .map_err(|e| plan_error(format!("SQL: {e}")))?;
    check_hints_follow_table_names(&statements, &hints)?;
    Ok(Parsed {
        statements,
        tags,
        hints,
    })
}

/// Every hint must follow the name of a table reference that takes options — a table read
/// (`FROM`, `JOIN`, the target of `UPDATE`, `DELETE`, `MERGE`) or an `INSERT` target —, never
/// an alias, a column, a value or another statement's name (`CREATE TABLE t /*+ … */`,
/// `ALTER TABLE t /*+ … */`): such a hint would apply to nothing, and is refused rather than
/// ignored.
fn check_hints_follow_table_names(statements: &[Statement], hints: &[Hint]) -> Result<()> {
    if hints.is_empty() {
        return Ok(());
    }
    let mut names = TableNames(Vec::new());
    for stmt in statements {
        let _ = stmt.visit(&mut names);
    }
    for h in hints {
        if !names.0.contains(&h.name) {
            let message = format!(
                "SQL hint /*{}*/{}: it follows `{}`, which is not the name of a table \
                 read or written here; a hint follows the table name it applies to (before \
                 any alias)",
                h.text, h.at.start, h.word
            );
            let diagnostic = datafusion::common::Diagnostic::new_error(
                message.clone(),
                datafusion::common::Span::try_from_sqlparser_span(h.at),
            );
            return Err(plan_error(message).with_diagnostic(diagnostic));
        }
    }
    Ok(())
}

/// The positions of the last part of every table name a hint may follow (what
/// [`Parsed::hint_of`] is asked about by [`Parsed::resolve_refs`] and the `INSERT … PARTITION`
/// path).
struct TableNames(Vec<Span>);

impl TableNames {
    fn push(&mut self, name: &ObjectName) {
        if let Some(i) = name.0.last().and_then(|p| p.as_ident()) {
            self.0.push(i.span);
        }
    }
}

impl Visitor for TableNames {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table { name, .. } = factor {
            self.push(name);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_statement(&mut self, stmt: &Statement) -> ControlFlow<()> {
        if let Statement::Insert(Insert {
            table: TableObject::TableName(name),
            ..
        }) = stmt
        {
            self.push(name);
        }
        ControlFlow::Continue(())
    }
}

/// `ALTER TABLE t RESET ('k', …)` (Flink) and `… UNSET TBLPROPERTIES ('k', …)` (Spark), which
/// sqlparser does not parse, as `SET TBLPROPERTIES ('k' = NULL, …)`: a NULL value removes the
/// option (see `alter.rs`).
fn reset_as_null_options(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let word = |t: &TokenWithSpan, w: &str| matches!(&t.token, Token::Word(x) if x.value.eq_ignore_ascii_case(w));
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut in_alter = false;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if word(t, "ALTER") {
            in_alter = true;
        } else if t.token == Token::SemiColon {
            in_alter = false;
        }
        let is_reset = in_alter && word(t, "RESET");
        let is_unset = in_alter && word(t, "UNSET");
        if is_reset || is_unset {
            let mut j = i + 1;
            let skip = |j: &mut usize| {
                while *j < tokens.len() && matches!(tokens[*j].token, Token::Whitespace(_)) {
                    *j += 1;
                }
            };
            skip(&mut j);
            if is_unset && j < tokens.len() && word(&tokens[j], "TBLPROPERTIES") {
                j += 1;
                skip(&mut j);
            }
            if j < tokens.len() && tokens[j].token == Token::LParen {
                let span = t.span;
                let mk = |tok: Token| TokenWithSpan::new(tok, span);
                out.push(mk(Token::make_keyword("SET")));
                out.push(mk(Token::Whitespace(Whitespace::Space)));
                out.push(mk(Token::make_keyword("TBLPROPERTIES")));
                out.push(mk(Token::Whitespace(Whitespace::Space)));
                out.push(tokens[j].clone());
                j += 1;
                while j < tokens.len() && tokens[j].token != Token::RParen {
                    let tok = tokens[j].clone();
                    let is_key = matches!(tok.token, Token::SingleQuotedString(_));
                    out.push(tok);
                    if is_key {
                        out.push(mk(Token::Eq));
                        out.push(mk(Token::make_keyword("NULL")));
                    }
                    j += 1;
                }
                i = j;
                continue;
            }
        }
        out.push(t.clone());
        i += 1;
    }
    out
}

/// `/*+ OPTIONS('k' = 'v', ...) */` as options; `None` for other comments.
fn parse_hint(text: &str) -> Result<Option<BTreeMap<String, String>>> {
    let Some(body) = text.trim().strip_prefix('+') else {
        return Ok(None);
    };
    let body = body.trim();
    let upper = body.to_ascii_uppercase();
    if !upper.starts_with("OPTIONS") {
        return Err(plan_error(format!(
            "SQL hint /*{text}*/: only OPTIONS('key' = 'value', ...) hints are known"
        )));
    }
    let inner = body["OPTIONS".len()..].trim();
    let inner = inner
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| plan_error(format!("SQL hint /*{text}*/: expected OPTIONS(...)")))?;
    let mut options = BTreeMap::new();
    let strings = quoted_strings(inner)
        .ok_or_else(|| plan_error(format!("SQL hint /*{text}*/: unterminated quote")))?;
    if strings.len() % 2 != 0 {
        return Err(plan_error(format!(
            "SQL hint /*{text}*/: expected 'key' = 'value' pairs"
        )));
    }
    for pair in strings.chunks(2) {
        options.insert(pair[0].clone(), pair[1].clone());
    }
    Ok(Some(options))
}

/// The single-quoted strings of `text` in order (`''` is a quote inside one).
fn quoted_strings(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            continue;
        }
        let mut s = String::new();
        loop {
            match chars.next()? {
                '\'' if chars.peek() == Some(&'\'') => {
                    chars.next();
                    s.push('\'');
                }
                '\'' => break,
                c => s.push(c),
            }
        }
        out.push(s);
    }
    Some(out)
}

/// The position and text of the word that ends the tokens so far (the last part of a table
/// name before a hint), if they end with a word.
fn previous_word(tokens: &[TokenWithSpan]) -> Option<(Span, String)> {
    let last = tokens
        .iter()
        .rev()
        .find(|t| !matches!(t.token, Token::Whitespace(_)))?;
    match &last.token {
        Token::Word(w) => Some((last.span, w.to_string())),
        _ => None,
    }
}

fn follows_version_as_of(tokens: &[TokenWithSpan]) -> bool {
    let words: Vec<String> = tokens
        .iter()
        .rev()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .take(3)
        .map(|t| match &t.token {
            Token::Word(w) => w.value.to_ascii_uppercase(),
            _ => String::new(),
        })
        .collect();
    words == ["OF", "AS", "VERSION"]
}

impl Parsed {
    /// The options of the hint written right after `name` (`t /*+ OPTIONS(…) */`).
    pub fn hint_of(&self, name: &ObjectName) -> Option<&BTreeMap<String, String>> {
        let at = name.0.last().and_then(|p| p.as_ident()).map(|i| i.span)?;
        self.hints.iter().find(|h| h.name == at).map(|h| &h.options)
    }

    /// Renames the table references of `stmt` that carry a time-travel clause or an options
    /// hint, returning them (the session registers a provider for each under its alias).
    pub fn resolve_refs(
        &self,
        stmt: &mut Statement,
        prefix: &[String],
        statement: u64,
    ) -> Result<Vec<TableRef>> {
        let mut v = RefCollector {
            parsed: self,
            prefix,
            statement,
            refs: Vec::new(),
            error: None,
        };
        let _ = stmt.visit(&mut v);
        match v.error {
            Some(e) => Err(plan_error(e)),
            None => Ok(v.refs),
        }
    }
}

struct RefCollector<'a> {
    parsed: &'a Parsed,
    /// The per-statement schema's path (`catalog`, `schema`).
    prefix: &'a [String],
    /// A number unique to the statement, for unique aliases.
    statement: u64,
    refs: Vec<TableRef>,
    error: Option<String>,
}

fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .filter_map(|p| match p {
            ObjectNamePart::Identifier(i) => Some(i.value.clone()),
            _ => None,
        })
        .collect()
}

fn number(e: &Expr) -> Option<i64> {
    match e {
        Expr::Value(ValueWithSpan {
            value: Value::Number(n, _),
            ..
        }) => n.parse().ok(),
        _ => None,
    }
}

fn string(e: &Expr) -> Option<String> {
    match e {
        Expr::Value(ValueWithSpan {
            value: Value::SingleQuotedString(s) | Value::DoubleQuotedString(s),
            ..
        }) => Some(s.clone()),
        _ => None,
    }
}

impl RefCollector<'_> {
    fn version_options(&self, v: &TableVersion) -> Result<BTreeMap<String, String>, String> {
        let mut o = BTreeMap::new();
        match v {
            TableVersion::VersionAsOf(e) => match number(e) {
                Some(n) if n >= TAG_PLACEHOLDER_BASE => {
                    let tag = self
                        .parsed
                        .tags
                        .get((n - TAG_PLACEHOLDER_BASE) as usize)
                        .ok_or("VERSION AS OF: unknown tag placeholder")?;
                    o.insert("scan.tag-name".into(), tag.clone());
                }
                Some(n) => {
                    o.insert("scan.snapshot-id".into(), n.to_string());
                }
                None => {
                    return Err(format!(
                        "VERSION AS OF {e}: expected a snapshot id or a tag name"
                    ))
                }
            },
            TableVersion::TimestampAsOf(e) | TableVersion::ForSystemTimeAsOf(e) => {
                match (string(e), number(e)) {
                    (Some(s), _) => o.insert("scan.timestamp".into(), s),
                    (_, Some(ms)) => o.insert("scan.timestamp-millis".into(), ms.to_string()),
                    _ => {
                        return Err(format!(
                            "TIMESTAMP AS OF {e}: expected 'yyyy-MM-dd HH:mm:ss' or epoch \
                             milliseconds"
                        ))
                    }
                };
            }
            other => return Err(format!("time travel `{other}` is not supported")),
        }
        Ok(o)
    }
}

impl RefCollector<'_> {
    /// Renames the reference `name` (with its time-travel clause, if any) to a per-statement
    /// table when it carries options; `alias` is the reference's alias, set to the name as
    /// written so that columns stay qualified by it (`None`: the reference cannot have one).
    fn rename(
        &mut self,
        name: &mut ObjectName,
        version: Option<TableVersion>,
        alias: Option<&mut Option<TableAlias>>,
    ) -> ControlFlow<()> {
        let parts = name_parts(name);
        let mut options = BTreeMap::new();
        if let Some(v) = version {
            match self.version_options(&v) {
                Ok(o) => options.extend(o),
                Err(e) => {
                    self.error = Some(e);
                    return ControlFlow::Break(());
                }
            }
        }
        // The hint written right after this reference's name (a table named twice in one
        // statement takes each reference's own hint).
        if let Some(o) = self.parsed.hint_of(name) {
            options.extend(o.clone());
        }
        if options.is_empty() {
            return ControlFlow::Continue(());
        }
        let renamed = format!("s{}_t{}", self.statement, self.refs.len());
        let mut new_name: Vec<ObjectNamePart> = self
            .prefix
            .iter()
            .map(|p| ObjectNamePart::Identifier(Ident::with_quote('"', p.clone())))
            .collect();
        new_name.push(ObjectNamePart::Identifier(Ident::with_quote(
            '"',
            renamed.clone(),
        )));
        // Columns stay qualified by the name as written (`t.c`).
        if let Some(alias @ None) = alias {
            if let Some(last) = parts.last() {
                *alias = Some(TableAlias {
                    explicit: true,
                    name: Ident::new(last.clone()),
                    columns: vec![],
                    at: None,
                });
            }
        }
        *name = ObjectName(new_name);
        self.refs.push(TableRef {
            name: parts,
            options,
            alias: renamed,
        });
        ControlFlow::Continue(())
    }
}

impl VisitorMut for RefCollector<'_> {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            version,
            alias,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        let version = version.take();
        self.rename(name, version, Some(alias))
    }

    /// The target of `INSERT INTO t /*+ OPTIONS(…) */`: its options apply to the write (a
    /// time-travel option makes it a read-only view, and the INSERT is refused).
    fn pre_visit_statement(&mut self, stmt: &mut Statement) -> ControlFlow<()> {
        if let Statement::Insert(Insert {
            table: TableObject::TableName(name),
            ..
        }) = stmt
        {
            return self.rename(name, None, None);
        }
        ControlFlow::Continue(())
    }
}
