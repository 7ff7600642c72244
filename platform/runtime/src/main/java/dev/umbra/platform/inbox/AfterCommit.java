package dev.umbra.platform.inbox;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * What a handler reports of its work (a counter, a log line) once the inbox's transaction that holds the work has
 * committed. A transaction the inbox rolls back and tries again, or splits around a culprit, applies its handlers
 * again: reported at once, the same skipped event would be counted and logged once per try, and an event whose
 * transaction never commits would be reported all the same.
 */
public final class AfterCommit {

    private static final Logger LOG = Logger.getLogger(AfterCommit.class);
    private static final String ACTIONS = AfterCommit.class.getName();

    private AfterCommit() {
    }

    /**
     * Runs {@code action} after the current inbox transaction commits, or never if it rolls back (or if the commit's
     * answer is lost: at most once). Call it from the handler's own chain of stages: work the handler starts and does
     * not wait for may run after its transaction is over. Outside an inbox transaction (a handler called by a REST
     * resource or a job, which commit on their own terms) it runs at once.
     */
    public static void run(Runnable action) {
        Context context = Vertx.currentContext();
        List<Runnable> actions = context == null ? null : context.getLocal(ACTIONS);
        if (actions == null) {
            action.run();
        } else {
            actions.add(action);
        }
    }

    /** Opens a transaction's list on its context: everything {@link #run} is handed from now on waits for {@link #committed}. */
    static List<Runnable> open(Context context) {
        List<Runnable> actions = new ArrayList<>();
        context.putLocal(ACTIONS, actions);
        return actions;
    }

    /**
     * The transaction is over: its actions run if it committed, and nothing more is collected for it either way. An
     * action that throws is logged and the others still run: the transaction has committed, and failing now would have
     * the inbox apply it again.
     */
    static void close(Context context, List<Runnable> actions, boolean committed) {
        context.removeLocal(ACTIONS);
        if (committed) {
            for (Runnable action : actions) {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    LOG.warnf(e, "an action after an inbox commit failed; the transaction stays committed");
                }
            }
        }
    }
}
