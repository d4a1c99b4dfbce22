package strata.oracle;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * Commands named {@code Class.method} (for example {@code Branches.create}): the static method
 * {@code method(Commands, Map<String, Object>)} of {@code strata.oracle.Class}. Each feature's
 * commands live in their own class, so the oracle grows without one switch every feature edits.
 * Classes named {@code Paimon2*} use APIs only Paimon 2.0 has and are compiled only for 2.0.0
 * (see the {@code oracle.exclude} property of the pom); their commands fail on 1.x with a message
 * saying so.
 */
final class Extensions {
    private Extensions() {}

    static Object run(Commands commands, String cmd, Map<String, Object> req) throws Exception {
        int dot = cmd.indexOf('.');
        if (dot <= 0 || dot == cmd.length() - 1) {
            throw new IllegalArgumentException("unknown command '" + cmd + "'");
        }
        String cls = cmd.substring(0, dot);
        String name = cmd.substring(dot + 1);
        Class<?> c;
        try {
            c = Class.forName("strata.oracle." + cls);
        } catch (ClassNotFoundException e) {
            if (cls.startsWith("Paimon2")) {
                throw new IllegalArgumentException(
                        "command '" + cmd + "' needs Paimon 2.0 (this oracle runs Paimon "
                                + Commands.paimonVersion() + ")");
            }
            throw new IllegalArgumentException("unknown command '" + cmd + "' (no class " + cls + ")");
        }
        Method m;
        try {
            m = c.getDeclaredMethod(name, Commands.class, Map.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("unknown command '" + cmd + "' (no method " + name + ")");
        }
        m.setAccessible(true);
        try {
            return m.invoke(null, commands, req);
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof Exception) {
                throw (Exception) t;
            }
            throw (Error) t;
        }
    }
}
