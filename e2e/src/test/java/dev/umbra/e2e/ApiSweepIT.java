package dev.umbra.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.ServiceProcess;
import dev.umbra.e2e.ApiOperations.Operation;
import dev.umbra.e2e.BadInputs.Request;
import dev.umbra.testing.Database;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Sweeps generated from the OpenAPI documents of the five running services, so that every endpoint —
 * also one added later — is covered: bad input anywhere in a request is a 4xx problem+json and stores
 * nothing; every protected endpoint refuses a request without a valid token (401) and a role it does
 * not serve (403), a user acting for another user is refused, a forged gateway callback is refused; and
 * no secret the system handled reaches any service's log.
 */
class ApiSweepIT {

    /** A fixed scenario by default, so that a build is repeatable; {@code -De2e.sweep.seed=random} explores others. */
    private static final long DEFAULT_SEED = 20_261_125L;
    private static final Set<String> PUBLIC = Set.of("billing-service GET /plans", "billing-service POST /webhooks/payment-gateway");
    private static final Pattern BEARER_TOKEN = Pattern.compile("eyJ[A-Za-z0-9_-]{8,}\\.eyJ");
    private static final Pattern GATEWAY_BILLING_KEY = Pattern.compile("bk_[0-9a-f]{16}");

    private final LocalSystem system = RunningSystem.get();
    private final SystemClient umbra = new SystemClient();

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @Test
    void badInputAtEveryEndpointIsRefusedAsSuchAndStoresNothing() {
        String asked = System.getProperty("e2e.sweep.seed", Long.toString(DEFAULT_SEED));
        long seed = "random".equals(asked) ? System.nanoTime() : Long.parseLong(asked);
        BadInputs inputs = new BadInputs(seed);
        List<Operation> operations = ApiOperations.of(system.services());

        // each request below is the well-formed one with one thing wrong: first, the well-formed ones must pass validation
        // (they may name nothing: 404, 403, 409, 422 are theirs to answer), or a refusal below would prove nothing
        List<String> illFormed = new ArrayList<>();
        for (Operation operation : operations) {
            Response answer = send(operation, inputs.wellFormed(operation), anAllowedToken(operation));
            if (answer.statusCode() == 400 || answer.statusCode() == 415 || answer.statusCode() >= 500) {
                illFormed.add(operation + " → " + answer.statusCode() + " " + abbreviated(answer.asString()));
            }
        }
        assertThat(illFormed).as("well-formed requests the sweep builds from the documents (seed %d)", seed).isEmpty();
        SystemClient.awaitAllConsumed();
        Map<String, Long> before = rowCounts();

        List<String> wrong = new ArrayList<>();
        Map<String, Integer> answers = new TreeMap<>();
        int sent = 0;
        for (Operation operation : operations) {
            String token = anAllowedToken(operation);
            for (Request request : inputs.of(operation)) {
                Response answer = send(operation, request, token);
                sent++;
                answers.merge(Integer.toString(answer.statusCode()), 1, Integer::sum);
                if (!refusedAsSuch(operation, request, answer)) {
                    wrong.add(operation + " with " + request.wrong() + " → " + answer.statusCode() + " " + answer.contentType() + " "
                            + abbreviated(answer.asString()));
                }
            }
        }
        System.out.printf("bad-input sweep: seed %d (-De2e.sweep.seed=N runs it again), %d operations, %d requests, answers %s%n", seed,
                operations.size(), sent, answers);

        assertThat(operations).as("operations read from the services' OpenAPI documents").hasSizeGreaterThan(40);
        assertThat(wrong).as("bad input not refused as such (seed %d)", seed).isEmpty();
        SystemClient.awaitAllConsumed();
        assertThat(rowCounts()).as("rows of every table of the five databases").isEqualTo(before);
    }

