//! `sum` and `product` (Java `FieldSumAgg`, `FieldProductAgg`) over the numeric types.
//!
//! Integer arithmetic is exact like Java's `Math.*Exact`: an overflow is an error with Java's
//! message ("int overflow: 1 + 2"). FLOAT/DOUBLE use plain IEEE arithmetic. DECIMAL follows
//! `DecimalUtils`: for precision ≤ 18 the unscaled longs are added with an i64 overflow check
//! only (a result wider than the precision is kept, as Java keeps it); otherwise, and when the
//! long overflows, a result that does not fit the precision becomes NULL. Products round
//! HALF_UP back to the column scale; the retract of a product divides exactly and fails on a
//! non-terminating quotient, as `BigDecimal.divide` does.

use strata_spec::Datum;

use crate::lsm::merge::function::Value;

/// Outcome of one arithmetic step: a value, or Java's ArithmeticException text.
pub(super) type Arith = std::result::Result<Value, String>;

#[derive(Clone, Copy)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
        }
    }
}

/// `a op b` for two non-null numeric datums of one type.
pub(super) fn apply(op: Op, a: &Datum, b: &Datum) -> Arith {
    use Datum::*;
    let s = op.symbol();
    match (a, b) {
        (TinyInt(x), TinyInt(y)) => {
            let v = small_op(op, i32::from(*x), i32::from(*y))?;
            i8::try_from(v)
                .map(|v| Value::Scalar(TinyInt(v)))
                .map_err(|_| format!("byte overflow: {x} {s} {y} = {v}"))
        }
        (SmallInt(x), SmallInt(y)) => {
            let v = small_op(op, i32::from(*x), i32::from(*y))?;
            i16::try_from(v)
                .map(|v| Value::Scalar(SmallInt(v)))
                .map_err(|_| format!("short overflow: {x} {s} {y} = {v}"))
        }
        (Int(x), Int(y)) => {
            let r = match op {
                Op::Add => x.checked_add(*y),
                Op::Sub => x.checked_sub(*y),
                Op::Mul => x.checked_mul(*y),
                Op::Div => {
                    if *y == 0 {
                        return Err("/ by zero".into());
                    }
                    x.checked_div(*y)
                }
            };
            r.map(|v| Value::Scalar(Int(v)))
                .ok_or_else(|| format!("int overflow: {x} {s} {y}"))
        }
        (BigInt(x), BigInt(y)) => {
            let r = match op {
                Op::Add => x.checked_add(*y),
                Op::Sub => x.checked_sub(*y),
                Op::Mul => x.checked_mul(*y),
                Op::Div => {
                    if *y == 0 {
                        return Err("/ by zero".into());
                    }
                    x.checked_div(*y)
                }
            };
            r.map(|v| Value::Scalar(BigInt(v)))
                .ok_or_else(|| format!("long overflow: {x} {s} {y}"))
        }
        (Float(x), Float(y)) => Ok(Value::Scalar(Float(match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Div => x / y,
        }))),
        (Double(x), Double(y)) => Ok(Value::Scalar(Double(match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Div => x / y,
        }))),
        (
            Decimal {
                unscaled: x,
                precision,
                scale,
            },
            Decimal { unscaled: y, .. },
        ) => {
            let r = match op {
                Op::Add | Op::Sub => decimal_add(op, *x, *y, *precision),
                Op::Mul => decimal_mul(*x, *y, *precision, *scale)?,
                Op::Div => decimal_div(*x, *y, *precision, *scale)?,
            };
            Ok(r.map_or(Value::Null, |unscaled| {
                Value::Scalar(Decimal {
                    unscaled,
                    precision: *precision,
                    scale: *scale,
                })
            }))
        }
        _ => Err(format!(
            "values {a:?} and {b:?} are not numbers of one type"
        )),
    }
}

