package dev.umbra.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP link between a service and its database that a test can cut and restore, the way a network
 * partition or a database restart looks to the service: while cut, existing connections are closed
 * and new ones are refused.
 */
public final class DatabaseLink implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;

    private DatabaseLink(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = bind(0);
        this.port = listener.getLocalPort();
        accept(listener);
    }

    public static DatabaseLink to(String host, int port) {
        return new DatabaseLink(host, port);
    }

    public int port() {
        return port;
    }

    /** Closes every connection and refuses new ones until {@link #restore()}. */
    public synchronized void cut() {
        closeQuietly(listener);
        listener = null;
        open.forEach(DatabaseLink::closeQuietly);
        open.clear();
    }

    public synchronized void restore() {
        if (listener == null) {
            listener = bind(port);
            accept(listener);
        }
    }

    @Override
    public void close() {
        cut();
    }

    private void accept(ServerSocket server) {
        Thread acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                Socket client;
                try {
                    client = server.accept();
                } catch (IOException e) {
                    return; // the listener was closed by cut()
                }
                try {
                    Socket upstream = new Socket(targetHost, targetPort);
                    open.add(client);
                    open.add(upstream);
                    pump(client, upstream);
                    pump(upstream, client);
                } catch (IOException e) {
                    closeQuietly(client); // the database refused: so does the link
                }
            }
        }, "database-link-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void pump(Socket from, Socket to) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int read; (read = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: close the other below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "database-link-pump");
        pump.setDaemon(true);
        pump.start();
    }

    private static ServerSocket bind(int port) {
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress("127.0.0.1", port));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port, e);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (SocketException ignored) {
            // already closed
        } catch (Exception ignored) {
            // closing during a cut: nothing left to do
        }
    }
}
