package org.apache.solr.cloud;

import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.apache.solr.common.cloud.SolrZkClient;
import org.apache.solr.core.CoreContainer;
import org.objenesis.ObjenesisStd;

/**
 * One Solr node's bid for the overseer, as far as ZooKeeper sees it: what ZkController does at
 * start (a LeaderElector set up and joined with an OverseerElectionContext named by the node
 * name), on Solr's own SolrZkClient. One JVM per node, so that killing one is one node's crash.
 * The package is Solr's: OverseerElectionContext is package-private. The Overseer it starts when
 * elected is a mock that says so (the cluster's work is not what Baton reads): the election and
 * every node it writes are Solr's.
 *
 * Args: zkHost sessionTimeoutMs nodeName.
 * Prints "joined <election node>" once in the queue and "leader <election node>" when Solr starts
 * its overseer. The JVM halts when stdin closes (the test process died).
 */
public final class OverseerContender {
  private OverseerContender() {}

  /** The protocol's stream: whatever the library logs to System.out goes to stderr here. */
  private static final PrintStream PROTOCOL = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    System.setOut(System.err);
    int sessionTimeoutMs = Integer.parseInt(args[1]);
    String nodeName = args[2];
    SolrZkClient zkClient = new SolrZkClient.Builder()
        .withUrl(args[0])
        .withTimeout(sessionTimeoutMs, TimeUnit.MILLISECONDS)
        .withConnTimeOut(30_000, TimeUnit.MILLISECONDS)
        .build();

    // All OverseerElectionContext asks of the node: is its core container shut down. One never
    // started is not (it is made without its constructor, which would start a whole node).
    CoreContainer cores = new ObjenesisStd().newInstance(CoreContainer.class);
    ZkController zkController = mock(ZkController.class);
    when(zkController.getCoreContainer()).thenReturn(cores);
    Overseer overseer = mock(Overseer.class);
    when(overseer.getZkController()).thenReturn(zkController);
    doAnswer(invocation -> {
      say("leader " + invocation.getArgument(0));
      return null;
    }).when(overseer).start(anyString());

    LeaderElector elector = new LeaderElector(zkClient);
    ElectionContext context = new OverseerElectionContext(zkClient, overseer, nodeName);
    elector.setup(context);
    elector.joinElection(context, false);
    say("joined " + context.leaderSeqPath);

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      // No commands: a node here only ever crashes.
    }
    Runtime.getRuntime().halt(0);
  }

  private static synchronized void say(String line) {
    PROTOCOL.println(line);
  }
}
