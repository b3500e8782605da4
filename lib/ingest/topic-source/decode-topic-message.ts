// A message on the ingest topic carries one counter event (a JSON object) or several (a JSON
// array), in the shape of POST /api/v1/exclusivity-events. Pure.

export type DecodedMessage = { isOk: true; items: unknown[] } | { isOk: false; error: string };

const MAX_ITEMS_PER_MESSAGE = 10_000;

export function decodeTopicMessage(payload: Buffer): DecodedMessage {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(payload);
  if (text.includes("\uFFFD")) return { isOk: false, error: "the payload is not valid UTF-8" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { isOk: false, error: `the payload is not JSON: ${(error as Error).message}` };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { isOk: false, error: "the payload is an empty array" };
    if (value.length > MAX_ITEMS_PER_MESSAGE) return { isOk: false, error: `the payload has more than ${MAX_ITEMS_PER_MESSAGE} events` };
    return { isOk: true, items: value };
  }
  if (value !== null && typeof value === "object") return { isOk: true, items: [value] };
  return { isOk: false, error: "the payload must be a JSON object (one event) or an array of events" };
}
