package baton.hadoop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;

import org.apache.hadoop.ha.ActiveStandbyElector;
import org.apache.hadoop.ha.ActiveStandbyElector.ActiveStandbyElectorCallback;
import org.apache.hadoop.hdfs.server.namenode.ha.proto.HAZKInfoProtos.ActiveNodeInfo;
import org.apache.hadoop.util.ZKUtil;
import org.apache.zookeeper.ZooDefs;

/**
 * One HDFS NameNode's failover controller, as far as ZooKeeper sees it: Hadoop's own
 * ActiveStandbyElector joining the election of one nameservice with HDFS's own ActiveNodeInfo
 * (what DFSZKFailoverController writes). One JVM per NameNode, so that killing one is one
 * controller's crash.
 *
 * Args: zkQuorum sessionTimeoutMs parentZnode nameservice namenodeId host port.
 * Prints "active", "standby", "neutral", "fence <bytes>", "fatal <reason>" as the elector calls
 * back. Commands on stdin: "quit" (quitElection without fencing: a graceful stop, the lock and the
 * breadcrumb deleted, the session closed). The JVM halts when stdin closes (the test process died).
 */
public final class ElectorContender {
  private ElectorContender() {}

  public static void main(String[] args) throws Exception {
    String quorum = args[0];
    int sessionTimeoutMs = Integer.parseInt(args[1]);
    String parent = args[2] + "/" + args[3];
    byte[] data = ActiveNodeInfo.newBuilder()
        .setNameserviceId(args[3])
        .setNamenodeId(args[4])
        .setHostname(args[5])
        .setPort(Integer.parseInt(args[6]))
        .setZkfcPort(Integer.parseInt(args[6]) + 1)
        .build()
        .toByteArray();

    ActiveStandbyElectorCallback callback = new ActiveStandbyElectorCallback() {
      @Override public void becomeActive() { say("active"); }
      @Override public void becomeStandby() { say("standby"); }
      @Override public void enterNeutralMode() { say("neutral"); }
      @Override public void notifyFatalError(String reason) { say("fatal " + reason); }
      @Override public void fenceOldActive(byte[] oldActiveData) { say("fence " + oldActiveData.length); }
    };
    // No TLS to ZooKeeper (the last argument: no truststore or keystore), as ZKFCs mostly run.
    ActiveStandbyElector elector = new ActiveStandbyElector(
        quorum, sessionTimeoutMs, parent, ZooDefs.Ids.OPEN_ACL_UNSAFE, Collections.<ZKUtil.ZKAuthInfo>emptyList(), callback, 3, null);
    elector.ensureParentZNode();
    elector.joinElection(data);
    say("joined");

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.trim().equals("quit")) {
        elector.quitElection(false);
        say("quit");
      }
    }
    Runtime.getRuntime().halt(0);
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
