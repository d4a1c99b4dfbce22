package strata.oracle;

import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Paimon data types from the two JSON forms the interop suite uses:
 *
 * <ul>
 *   <li>SQL text: {@code "DECIMAL(10, 2) NOT NULL"}, {@code "ARRAY<INT>"}, {@code "MAP<STRING,
 *       BIGINT>"}, {@code "ROW<a INT, b STRING>"}, nested in each other. Atomic types go to
 *       Paimon's own {@link DataTypeJsonParser#parseAtomicTypeSQLString}; the angle-bracket
 *       forms of ARRAY/MAP/MULTISET/ROW (which that parser does not take) are split here.
 *   <li>Paimon's schema-file objects: {@code {"type": "ARRAY NOT NULL", "element": ...}},
 *       {@code {"type": "MAP", "key": ..., "value": ...}}, {@code {"type": "ROW", "fields":
 *       [{"name", "type"}, ...]}}.
 * </ul>
 *
 * Nested ROW fields are numbered here from a counter; {@code Schema} reassigns all ids when a
 * table is created, so the numbers only have to be unique.
 */
final class TypeParser {
    private int nextNestedId = 100_000;

    DataType parse(Object json) {
        if (json instanceof String) {
            return text(((String) json).trim());
        }
        if (json instanceof Map) {
            return object((Map<?, ?>) json);
        }
        throw new IllegalArgumentException("a type is a string or an object, got " + json);
    }

    private DataType object(Map<?, ?> m) {
        Object t = m.get("type");
        if (!(t instanceof String)) {
            throw new IllegalArgumentException("type object without a string 'type': " + m);
        }
        String head = ((String) t).trim();
        boolean notNull = head.toUpperCase().endsWith("NOT NULL");
        String kw = notNull ? head.substring(0, head.length() - "NOT NULL".length()).trim() : head;
        kw = kw.toUpperCase();
        DataType out;
        if (kw.equals("ARRAY")) {
            out = new ArrayType(parse(m.get("element")));
        } else if (kw.equals("MULTISET")) {
            out = new MultisetType(parse(m.get("element")));
        } else if (kw.equals("MAP") || kw.startsWith("MAP<")) {
            out = new MapType(parse(m.get("key")), parse(m.get("value")));
        } else if (kw.equals("ROW")) {
            List<DataField> fields = new ArrayList<>();
            for (Object f : (List<?>) m.get("fields")) {
                Map<?, ?> fm = (Map<?, ?>) f;
                fields.add(new DataField(nextNestedId++, (String) fm.get("name"), parse(fm.get("type")),
                        (String) fm.get("description")));
            }
            out = new RowType(fields);
        } else {
            return text(head);
        }
        return out.copy(!notNull);
    }

    private DataType text(String s) {
        String upper = s.toUpperCase();
        int lt = s.indexOf('<');
        if (lt < 0) {
            return DataTypeJsonParser.parseAtomicTypeSQLString(s);
        }
        String kw = upper.substring(0, lt).trim();
        int gt = matching(s, lt);
        String inner = s.substring(lt + 1, gt);
        String rest = upper.substring(gt + 1).trim();
        boolean nullable;
        if (rest.isEmpty() || rest.equals("NULL")) {
            nullable = true;
        } else if (rest.equals("NOT NULL")) {
            nullable = false;
        } else {
            throw new IllegalArgumentException("cannot parse type '" + s + "'");
        }
        List<String> parts = splitTopLevel(inner);
        DataType out;
        switch (kw) {
            case "ARRAY":
                out = new ArrayType(text(one(parts, s)));
                break;
            case "MULTISET":
                out = new MultisetType(text(one(parts, s)));
                break;
            case "MAP":
                if (parts.size() != 2) {
                    throw new IllegalArgumentException("MAP needs a key and a value type: '" + s + "'");
                }
                out = new MapType(text(parts.get(0).trim()), text(parts.get(1).trim()));
                break;
            case "ROW":
                List<DataField> fields = new ArrayList<>();
                for (String p : parts) {
                    String f = p.trim();
                    String name;
                    String type;
                    if (f.startsWith("`")) {
                        int end = f.indexOf('`', 1);
                        name = f.substring(1, end);
                        type = f.substring(end + 1).trim();
                    } else {
                        int sp = f.indexOf(' ');
                        if (sp < 0) {
                            throw new IllegalArgumentException("ROW field without a type in '" + s + "'");
                        }
                        name = f.substring(0, sp);
                        type = f.substring(sp + 1).trim();
                    }
                    fields.add(new DataField(nextNestedId++, name, text(type)));
                }
                out = new RowType(fields);
                break;
            default:
                throw new IllegalArgumentException("cannot parse type '" + s + "'");
        }
        return out.copy(nullable);
    }

    private static String one(List<String> parts, String s) {
        if (parts.size() != 1) {
            throw new IllegalArgumentException("expected one element type in '" + s + "'");
        }
        return parts.get(0).trim();
    }

    private static int matching(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '<') {
                depth++;
            } else if (c == '>') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        throw new IllegalArgumentException("unbalanced '<' in type '" + s + "'");
    }

    /** Splits on commas outside of (), <> and backquotes. */
    private static List<String> splitTopLevel(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '`') {
                quoted = !quoted;
            } else if (!quoted && (c == '<' || c == '(')) {
                depth++;
            } else if (!quoted && (c == '>' || c == ')')) {
                depth--;
            } else if (!quoted && depth == 0 && c == ',') {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        return out;
    }
}
