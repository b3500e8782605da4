import { decodeMessage, defineMessage } from "./decode-protobuf";

// Hadoop's ActiveStandbyElector (HDFS NameNode and YARN ResourceManager HA): the active one owns
// the ephemeral <parent>/ActiveStandbyElectorLock, whose data is the application's protobuf; the
// persistent ActiveBreadCrumb beside it names the last active (fenced by the next).

export const ELECTOR_LOCK = "ActiveStandbyElectorLock";

// hadoop-hdfs HAZKInfo.proto: what DFSZKFailoverController writes.
const activeNodeInfo = defineMessage(
  `message ActiveNodeInfo {
    required string nameserviceId = 1;
    required string namenodeId = 2;
    required string hostname = 3;
    required int32 port = 4;
    required int32 zkfcPort = 5;
  }`,
  "ActiveNodeInfo",
);

// hadoop-yarn yarn_server_resourcemanager_service_protos.proto: what the ResourceManager's elector writes.
const activeRmInfo = defineMessage(
  `message ActiveRMInfoProto {
    optional string clusterId = 1;
    optional string rmId = 2;
  }`,
  "ActiveRMInfoProto",
);

export function parseActiveNameNode(data: Buffer): { holder: string; fields: Record<string, unknown> } {
  const info = decodeMessage(activeNodeInfo, data, ["nameserviceId", "namenodeId", "hostname", "port", "zkfcPort"]);
  return { holder: `${String(info.namenodeId)} at ${String(info.hostname)}:${String(info.port)}`, fields: info };
}

export function parseActiveResourceManager(data: Buffer): { holder: string; fields: Record<string, unknown> } {
  const info = decodeMessage(activeRmInfo, data, ["rmId"]);
  return { holder: String(info.rmId), fields: info };
}
