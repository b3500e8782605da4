import { randomBytes } from "node:crypto";
import { parseStandaloneTopicName, topicPath as topicPathOf } from "../../lib/pulsar/topic-name";
import { AdminRequestError, requestAdmin, requestAdminOk } from "./admin-http";

/**
 * Creates and deletes tenants, namespaces, topics and subscriptions through the admin REST API,
 * for tests, fixtures and demos. Topic arguments are full names: persistent://tenant/ns/topic.
 */

export const STANDALONE_CLUSTER = "standalone";

/** A name unique to this run: prefix, time, randomness; valid as a tenant, namespace or topic. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
}

export async function createTenant(adminUrl: string, tenant: string, options: { allowedClusters?: string[] } = {}): Promise<void> {
  // Without allowedClusters a namespace cannot be created in the tenant.
  await requestAdminOk(adminUrl, "PUT", `/admin/v2/tenants/${encodeURIComponent(tenant)}`, {
    body: { allowedClusters: options.allowedClusters ?? [STANDALONE_CLUSTER], adminRoles: [] },
  });
}

/** `namespace` is "tenant/name". */
export async function createNamespace(adminUrl: string, namespace: string): Promise<void> {
  await requestAdminOk(adminUrl, "PUT", `/admin/v2/namespaces/${namespacePath(namespace)}`);
}

/** How long a new namespace's bundle may take to get an owner before its topics can be created. */
const OWNERSHIP_ATTEMPTS = 20;
const OWNERSHIP_RETRY_MS = 250;

/**
 * Runs a topic creation again while the broker answers 412 "Failed to find ownership": a
 * namespace created a moment ago has no bundle owner yet (seen on 3.0.7 right after
 * createNamespace). Any other answer is final.
 */
async function whileOwnershipIsAssigned(create: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await create();
      return;
    } catch (error) {
      const isUnowned = error instanceof AdminRequestError && error.status === 412 && error.body.includes("Failed to find ownership");
      if (!isUnowned || attempt >= OWNERSHIP_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, OWNERSHIP_RETRY_MS));
    }
  }
}

export async function createPartitionedTopic(adminUrl: string, topic: string, partitions: number): Promise<void> {
  await whileOwnershipIsAssigned(() => requestAdminOk(adminUrl, "PUT", `${topicPath(topic)}/partitions`, { body: partitions }));
}

export async function createNonPartitionedTopic(adminUrl: string, topic: string): Promise<void> {
  await whileOwnershipIsAssigned(() => requestAdminOk(adminUrl, "PUT", topicPath(topic)));
}

/** A durable subscription with no consumers (it starts at the end of the topic). */
export async function createSubscription(adminUrl: string, topic: string, subscription: string): Promise<void> {
  await requestAdminOk(adminUrl, "PUT", `${topicPath(topic)}/subscription/${encodeURIComponent(subscription)}`);
}

/** Force-deletes a topic (closing its producers and consumers); a missing topic is fine. */
export async function deleteTopic(adminUrl: string, topic: string, options: { partitioned: boolean }): Promise<void> {
  const path = options.partitioned ? `${topicPath(topic)}/partitions?force=true` : `${topicPath(topic)}?force=true`;
  await deleteAllowingMissing(adminUrl, path);
}

/** Force-deletes a namespace and everything in it; a missing one is fine. */
export async function deleteNamespace(adminUrl: string, namespace: string): Promise<void> {
  await deleteAllowingMissing(adminUrl, `/admin/v2/namespaces/${namespacePath(namespace)}?force=true`);
}

/** Force-deletes a tenant and everything in it; a missing one is fine. */
export async function deleteTenant(adminUrl: string, tenant: string): Promise<void> {
  await deleteAllowingMissing(adminUrl, `/admin/v2/tenants/${encodeURIComponent(tenant)}?force=true`);
}

export interface ScratchNamespace {
  tenant: string;
  /** "tenant/namespace" */
  namespace: string;
  /** The full persistent:// name of a topic in this namespace (nothing is created). */
  topic(localName: string): string;
  /** Force-deletes the tenant with everything in it. */
  cleanup(): Promise<void>;
}

/** A new tenant with one namespace, both uniquely named after `prefix`. */
export async function createScratchNamespace(adminUrl: string, prefix: string): Promise<ScratchNamespace> {
  const tenant = uniqueName(prefix);
  const namespace = `${tenant}/ns`;
  await createTenant(adminUrl, tenant);
  await createNamespace(adminUrl, namespace);
  return {
    tenant,
    namespace,
    topic: (localName) => `persistent://${namespace}/${localName}`,
    cleanup: () => deleteTenant(adminUrl, tenant),
  };
}

/** "/admin/v2/persistent/tenant/ns/topic" for a full topic name. */
export function topicPath(topic: string): string {
  const name = parseStandaloneTopicName(topic);
  if (!name) throw new Error(`"${topic}" is not a full topic name like persistent://tenant/namespace/topic`);
  return `/admin/v2/${topicPathOf(name)}`;
}

function namespacePath(namespace: string): string {
  const [tenant, name, ...rest] = namespace.split("/");
  if (!tenant || !name || rest.length > 0) throw new Error(`"${namespace}" is not a tenant/namespace name`);
  return `${encodeURIComponent(tenant)}/${encodeURIComponent(name)}`;
}

async function deleteAllowingMissing(adminUrl: string, path: string): Promise<void> {
  const response = await requestAdmin(adminUrl, "DELETE", path);
  // 404: already gone, which is what a clean-up wants.
  if (response.status === 404 || (response.status >= 200 && response.status <= 299)) return;
  throw new AdminRequestError("DELETE", path, response.status, response.text);
}
