package strata.oracle;

import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.auth.AuthProvider;
import org.apache.paimon.rest.auth.DLFDefaultSigner;
import org.apache.paimon.rest.auth.DLFOpenApiSigner;
import org.apache.paimon.rest.auth.DLFRequestSigner;
import org.apache.paimon.rest.auth.DLFToken;
import org.apache.paimon.rest.auth.RESTAuthParameter;
import org.apache.paimon.rest.responses.ConfigResponse;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Alibaba DLF request signing as Java Paimon 2.0 computes it ({@code DLFDefaultSigner},
 * {@code DLFOpenApiSigner}, paimon-api {@code org.apache.paimon.rest.auth}), for
 * tests/interop/test_rest_dlf.py.
 *
 * <p>Commands: {@code Paimon2Dlf.sign} — given {@code algorithm} ({@code default} / {@code
 * openapi}), {@code region}, {@code method}, {@code path}, {@code query} ({@code [[k, v], ...]}),
 * {@code body} (or null), {@code time} (epoch seconds), {@code accessKeyId}, {@code
 * accessKeySecret}, {@code securityToken} (or null), {@code host} and {@code nonce} (the
 * OpenAPI signer's random {@code x-acs-signature-nonce}, fixed here) — answers every header
 * Java's {@code DLFAuthProvider.mergeAuthHeader} adds: the signer's {@code signHeaders} and
 * {@code Authorization}; {@code Paimon2Dlf.signMany} does the same for {@code vectors}.
 *
 * <p>{@link #main}: Java's {@code RESTCatalogServer} verifying DLF signatures as
 * {@code MockRESTCatalogTest.TestDLFAuthProvider} does (the signature recomputed from the
 * request's own signed headers), for either signer (told by the {@code Authorization} form),
 * for the access keys {@code --key ID=SECRET}. Beyond Java's check it recomputes every signed
 * header from the request's time, security token, host and nonce and requires them byte-equal
 * to what was received (and no signed header Java would not send): a mismatch is a 401.
 * Usage: {@code Paimon2Dlf --data-path DIR --warehouse W --key ID=SECRET... [--region R]}.
 * Protocol as {@link Paimon2RestServerMain}: first stdout line {@code {"ready": true, "url":
 * URL}}; then {@code requests} ({@code [{method, path, keyId, algorithm, securityToken, ok, mismatch}]}) and
 * {@code clearRequests} on stdin; end of stdin stops the server.
 */
public final class Paimon2Dlf {
    private Paimon2Dlf() {}

    private static final DateTimeFormatter DLF_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");
    private static final DateTimeFormatter GMT_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH)
                    .withZone(ZoneId.of("GMT"));

    private static final List<Map<String, Object>> SEEN = new ArrayList<>();

    static Object sign(Commands c, Map<String, Object> req) throws Exception {
        return signOne(req);
    }

    @SuppressWarnings("unchecked")
    static Object signMany(Commands c, Map<String, Object> req) throws Exception {
        List<Object> out = new ArrayList<>();
        for (Object v : (List<Object>) req.get("vectors")) {
            out.add(signOne((Map<String, Object>) v));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> signOne(Map<String, Object> req) throws Exception {
        String algorithm = Commands.str(req, "algorithm");
        DLFRequestSigner signer =
                DLFOpenApiSigner.IDENTIFIER.equals(algorithm)
                        ? new DLFOpenApiSigner()
                        : new DLFDefaultSigner(Commands.str(req, "region"));
        Map<String, String> query = new LinkedHashMap<>();
        Object q = req.get("query");
        if (q != null) {
            for (Object pair : (List<Object>) q) {
                List<Object> kv = (List<Object>) pair;
                query.put((String) kv.get(0), (String) kv.get(1));
            }
        }
        String body = (String) req.get("body");
        Instant now = Instant.ofEpochSecond(Commands.optLong(req, "time"));
        String securityToken = (String) req.get("securityToken");
        DLFToken token =
                new DLFToken(
                        Commands.str(req, "accessKeyId"),
                        Commands.str(req, "accessKeySecret"),
                        securityToken,
                        null);
        String host = Commands.str(req, "host");
        Map<String, String> headers = signer.signHeaders(body, now, securityToken, host);
        if (headers.containsKey("x-acs-signature-nonce")) {
            headers.put("x-acs-signature-nonce", Commands.str(req, "nonce"));
        }
        RESTAuthParameter param =
                new RESTAuthParameter(Commands.str(req, "path"), query, Commands.str(req, "method"), body);
        Map<String, String> out = new TreeMap<>(headers);
        out.put("Authorization", signer.authorization(param, token, host, headers));
        return out;
    }

    /** Java's header spelling of a received (lower-cased) header name. */
    private static String javaName(String lower) {
        switch (lower) {
            case "date":
                return "Date";
            case "accept":
                return "Accept";
            case "content-md5":
                return "Content-MD5";
            case "content-type":
                return "Content-Type";
            case "host":
                return "Host";
            default:
                return lower;
        }
    }

    private static boolean signedName(String lower) {
        return lower.startsWith("x-dlf-") || lower.startsWith("x-acs-") || lower.equals("content-md5")
                || lower.equals("authorization");
    }

    /** Verifies one request (see the class comment); records it. */
    static final class Verifier implements AuthProvider {
        private final Map<String, String> secrets;
        private final String region;

        Verifier(Map<String, String> secrets, String region) {
            this.secrets = secrets;
            this.region = region;
        }

        @Override
        public Map<String, String> mergeAuthHeader(
                Map<String, String> received, RESTAuthParameter param) {
            Map<String, Object> seen = new LinkedHashMap<>();
            seen.put("method", param.method());
            seen.put("path", param.resourcePath());
            List<String> mismatch = new ArrayList<>();
            String expected = "(unverifiable)";
            try {
                String auth = received.getOrDefault("authorization", "");
                boolean openApi = auth.startsWith("acs ");
                String keyId =
                        openApi
                                ? auth.substring(4, Math.max(4, auth.indexOf(':')))
                                : auth.replaceFirst("^DLF4-HMAC-SHA256 Credential=", "")
                                        .replaceFirst("/.*$", "");
                seen.put("keyId", keyId);
                seen.put("algorithm", openApi ? "openapi" : "default");
                String secret = secrets.get(keyId);
                if (secret == null) {
                    throw new IllegalArgumentException("unknown access key " + keyId);
                }
                Map<String, String> asJava = new HashMap<>();
                for (Map.Entry<String, String> e : received.entrySet()) {
                    asJava.put(javaName(e.getKey()), e.getValue());
                }
                String securityToken =
                        received.get(openApi ? "x-acs-security-token" : "x-dlf-security-token");
                seen.put("securityToken", securityToken);
                String host = received.getOrDefault("host", "");
                Instant time =
                        openApi
                                ? ZonedDateTime.parse(received.get("date"), GMT_DATE).toInstant()
                                : LocalDateTime.parse(received.get("x-dlf-date"), DLF_DATE)
                                        .toInstant(ZoneOffset.UTC);
                DLFRequestSigner signer =
                        openApi ? new DLFOpenApiSigner() : new DLFDefaultSigner(region);
                String data = param.data();
                Map<String, String> want = signer.signHeaders(data, time, securityToken, host);
                if (openApi) {
                    want.put("x-acs-signature-nonce", received.get("x-acs-signature-nonce"));
                }
                DLFToken token = new DLFToken(keyId, secret, securityToken, null);
                expected = signer.authorization(param, token, host, openApi ? asJava : received);
                want.put("Authorization", expected);
                for (Map.Entry<String, String> e : want.entrySet()) {
                    String got = received.get(e.getKey().toLowerCase(Locale.ROOT));
                    if (!e.getValue().equals(got)) {
                        mismatch.add(e.getKey() + ": want " + e.getValue() + " got " + got);
                    }
                }
                for (String name : received.keySet()) {
                    boolean wanted = false;
                    for (String w : want.keySet()) {
                        wanted |= w.toLowerCase(Locale.ROOT).equals(name);
                    }
                    if (!wanted && (signedName(name) || name.equals("content-type"))) {
                        mismatch.add(name + ": not sent by Java");
                    }
                }
            } catch (Exception e) {
                mismatch.add(e.toString());
            }
            seen.put("ok", mismatch.isEmpty());
            seen.put("mismatch", mismatch);
            synchronized (SEEN) {
                SEEN.add(seen);
            }
            Map<String, String> out = new HashMap<>(received);
            // The server compares this with the request's Authorization: a 401 unless all held.
            out.put("Authorization", mismatch.isEmpty() ? expected : "(rejected)");
            return out;
        }
    }

    public static void main(String[] args) throws Exception {
        PrintStream protocol =
                new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        String dataPath = null;
        String warehouse = null;
        String region = "cn-hangzhou";
        Map<String, String> secrets = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--data-path":
                    dataPath = v;
                    break;
                case "--warehouse":
                    warehouse = v;
                    break;
                case "--region":
                    region = v;
                    break;
                case "--key":
                    int eq = v.indexOf('=');
                    secrets.put(v.substring(0, eq), v.substring(eq + 1));
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (dataPath == null || warehouse == null || secrets.isEmpty()) {
            throw new IllegalArgumentException("--data-path, --warehouse and --key are required");
        }
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("prefix", "dlf_prefix");
        conf.put("warehouse", warehouse);
        conf.put("data-token.enabled", "false");
        RESTCatalogServer server =
                new RESTCatalogServer(dataPath, new Verifier(secrets, region),
                        new ConfigResponse(conf, new LinkedHashMap<>()), warehouse);
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
}
