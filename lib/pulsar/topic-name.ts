// Pulsar topic names: persistent://tenant/namespace/local[-partition-N]. Client-safe and pure.

export type TopicName = {
  persistence: "persistent" | "non-persistent";
  tenant: string;
  namespace: string;
  /** The local name without any -partition-N suffix. */
  local: string;
};

const TOPIC = /^(persistent|non-persistent):\/\/([^/]+)\/([^/]+)\/(.+)$/;
const PARTITION_SUFFIX = /-partition-(\d+)$/;

/** Parses a full topic name; returns the base topic and the partition index (-1 if none). */
export function parseTopicName(full: string): { topic: TopicName; partition: number } | null {
  const match = TOPIC.exec(full);
  if (!match) return null;
  const [, persistence, tenant, namespace, rest] = match as unknown as [string, TopicName["persistence"], string, string, string];
  const partitionMatch = PARTITION_SUFFIX.exec(rest);
  const local = partitionMatch ? rest.slice(0, partitionMatch.index) : rest;
  return { topic: { persistence, tenant, namespace, local }, partition: partitionMatch ? Number(partitionMatch[1]) : -1 };
}

/** Parses a full name as one topic, keeping any -partition-N suffix in the local name. */
export function parseStandaloneTopicName(full: string): TopicName | null {
  const match = TOPIC.exec(full);
  if (!match) return null;
  const [, persistence, tenant, namespace, local] = match as unknown as [string, TopicName["persistence"], string, string, string];
  return { persistence, tenant, namespace, local };
}

export function formatTopicName(topic: TopicName): string {
  return `${topic.persistence}://${topic.tenant}/${topic.namespace}/${topic.local}`;
}

/** The admin REST path segment of a topic: persistent/tenant/namespace/local (URL-encoded). */
export function topicPath(topic: TopicName): string {
  return [topic.persistence, topic.tenant, topic.namespace, topic.local].map(encodeURIComponent).join("/");
}

/** System topics (`__change_events`, transaction buffers...) are Pulsar's own. */
export function isSystemTopic(topic: TopicName): boolean {
  return topic.local.startsWith("__") || topic.tenant === "pulsar";
}

/** The stable key of one held Pulsar resource: topic|subscription|partition (joined: one flat string, as a poller keeps 10,000s of them). */
export function pulsarResourceKey(topic: string, subscription: string, partition: number): string {
  return [topic, subscription, partition].join("|");
}
