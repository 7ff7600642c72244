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
    private static final Set<Integer> REFUSALS = Set.of(400, 403, 404, 409, 415, 422);
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
    void badInputAtEveryEndpointIsA4xxProblemAndStoresNothing() {
        String asked = System.getProperty("e2e.sweep.seed", Long.toString(DEFAULT_SEED));
        long seed = "random".equals(asked) ? System.nanoTime() : Long.parseLong(asked);
        BadInputs inputs = new BadInputs(seed);
        List<Operation> operations = ApiOperations.of(system.services());
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
                // a filter of the wrong kind may simply match nothing; everything else wrong must be refused
                boolean mayPass = !operation.mutating() && request.wrong().startsWith("query");
                boolean refused = REFUSALS.contains(answer.statusCode()) && isProblem(answer);
                if (!refused && !(mayPass && answer.statusCode() < 400)) {
                    wrong.add(operation + " with " + request.wrong() + " → " + answer.statusCode() + " " + answer.contentType() + " "
                            + abbreviated(answer.asString()));
                }
            }
        }
        System.out.printf("bad-input sweep: seed %d (-De2e.sweep.seed=N runs it again), %d operations, %d requests, answers %s%n", seed,
                operations.size(), sent, answers);

        assertThat(operations).as("operations read from the services' OpenAPI documents").hasSizeGreaterThan(40);
        assertThat(wrong).as("bad input not refused with a 4xx problem (seed %d)", seed).isEmpty();
        SystemClient.awaitAllConsumed();
        assertThat(rowCounts()).as("rows of every table of the five databases").isEqualTo(before);
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
            String body = operation.body() == null ? null : inputs.valid(operation.schemas(), operation.body()).toString();
            Request wellFormed = new Request("a well-formed request", inputs.validPathParameters(operation), Map.of(),
                    body == null ? null : "application/json", body);
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
        operation.parameters().stream().filter(p -> p.in().equals("header"))
                .forEach(p -> spec.header(p.name(), "sweep-" + UUID.randomUUID()));
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

    /** Exact row counts of every table (a partitioned table with its partitions) of every service's database. */
    private Map<String, Long> rowCounts() {
        Map<String, Long> counts = new TreeMap<>();
        for (ServiceProcess service : system.services()) {
            Database database = Database.of(service.service().database());
            String tables = database.text("select string_agg(c.relname, ',' order by c.relname) from pg_class c "
                    + "join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p') "
                    + "and not c.relispartition");
            for (String table : tables.split(",")) {
                counts.put(service.name() + "." + table, database.count("select count(*) from \"" + table + "\""));
            }
        }
        return counts;
    }
}
