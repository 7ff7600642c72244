package dev.umbra.platform.workqueue;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The polled queue of {@link WorkQueuePollingIT}: a try of a key starting with "hang" never ends, as if its
 * statement were lost on the network. Polled only while that test runs: the other classes cut the database.
 */
@ApplicationScoped
public class HangingWork implements WorkHandler {

    static final String QUEUE = "hang-probe";

    private final List<String> tried = new CopyOnWriteArrayList<>();
    private volatile boolean polled;

    @Override
    public boolean ready() {
        return polled;
    }

    void poll(boolean on) {
        polled = on;
    }

    @Override
    public String queue() {
        return QUEUE;
    }

    @Override
    public Uni<Outcome> handle(WorkItem item) {
        tried.add(item.key());
        return item.key().startsWith("hang") ? Uni.createFrom().nothing() : Uni.createFrom().item(Outcome.done());
    }

    List<String> tried() {
        return List.copyOf(tried);
    }
}
