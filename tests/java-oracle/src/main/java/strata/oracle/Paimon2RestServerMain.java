package strata.oracle;

import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.responses.ConfigResponse;

import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Java Paimon 2.0's reference REST catalog server as a process: {@code RESTCatalogServer} (the
 * okhttp {@code MockWebServer} dispatcher of paimon-core's test classes, in-memory metadata over
 * a {@code RESTFileSystemCatalog} at {@code --data-path}) with a {@code BearTokenAuthProvider}.
 * The interop suite (tests/interop/interop_support/rest_java_server.py) starts one per test
 * module and points strata's REST client at it.
 *
 * <p>Usage: {@code Paimon2RestServerMain --data-path DIR --token T --warehouse W [--prefix P]
 * [--data-token true|false] [--default K=V]...}. The {@code ConfigResponse} it answers is
 * {@code defaults = {prefix: P, warehouse: W, data-token.enabled, K: V...}}, {@code overrides =
 * {}} (as {@code MockRESTCatalogTest} builds it). With {@code --data-token true} Java's server
 * writes table paths with its test scheme {@code rest-test-file-io://}; this launcher rewrites
 * that scheme to {@code file://} in answers, so a client outside the JVM can read the files it
 * vends tokens for (the scheme is the only change).
 *
 * <p>Requests are dispatched one at a time (see {@link #record}): Java's server is not
 * thread-safe apart from its commit.
 *
 * <p>Protocol: the first stdout line is {@code {"ready": true, "url": URL}}; then JSON-lines
 * requests on stdin ({@code {"id": N, "cmd": ...}}), answered on stdout like the oracle's
 * {@link Main}: {@code requests} (every request served since start or the last {@code
 * clearRequests}: {@code [{method, path, query, status}]}, path without the query string; a
 * commit's also {@code success} of its {@code CommitTableResponse}), {@code clearRequests}. End of stdin shuts the server down.
 */
public final class Paimon2RestServerMain {
    private Paimon2RestServerMain() {}

    private static final List<Map<String, Object>> SEEN = new ArrayList<>();
    private static final Object LOCK = new Object();

    public static void main(String[] args) throws Exception {
        PrintStream protocol =
                new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        String dataPath = null;
        String token = null;
        String warehouse = null;
        String prefix = "paimon";
        boolean dataToken = false;
        Map<String, String> defaults = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            i++;
            switch (a) {
                case "--data-path":
                    dataPath = v;
                    break;
                case "--token":
                    token = v;
                    break;
                case "--warehouse":
                    warehouse = v;
                    break;
                case "--prefix":
                    prefix = v;
                    break;
                case "--data-token":
                    dataToken = Boolean.parseBoolean(v);
                    break;
                case "--default":
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--default needs K=V, got " + v);
                    }
                    defaults.put(v.substring(0, eq), v.substring(eq + 1));
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (dataPath == null || token == null || warehouse == null) {
            throw new IllegalArgumentException("--data-path, --token and --warehouse are required");
        }
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("prefix", prefix);
        conf.put("warehouse", warehouse);
        conf.put("data-token.enabled", String.valueOf(dataToken));
        conf.putAll(defaults);
        RESTCatalogServer server =
                new RESTCatalogServer(dataPath, new BearTokenAuthProvider(token),
                        new ConfigResponse(conf, new LinkedHashMap<>()), warehouse);
        record(server);
        server.start();
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("ready", true);
        ready.put("url", server.getUrl());
        protocol.println(Json.write(ready));

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> resp = new LinkedHashMap<>();
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> req = (Map<String, Object>) Json.parse(line);
                resp.put("id", req.get("id"));
                String cmd = (String) req.get("cmd");
                Object result;
                synchronized (SEEN) {
                    if ("requests".equals(cmd)) {
                        result = new ArrayList<Object>(SEEN);
                    } else if ("clearRequests".equals(cmd)) {
                        SEEN.clear();
                        result = null;
                    } else {
                        throw new IllegalArgumentException("unknown command " + cmd);
                    }
                }
                resp.put("ok", true);
                resp.put("result", result);
            } catch (Exception e) {
                resp.put("ok", false);
                resp.put("error", e.toString());
            }
            protocol.println(Json.write(resp));
        }
        server.shutdown();
    }

    /**
     * Wraps the server's dispatcher: records method, path, query and status of every request and
     * rewrites the test FileIO scheme in answers (see the class comment).
     */
    private static void record(RESTCatalogServer server) throws Exception {
        Field f = RESTCatalogServer.class.getDeclaredField("server");
        f.setAccessible(true);
        MockWebServer mock = (MockWebServer) f.get(server);
        Dispatcher inner = mock.getDispatcher();
        mock.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                MockResponse r;
                // RESTCatalogServer keeps its state in plain HashMaps / ArrayLists (only its
                // commitSnapshot is synchronized) and MockWebServer serves each connection on
                // its own thread: one request at a time, or concurrent clients corrupt them
                synchronized (LOCK) {
                    r = inner.dispatch(request);
                }
                okio.Buffer body = r.getBody();
                String text = body == null ? "" : body.clone().readUtf8();
                if (text.contains("rest-test-file-io:")) {
                    r.setBody(text.replace("rest-test-file-io:", "file:"));
                }
                String target = request.getPath() == null ? "" : request.getPath();
                int q = target.indexOf('?');
                String path = q < 0 ? target : target.substring(0, q);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("method", request.getMethod());
                m.put("path", path);
                m.put("query", q < 0 ? null : target.substring(q + 1));
                String status = r.getStatus();              // "HTTP/1.1 200 OK"
                String[] parts = status.split(" ");
                m.put("status", parts.length > 1 ? Long.parseLong(parts[1]) : -1L);
                if (path.endsWith("/commit")) {
                    // CommitTableResponse: a conflict is 200 {"success": false}
                    m.put("success", text.contains("\"success\":true") ? Boolean.TRUE
                            : text.contains("\"success\":false") ? Boolean.FALSE : null);
                }
                synchronized (SEEN) {
                    SEEN.add(m);
                }
                return r;
            }
        });
    }
}
