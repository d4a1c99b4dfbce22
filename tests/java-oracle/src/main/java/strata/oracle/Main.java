package strata.oracle;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Java Paimon oracle of strata's interop suite: a long-running server speaking JSON lines.
 *
 * <p>Each line on stdin is one request {@code {"id": N, "cmd": "...", ...}}; each answer is one
 * line on stdout, {@code {"id": N, "ok": true, "result": ...}} or {@code {"id": N, "ok": false,
 * "error": "...", "trace": "..."}} (the Java stack trace). The first line printed is {@code
 * {"ready": true, "paimon": VERSION}}. Logs and anything else printed go to stderr:
 * {@code System.out} is redirected there so no library can corrupt the protocol. The commands
 * are in {@link Commands}; the client is tests/interop/interop_support/java_oracle.py.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        PrintStream protocol =
                new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Commands commands = new Commands();
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("ready", true);
        ready.put("paimon", Commands.paimonVersion());
        protocol.println(Json.write(ready));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> resp = new LinkedHashMap<>();
            Object id = null;
            String out;
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> req = (Map<String, Object>) Json.parse(line);
                id = req.get("id");
                resp.put("id", id);
                Object result = commands.run(req);
                resp.put("ok", true);
                resp.put("result", result);
                out = Json.write(resp);
            } catch (Throwable t) {
                resp.clear();
                resp.put("id", id);
                resp.put("ok", false);
                resp.put("error", t.toString());
                StringWriter sw = new StringWriter();
                t.printStackTrace(new PrintWriter(sw));
                resp.put("trace", sw.toString());
                out = Json.write(resp);
            }
            protocol.println(out);
        }
    }
}
