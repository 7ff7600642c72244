package dev.umbra.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports, so that a second stack or a PostgreSQL already on 5432 never collides. They are
 * taken below the kernel's ephemeral range: a port is chosen seconds before its server binds it, and a
 * port from the ephemeral range (what binding port 0 hands out) can meanwhile become the local end of
 * any outgoing connection (a Kafka client, a JDBC pool), which made a service fail to start with
 * "port in use". No port is handed out twice on the machine while the JVM that took it lives: each JVM
 * holds a lock on a file per port it handed out (the build runs modules in
 * parallel JVMs, each with a stack, and two of them could pick the same port before either bound it).
 * The operating system releases the locks of a JVM that ends, however it ends.
 */
final class Ports {

    private static final int LOWEST = 20_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "umbra-ports");
    /** Held open for the JVM's lifetime: closing a channel releases its lock. */
    private static final List<FileChannel> HELD = new CopyOnWriteArrayList<>();

    private Ports() {
    }

    static int free() {
        int ephemeralStart = ephemeralRangeStart();
        if (ephemeralStart - LOWEST >= 1_000) {
            for (int attempt = 0; attempt < 200; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralStart);
                if (bindable(port) && HANDED_OUT.add(port)) {
                    if (reserved(port)) {
                        return port;
                    }
                }
            }
        }
        for (int attempt = 0; attempt < 200; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                if (HANDED_OUT.add(socket.getLocalPort()) && reserved(socket.getLocalPort())) {
                    return socket.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("no free port", e);
            }
        }
        throw new IllegalStateException("no free port");
    }

    static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** True if this JVM now holds the machine-wide lock of {@code port} (or cannot write locks); false if another JVM holds it. */
    private static boolean reserved(int port) {
        try {
            Files.createDirectories(LOCKS);
            FileChannel channel = FileChannel.open(LOCKS.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldHere) {
                lock = null;
            }
            if (lock == null) {
                channel.close();
                return false;
            }
            HELD.add(channel);
            return true;
        } catch (IOException unwritable) {
            // another user's folder, say: the check that nothing is bound there is all there is
            return true;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    /** The first port the kernel hands to outgoing connections (Linux; 32768 where that cannot be read). */
    private static int ephemeralRangeStart() {
        try {
            return Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException unreadable) {
            return 32_768;
        }
    }
}
