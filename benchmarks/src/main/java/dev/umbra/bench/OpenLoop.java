package dev.umbra.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Open-loop HTTP driver: request {@code i} is due at {@code start + i / rate}, whatever happened to the
 * earlier ones, and its latency is counted from when it was due, so a stall of the server is not
 * hidden by a driver that waited (coordinated omission). One Vert.x event loop sends every request
 * that is due each millisecond: cheap enough to share two cores with the system it measures.
 */
final class OpenLoop {

    /** One request: method, path, bearer token, JSON body or null, and the status that counts as success. */
    record Call(HttpMethod method, String path, String token, String body, int expectedStatus) {
    }

    /** When the run started, the spacing of the schedule, and the rate the driver kept. */
    record Run(long startNanos, long intervalNanos, double achievedRate) {

        long dueNanos(int i) {
            return startNanos + i * intervalNanos;
        }
    }

    private OpenLoop() {
    }

    /**
     * Sends {@code total} calls at {@code rate} per second; the latencies of calls from {@code warmup}
     * on go to {@code latencies} (a failed call counts as an error). Returns once every call answered.
     */
    static Run drive(String baseUrl, int rate, int total, int warmup, Latencies latencies, IntFunction<Call> calls)
            throws InterruptedException {
        URI base = URI.create(baseUrl);
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(base.getHost()).setDefaultPort(base.getPort())
                .setKeepAlive(true), new PoolOptions().setHttp1MaxSize(128).setMaxWaitQueueSize(-1));
        CountDownLatch done = new CountDownLatch(total);
        long intervalNanos = 1_000_000_000L / rate;
        long start = System.nanoTime();
        long[] lastSent = {start};
        int[] next = {0};
        vertx.setPeriodic(1, timer -> {
            long now = System.nanoTime();
            while (next[0] < total && start + next[0] * intervalNanos <= now) {
                int i = next[0]++;
                long due = start + i * intervalNanos;
                Call call = calls.apply(i);
                lastSent[0] = System.nanoTime();
                send(http, call).onComplete(result -> {
                    long latency = System.nanoTime() - due;
                    if (i >= warmup) {
                        if (result.succeeded() && result.result() == call.expectedStatus()) {
                            latencies.recordNanos(latency);
                        } else {
                            latencies.error(result.succeeded() ? "HTTP " + result.result() : result.cause().getClass().getSimpleName());
                        }
                    }
                    done.countDown();
                });
            }
            if (next[0] >= total) {
                vertx.cancelTimer(timer);
            }
        });
        long seconds = total / rate;
        boolean finished = done.await(seconds + 60L, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().join();
        if (!finished) {
            throw new IllegalStateException("requests still open 60 s after the run");
        }
        double sending = Math.max(1, lastSent[0] - start) / 1e9;
        return new Run(start, intervalNanos, total > 1 ? (total - 1) / sending : rate);
    }

    static Future<Integer> send(HttpClient http, Call call) {
        return http.request(call.method(), call.path()).compose(request -> {
            if (call.token() != null) {
                request.putHeader("Authorization", "Bearer " + call.token());
            }
            if (call.body() == null) {
                return request.send();
            }
            request.putHeader("Content-Type", "application/json");
            return request.send(Buffer.buffer(call.body()));
        }).compose(response -> response.body().map(body -> response.statusCode()));
    }
}