    /**
     * A request wrong in one place is refused for that: 400 problem+json (an id in a path that names nothing
     * may be a 404, a body that is not JSON by its type a 415, a bad signature header a 401); a read may
     * answer a query value of the wrong kind with nothing found.
     */
    private static boolean refusedAsSuch(Operation operation, Request request, Response answer) {
        int status = answer.statusCode();
        if (status < 400 && !operation.mutating() && request.part() == BadInputs.Part.QUERY) {
            return true;
        }
        boolean expected = switch (request.part()) {
            case PATH -> status == 400 || status == 404;
            case CONTENT_TYPE -> status == 415;
            // an endpoint that authenticates by its headers (the gateway's signature) refuses a bad one as unauthenticated
            case HEADER -> status == 400 || operation.roles().isEmpty() && status == 401;
            default -> status == 400;
        };
        return expected && isProblem(answer);
    }

    @Test
    void everyProtectedEndpointWantsAValidTokenAndARoleItServes() {
        BadInputs inputs = new BadInputs(DEFAULT_SEED);
        List<Operation> operations = ApiOperations.of(system.services());
        SystemClient.awaitAllConsumed();
        Map<String, Long> before = rowCounts();

        List<String> wrong = new ArrayList<>();
        Set<String> open = new TreeSet<>();
        for (Operation operation : operations) {
            Request wellFormed = inputs.wellFormed(operation);
            if (operation.roles().isEmpty()) {
                open.add(operation.service().name() + " " + operation.method() + " " + operation.path());
                continue;
            }
            expect(wrong, operation, "no token", send(operation, wellFormed, null), 401);
            expect(wrong, operation, "a forged token", send(operation, wellFormed, Tokens.forgedBot()), 401);
            expect(wrong, operation, "an expired token", send(operation, wellFormed, Tokens.expiredBot()), 401);
            expect(wrong, operation, "a token for another audience", send(operation, wellFormed, Tokens.botFor("billing-portal")), 401);
            for (String role : ApiOperations.ROLES) {
                if (!operation.roles().contains(role)) {
                    expect(wrong, operation, "role " + role, send(operation, wellFormed, tokenOf(role)), 403);
                }
            }
            if (operation.roles().contains("user") && wellFormed.pathParameters().containsKey("userId")) {
                // a user acting on another user's resources
                expect(wrong, operation, "another user's token", send(operation, wellFormed, Tokens.user(UUID.randomUUID().toString())), 403);
            }
        }
        assertThat(wrong).as("protected endpoints that let a caller through").isEmpty();
        assertThat(open).as("endpoints that ask for no token").isEqualTo(PUBLIC);

        String callback = "{\"eventType\":\"PAYMENT_STATUS_CHANGED\",\"data\":{\"paymentKey\":\"pay_sweep\",\"orderId\":\"o\",\"status\":\"DONE\","
                + "\"totalAmount\":9900}}";
        String now = Long.toString(System.currentTimeMillis() / 1000);
        for (Map<String, String> headers : List.of(Map.<String, String>of(),
                Map.of(PaymentGatewaySandbox.SIGNATURE_HEADER, "v1=" + "0".repeat(64), PaymentGatewaySandbox.TIMESTAMP_HEADER, now),
                Map.of(PaymentGatewaySandbox.SIGNATURE_HEADER, "garbage", PaymentGatewaySandbox.TIMESTAMP_HEADER, now))) {
            Response answer = given().baseUri(system.url("billing")).headers(headers).contentType(ContentType.JSON).body(callback)
                    .when().post("/webhooks/payment-gateway");
            assertThat(answer.statusCode()).as("a forged callback, headers %s", headers.keySet()).isEqualTo(401);
            assertThat(isProblem(answer)).isTrue();
        }
        SystemClient.awaitAllConsumed();
        assertThat(rowCounts()).as("rows of every table of the five databases").isEqualTo(before);
    }

