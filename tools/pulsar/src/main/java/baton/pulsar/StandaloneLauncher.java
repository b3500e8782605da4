package baton.pulsar;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a Pulsar standalone (broker, rocksdb metadata store, one bookie, WebSocket service) in
 * this JVM, for Baton's tests and local runs.
 *
 * <pre>
 * java ... baton.pulsar.StandaloneLauncher --data-dir DIR --web-port 8080 --broker-port 6650
 *     [--bookie-port 0] [--metadata-url zk:HOST:PORT] [--conf key=value]... [--wipe] [--watch-stdin]
 * </pre>
 *
 * It writes DIR/conf/standalone.conf from the bundled baton-standalone.conf plus the ports, then
 * hands over to Pulsar's own PulsarStandaloneStarter with the functions worker and stream
 * storage off. With --metadata-url the broker and the bookie keep their metadata in that store (a
 * ZooKeeper: {@code zk:127.0.0.1:2181}) instead of the rocksdb store under DIR/metadata: the
 * standalone's --metadata-url, which keeps its PIP-117 mode (BKCluster, no embedded ZooKeeper).
 */
public final class StandaloneLauncher {
    // Bounds a shutdown that hangs (a bookie or ledger close that never returns): the parent
    // gives up after 15 s and kills the process group, this covers the case of no parent at all.
    private static final long SHUTDOWN_HALT_AFTER_MS = 20_000;

    private StandaloneLauncher() {
    }

    public static void main(String[] args) throws Exception {
        // Set before the first logger exists; Pulsar's own shutdown hook shuts log4j down itself.
        setPropertyIfAbsent("log4j2.configurationFile", "baton-log4j2.xml");
        setPropertyIfAbsent("log4j2.shutdownHookEnabled", "false");

        Options options = Options.parse(args);
        Path dataDir = options.dataDir.toAbsolutePath();
        Path confFile = writeConf(dataDir, options);

        if (options.watchStdin) {
            startStdinWatchdog();
        }
        registerHaltGuard();

        List<String> standaloneArgs = new ArrayList<>(List.of(
                "--config", confFile.toString(),
                "-nfw", "-nss",
                "--metadata-dir", dataDir.resolve("metadata").toString(),
                "--bookkeeper-dir", dataDir.resolve("bookkeeper").toString(),
                // Never used (PIP-117 mode), but an existing directory here would switch the
                // standalone to ZooKeeper mode, so it must not be the CWD-relative default.
                "--zookeeper-dir", dataDir.resolve("zookeeper").toString(),
                "--bookkeeper-port", Integer.toString(options.bookiePort)));
        if (options.metadataUrl != null) {
            standaloneArgs.add("--metadata-url");
            standaloneArgs.add(options.metadataUrl);
        }
        if (options.wipe) {
            standaloneArgs.add("--wipe-data");
        }
        org.apache.pulsar.PulsarStandaloneStarter.main(standaloneArgs.toArray(new String[0]));
    }

