package dev.umbra.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Calls made at once, each on a thread of its own and released together: what a test of a race needs. */
public final class Concurrently {

    /** One caller's call; {@code caller} numbers them from 0. */
    public interface Call<T> {
        T call(int caller) throws Exception;
    }

    private Concurrently() {
    }

    /** The answers of {@code callers} calls made at once, in the callers' order. */
    public static <T> List<T> run(int callers, Call<T> call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        CyclicBarrier together = new CyclicBarrier(callers);
        try {
            List<Future<T>> answers = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                int caller = i;
                answers.add(pool.submit(() -> {
                    together.await();
                    return call.call(caller);
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> answer : answers) {
                results.add(answer.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
