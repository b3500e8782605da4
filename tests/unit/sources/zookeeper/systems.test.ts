import { describe, expect, it } from "vitest";

import { listLockTargets } from "@/lib/sources/zookeeper/lock-targets";
import { parseActiveNameNode, parseActiveResourceManager } from "@/lib/sources/zookeeper/systems/hadoop-elector";
import { parseHbaseMaster } from "@/lib/sources/zookeeper/systems/hbase";
import { parseHelixLeader } from "@/lib/sources/zookeeper/systems/helix";
import { parseKafkaController } from "@/lib/sources/zookeeper/systems/kafka";
import { parsePatroniLeader } from "@/lib/sources/zookeeper/systems/patroni";
import { parsePulsarLeader } from "@/lib/sources/zookeeper/systems/pulsar";
import { parseZookeeperClusterConfig } from "@/lib/sources/zookeeper/zookeeper-config";

// The protobuf fixtures are written out here field by field (the wire format: a key byte of
// field number << 3 | wire type, then a varint or a length and bytes), independently of the
// decoder Baton uses.
function varint(value: number | bigint): Buffer {
  let rest = BigInt(value);
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return Buffer.from(bytes);
}
const text = (field: number, value: string) => Buffer.concat([Buffer.from([(field << 3) | 2]), varint(Buffer.byteLength(value)), Buffer.from(value)]);
const number = (field: number, value: number | bigint) => Buffer.concat([Buffer.from([field << 3]), varint(value)]);
const message = (field: number, body: Buffer) => Buffer.concat([Buffer.from([(field << 3) | 2]), varint(body.length), body]);

// DFSZKFailoverController's ActiveNodeInfo for nn1 of ns1.
const activeNodeInfo = Buffer.concat([text(1, "ns1"), text(2, "nn1"), text(3, "nn1.example.com"), number(4, 8020), number(5, 8019)]);

