package strata.oracle;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.index.SimpleHashBucketAssigner;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataType;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The few calls of the oracle whose signatures differ between the Paimon releases it is compiled
 * against (1.0.1, 1.4.2, 2.0.0), made through reflection so one source tree builds for all.
 *
 * <ul>
 *   <li>{@code CoreOptions.dynamicBucketMaxBuckets()} and the {@code maxBucketsNum} argument of
 *       {@code HashBucketAssigner} / {@code SimpleHashBucketAssigner} came after 1.0
 *       ({@code dynamic-bucket.max-buckets}); 1.0's assigners take no such limit.
 *   <li>{@code BucketMode.KEY_DYNAMIC} is 1.0's {@code CROSS_PARTITION}.
 *   <li>{@code Schema.Builder.column(name, type, description, defaultValue)} (a column's
 *       default value, {@code DataField.defaultValue}) came in 1.3; 1.0 refuses a default.
 * </ul>
 */
final class Compat {
    private Compat() {}

    /** {@code dynamic-bucket.max-buckets}, or -1 (no limit) where the release has no such option. */
    static int dynamicBucketMaxBuckets(CoreOptions options) {
        try {
            Method m = CoreOptions.class.getMethod("dynamicBucketMaxBuckets");
            Object v = m.invoke(options);
            return v == null ? -1 : (Integer) v;
        } catch (NoSuchMethodException e) {
            return -1;
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code b.column(name, type, description, defaultValue)}; without a default the 3-argument
     * form every release has. */
    static void column(Schema.Builder b, String name, DataType type, String description,
            String defaultValue) {
        if (defaultValue == null) {
            b.column(name, type, description);
            return;
        }
        try {
            Schema.Builder.class
                    .getMethod("column", String.class, DataType.class, String.class, String.class)
                    .invoke(b, name, type, description, defaultValue);
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("column '" + name + "' has a default value, which "
                    + "this Paimon release does not support (DataField.defaultValue came in 1.3)");
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            Throwable c = e.getCause();
            throw c instanceof RuntimeException ? (RuntimeException) c : new IllegalStateException(c);
        }
    }

    /** Cross-partition upsert tables: {@code KEY_DYNAMIC} (1.1+) or {@code CROSS_PARTITION} (1.0). */
    static boolean isCrossPartition(BucketMode mode) {
        return mode.name().equals("KEY_DYNAMIC") || mode.name().equals("CROSS_PARTITION");
    }

    /** {@code new SimpleHashBucketAssigner(numAssigners, assignId, targetRows[, maxBuckets])}. */
    static BucketAssigner simpleHashAssigner(long targetRows, int maxBuckets) {
        return construct(SimpleHashBucketAssigner.class, 1, 0, targetRows, maxBuckets);
    }

    /** {@code new HashBucketAssigner(snapshots, user, indexes, numChannels, numAssigners,
     * assignId, targetRows[, maxBuckets])}. */
    static BucketAssigner hashAssigner(FileStoreTable t, String commitUser, long targetRows, int maxBuckets) {
        return construct(HashBucketAssigner.class, t.snapshotManager(), commitUser,
                t.store().newIndexFileHandler(), 1, 1, 0, targetRows, maxBuckets);
    }

    /** The public constructor taking all of {@code args}, or all but the last (a later release's
     * trailing {@code maxBuckets}). */
    private static BucketAssigner construct(Class<? extends BucketAssigner> cls, Object... args) {
        try {
            for (int n : new int[] {args.length, args.length - 1}) {
                for (Constructor<?> c : cls.getConstructors()) {
                    if (c.getParameterCount() == n) {
                        Object[] a = new Object[n];
                        System.arraycopy(args, 0, a, 0, n);
                        return (BucketAssigner) c.newInstance(a);
                    }
                }
            }
        } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot construct " + cls.getName(), e);
        }
        throw new IllegalStateException("no constructor of " + cls.getName() + " takes "
                + args.length + " or " + (args.length - 1) + " arguments");
    }
}
