"""Filters built in Python: :class:`PredicateBuilder` makes :class:`Predicate` objects with
pypaimon's method names, as SQL text in the grammar strata's filters accept::

    pb = table.new_read_builder().new_predicate_builder()
    p = pb.and_predicates([pb.equal("dt", "2024-01-01"), pb.greater_than("m['clicks']", 3)])
    table.new_read_builder().with_filter(p)      # or table.read(where=p)
    p.to_sql()  # => ("dt" = '2024-01-01') AND (m['clicks'] > 3)

The grammar (strata's ``parse_sql_predicate``): comparisons of a column with a literal,
AND / OR / NOT, ``[NOT] IN (...)``, ``[NOT] BETWEEN``, ``IS [NOT] NULL`` and
``[NOT] LIKE 'prefix%'``; literals are numbers, strings, booleans, ``X'hex'``,
``DATE '...'``, ``TIME '...'``, ``TIMESTAMP '...'`` and ``TIMESTAMP WITH TIME ZONE '...'``.
What it cannot express (``endswith``, ``contains``, general ``LIKE``) raises
``NotImplementedError``: filter after reading, or use :func:`strata.sql`.
"""

from __future__ import annotations

import datetime
import decimal
import math
import numbers
import re
from typing import Any, Iterable, List, Optional, Sequence

__all__ = ["Predicate", "PredicateBuilder"]

_NOT_EXPRESSIBLE = (
    "{what} cannot be expressed in strata's filter grammar (comparisons, IN, BETWEEN, "
    "IS NULL, LIKE 'prefix%'); filter the rows after reading (e.g. with pyarrow.compute or "
    "polars), or query with strata.sql(\"SELECT ... WHERE ...\", catalog)"
)


class Predicate:
    """A row filter: SQL boolean text in strata's filter grammar.

    Combine predicates with ``&`` (AND), ``|`` (OR) and ``~`` (NOT). Two predicates are
    equal when their SQL texts are. Pass one to ``ReadBuilder.with_filter`` or
    ``Table.read(where=...)``; both call :meth:`to_sql`.
    """

    __slots__ = ("_sql",)

    def __init__(self, sql: str) -> None:
        """Wraps SQL text (not checked here; strata checks it when the filter is set)."""
        if not isinstance(sql, str):
            raise TypeError(f"a Predicate holds SQL text, not a {type(sql).__name__}")
        self._sql = sql

    def to_sql(self) -> str:
        """The SQL text of this predicate."""
        return self._sql

    def __and__(self, other: "Predicate") -> "Predicate":
        """``(self) AND (other)``."""
        if not isinstance(other, Predicate):
            return NotImplemented
        return Predicate(f"({self._sql}) AND ({other._sql})")

    def __or__(self, other: "Predicate") -> "Predicate":
        """``(self) OR (other)``."""
        if not isinstance(other, Predicate):
            return NotImplemented
        return Predicate(f"({self._sql}) OR ({other._sql})")

    def __invert__(self) -> "Predicate":
        """``NOT (self)`` (SQL three-valued logic: rows where ``self`` is NULL stay out)."""
        return Predicate(f"NOT ({self._sql})")

    def __eq__(self, other: object) -> bool:
        """Equal when the SQL texts are equal."""
        if not isinstance(other, Predicate):
            return NotImplemented
        return self._sql == other._sql

    def __ne__(self, other: object) -> bool:
        """Different when the SQL texts differ."""
        if not isinstance(other, Predicate):
            return NotImplemented
        return self._sql != other._sql

    def __hash__(self) -> int:
        """The hash of the SQL text."""
        return hash(self._sql)

    def __repr__(self) -> str:
        """``Predicate('<sql>')``."""
        return f"Predicate({self._sql!r})"

    def __str__(self) -> str:
        """The SQL text."""
        return self._sql

    def __reduce__(self):
        """Pickles as its SQL text."""
        return (Predicate, (self._sql,))


# ---------------------------------------------------------------------------------------------
# Column names
# ---------------------------------------------------------------------------------------------


def _quote_identifier(name: str) -> str:
    """``name`` as a double-quoted SQL identifier (``"`` doubled)."""
    return '"' + name.replace('"', '""') + '"'


def _read_quoted(text: str, pos: int, quote: str) -> Optional[tuple]:
    """Reads a quoted token whose opening ``quote`` is at ``text[pos]`` (a doubled quote is
    one quote): ``(content, position after the closing quote)``, or ``None`` if unclosed."""
    out = []
    i = pos + 1
    while i < len(text):
        c = text[i]
        if c == quote:
            if i + 1 < len(text) and text[i + 1] == quote:
                out.append(quote)
                i += 2
                continue
            return "".join(out), i + 1
        out.append(c)
        i += 1
    return None


