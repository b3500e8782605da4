import { z } from "zod";

import { bookkeeperSchema, bookkeeperTargets } from "./bookkeeper";
import { hbaseSchema, hbaseTargets } from "./hbase";
import { hdfsSchema, hdfsTargets } from "./hdfs";
import { helixSchema, helixTargets } from "./helix";
import { kafkaSchema, kafkaTargets } from "./kafka";
import { patroniSchema, patroniTargets } from "./patroni";
import { pulsarSchema, pulsarTargets } from "./pulsar";
import { solrSchema, solrTargets } from "./solr";
import type { LockTarget } from "./system-role";
import { yarnSchema, yarnTargets } from "./yarn";

// The systems Baton knows the leaders of, by name: `"systems": [{"system": "kafka"}, ...]`. One
// line each here; what each writes where is in its own file.

export const systemSchema = z.discriminatedUnion("system", [
  kafkaSchema,
  helixSchema,
  pulsarSchema,
  hdfsSchema,
  yarnSchema,
  hbaseSchema,
  solrSchema,
  bookkeeperSchema,
  patroniSchema,
]);

export type SystemEntry = z.output<typeof systemSchema>;

/** The lock nodes (paths or patterns) one system entry watches. */
export function listSystemTargets(entry: SystemEntry): LockTarget[] {
  switch (entry.system) {
    case "kafka":
      return kafkaTargets(entry);
    case "helix":
      return helixTargets(entry);
    case "pulsar":
      return pulsarTargets(entry);
    case "hdfs":
      return hdfsTargets(entry);
    case "yarn":
      return yarnTargets(entry);
    case "hbase":
      return hbaseTargets(entry);
    case "solr":
      return solrTargets(entry);
    case "bookkeeper":
      return bookkeeperTargets(entry);
    case "patroni":
      return patroniTargets(entry);
  }
}
