// Addresses of the board's pages. Client-safe and pure.

export function subscriptionHref(ref: { cluster: string; topic: string; subscription: string }, extra: Record<string, string> = {}): string {
  return `/subscriptions?${new URLSearchParams({ cluster: ref.cluster, topic: ref.topic, subscription: ref.subscription, ...extra })}`;
}

export function consumerHref(name: string, cluster?: string): string {
  return `/consumers/${encodeURIComponent(name)}${cluster ? `?${new URLSearchParams({ cluster })}` : ""}`;
}

/** A consumer name from its page's path segment; a name with a stray "%" comes back as it is. */
export function decodeConsumerName(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A lock's page (or, with a pattern, the page of every lock of that pattern). */
export function lockHref(ref: { cluster: string; key?: string | null; pattern?: string | null }, extra: Record<string, string> = {}): string {
  const params: Record<string, string> = { cluster: ref.cluster };
  if (ref.key) params.key = ref.key;
  else if (ref.pattern) params.pattern = ref.pattern;
  return `/locks?${new URLSearchParams({ ...params, ...extra })}`;
}