_PLAIN_MAP_COLUMN = re.compile(r"\w+")


def _parse_map_key(text: str) -> Optional[tuple]:
    """``(column, key)`` when ``text`` is a MAP key access ``col['key']``, ``"col"['key']`` or
    ``` `col`['key'] ``` (a doubled quote inside quotes is one quote; spaces around the
    brackets allowed), as strata's ``MapKeyRef::parse``; ``None`` when it is not that shape."""
    t = text.strip()
    if not t:
        return None
    if t[0] in "\"`":
        r = _read_quoted(t, 0, t[0])
        if r is None:
            return None
        column, pos = r
    else:
        end = t.find("[")
        if end < 0:
            return None
        column = t[:end].rstrip()
        if not _PLAIN_MAP_COLUMN.fullmatch(column):
            return None
        pos = end
    while pos < len(t) and t[pos].isspace():
        pos += 1
    if pos >= len(t) or t[pos] != "[":
        return None
    pos += 1
    while pos < len(t) and t[pos].isspace():
        pos += 1
    if pos >= len(t) or t[pos] != "'":
        return None
    r = _read_quoted(t, pos, "'")
    if r is None:
        return None
    key, pos = r
    rest = t[pos:].lstrip()
    if not rest.startswith("]") or rest[1:].strip():
        return None
    return column, key


def _column(name: str) -> str:
    """The SQL text naming column ``name``: for a MAP key access given as ``m['k']`` (or
    ``"My Map"['k']``), the access with the column quoted and the key a string literal; for
    anything else, ``name`` as a quoted identifier."""
    if not isinstance(name, str):
        raise TypeError(f"a column name is a str, not a {type(name).__name__}")
    if not name:
        raise ValueError("a column name cannot be empty")
    parsed = _parse_map_key(name) if "[" in name else None
    if parsed is not None:
        column, key = parsed
        return f"{_quote_identifier(column)}[{_string(key)}]"
    return _quote_identifier(name)


def _base_column(name: str) -> str:
    """The table column a column argument refers to (the MAP column of ``m['k']``)."""
    parsed = _parse_map_key(name) if "[" in name else None
    return name if parsed is None else parsed[0]


# ---------------------------------------------------------------------------------------------
# Literals
# ---------------------------------------------------------------------------------------------


def _string(value: str) -> str:
    """A SQL string literal (``'`` doubled; strata's dialect has no backslash escapes)."""
    return "'" + value.replace("'", "''") + "'"


def _utc_offset_text(offset: datetime.timedelta) -> Optional[str]:
    """``+HH:MM`` for a whole-minute offset, ``None`` otherwise."""
    total = offset.total_seconds()
    if total % 60 != 0:
        return None
    minutes = int(total // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _literal(value: Any, column: str) -> str:
    """``value`` as a SQL literal of strata's filter grammar (``None`` is refused: NULL
    compares as unknown; use ``is_null``)."""
    if value is None:
        raise ValueError(
            f"None compared with {column} never matches (SQL NULL); use is_null({column!r}) "
            f"or is_not_null({column!r})"
        )
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(
                f"{value!r} compared with {column}: NaN and infinities have no literal in "
                "strata's filter grammar"
            )
        return repr(float(value))
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"Decimal {value} compared with {column} is not a finite number")
        return format(value, "f")
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "X'" + bytes(value).hex().upper() + "'"
    # datetime.datetime is a subclass of datetime.date: test it first.
    if isinstance(value, datetime.datetime):
        offset = value.utcoffset()
        if offset is None:
            return "TIMESTAMP '" + value.isoformat(sep=" ") + "'"
        text = _utc_offset_text(offset)
        if text is None:
            value = value.astimezone(datetime.timezone.utc)
            text = "+00:00"
        naive = value.replace(tzinfo=None).isoformat(sep=" ")
        return "TIMESTAMP WITH TIME ZONE '" + naive + text + "'"
    if isinstance(value, datetime.date):
        return "DATE '" + value.isoformat() + "'"
    if isinstance(value, datetime.time):
        if value.utcoffset() is not None:
            raise ValueError(
                f"time {value} compared with {column}: a time with a time zone has no literal "
                "(Paimon TIME has none)"
            )
        if value.microsecond % 1000 != 0:
            raise ValueError(
                f"time {value} compared with {column}: Paimon TIME holds milliseconds; "
                "round the microseconds"
            )
        return "TIME '" + value.isoformat(timespec="milliseconds") + "'"
    # numpy and other registered numbers (numpy.float64 is a float already).
    if isinstance(value, numbers.Integral):
        return _literal(int(value), column)
    if isinstance(value, numbers.Real):
        return _literal(float(value), column)
    raise TypeError(
        f"cannot compare {column} with a {type(value).__name__}: literals are None, bool, int, "
        "float, str, bytes, decimal.Decimal, datetime.date, datetime.datetime or datetime.time"
    )


