package org.apache.bookkeeper.replication;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.apache.bookkeeper.bookie.Cookie;
import org.apache.bookkeeper.client.BookKeeperAdmin;
import org.apache.bookkeeper.conf.ServerConfiguration;
import org.apache.bookkeeper.discover.BookieServiceInfo;
import org.apache.bookkeeper.discover.RegistrationManager;
import org.apache.bookkeeper.meta.MetadataBookieDriver;
import org.apache.bookkeeper.meta.MetadataDrivers;
import org.apache.bookkeeper.net.BookieId;
import org.apache.bookkeeper.stats.NullStatsLogger;
import org.apache.bookkeeper.versioning.Version;

/**
 * One bookie's part in the auditor election, as far as ZooKeeper sees it: the bookie registers
 * (its cookie and its available node, through BookKeeper's own registration manager, as a bookie
 * does at start) and runs BookKeeper's own AuditorElector (what a bookie's autorecovery runs) on
 * its own BookKeeper client. One JVM per bookie, so that killing one is one bookie's crash. The
 * package is BookKeeper's: whether this elector runs the auditor (getAuditor) is package-private.
 * The auditor's periodic checks are off: with no ledgers they would only log.
 *
 * Args: zkServers sessionTimeoutMs ledgersRoot bookieId.
 * Before anything it initialises the cluster's metadata when there is none yet, as
 * `bookkeeper shell initnewcluster` does (the first JVM of a test; the next ones find it).
 * Prints "started" once its election is under way (its vote may not be written yet) and "auditor"
 * when it is elected. The JVM halts when stdin closes (the test process died).
 */
public final class AuditorContender {
  private AuditorContender() {}

  /** The protocol's stream: BookKeeper's logging writes to System.out, which goes to stderr here. */
  private static final PrintStream PROTOCOL = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    System.setOut(System.err);
    String bookieId = args[3];
    ServerConfiguration conf = new ServerConfiguration();
    conf.setMetadataServiceUri("zk+null://" + args[0] + args[2]);
    conf.setZkTimeout(Integer.parseInt(args[1]));
    conf.setBookieId(bookieId);
    conf.setAuditorPeriodicCheckInterval(0);
    conf.setAuditorPeriodicBookieCheckInterval(0);
    conf.setAuditorPeriodicPlacementPolicyCheckInterval(0);
    conf.setAuditorPeriodicReplicasCheckInterval(0);
    BookKeeperAdmin.initNewCluster(conf);

    MetadataBookieDriver driver = MetadataDrivers.getBookieDriver(URI.create(conf.getMetadataServiceUri()));
    driver.initialize(conf, NullStatsLogger.INSTANCE);
    RegistrationManager registration = driver.createRegistrationManager();
    Cookie.newBuilder()
        .setBookieId(bookieId)
        .setInstanceId(registration.getClusterInstanceId())
        .setJournalDirs("/bookkeeper/journal")
        .setLedgerDirs("/bookkeeper/ledgers")
        .build()
        .writeToRegistrationManager(registration, conf, Version.NEW);
    registration.registerBookie(BookieId.parse(bookieId), false, BookieServiceInfo.EMPTY);

    AuditorElector elector = new AuditorElector(bookieId, conf);
    // The election runs on the elector's own thread and, for a bookie in line, waits there.
    elector.start();
    say("started");
    Thread watch = new Thread(() -> {
      try {
        while (elector.getAuditor() == null) Thread.sleep(50);
        say("auditor");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "auditor-watch");
    watch.setDaemon(true);
    watch.start();

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      // No commands: a bookie here only ever crashes.
    }
    Runtime.getRuntime().halt(0);
  }

  private static synchronized void say(String line) {
    PROTOCOL.println(line);
  }
}
