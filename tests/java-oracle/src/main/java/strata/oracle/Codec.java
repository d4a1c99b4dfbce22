package strata.oracle;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Values between the oracle's JSON and Paimon's internal data structures.
 *
 * <p>Input (rows to write), typed by the table's row type: DECIMAL as a string (or number) whose
 * scale fits the column, TIMESTAMP as ISO text ({@code 2024-01-02T03:04:05.123456789}),
 * TIMESTAMP_LTZ as ISO text in UTC (a {@code Z} or offset is honoured), DATE {@code
 * yyyy-MM-dd}, TIME {@code HH:mm:ss[.fff]}, BINARY/VARBINARY as hex (optional {@code 0x}),
 * FLOAT/DOUBLE as numbers or {@code "NaN"}/{@code "Infinity"}/{@code "-Infinity"}, ARRAY as a
 * list, MAP as a list of {@code [key, value]} pairs or (string keys) an object, ROW as an
 * object keyed by field name. The key {@link #ROW_KIND} of a row object holds its row kind.
 *
 * <p>Output is the interop suite's canonical form (tests/interop/interop_support/canonical.py),
 * byte for byte: one compact JSON object per row in column order; DECIMAL as
 * {@code BigDecimal.toString} (identical to Python's {@code str(Decimal)}); TIMESTAMP as
 * {@code yyyy-MM-ddTHH:mm:ss.ffffff} (9 fraction digits above precision 6), LTZ in UTC with
 * {@code Z}; DATE ISO; TIME {@code HH:mm:ss.ffffff}; binary {@code 0x} + lowercase hex; floats
 * by {@link PyFloat}; MAP as {@code [key, value]} pairs sorted by the key's JSON; ARRAY a list;
 * ROW an object.
 */
final class Codec {
    private Codec() {}

    static final String ROW_KIND = "_ROW_KIND";
    private static final HexFormat HEX = HexFormat.of();

    // ---- JSON -> internal ---------------------------------------------------------------------

    static GenericRow row(Map<?, ?> json, RowType type) {
        GenericRow row = new GenericRow(type.getFieldCount());
        for (Object k : json.keySet()) {
            if (!ROW_KIND.equals(k) && type.getFieldIndex((String) k) < 0) {
                throw new IllegalArgumentException("row has a field '" + k + "' the table lacks: " + type);
            }
        }
        List<DataField> fields = type.getFields();
        for (int i = 0; i < fields.size(); i++) {
            DataField f = fields.get(i);
            Object v = json.get(f.name());
            try {
                row.setField(i, value(v, f.type()));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("field '" + f.name() + "' (" + f.type() + "): "
                        + e.getMessage(), e);
            }
        }
        Object kind = json.get(ROW_KIND);
        if (kind != null) {
            row.setRowKind(RowKind.fromShortString((String) kind));
        }
        return row;
    }

    static Object value(Object v, DataType t) {
        if (v == null) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return (Boolean) v;
            case TINYINT:
                return (byte) num(v).asLong();
            case SMALLINT:
                return (short) num(v).asLong();
            case INTEGER:
                return (int) num(v).asLong();
            case BIGINT:
                return num(v).asLong();
            case FLOAT:
                return v instanceof String ? Float.parseFloat(special((String) v)) : Float.parseFloat(num(v).text());
            case DOUBLE:
                return v instanceof String ? Double.parseDouble(special((String) v)) : Double.parseDouble(num(v).text());
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                String text = v instanceof String ? (String) v : num(v).text();
                BigDecimal bd = new BigDecimal(text).setScale(d.getScale(), RoundingMode.UNNECESSARY);
                Decimal out = Decimal.fromBigDecimal(bd, d.getPrecision(), d.getScale());
                if (out == null) {
                    throw new IllegalArgumentException(text + " does not fit " + t);
                }
                return out;
            }
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString((String) v);
            case BINARY:
            case VARBINARY: {
                String h = (String) v;
                return HEX.parseHex(h.startsWith("0x") ? h.substring(2) : h);
            }
            case DATE:
                return (int) LocalDate.parse((String) v).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (LocalTime.parse((String) v).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return Timestamp.fromLocalDateTime(LocalDateTime.parse(((String) v).replace(' ', 'T')));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                String s = ((String) v).replace(' ', 'T');
                Instant inst;
                if (s.endsWith("Z") || s.matches(".*[+-]\\d\\d:\\d\\d$")) {
                    inst = OffsetDateTime.parse(s).toInstant();
                } else {
                    inst = LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
                }
                return Timestamp.fromInstant(inst);
            }
            case ARRAY: {
                DataType et = ((ArrayType) t).getElementType();
                List<?> l = (List<?>) v;
                Object[] out = new Object[l.size()];
                for (int i = 0; i < out.length; i++) {
                    out[i] = value(l.get(i), et);
                }
                return new GenericArray(out);
            }
            case MAP: {
                MapType mt = (MapType) t;
                Map<Object, Object> out = new LinkedHashMap<>();
                if (v instanceof Map) {
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                        out.put(keyFromText((String) e.getKey(), mt.getKeyType()), value(e.getValue(), mt.getValueType()));
                    }
                } else {
                    for (Object p : (List<?>) v) {
                        List<?> kv = (List<?>) p;
                        out.put(value(kv.get(0), mt.getKeyType()), value(kv.get(1), mt.getValueType()));
                    }
                }
                return new GenericMap(out);
            }
            case ROW:
                return row((Map<?, ?>) v, (RowType) t);
            default:
                throw new IllegalArgumentException("the oracle does not write type " + t);
        }
    }

    private static Object keyFromText(String key, DataType t) {
        switch (t.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
            case DATE:
            case DECIMAL:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
            case BINARY:
            case VARBINARY:
            case TIME_WITHOUT_TIME_ZONE:
                return value(key, t);
            case BOOLEAN:
                return Boolean.parseBoolean(key);
            default:
                return value(new Json.Num(key), t);
        }
    }

    private static Json.Num num(Object v) {
        if (v instanceof Json.Num) {
            return (Json.Num) v;
        }
        throw new IllegalArgumentException("expected a number, got " + v);
    }

    private static String special(String s) {
        switch (s) {
            case "NaN":
            case "Infinity":
            case "-Infinity":
                return s;
            default:
                throw new IllegalArgumentException("a float given as a string must be NaN/Infinity/-Infinity, got " + s);
        }
    }

    // ---- internal -> canonical JSON -----------------------------------------------------------

    /** One row as a canonical JSON line (fields in the order of {@code type}). */
    static String line(DataGetters row, RowType type) {
        StringBuilder sb = new StringBuilder();
        object(sb, row, type);
        return sb.toString();
    }

    private static void object(StringBuilder sb, DataGetters row, RowType type) {
        sb.append('{');
        List<DataField> fields = type.getFields();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            Json.string(sb, fields.get(i).name());
            sb.append(':');
            cell(sb, row, i, fields.get(i).type());
        }
        sb.append('}');
    }

    /** The canonical JSON of one cell, as text. */
    static String cellText(DataGetters row, int pos, DataType t) {
        StringBuilder sb = new StringBuilder();
        cell(sb, row, pos, t);
        return sb.toString();
    }

    static void cell(StringBuilder sb, DataGetters g, int pos, DataType t) {
        if (g.isNullAt(pos)) {
            sb.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                sb.append(g.getBoolean(pos) ? "true" : "false");
                return;
            case TINYINT:
                sb.append(g.getByte(pos));
                return;
            case SMALLINT:
                sb.append(g.getShort(pos));
                return;
            case INTEGER:
                sb.append(g.getInt(pos));
                return;
            case BIGINT:
                sb.append(g.getLong(pos));
                return;
            case FLOAT:
                sb.append(PyFloat.reprFloat(g.getFloat(pos)));
                return;
            case DOUBLE:
                sb.append(PyFloat.repr(g.getDouble(pos)));
                return;
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                Json.string(sb, g.getDecimal(pos, d.getPrecision(), d.getScale()).toBigDecimal().toString());
                return;
            }
            case CHAR:
            case VARCHAR:
                Json.string(sb, g.getString(pos).toString());
                return;
            case BINARY:
            case VARBINARY:
                Json.string(sb, "0x" + HEX.formatHex(g.getBinary(pos)));
                return;
            case DATE:
                Json.string(sb, LocalDate.ofEpochDay(g.getInt(pos)).toString());
                return;
            case TIME_WITHOUT_TIME_ZONE: {
                LocalTime lt = LocalTime.ofNanoOfDay(g.getInt(pos) * 1_000_000L);
                Json.string(sb, String.format("%02d:%02d:%02d.%06d", lt.getHour(), lt.getMinute(), lt.getSecond(),
                        lt.getNano() / 1000));
                return;
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int precision = DataTypeChecks.getPrecision(t);
                Timestamp ts = g.getTimestamp(pos, precision);
                Json.string(sb, timestamp(ts.toLocalDateTime(), precision)
                        + (t.getTypeRoot() == org.apache.paimon.types.DataTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE ? "Z" : ""));
                return;
            }
            case ARRAY: {
                InternalArray a = g.getArray(pos);
                DataType et = ((ArrayType) t).getElementType();
                sb.append('[');
                for (int i = 0; i < a.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    cell(sb, a, i, et);
                }
                sb.append(']');
                return;
            }
            case MAP:
            case MULTISET: {
                InternalMap m = g.getMap(pos);
                DataType kt;
                DataType vt;
                if (t instanceof MapType) {
                    kt = ((MapType) t).getKeyType();
                    vt = ((MapType) t).getValueType();
                } else {
                    kt = ((MultisetType) t).getElementType();
                    vt = new org.apache.paimon.types.IntType(false);
                }
                InternalArray keys = m.keyArray();
                InternalArray values = m.valueArray();
                List<String[]> pairs = new ArrayList<>();
                for (int i = 0; i < m.size(); i++) {
                    pairs.add(new String[] {cellText(keys, i, kt), cellText(values, i, vt)});
                }
                pairs.sort((x, y) -> Json.compareCodePoints(x[0], y[0]));
                sb.append('[');
                for (int i = 0; i < pairs.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    sb.append('[').append(pairs.get(i)[0]).append(',').append(pairs.get(i)[1]).append(']');
                }
                sb.append(']');
                return;
            }
            case ROW: {
                RowType rt = (RowType) t;
                object(sb, g.getRow(pos, rt.getFieldCount()), rt);
                return;
            }
            default:
                throw new IllegalArgumentException("the oracle does not read type " + t);
        }
    }

    static String timestamp(LocalDateTime t, int precision) {
        String base = String.format("%04d-%02d-%02dT%02d:%02d:%02d", t.getYear(), t.getMonthValue(),
                t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond());
        if (precision > 6) {
            return base + String.format(".%09d", t.getNano());
        }
        return base + String.format(".%06d", t.getNano() / 1000);
    }
}
