package dev.umbra.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The public port of a sandbox: a TCP relay in front of its HTTP server, so that faults below HTTP
 * can be played for real — a refused connection (nobody listens), a connect that times out (the
 * accept queue is full, the kernel drops the SYN) and a reset of a connection (RST, not a clean close).
 */
final class TcpFront implements AutoCloseable {

    enum Mode { ACCEPT, REFUSE, DROP }

    private static final Logger LOG = Logger.getLogger(TcpFront.class.getName());

    private static final int FULL_BACKLOG = 1;

    private final InetAddress address;
    private final int backendPort;
    private final int port;
    private final ExecutorService threads;
    /** Client sockets by the local port of their relay connection: the back end sees that port as the peer. */
    private final Map<Integer, Socket> clientsByRelayPort = new ConcurrentHashMap<>();
    private final List<Socket> fillers = new ArrayList<>();
    private ServerSocket listener;
    /** Counted down when the current listener's accept loop has left {@code accept()} for good. */
    private CountDownLatch acceptLoopLeft = new CountDownLatch(0);
    private Mode mode;

    private TcpFront(InetAddress address, int backendPort, ServerSocket listener, ExecutorService threads) {
        this.address = address;
        this.backendPort = backendPort;
        this.listener = listener;
        this.port = listener.getLocalPort();
        this.threads = threads;
    }

    static TcpFront start(int backendPort, String threadName) {
        return start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), backendPort, threadName);
    }

    /** A front listening on {@code listen} (port 0: any free one), relaying to {@code backendPort} on the loopback interface. */
    static TcpFront start(InetSocketAddress listen, int backendPort, String threadName) {
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
        TcpFront front = new TcpFront(listen.getAddress(), backendPort, bind(listen.getAddress(), listen.getPort(), 50), threads);
        front.mode = Mode.ACCEPT;
        front.acceptLoop(front.listener);
        return front;
    }

    int port() {
        return port;
    }

    synchronized Mode mode() {
        return mode;
    }

    /** Switches how new connections are met; live connections are cut when the port stops accepting. */
    synchronized void mode(Mode next) {
        if (next == mode) {
            return;
        }
        closeListener();
        switch (next) {
            case ACCEPT -> {
                listener = bind(address, port, 50);
                acceptLoop(listener);
            }
            case REFUSE -> cutAll();
            case DROP -> {
                cutAll();
                listener = bind(address, port, FULL_BACKLOG);
                fillAcceptQueue();
            }
        }
        mode = next;
    }

    /** Sends a RST to the client whose request the back end received from {@code relayPort}. */
    void reset(int relayPort) {
        Socket client = clientsByRelayPort.remove(relayPort);
        if (client != null) {
            try {
                client.setSoLinger(true, 0);
                client.close();
            } catch (IOException e) {
                // already gone: the client sees a broken connection either way
            }
        }
    }

    private void acceptLoop(ServerSocket socket) {
        CountDownLatch left = new CountDownLatch(1);
        acceptLoopLeft = left;
        threads.execute(() -> {
            try {
                while (!socket.isClosed()) {
                    Socket client = socket.accept();
                    if (socket.isClosed()) {
                        // taken from the queue while the port was being closed: it meets the closed port
                        client.setSoLinger(true, 0);
                        client.close();
                        return;
                    }
                    relay(client);
                }
            } catch (IOException e) {
                // the listener closed
            } finally {
                left.countDown();
            }
        });
    }

    private void relay(Socket client) throws IOException {
        Socket backend = new Socket(InetAddress.getLoopbackAddress(), backendPort);
        int relayPort = backend.getLocalPort();
        clientsByRelayPort.put(relayPort, client);
        threads.execute(() -> pump(client, backend, relayPort));
        threads.execute(() -> pump(backend, client, relayPort));
    }

    private void pump(Socket from, Socket to, int relayPort) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away: close both below
        } finally {
            clientsByRelayPort.remove(relayPort);
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** A listen queue that nobody accepts from, filled up: further SYNs are dropped and connects time out. */
    private void fillAcceptQueue() {
        for (int i = 0; i < FULL_BACKLOG + 4; i++) {
            Socket filler = new Socket();
            try {
                filler.connect(new InetSocketAddress(address.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : address, port), 200);
                fillers.add(filler);
            } catch (IOException e) {
                closeQuietly(filler);
                return;
            }
        }
    }

    private void cutAll() {
        clientsByRelayPort.values().forEach(TcpFront::closeQuietly);
        clientsByRelayPort.clear();
    }

    /**
     * Closes the listener and returns once the port refuses connections: the JDK closes a socket that a
     * thread is blocked on only when that thread has left {@code accept()}, and until then the kernel
     * still completes handshakes on it (a charge sent right after {@code refuseConnections()} got through).
     */
    private void closeListener() {
        closeQuietly(listener);
        fillers.forEach(TcpFront::closeQuietly);
        fillers.clear();
        try {
            if (!acceptLoopLeft.await(5, TimeUnit.SECONDS)) {
                LOG.warning("the accept loop of port " + port + " did not stop within 5 s: connections may still be accepted for a moment");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The listener on {@code port}, again after a switch: a closed listener's port is released only once
     * its accept thread has left {@code accept()} (the JDK defers the close of a socket another thread is
     * blocked on), so a bind right after a close may find the port still taken for a moment.
     */
    private static ServerSocket bind(InetAddress address, int port, int backlog) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            ServerSocket socket = null;
            try {
                socket = new ServerSocket();
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(address, port), backlog);
                return socket;
            } catch (BindException stillTaken) {
                closeQuietly(socket);
                if (System.nanoTime() > deadline) {
                    throw new UncheckedIOException(stillTaken);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new UncheckedIOException(stillTaken);
                }
            } catch (IOException e) {
                closeQuietly(socket);
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            if (closeable != null) {
                closeable.close();
            }
        } catch (Exception e) {
            // closing is best effort
        }
    }

    @Override
    public synchronized void close() {
        closeListener();
        cutAll();
        threads.shutdownNow();
    }
}
