package strata.oracle;

import org.apache.paimon.schema.SchemaChange;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Column default values through Java's schema API: {@code SchemaChange.updateColumnDefaultValue}
 * (what Spark's {@code ALTER COLUMN … SET DEFAULT} / {@code DROP DEFAULT} commits), and the
 * {@code defaultValue} of each column as Java reads the table's schema. Compiled for Paimon 2.0
 * only (1.0 has no such change).
 */
final class Paimon2ColumnDefaults {
    private Paimon2ColumnDefaults() {}

    /** Request: {@code column}, {@code value} (absent or null: drop the default). */
    static Object set(Commands c, Map<String, Object> req) throws Exception {
        Object value = req.get("value");
        c.catalog(req).alterTable(
                Commands.ident(req),
                Collections.singletonList(SchemaChange.updateColumnDefaultValue(
                        new String[] {Commands.str(req, "column")},
                        value == null ? null : value.toString())),
                false);
        return new LinkedHashMap<String, Object>();
    }

    /** Answer: column name → its {@code defaultValue} (columns without one left out). */
    static Object get(Commands c, Map<String, Object> req) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        c.table(req).schema().fields().forEach(f -> {
            if (f.defaultValue() != null) {
                out.put(f.name(), f.defaultValue());
            }
        });
        return out;
    }
}
