import "server-only";
import { createFleetConsumer, type FleetConnection, type FleetConsumer, type FleetConsumerSpec } from "./fleet-consumer";
import { openKeyedProducer, type KeyedProducer, type KeyedProducerSpec } from "./keyed-producer";

/**
 * A set of named consumers and producers against one broker, for integration tests and demos:
 * start a Failover group of w1, w2, w3, kill the leader, stop the rest, and close everything at the
 * end of the test, whatever state each member is in.
 */

export interface ConsumerGroupSpec extends Omit<FleetConsumerSpec, "name"> {
  names: readonly string[];
}

export interface Fleet {
  readonly consumers: readonly FleetConsumer[];
  readonly producers: readonly KeyedProducer[];
  /** Adds and starts one consumer. */
  startConsumer(spec: FleetConsumerSpec): Promise<FleetConsumer>;
  /** Adds and starts one consumer per name, on the same subscription, in name order. */
  startGroup(spec: ConsumerGroupSpec): Promise<FleetConsumer[]>;
  /** The consumer called `name` (on `subscription`, when names repeat across subscriptions). */
  consumer(name: string, subscription?: string): FleetConsumer;
  openProducer(spec: KeyedProducerSpec): Promise<KeyedProducer>;
  /** Closes every consumer and producer: gracefully, or by dropping sockets ("kill"). */
  shutdown(mode?: "graceful" | "kill"): Promise<void>;
}

export function createFleet(connection: FleetConnection): Fleet {
  const consumers: FleetConsumer[] = [];
  const producers: KeyedProducer[] = [];

  const startConsumer = async (spec: FleetConsumerSpec): Promise<FleetConsumer> => {
    const member = createFleetConsumer(connection, spec);
    consumers.push(member);
    await member.start();
    return member;
  };

  return {
    consumers,
    producers,
    startConsumer,
    async startGroup(spec) {
      const { names, ...common } = spec;
      const members: FleetConsumer[] = [];
      // One at a time, so that the broker sees them join in a known order.
      for (const name of names) members.push(await startConsumer({ ...common, name }));
      return members;
    },
    consumer(name, subscription) {
      const matches = consumers.filter((member) => member.name === name && (subscription === undefined || member.spec.subscription === subscription));
      if (matches.length !== 1) {
        throw new Error(`${matches.length === 0 ? "no" : "more than one"} fleet consumer named ${name}${subscription ? ` on ${subscription}` : ""}`);
      }
      return matches[0]!;
    },
    async openProducer(spec) {
      const producer = await openKeyedProducer(connection, spec);
      producers.push(producer);
      return producer;
    },
    async shutdown(mode = "graceful") {
      const results = await Promise.allSettled([
        ...consumers.map((member) => (mode === "kill" ? member.kill() : member.stop())),
        ...producers.map((producer) => producer.close()),
      ]);
      const failures = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
      if (failures.length > 0) {
        throw new AggregateError(
          failures.map((failure) => failure.reason),
          `${failures.length} fleet members failed to close`,
        );
      }
    },
  };
}