// HBase: RecoverableZooKeeper's metadata (0xFF, id length, the watcher's identifier + an 8-byte
// salt; "<pid>@<host>" when it has none), "PBUF", Master.
function hbaseMasterData(): Buffer {
  const id = Buffer.concat([Buffer.from("4242@hbase-master-1"), Buffer.from([1, 2, 3, 4, 5, 6, 7, 8])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(id.length);
  const serverName = Buffer.concat([text(1, "hbase-master-1.example.com"), number(2, 16000), number(3, 1765101540123n)]);
  const master = Buffer.concat([message(1, serverName), number(2, 0), number(3, 16010)]);
  return Buffer.concat([Buffer.from([0xff]), length, id, Buffer.from("PBUF"), master]);
}

describe("the systems' holder parsers", () => {
  it("Kafka: the controller's broker id", () => {
    expect(parseKafkaController(Buffer.from('{"version":1,"brokerid":0,"timestamp":"1765101540000"}')).holder).toBe("broker 0");
  });

  it("Helix: the leader's instance name from its ZNRecord", () => {
    const data = Buffer.from(
      JSON.stringify({
        id: "Controller_pinot-controller-0_9000",
        simpleFields: { HELIX_VERSION: "1.4.3", LIVE_INSTANCE: "77@pinot-controller-0", SESSION_ID: "1000a2b3c0005" },
        listFields: {},
        mapFields: {},
      }),
    );
    expect(parseHelixLeader(data)).toEqual({
      holder: "Controller_pinot-controller-0_9000",
      fields: { instance: "Controller_pinot-controller-0_9000", liveInstance: "77@pinot-controller-0", helixVersion: "1.4.3", sessionId: "1000a2b3c0005" },
    });
  });

  it("Pulsar: what a real broker wrote at /loadbalance/leader (4.2.4 and 3.0.7 alike, on a ZooKeeper metadata store)", () => {
    expect(parsePulsarLeader(Buffer.from('{"brokerId":"127.0.0.1:41457","serviceUrl":"http://127.0.0.1:41457"}'))).toEqual({
      holder: "127.0.0.1:41457",
      fields: { brokerId: "127.0.0.1:41457", serviceUrl: "http://127.0.0.1:41457" },
    });
  });

  it("Pulsar: the broker id (3.x), else the service URL's host (2.x)", () => {
    expect(parsePulsarLeader(Buffer.from('{"brokerId":"broker-1:8080","serviceUrl":"http://broker-1:8080"}')).holder).toBe("broker-1:8080");
    expect(parsePulsarLeader(Buffer.from('{"serviceUrl":"http://broker-2:8080"}')).holder).toBe("broker-2:8080");
    expect(() => parsePulsarLeader(Buffer.from("{}"))).toThrow("JSON without brokerId or serviceUrl");
  });

  it("HDFS: the active NameNode from the ZKFC's ActiveNodeInfo protobuf", () => {
    expect(parseActiveNameNode(activeNodeInfo)).toEqual({
      holder: "nn1 at nn1.example.com:8020",
      fields: { nameserviceId: "ns1", namenodeId: "nn1", hostname: "nn1.example.com", port: 8020, zkfcPort: 8019 },
    });
  });

  it.each([
    ["cut inside a string", activeNodeInfo.subarray(0, 12)],
    ["cut before the ports", activeNodeInfo.subarray(0, activeNodeInfo.length - 5)],
    ["JSON", Buffer.from('{"brokerid":1}')],
    ["1 MB of binary", Buffer.alloc(1_000_000, 0xa7)],
  ])("HDFS: data that is no ActiveNodeInfo (%s) throws one line", (_name, data) => {
    expect(() => parseActiveNameNode(data)).toThrow(/^not a ActiveNodeInfo protobuf/);
  });

  it("YARN: the active ResourceManager's id", () => {
    expect(parseActiveResourceManager(Buffer.concat([text(1, "yarn-cluster"), text(2, "rm2")])).holder).toBe("rm2");
  });

  it("HBase: the active master's host and port, past RecoverableZooKeeper's metadata and the PBUF magic", () => {
    expect(parseHbaseMaster(hbaseMasterData())).toEqual({
      holder: "hbase-master-1.example.com:16000",
      fields: { host: "hbase-master-1.example.com", port: 16000, startCode: "1765101540123", infoPort: 16010 },
    });
    expect(() => parseHbaseMaster(hbaseMasterData().subarray(0, 30))).toThrow();
    expect(() => parseHbaseMaster(Buffer.from("master"))).toThrow("no PBUF magic");
  });

  it("HBase: /hbase/master as HBase 2.6.1 wrote it (recorded from ActiveMasterManager; identifier master:16000)", () => {
    // What tests/support/hbase-master's MasterContender (HBase's own MasterAddressTracker) wrote.
    const written = Buffer.from(
      "ff000000146d61737465723a313630303049763f8bfe5544dd504255460a200a146d61737465722d612e6578616d706c652e636f6d10807d18f3cfff8ba5341000188a7d",
      "hex",
    );
    expect(parseHbaseMaster(written)).toEqual({
      holder: "master-a.example.com:16000",
      fields: { host: "master-a.example.com", port: 16000, startCode: "1796663666675", infoPort: 16010 },
    });
  });

  it("Patroni: the member name", () => {
    expect(parsePatroniLeader(Buffer.from("pg1")).holder).toBe("pg1");
    expect(() => parsePatroniLeader(Buffer.from([0, 1, 2]))).toThrow("not a member name");
  });
});

describe("the systems' lock nodes", () => {
  it("each system names its nodes (patterns for every nameservice, scope, collection and shard)", () => {
    const config = parseZookeeperClusterConfig({
      kind: "zookeeper",
      name: "fleet",
      connectString: "zk1:2181",
      systems: [
        { system: "kafka", root: "/kafka" },
        { system: "helix", cluster: "pinot" },
        { system: "pulsar" },
        { system: "hdfs" },
        { system: "hbase" },
        { system: "solr", root: "/solr" },
        { system: "bookkeeper" },
        { system: "patroni", namespace: "/service" },
      ],
    });
    const targets = listLockTargets(config);
    expect(targets.map((t) => [t.pattern, t.recipe, t.mustBeHeld])).toEqual([
      ["/kafka/controller", "ephemeral-node", true],
      ["/pinot/CONTROLLER/LEADER", "ephemeral-node", true],
      ["/loadbalance/leader", "ephemeral-node", true],
      ["/hadoop-ha/*/ActiveStandbyElectorLock", "ephemeral-node", true],
      ["/hbase/master", "ephemeral-node", true],
      ["/solr/overseer_elect/election", "solr-election", true],
      ["/solr/collections/*/leader_elect/*/election", "solr-election", true],
      ["/ledgers/underreplication/auditorelection", "bookkeeper-auditor", true],
      ["/service/*/leader", "ephemeral-node", true],
    ]);
    const byPattern = new Map(targets.map((t) => [t.pattern, t.role!]));
    expect(byPattern.get("/kafka/controller")!.describe("/kafka/controller")).toBe("Kafka controller (/kafka)");
    expect(byPattern.get("/kafka/controller")!.standbys!.path("/kafka/controller")).toBe("/kafka/brokers/ids");
    expect(byPattern.get("/kafka/controller")!.electionCount!.path("/kafka/controller")).toBe("/kafka/controller_epoch");
    expect(byPattern.get("/hadoop-ha/*/ActiveStandbyElectorLock")!.describe("/hadoop-ha/ns1/ActiveStandbyElectorLock")).toBe("HDFS NameNode ns1");
    expect(byPattern.get("/solr/collections/*/leader_elect/*/election")!.describe("/solr/collections/books/leader_elect/shard2/election")).toBe(
      "Solr shard leader books/shard2",
    );
    expect(byPattern.get("/service/*/leader")!.describe("/service/pg-orders/leader")).toBe("Patroni cluster pg-orders");
    expect(byPattern.get("/service/*/leader")!.standbys!.path("/service/pg-orders/leader")).toBe("/service/pg-orders/members");
    expect(byPattern.get("/hbase/master")!.standbys!.name("hbase-master-2.example.com,16000,1765101540999")).toBe("hbase-master-2.example.com:16000");
  });
});
