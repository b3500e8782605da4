import protobuf from "protobufjs";

// The systems that write protobuf into their leader nodes (Hadoop's ZKFC, HBase) are read with a
// protobuf decoder from the message definitions of their .proto files, never by hand.

/** The message type `name` of a proto2 definition. */
export function defineMessage(proto: string, name: string): protobuf.Type {
  return protobuf.parse(`syntax = "proto2";\n${proto}`).root.lookupType(name);
}

/**
 * Decodes `data` as `type`; throws a one-line error when it is not one (truncated, other bytes)
 * or lacks a field the system always writes. The bytes are copied into a plain Uint8Array: the
 * decoder's Buffer reader clamps a string cut short instead of failing.
 */
export function decodeMessage(type: protobuf.Type, data: Uint8Array, required: readonly string[]): Record<string, unknown> {
  let decoded: protobuf.Message;
  try {
    decoded = type.decode(Uint8Array.from(data));
  } catch (error) {
    throw new Error(`not a ${type.name} protobuf (${(error as Error).message})`);
  }
  const message = type.toObject(decoded, { longs: String });
  const missing = required.filter((field) => message[field] === undefined);
  if (missing.length > 0) throw new Error(`not a ${type.name} protobuf (no ${missing.join(", ")})`);
  return message;
}
