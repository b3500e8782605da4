package baton.dynamodb;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.amazonaws.services.dynamodbv2.AcquireLockOptions;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClient;
import com.amazonaws.services.dynamodbv2.AmazonDynamoDBLockClientOptions;
import com.amazonaws.services.dynamodbv2.LockItem;
import com.amazonaws.services.dynamodbv2.ReleaseLockOptions;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One AmazonDynamoDBLockClient (one owner name, one heartbeat thread) driven over stdin, one
 * command a line, answering on stdout:
 *   acquire <handle> <key> [sortKey] [data] -> "acquired <handle> <recordVersionNumber>" (waits while taken)
 *   release <handle>                     -> "released <handle>" (the item is deleted)
 *   release-keep <handle>                -> "released <handle>" (the item stays, isReleased = true)
 * Usage: LockContender <endpoint> <table> <ownerName> <leaseMs> <heartbeatMs> [sortKeyName]
 * The process halts when stdin closes (the test process died).
 */
public final class LockContender {
    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        String table = args[1];
        String owner = args[2];
        long leaseMs = Long.parseLong(args[3]);
        long heartbeatMs = Long.parseLong(args[4]);
        String sortKeyName = args.length > 5 ? args[5] : null;

        DynamoDbClient dynamo = DynamoDbClient.builder()
            .endpointOverride(URI.create(endpoint))
            .region(Region.US_EAST_1)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("baton", "baton")))
            .build();
        AmazonDynamoDBLockClientOptions.AmazonDynamoDBLockClientOptionsBuilder options = AmazonDynamoDBLockClientOptions.builder(dynamo, table)
            .withOwnerName(owner)
            .withTimeUnit(TimeUnit.MILLISECONDS)
            .withLeaseDuration(leaseMs)
            .withHeartbeatPeriod(heartbeatMs)
            .withCreateHeartbeatBackgroundThread(true);
        if (sortKeyName != null) options = options.withSortKeyName(sortKeyName);
        AmazonDynamoDBLockClient client = new AmazonDynamoDBLockClient(options.build());
        Map<String, LockItem> held = new ConcurrentHashMap<>();
        System.out.println("ready " + owner);
        System.out.flush();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            String handle = words.length > 1 ? words[1] : "";
            try {
                switch (words[0]) {
                    case "acquire" -> {
                        String key = words[2];
                        String sortKey = words.length > 3 && !words[3].equals("-") ? words[3] : null;
                        String data = words.length > 4 ? words[4] : null;
                        AcquireLockOptions.AcquireLockOptionsBuilder acquire = AcquireLockOptions.builder(key)
                            .withAdditionalTimeToWaitForLock(10L * 60 * 1000)
                            .withRefreshPeriod(100L)
                            .withTimeUnit(TimeUnit.MILLISECONDS);
                        if (sortKey != null) acquire = acquire.withSortKey(sortKey);
                        if (data != null) acquire = acquire.withData(ByteBuffer.wrap(data.getBytes(StandardCharsets.UTF_8)));
                        AcquireLockOptions request = acquire.build();
                        // Waiting runs on its own thread: the contender keeps taking commands.
                        Thread waiter = new Thread(() -> {
                            try {
                                LockItem item = client.acquireLock(request);
                                held.put(handle, item);
                                say("acquired " + handle + " " + item.getRecordVersionNumber());
                            } catch (Exception e) {
                                say("error " + handle + " " + oneLine(e));
                            }
                        });
                        waiter.setDaemon(true);
                        waiter.start();
                        say("waiting " + handle);
                    }
                    case "release", "release-keep" -> {
                        LockItem item = held.remove(handle);
                        if (item == null) {
                            say("error " + handle + " not held");
                            break;
                        }
                        boolean isDeleted = words[0].equals("release");
                        client.releaseLock(ReleaseLockOptions.builder(item).withDeleteLock(isDeleted).withBestEffort(false).build());
                        say("released " + handle);
                    }
                    default -> say("error " + handle + " unknown command " + words[0]);
                }
            } catch (Exception e) {
                say("error " + handle + " " + oneLine(e));
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static String oneLine(Exception e) {
        return (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
    }
}
