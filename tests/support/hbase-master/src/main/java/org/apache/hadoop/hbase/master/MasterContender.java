package org.apache.hadoop.hbase.master;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.Server;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.monitoring.TaskMonitor;
import org.apache.hadoop.hbase.zookeeper.MasterAddressTracker;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;
import org.apache.hadoop.hbase.zookeeper.ZNodePaths;

/**
 * One HBase master's bid for the active master, as far as ZooKeeper sees it: what HMaster's
 * startActiveMasterManager does (its backup-masters node through MasterAddressTracker, then
 * ActiveMasterManager.blockUntilBecomingActiveMaster), on HBase's own ZKWatcher. One JVM per
 * master, so that killing one is one master's crash. The package is HBase's: ActiveMasterManager's
 * constructor and its election loop are package-private.
 *
 * Args: zkHost zkPort sessionTimeoutMs znodeParent host port infoPort.
 * Prints "backup <server name>" once its backup node is written, "active <server name>" when it
 * becomes the active master, "fatal <reason>" when HBase aborts it. The JVM halts when stdin
 * closes (the test process died).
 */
public final class MasterContender {
  private MasterContender() {}

  /** The protocol's stream: whatever the library logs to System.out goes to stderr here. */
  private static final PrintStream PROTOCOL = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    System.setOut(System.err);
    int sessionTimeoutMs = Integer.parseInt(args[2]);
    int port = Integer.parseInt(args[5]);
    int infoPort = Integer.parseInt(args[6]);
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, args[0]);
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, Integer.parseInt(args[1]));
    conf.set(HConstants.ZOOKEEPER_ZNODE_PARENT, args[3]);
    conf.setInt(HConstants.ZK_SESSION_TIMEOUT, sessionTimeoutMs);
    // HMaster's server name: host, RPC port, and its start time as the start code.
    ServerName serverName = ServerName.valueOf(args[4], port, System.currentTimeMillis());

    // The master itself, as far as the election asks of it: stopped or aborted. Everything a
    // running HMaster would answer besides is left empty; ActiveMasterManager does not ask.
    AtomicBoolean stopped = new AtomicBoolean(false);
    AtomicBoolean aborted = new AtomicBoolean(false);
    Server master = (Server) Proxy.newProxyInstance(Server.class.getClassLoader(), new Class<?>[] { Server.class }, (proxy, method, margs) -> {
      switch (method.getName()) {
        case "isStopped": return stopped.get();
        case "isAborted": return aborted.get();
        case "isStopping": return false;
        case "abort":
          aborted.set(true);
          say("fatal " + margs[0]);
          return null;
        case "stop":
          stopped.set(true);
          return null;
        case "getServerName": return serverName;
        case "getConfiguration": return conf;
        case "toString": return "master " + serverName;
        case "hashCode": return System.identityHashCode(proxy);
        case "equals": return proxy == margs[0];
        default: return method.getReturnType() == boolean.class ? Boolean.FALSE : null;
      }
    });

    // As HMaster: its ZooKeeper identifier "master:<port>", allowed to create the base nodes.
    ZKWatcher zooKeeper = new ZKWatcher(conf, "master:" + port, master, true);
    ActiveMasterManager manager = new ActiveMasterManager(zooKeeper, serverName, master);
    String backupZNode = ZNodePaths.joinZNode(zooKeeper.getZNodePaths().backupMasterAddressesZNode, serverName.toString());
    if (!MasterAddressTracker.setMasterAddress(zooKeeper, backupZNode, serverName, infoPort)) {
      say("fatal failed create of " + backupZNode);
    }
    manager.setInfoPort(infoPort);
    say("backup " + serverName);

    Thread election = new Thread(() -> {
      if (manager.blockUntilBecomingActiveMaster(sessionTimeoutMs, TaskMonitor.createTaskGroup(true, "Master startup"))) {
        say("active " + serverName);
      }
    }, "master-election");
    election.setDaemon(true);
    election.start();

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      // No commands: a master here only ever crashes.
    }
    Runtime.getRuntime().halt(0);
  }

  private static synchronized void say(String line) {
    PROTOCOL.println(line);
  }
}