    private static Path writeConf(Path dataDir, Options options) throws IOException {
        String base;
        try (InputStream in = StandaloneLauncher.class.getResourceAsStream("/baton-standalone.conf")) {
            if (in == null) {
                throw new IllegalStateException("baton-standalone.conf is missing from the classpath");
            }
            base = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String conf = base
                + "\n# Per run, from the launcher's arguments\n"
                + "webServicePort=" + options.webPort + "\n"
                + "brokerServicePort=" + options.brokerPort + "\n"
                // BKCluster only honours a fixed bookie port when ephemeral ports are allowed;
                // otherwise it picks a free one (and reuses the one in a kept data dir's cookie).
                + (options.bookiePort > 0 ? "allowEphemeralPorts=true\n" : "")
                // Last, so that they override the bundled defaults (the last occurrence wins).
                + String.join("", options.overrides.stream().map(line -> line + "\n").toList());
        Path confDir = Files.createDirectories(dataDir.resolve("conf"));
        Path confFile = confDir.resolve("standalone.conf");
        Files.writeString(confFile, conf, StandardCharsets.UTF_8);
        return confFile;
    }

    /**
     * The parent (broker.ts) keeps our stdin open as a pipe and never writes to it. EOF means the
     * parent is gone, even if it died by SIGKILL and could not stop us: shut down then.
     */
    private static void startStdinWatchdog() {
        Thread watchdog = new Thread(() -> {
            try {
                byte[] buffer = new byte[256];
                while (System.in.read(buffer) >= 0) {
                    // Input is ignored; only the end of the stream matters.
                }
                System.err.println("[baton] stdin closed: the parent process is gone, shutting down");
            } catch (IOException e) {
                System.err.println("[baton] stdin failed (" + e + "): the parent process is gone, shutting down");
            }
            System.exit(0);
        }, "baton-stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private static void registerHaltGuard() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // A daemon timer, so that a clean shutdown is not held back by this hook.
            Thread timer = new Thread(() -> {
                try {
                    Thread.sleep(SHUTDOWN_HALT_AFTER_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                System.err.println("[baton] shutdown took longer than " + SHUTDOWN_HALT_AFTER_MS + " ms, halting");
                Runtime.getRuntime().halt(1);
            }, "baton-halt-guard");
            timer.setDaemon(true);
            timer.start();
        }, "baton-halt-guard-hook"));
    }

    private static void setPropertyIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static final class Options {
        Path dataDir;
        int webPort = 8080;
        int brokerPort = 6650;
        int bookiePort = 0;
        String metadataUrl;
        boolean wipe;
        boolean watchStdin;
        final List<String> overrides = new ArrayList<>();

        static Options parse(String[] args) {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--data-dir" -> options.dataDir = Path.of(valueAfter(args, ++i, arg));
                    case "--web-port" -> options.webPort = parsePort(valueAfter(args, ++i, arg), arg);
                    case "--broker-port" -> options.brokerPort = parsePort(valueAfter(args, ++i, arg), arg);
                    case "--bookie-port" -> options.bookiePort = parsePort(valueAfter(args, ++i, arg), arg);
                    case "--metadata-url" -> options.metadataUrl = parseMetadataUrl(valueAfter(args, ++i, arg));
                    case "--conf" -> options.overrides.add(parseOverride(valueAfter(args, ++i, arg)));
                    case "--wipe" -> options.wipe = true;
                    case "--watch-stdin" -> options.watchStdin = true;
                    default -> fail("unknown argument " + arg);
                }
            }
            if (options.dataDir == null) {
                fail("--data-dir is required");
            }
            return options;
        }

        private static String parseMetadataUrl(String value) {
            // ZooKeeper only: the one store besides the default rocksdb that Baton's tests use.
            if (!value.matches("zk:[^\\s]+")) {
                fail("--metadata-url needs zk:HOST:PORT[,HOST:PORT...][/chroot], got " + value);
            }
            return value;
        }

        private static String parseOverride(String value) {
            if (!value.matches("[A-Za-z][A-Za-z0-9_.]*=[^\\r\\n]*")) {
                fail("--conf needs key=value on one line, got " + value);
            }
            return value;
        }

        private static String valueAfter(String[] args, int index, String flag) {
            if (index >= args.length) {
                fail(flag + " needs a value");
            }
            return args[index];
        }

        private static int parsePort(String value, String flag) {
            try {
                int port = Integer.parseInt(value);
                if (port < 0 || port > 65535) {
                    fail(flag + " must be a port number, got " + value);
                }
                return port;
            } catch (NumberFormatException e) {
                fail(flag + " must be a port number, got " + value);
                return -1;
            }
        }

        private static void fail(String message) {
            System.err.println("[baton] " + message);
            System.err.println("usage: StandaloneLauncher --data-dir DIR [--web-port N] [--broker-port N]"
                    + " [--bookie-port N] [--metadata-url zk:HOST:PORT] [--conf key=value]... [--wipe] [--watch-stdin]");
            System.exit(2);
        }
    }
}