/// Byte/short arithmetic happens in int, like Java's promotion.
fn small_op(op: Op, x: i32, y: i32) -> std::result::Result<i32, String> {
    Ok(match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => {
            if y == 0 {
                return Err("/ by zero".into());
            }
            x / y
        }
    })
}

/// `-a` (the retract of a sum into a NULL accumulator).
pub(super) fn negate(a: &Datum) -> Arith {
    use Datum::*;
    Ok(Value::Scalar(match a {
        TinyInt(x) => {
            let v = -i32::from(*x);
            TinyInt(i8::try_from(v).map_err(|_| format!("byte overflow: -{x} = {v}"))?)
        }
        SmallInt(x) => {
            let v = -i32::from(*x);
            SmallInt(i16::try_from(v).map_err(|_| format!("short overflow: -{x} = {v}"))?)
        }
        Int(x) => Int(x
            .checked_neg()
            .ok_or_else(|| format!("int overflow: -{x}"))?),
        BigInt(x) => BigInt(
            x.checked_neg()
                .ok_or_else(|| format!("long overflow: -{x}"))?,
        ),
        Float(x) => Float(-x),
        Double(x) => Double(-x),
        Decimal {
            unscaled,
            precision,
            scale,
        } => Decimal {
            unscaled: -unscaled,
            precision: *precision,
            scale: *scale,
        },
        other => return Err(format!("value {other:?} is not a number")),
    }))
}

/// Number of decimal digits of `v` (1 for zero), like `BigDecimal.precision()`.
fn digits(v: i128) -> u32 {
    let mut u = v.unsigned_abs();
    let mut n = 1;
    while u >= 10 {
        u /= 10;
        n += 1;
    }
    n
}

fn fits(v: i128, precision: u32) -> Option<i128> {
    (digits(v) <= precision).then_some(v)
}

/// `DecimalUtils.add/subtract`: `None` = NULL (the result does not fit the precision).
fn decimal_add(op: Op, x: i128, y: i128, precision: u32) -> Option<i128> {
    let sub = matches!(op, Op::Sub);
    if precision <= 18 {
        if let (Ok(a), Ok(b)) = (i64::try_from(x), i64::try_from(y)) {
            let r = if sub {
                a.checked_sub(b)
            } else {
                a.checked_add(b)
            };
            if let Some(r) = r {
                // Compact path: Java keeps the long without a precision check.
                return Some(i128::from(r));
            }
        }
    }
    let r = if sub {
        x.checked_sub(y)
    } else {
        x.checked_add(y)
    };
    r.and_then(|r| fits(r, precision))
}

fn pow10(n: u32) -> std::result::Result<i128, String> {
    10i128
        .checked_pow(n)
        .ok_or_else(|| format!("10^{n} does not fit a 128-bit decimal"))
}

/// `n / d` rounded HALF_UP (ties away from zero), `d > 0`.
fn div_half_up(n: i128, d: i128) -> i128 {
    let q = n / d;
    let r = n % d;
    if r.unsigned_abs() * 2 >= d.unsigned_abs() {
        q + n.signum()
    } else {
        q
    }
}

