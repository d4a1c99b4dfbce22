package strata.oracle;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Floating-point values printed exactly as the interop suite's canonical form prints them
 * (tests/interop/interop_support/canonical.py): Python's {@code repr(float)} (the shortest
 * digits that read back as the same double, the nearest to the exact value among them; fixed
 * notation for decimal exponents -4..15, else {@code 1.5e+16} / {@code 1e-05}); a FLOAT
 * (float32) value is first reduced to its own shortest digits ({@code str(np.float32(v))}).
 * NaN and infinities are the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}.
 *
 * <p>JDK 17's {@code Double.toString} is not always the shortest form (e.g. 4.9E-324 for
 * Python's 5e-324), hence the search over precisions with BigDecimal.
 */
final class PyFloat {
    private PyFloat() {}

    /** The canonical JSON text of a DOUBLE. */
    static String repr(double d) {
        if (Double.isNaN(d)) {
            return "\"NaN\"";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0.0" : "0.0";
        }
        return format(shortest(new BigDecimal(d), 17, s -> Double.parseDouble(s) == d), d < 0);
    }

    /** The canonical JSON text of a FLOAT. */
    static String reprFloat(float f) {
        if (Float.isNaN(f)) {
            return "\"NaN\"";
        }
        if (Float.isInfinite(f)) {
            return f > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        }
        if (f == 0) {
            return (1 / f < 0) ? "-0.0" : "0.0";
        }
        return format(shortest(new BigDecimal(f), 9, s -> Float.parseFloat(s) == f), f < 0);
    }

    private interface RoundTrip {
        boolean test(String decimal);
    }

    /** The shortest decimal reading back as the value, nearest to {@code exact} among them. */
    private static BigDecimal shortest(BigDecimal exact, int maxDigits, RoundTrip ok) {
        for (int p = 1; p <= maxDigits; p++) {
            BigDecimal near = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            BigDecimal unit = BigDecimal.ONE.scaleByPowerOfTen(-near.scale());
            BigDecimal best = null;
            for (BigDecimal c : new BigDecimal[] {near, near.subtract(unit), near.add(unit)}) {
                if (c.signum() == 0 || c.precision() > p || !ok.test(c.toString())) {
                    continue;
                }
                if (best == null
                        || c.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0) {
                    best = c;
                }
            }
            if (best != null) {
                return best;
            }
        }
        // the maximal precision always round-trips
        return exact.round(new MathContext(maxDigits, RoundingMode.HALF_EVEN));
    }

    /** Python's float repr layout of a decimal value. */
    private static String format(BigDecimal v, boolean negative) {
        BigDecimal a = v.abs().stripTrailingZeros();
        String digits = a.unscaledValue().toString();
        // value = 0.digits * 10^decpt
        int decpt = digits.length() - a.scale();
        StringBuilder sb = new StringBuilder();
        if (negative) {
            sb.append('-');
        }
        if (decpt > -4 && decpt <= 16) {
            if (decpt <= 0) {
                sb.append("0.");
                sb.append("0".repeat(-decpt));
                sb.append(digits);
            } else if (decpt >= digits.length()) {
                sb.append(digits);
                sb.append("0".repeat(decpt - digits.length()));
                sb.append(".0");
            } else {
                sb.append(digits, 0, decpt);
                sb.append('.');
                sb.append(digits, decpt, digits.length());
            }
        } else {
            int exp = decpt - 1;
            sb.append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.');
                sb.append(digits, 1, digits.length());
            }
            sb.append('e');
            sb.append(exp < 0 ? '-' : '+');
            int ae = Math.abs(exp);
            if (ae < 10) {
                sb.append('0');
            }
            sb.append(ae);
        }
        return sb.toString();
    }
}
