import { z } from "zod";

import { joinPath, znodePath } from "../znode-path";
import { decodeMessage, defineMessage } from "./decode-protobuf";
import type { LockTarget } from "./system-role";

// Apache HBase: the active master owns the ephemeral <zookeeper.znode.parent>/master (default
// /hbase); the backup masters register as <parent>/backup-masters/<host>,<port>,<start code>.
// The data is framed by RecoverableZooKeeper (0xFF, a 4-byte id length, the id) and then
// ProtobufUtil's "PBUF" magic before the Master protobuf (ZooKeeper.proto).

export const hbaseSchema = z
  .object({
    system: z.literal("hbase"),
    /** zookeeper.znode.parent. */
    root: znodePath.default("/hbase"),
  })
  .strict();

const master = defineMessage(
  `message ServerName {
    required string host_name = 1;
    optional uint32 port = 2;
    optional uint64 start_code = 3;
  }
  message Master {
    required ServerName master = 1;
    optional uint32 rpc_version = 2;
    optional uint32 info_port = 3;
  }`,
  "Master",
);

const PB_MAGIC = Buffer.from("PBUF");

/** The protobuf after RecoverableZooKeeper's metadata and the PBUF magic. */
function unframe(data: Buffer): Buffer {
  let rest = data;
  if (rest[0] === 0xff) {
    if (rest.length < 5) throw new Error("metadata cut short");
    const idLength = rest.readInt32BE(1);
    if (idLength < 0 || 5 + idLength > rest.length) throw new Error("metadata cut short");
    rest = rest.subarray(5 + idLength);
  }
  if (!rest.subarray(0, PB_MAGIC.length).equals(PB_MAGIC)) throw new Error("no PBUF magic");
  return rest.subarray(PB_MAGIC.length);
}

export function parseHbaseMaster(data: Buffer): { holder: string; fields: Record<string, unknown> } {
  const message = decodeMessage(master, unframe(data), ["master"]);
  // The decoder names the fields in camelCase (host_name -> hostName).
  const server = message.master as { hostName?: string; port?: number; startCode?: string };
  if (server.hostName === undefined) throw new Error("not a Master protobuf (no host_name)");
  return {
    holder: server.port === undefined ? server.hostName : `${server.hostName}:${server.port}`,
    fields: { host: server.hostName, port: server.port ?? null, startCode: server.startCode ?? null, infoPort: message.infoPort ?? null },
  };
}

/** A backup master's node name "<host>,<port>,<start code>" as "host:port". */
function nameBackupMaster(child: string): string | null {
  const [host, port] = child.split(",");
  return host && port ? `${host}:${port}` : null;
}

export function hbaseTargets(options: z.output<typeof hbaseSchema>): LockTarget[] {
  return [
    {
      pattern: joinPath(options.root, "master"),
      recipe: "ephemeral-node",
      mustBeHeld: true,
      role: {
        system: "hbase",
        describe: () => "HBase master",
        parseHolder: parseHbaseMaster,
        standbys: { path: () => joinPath(options.root, "backup-masters"), name: nameBackupMaster },
      },
    },
  ];
}
