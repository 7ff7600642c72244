package dev.umbra.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay in front of a server (Postgres, say), to take it away from a service under test and
 * give it back without restarting either: {@link #cut()} closes every relayed connection and refuses
 * new ones, as a stopped server would; {@link #freeze()} keeps every connection open and accepts new
 * ones but passes nothing on, as a server that hangs (or a network that drops packets) would;
 * {@link #restore()} passes on what was held and accepts again on the same port.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile boolean frozen;

    private TcpProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = listen(0);
        this.port = server.getLocalPort();
        accept(server);
    }

    public static TcpProxy to(String host, int port) {
        return new TcpProxy(host, port);
    }

    public int port() {
        return port;
    }

    /** Closes every relayed connection and stops accepting: connecting is refused until {@link #restore()}. */
    public synchronized void cut() {
        closeQuietly(server);
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
    }

    /** Holds every byte, both ways, on every connection, new ones included, until {@link #restore()}; nothing is closed. */
    public synchronized void freeze() {
        frozen = true;
    }

    public synchronized void restore() {
        frozen = false;
        notifyAll();
        if (server.isClosed()) {
            server = listen(port);
            accept(server);
        }
    }

    @Override
    public void close() {
        cut();
    }

    private static ServerSocket listen(int port) {
        try {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return socket;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on port " + port, e);
        }
    }

    private void accept(ServerSocket listening) {
        daemon("tcp-proxy-" + port, () -> {
            while (!listening.isClosed()) {
                try {
                    Socket client = listening.accept();
                    Socket upstream;
                    try {
                        upstream = new Socket(targetHost, targetPort);
                    } catch (IOException e) {
                        closeQuietly(client);
                        continue;
                    }
                    // a connection accepted while cut() ran must not outlive it: cut() closes the listener first
                    synchronized (this) {
                        if (listening.isClosed()) {
                            closeQuietly(client);
                            closeQuietly(upstream);
                            continue;
                        }
                        open.add(client);
                        open.add(upstream);
                    }
                    pipe(client, upstream);
                    pipe(upstream, client);
                } catch (IOException e) {
                    // closed by cut(), or the target refused: the client sees its connection end
                }
            }
        });
    }

    private void pipe(Socket from, Socket to) {
        daemon("tcp-proxy-" + port + "-pipe", () -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int read; (read = in.read(buffer)) >= 0; ) {
                    awaitThawed(to);
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away: close both below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        });
    }

    private synchronized void awaitThawed(Socket to) throws IOException {
        try {
            while (frozen && !to.isClosed()) {
                wait(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while frozen", e);
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // already closed
        }
    }
}