def _next_prefix(prefix: str) -> Optional[str]:
    """The smallest string greater than every string starting with ``prefix`` (in code point
    order, which is UTF-8 byte order), or ``None`` when there is none."""
    chars = list(prefix)
    while chars:
        code = ord(chars[-1]) + 1
        if 0xD800 <= code <= 0xDFFF:
            code = 0xE000
        if code <= 0x10FFFF:
            chars[-1] = chr(code)
            return "".join(chars)
        chars.pop()
    return None


class PredicateBuilder:
    """Makes :class:`Predicate` objects, with pypaimon's ``PredicateBuilder`` method names.

    Columns are names (quoted as SQL identifiers, so any name works) or MAP key accesses
    written ``m['key']``. ``ReadBuilder.new_predicate_builder()`` returns one.
    """

    def __init__(self, fields: Optional[Iterable[Any]] = None) -> None:
        """``fields``: optionally, the table's column names (or objects with a ``name``); when
        given, a predicate on another column is refused at once with ``ValueError``."""
        if fields is None:
            self._names = None
        else:
            self._names = [f if isinstance(f, str) else getattr(f, "name") for f in fields]

    def _col(self, field: str) -> str:
        """The SQL text of column ``field``, checked against the known columns if any."""
        text = _column(field)
        if self._names is not None:
            base = _base_column(field)
            if base not in self._names:
                raise ValueError(
                    f"column {base!r} does not exist (columns: {', '.join(self._names)})"
                )
        return text

    def _compare(self, field: str, op: str, literal: Any) -> Predicate:
        col = self._col(field)
        return Predicate(f"{col} {op} {_literal(literal, field)}")

    def equal(self, field: str, literal: Any) -> Predicate:
        """``field = literal``."""
        return self._compare(field, "=", literal)

    def not_equal(self, field: str, literal: Any) -> Predicate:
        """``field <> literal`` (NULLs do not match)."""
        return self._compare(field, "<>", literal)

    def less_than(self, field: str, literal: Any) -> Predicate:
        """``field < literal``."""
        return self._compare(field, "<", literal)

    def less_or_equal(self, field: str, literal: Any) -> Predicate:
        """``field <= literal``."""
        return self._compare(field, "<=", literal)

    def greater_than(self, field: str, literal: Any) -> Predicate:
        """``field > literal``."""
        return self._compare(field, ">", literal)

    def greater_or_equal(self, field: str, literal: Any) -> Predicate:
        """``field >= literal``."""
        return self._compare(field, ">=", literal)

    def is_null(self, field: str) -> Predicate:
        """``field IS NULL``."""
        return Predicate(f"{self._col(field)} IS NULL")

    def is_not_null(self, field: str) -> Predicate:
        """``field IS NOT NULL``."""
        return Predicate(f"{self._col(field)} IS NOT NULL")

    def startswith(self, field: str, pattern_literal: str) -> Predicate:
        """Strings starting with ``pattern_literal``: ``field LIKE 'prefix%'``. A prefix holding
        ``%`` or ``_`` (wildcards the grammar cannot escape) becomes the equivalent range
        ``field >= 'prefix' AND field < 'prefiy'``."""
        col = self._col(field)
        if not isinstance(pattern_literal, str):
            raise TypeError(
                f"startswith({field!r}, ...) takes a str prefix, not a "
                f"{type(pattern_literal).__name__}"
            )
        if "%" not in pattern_literal and "_" not in pattern_literal:
            return Predicate(f"{col} LIKE {_string(pattern_literal + '%')}")
        lower = f"{col} >= {_string(pattern_literal)}"
        upper_text = _next_prefix(pattern_literal)
        if upper_text is None:
            return Predicate(lower)
        return Predicate(f"{lower} AND {col} < {_string(upper_text)}")

    def endswith(self, field: str, pattern_literal: str) -> Predicate:
        """Not expressible in strata's filter grammar: raises ``NotImplementedError``."""
        raise NotImplementedError(
            _NOT_EXPRESSIBLE.format(what=f"endswith({field!r}, {pattern_literal!r})")
        )

    def contains(self, field: str, pattern_literal: str) -> Predicate:
        """Not expressible in strata's filter grammar: raises ``NotImplementedError``."""
        raise NotImplementedError(
            _NOT_EXPRESSIBLE.format(what=f"contains({field!r}, {pattern_literal!r})")
        )

    def like(self, field: str, pattern_literal: str) -> Predicate:
        """``field LIKE pattern``, for patterns of the form ``'prefix%'`` only (a literal
        prefix and one trailing ``%``); other patterns raise ``NotImplementedError``."""
        if not isinstance(pattern_literal, str):
            raise TypeError(f"like({field!r}, ...) takes a str pattern")
        prefix = pattern_literal[:-1]
        if not pattern_literal.endswith("%") or "%" in prefix or "_" in prefix:
            raise NotImplementedError(
                _NOT_EXPRESSIBLE.format(what=f"like({field!r}, {pattern_literal!r})")
            )
        return Predicate(f"{self._col(field)} LIKE {_string(pattern_literal)}")

    def _list(self, field: str, literals: Sequence[Any], negated: bool) -> Predicate:
        col = self._col(field)
        if isinstance(literals, (str, bytes)) or not isinstance(literals, Iterable):
            raise TypeError(
                f"{'is_not_in' if negated else 'is_in'}({field!r}, ...) takes a list of values"
            )
        values = list(literals)
        if any(v is None for v in values):
            raise ValueError(
                f"None in the list of {'is_not_in' if negated else 'is_in'}({field!r}, ...): "
                f"NULL never matches in IN; combine with is_null({field!r}) instead"
            )
        if not values:
            # `x IN ()` matches nothing; `x NOT IN ()` everything.
            return Predicate("TRUE" if negated else "FALSE")
        items = ", ".join(_literal(v, field) for v in values)
        return Predicate(f"{col} {'NOT IN' if negated else 'IN'} ({items})")

    def is_in(self, field: str, literals: Sequence[Any]) -> Predicate:
        """``field IN (literals...)`` (an empty list matches nothing)."""
        return self._list(field, literals, False)

    def is_not_in(self, field: str, literals: Sequence[Any]) -> Predicate:
        """``field NOT IN (literals...)`` (an empty list matches everything)."""
        return self._list(field, literals, True)

    def _between(self, field: str, low: Any, high: Any, negated: bool) -> Predicate:
        col = self._col(field)
        if low is None or high is None:
            raise ValueError(f"a None bound of between({field!r}, ...) never matches")
        op = "NOT BETWEEN" if negated else "BETWEEN"
        return Predicate(f"{col} {op} {_literal(low, field)} AND {_literal(high, field)}")

    def between(
        self, field: str, included_lower_bound: Any, included_upper_bound: Any
    ) -> Predicate:
        """``field BETWEEN low AND high`` (both bounds included)."""
        return self._between(field, included_lower_bound, included_upper_bound, False)

    def not_between(
        self, field: str, included_lower_bound: Any, included_upper_bound: Any
    ) -> Predicate:
        """``field NOT BETWEEN low AND high``."""
        return self._between(field, included_lower_bound, included_upper_bound, True)

    @staticmethod
    def and_predicates(predicates: List[Predicate]) -> Optional[Predicate]:
        """All of ``predicates`` (``None`` for an empty list, as in pypaimon)."""
        return PredicateBuilder._combine(predicates, "AND")

    @staticmethod
    def or_predicates(predicates: List[Predicate]) -> Optional[Predicate]:
        """Any of ``predicates`` (``None`` for an empty list, as in pypaimon)."""
        return PredicateBuilder._combine(predicates, "OR")

    @staticmethod
    def _combine(predicates: List[Predicate], op: str) -> Optional[Predicate]:
        items = list(predicates)
        for p in items:
            if not isinstance(p, Predicate):
                raise TypeError(f"expected Predicate objects, got a {type(p).__name__}")
        if not items:
            return None
        if len(items) == 1:
            return items[0]
        return Predicate(f" {op} ".join(f"({p.to_sql()})" for p in items))

    def __repr__(self) -> str:
        """``PredicateBuilder()`` or ``PredicateBuilder([columns])``."""
        return "PredicateBuilder()" if self._names is None else f"PredicateBuilder({self._names!r})"
