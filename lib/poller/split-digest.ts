import { createHash } from "node:crypto";

import { type HashRangeSplit, signHashRangeSplit } from "@/lib/poller/contract/hash-range-split";

/**
 * A Key_Shared split's identity as stored (key_shared_range_split.signature): the md5 of its hash
 * space and its consumers' ranges in a fixed order (signHashRangeSplit). Equal digests mean the
 * same split whatever order the broker listed the consumers in; 32 characters instead of the
 * split's kilobytes, so the poller compares and the owner lookups cache splits by it.
 */
export function digestHashRangeSplit(split: HashRangeSplit): string {
  return createHash("md5")
    .update(`${split.space}|${signHashRangeSplit(split)}`)
    .digest("hex");
}
