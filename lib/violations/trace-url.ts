// Trace links: the configured URL template (a Jaeger or Tempo search, say) with the event's
// trace id in place of {traceId}. Client-safe and pure.

/** The trace's URL, or null without a template. The id is URL-encoded: it is the client's text. */
export function buildTraceUrl(template: string | null, traceId: string): string | null {
  if (template === null) return null;
  return template.replaceAll("{traceId}", encodeURIComponent(traceId));
}
