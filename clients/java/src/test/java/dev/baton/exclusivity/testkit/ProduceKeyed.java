package dev.baton.exclusivity.testkit;

import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;

/**
 * Sends count messages to topic, message i with key "k-(i % keys)" and value "(prefix)-i"; prints
 * "produced (count)". Args: serviceUrl topic count keys [prefix].
 */
public final class ProduceKeyed {
    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        int count = args.getInt("count", 1);
        int keys = args.getInt("keys", 1);
        String prefix = args.get("prefix", "m");
        try (PulsarClient client = PulsarClient.builder().serviceUrl(args.get("serviceUrl")).build();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(args.get("topic")).enableBatching(false).blockIfQueueFull(true).create()) {
            for (int i = 0; i < count; i++) {
                producer.newMessage().key("k-" + (i % keys)).value(prefix + "-" + i).sendAsync();
            }
            producer.flush();
        }
        System.out.println("produced " + count);
    }
}
