package baton.curator;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.retry.RetryOneTime;

/**
 * One Curator client (one ZooKeeper session) that takes and gives back locks and joins elections
 * when told to, so tests can watch what Curator really writes to ZooKeeper.
 *
 * java ... baton.curator.CuratorContender <connect string> <session timeout ms>
 *
 * Prints "session 0x<id>" once connected. Then reads commands from stdin, one per line:
 *   mutex <handle> <path>        InterProcessMutex.acquire() on the handle's own thread
 *   semaphore <handle> <path>    InterProcessSemaphoreMutex.acquire() on the handle's own thread
 *   release <handle>             release the handle's lock
 *   latch <handle> <path> <id>   start a LeaderLatch with participant id <id>
 *   close <handle>               close the handle's LeaderLatch (leaves the election)
 *   selector <handle> <path> <id> start a LeaderSelector with id <id>; it leads until told to relinquish
 *   relinquish <handle>          end the selector's takeLeadership (its mutex node goes)
 * and answers "waiting|acquired|released|started|leader|follower|closed|relinquished <handle>" or
 * "error <handle> <message>". Locks are thread-bound in Curator, so each lock handle gets its own
 * single-thread executor. EOF on stdin means the parent is gone: halt, releasing nothing (as a
 * crashed JVM would; its session then expires on the server).
 */
public final class CuratorContender {
    private static final Map<String, Lock> LOCKS = new ConcurrentHashMap<>();
    private static final Map<String, LeaderLatch> LATCHES = new ConcurrentHashMap<>();
    private static final Map<String, CountDownLatch> SELECTORS = new ConcurrentHashMap<>();

    private record Lock(ExecutorService thread, InterProcessLock lock) {}

    private CuratorContender() {}

    public static void main(String[] args) throws Exception {
        int sessionTimeoutMs = Integer.parseInt(args[1]);
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(args[0])
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(10_000)
                .retryPolicy(new RetryOneTime(200))
                .build();
        client.start();
        client.blockUntilConnected();
        say("session 0x" + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            if (words.length < 2) continue;
            try {
                handle(client, words);
            } catch (Exception e) {
                say("error " + words[1] + " " + e);
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private static void handle(CuratorFramework client, String[] words) throws Exception {
        String command = words[0];
        String name = words[1];
        switch (command) {
            case "mutex", "semaphore" -> {
                InterProcessLock lock = "mutex".equals(command) ? new InterProcessMutex(client, words[2]) : new InterProcessSemaphoreMutex(client, words[2]);
                Lock handle = new Lock(Executors.newSingleThreadExecutor(), lock);
                LOCKS.put(name, handle);
                handle.thread().submit(() -> {
                    say("waiting " + name);
                    try {
                        lock.acquire();
                        say("acquired " + name);
                    } catch (Exception e) {
                        say("error " + name + " " + e);
                    }
                });
            }
            case "release" -> {
                Lock handle = LOCKS.remove(name);
                handle.thread().submit(() -> {
                    try {
                        handle.lock().release();
                        say("released " + name);
                    } catch (Exception e) {
                        say("error " + name + " " + e);
                    }
                });
                handle.thread().shutdown();
            }
            case "latch" -> {
                LeaderLatch latch = new LeaderLatch(client, words[2], words[3]);
                latch.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        say("leader " + name);
                    }

                    @Override
                    public void notLeader() {
                        say("follower " + name);
                    }
                });
                LATCHES.put(name, latch);
                latch.start();
                say("started " + name);
            }
            case "selector" -> {
                CountDownLatch relinquish = new CountDownLatch(1);
                SELECTORS.put(name, relinquish);
                LeaderSelector selector = new LeaderSelector(client, words[2], new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(CuratorFramework framework) throws Exception {
                        say("leader " + name);
                        relinquish.await();
                        say("relinquished " + name);
                    }
                });
                selector.setId(words[3]);
                selector.start();
                say("started " + name);
            }
            case "relinquish" -> SELECTORS.remove(name).countDown();
            case "close" -> {
                LATCHES.remove(name).close();
                say("closed " + name);
            }
            default -> say("error " + name + " unknown command " + command);
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