    @Test
    void noSecretTheSystemHandlesReachesAnyLog() throws IOException {
        // a session, a card registration and a charge: the secrets the services see on their way
        String discordUser = Snowflakes.random();
        String userId = given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                .body(Map.of("discordUserId", discordUser)).when().post("/users").then().statusCode(201).extract().path("userId");
        String session = given().baseUri(system.url("guild")).auth().oauth2(Tokens.bot()).when().post("/users/{id}/sessions", userId)
                .then().statusCode(201).extract().path("token");
        SystemClient.Subscribed paid = umbra.subscribedToPro();
        String authKey = "auth-" + UUID.randomUUID();
        given().baseUri(system.url("billing")).auth().oauth2(Tokens.user(paid.user().toString())).contentType(ContentType.JSON)
                .body(Map.of("authKey", authKey)).when().post("/users/{id}/billing-keys", paid.user()).then().statusCode(201);
        SystemClient.awaitAllConsumed();

        PaymentGatewaySandbox gateway = Devstack.shared().paymentGateway();
        List<String> secrets = List.of(session, authKey, gateway.secretKey(), gateway.callbackSecret());
        for (ServiceProcess service : system.services()) {
            String log = Files.readString(service.log(), StandardCharsets.UTF_8);
            assertThat(log).as("%s's log", service.name()).contains("Listening on");
            assertThat(log).as("%s's log", service.name()).doesNotContain(secrets);
            assertThat(BEARER_TOKEN.matcher(log).find()).as("a bearer token in %s's log", service.name()).isFalse();
            assertThat(GATEWAY_BILLING_KEY.matcher(log).find()).as("a gateway billing key in %s's log", service.name()).isFalse();
        }
    }

    private static void expect(List<String> wrong, Operation operation, String caller, Response answer, int status) {
        if (answer.statusCode() != status || !isProblem(answer)) {
            wrong.add(operation + " with " + caller + " → " + answer.statusCode() + " " + answer.contentType() + " " + abbreviated(answer.asString()));
        }
    }

    private Response send(Operation operation, Request request, String token) {
        RequestSpecification spec = given().baseUri(operation.service().url()).urlEncodingEnabled(true);
        if (token != null) {
            spec.auth().oauth2(token);
        }
        request.headers().forEach(spec::header);
        request.query().forEach(spec::queryParam);
        if (request.contentType() != null) {
            spec.contentType(request.contentType() + "; charset=UTF-8");
        }
        if (request.body() != null) {
            spec.body(request.body().getBytes(StandardCharsets.UTF_8));
        }
        return spec.pathParams(request.pathParameters()).request(operation.method(), operation.path());
    }

    /** The most powerful role the operation serves: a refusal then comes from the input, not from who asks. */
    private static String anAllowedToken(Operation operation) {
        for (String role : List.of("admin", "bot", "user")) {
            if (operation.roles().contains(role)) {
                return tokenOf(role);
            }
        }
        return null;
    }

    private static String tokenOf(String role) {
        return switch (role) {
            case "admin" -> Tokens.admin();
            case "bot" -> Tokens.bot();
            default -> Tokens.user(UUID.randomUUID().toString());
        };
    }

    private static boolean isProblem(Response answer) {
        return answer.contentType() != null && answer.contentType().startsWith("application/problem+json");
    }

    private static String abbreviated(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }

    /**
     * Exact row counts of every table (a partitioned table with its partitions) of every service's database;
     * of the work queues, the items requests and events put in line.
     */
    private Map<String, Long> rowCounts() {
        Map<String, Long> counts = new TreeMap<>();
        for (ServiceProcess service : system.services()) {
            Database database = Database.of(service.service().database());
            String tables = database.text("select string_agg(c.relname, ',' order by c.relname) from pg_class c "
                    + "join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p') "
                    + "and not c.relispartition");
            for (String table : tables.split(",")) {
                // a recurring job's one item (key "run") appears before its first run, whenever that is
                String rows = table.equals("work_item") ? "select count(*) from work_item where item_key <> 'run'"
                        : "select count(*) from \"" + table + "\"";
                counts.put(service.name() + "." + table, database.count(rows));
            }
        }
        return counts;
    }
}