/// Product of two decimals of scale `s` (exact scale 2s), rounded HALF_UP to scale `s`.
fn decimal_mul(
    x: i128,
    y: i128,
    precision: u32,
    scale: u32,
) -> std::result::Result<Option<i128>, String> {
    let full = x.checked_mul(y).ok_or_else(|| {
        format!("DECIMAL({precision}, {scale}) product {x} * {y} exceeds 128 bits (unsupported)")
    })?;
    let r = div_half_up(full, pow10(scale)?);
    Ok(fits(r, precision))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `BigDecimal.divide` (exact) then `setScale(s, HALF_UP)`.
fn decimal_div(
    x: i128,
    y: i128,
    precision: u32,
    scale: u32,
) -> std::result::Result<Option<i128>, String> {
    if y == 0 {
        return Err(if x == 0 {
            "Division undefined".into()
        } else {
            "Division by zero".into()
        });
    }
    // The quotient terminates iff the reduced denominator has no prime factor but 2 and 5.
    let mut d = y.unsigned_abs() / gcd(x.unsigned_abs(), y.unsigned_abs());
    for p in [2u128, 5] {
        loop {
            let (q, r) = (d / p, d % p);
            if r != 0 {
                break;
            }
            d = q;
        }
    }
    if d != 1 {
        return Err(
            "Non-terminating decimal expansion; no exact representable decimal result.".into(),
        );
    }
    let n = x.checked_mul(pow10(scale)?).ok_or_else(|| {
        format!("DECIMAL({precision}, {scale}) quotient {x} / {y} exceeds 128 bits (unsupported)")
    })?;
    let (n, y) = if y < 0 { (-n, -y) } else { (n, y) };
    Ok(fits(div_half_up(n, y), precision))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(unscaled: i128, precision: u32, scale: u32) -> Datum {
        Datum::Decimal {
            unscaled,
            precision,
            scale,
        }
    }

    #[test]
    fn exact_integer_overflow_messages() {
        assert_eq!(
            apply(Op::Add, &Datum::TinyInt(100), &Datum::TinyInt(100)).unwrap_err(),
            "byte overflow: 100 + 100 = 200"
        );
        assert_eq!(
            apply(Op::Add, &Datum::Int(i32::MAX), &Datum::Int(1)).unwrap_err(),
            format!("int overflow: {} + 1", i32::MAX)
        );
        assert_eq!(
            apply(Op::Mul, &Datum::BigInt(i64::MAX), &Datum::BigInt(2)).unwrap_err(),
            format!("long overflow: {} * 2", i64::MAX)
        );
        assert_eq!(
            negate(&Datum::Int(i32::MIN)).unwrap_err(),
            format!("int overflow: -{}", i32::MIN)
        );
        assert!(apply(Op::Div, &Datum::Int(1), &Datum::Int(0)).is_err());
        assert_eq!(
            apply(Op::Div, &Datum::SmallInt(7), &Datum::SmallInt(2)).unwrap(),
            Value::Scalar(Datum::SmallInt(3))
        );
    }

    #[test]
    fn decimal_rules() {
        // Compact precision: a too-wide result is kept (Java's long path).
        assert_eq!(
            apply(Op::Add, &dec(99, 2, 0), &dec(99, 2, 0)).unwrap(),
            Value::Scalar(dec(198, 2, 0))
        );
        // Wide precision: overflow of the precision is NULL.
        let big = 10i128.pow(19) - 1;
        assert_eq!(
            apply(Op::Add, &dec(big, 19, 0), &dec(1, 19, 0)).unwrap(),
            Value::Null
        );
        // 1.25 * 1.25 = 1.5625 → 1.56; -1.25 * 1.25 → -1.56; 1.5 * 0.5 = 0.75
        assert_eq!(
            apply(Op::Mul, &dec(125, 5, 2), &dec(125, 5, 2)).unwrap(),
            Value::Scalar(dec(156, 5, 2))
        );
        assert_eq!(
            apply(Op::Mul, &dec(-125, 5, 2), &dec(125, 5, 2)).unwrap(),
            Value::Scalar(dec(-156, 5, 2))
        );
        assert_eq!(
            apply(Op::Mul, &dec(15, 3, 1), &dec(5, 3, 1)).unwrap(),
            Value::Scalar(dec(8, 3, 1))
        );
        // 1.00 / 4.00 = 0.25; 1 / 3 does not terminate.
        assert_eq!(
            apply(Op::Div, &dec(100, 5, 2), &dec(400, 5, 2)).unwrap(),
            Value::Scalar(dec(25, 5, 2))
        );
        assert!(apply(Op::Div, &dec(100, 5, 2), &dec(300, 5, 2))
            .unwrap_err()
            .contains("Non-terminating"));
    }
}
