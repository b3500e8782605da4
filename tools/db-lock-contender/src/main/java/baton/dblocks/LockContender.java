package baton.dblocks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;


import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * One application node of Baton's lock-table tests: a ShedLock JdbcLockProvider and a Spring
 * Integration JdbcLockRegistry (its own DefaultLockRepository, so its own CLIENT_ID) against one
 * PostgreSQL database, taking and giving back locks on command.
 *
 * <p>Arguments: jdbc url, user, password, the ShedLock table, the Spring Integration table prefix
 * ("INT_" for INT_LOCK), and optionally the node's name for ShedLock's locked_by: given, ShedLock's
 * JdbcTemplateLockProvider writes it (withLockedByValue: two nodes on one host told apart);
 * left out, its JdbcLockProvider writes the host's name. Commands on stdin, one a line:
 * <pre>
 *   spring-schema                          runs the library's own schema-postgresql.sql
 *   shedlock acquire NAME LOCK_AT_MOST_MS [LOCK_AT_LEAST_MS]  JdbcLockProvider.lock (lockAtLeastFor 0 unless given)
 *   shedlock release NAME                  SimpleLock.unlock
 *   spring acquire NAME TTL_MS             registry.obtain(NAME).tryLock(0, ttl)
 *   spring release NAME                    unlock (on this thread: Spring's locks are thread-bound)
 * </pre>
 * Answers on stdout: "ready CLIENT_ID", "acquired LIB NAME", "busy LIB NAME", "released LIB
 * NAME", "done spring-schema", "error LIB NAME MESSAGE". Every command runs on the main thread.
 * It exits when stdin closes; the tests SIGKILL it to leave a lock behind.
 */
public final class LockContender {
  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: LockContender JDBC_URL USER PASSWORD SHEDLOCK_TABLE SPRING_PREFIX [SHEDLOCK_LOCKED_BY]");
      System.exit(2);
    }
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[0]);
    dataSource.setUser(args[1]);
    dataSource.setPassword(args[2]);
    dataSource.setApplicationName("baton-db-lock-contender");

    LockProvider shedlock = args.length > 5
        ? new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
            .withJdbcTemplate(new JdbcTemplate(dataSource))
            .withTableName(args[3])
            .withLockedByValue(args[5])
            .build())
        : new JdbcLockProvider(dataSource, args[3]);

    String clientId = UUID.randomUUID().toString();
    DefaultLockRepository repository = new DefaultLockRepository(dataSource, clientId);
    repository.setPrefix(args[4]);
    repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
    repository.afterPropertiesSet();
    repository.afterSingletonsInstantiated();
    JdbcLockRegistry registry = new JdbcLockRegistry(repository);

    Map<String, SimpleLock> shedlockHeld = new HashMap<>();
    Map<String, DistributedLock> springHeld = new HashMap<>();
    say("ready " + clientId);

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] parts = line.trim().split("\\s+");
      if (parts.length == 1 && parts[0].equals("spring-schema")) {
        try {
          new ResourceDatabasePopulator(new ClassPathResource("org/springframework/integration/jdbc/schema-postgresql.sql")).execute(dataSource);
          say("done spring-schema");
        } catch (RuntimeException e) {
          say("error spring-schema - " + oneLine(e));
        }
        continue;
      }
      if (parts.length < 3) {
        say("error ? ? unknown command: " + line);
        continue;
      }
      String library = parts[0];
      String verb = parts[1];
      String name = parts[2];
      try {
        if (library.equals("shedlock") && verb.equals("acquire")) {
          Duration atMost = Duration.ofMillis(Long.parseLong(parts[3]));
          Duration atLeast = parts.length > 4 ? Duration.ofMillis(Long.parseLong(parts[4])) : Duration.ZERO;
          Optional<SimpleLock> lock = shedlock.lock(new LockConfiguration(Instant.now(), name, atMost, atLeast));
          if (lock.isPresent()) {
            shedlockHeld.put(name, lock.get());
            say("acquired shedlock " + name);
          } else {
            say("busy shedlock " + name);
          }
        } else if (library.equals("shedlock") && verb.equals("release")) {
          SimpleLock lock = shedlockHeld.remove(name);
          if (lock == null) throw new IllegalStateException("not held here");
          lock.unlock();
          say("released shedlock " + name);
        } else if (library.equals("spring") && verb.equals("acquire")) {
          Duration ttl = Duration.ofMillis(Long.parseLong(parts[3]));
          DistributedLock lock = registry.obtain(name);
          if (lock.tryLock(Duration.ZERO, ttl)) {
            springHeld.put(name, lock);
            say("acquired spring " + name);
          } else {
            say("busy spring " + name);
          }
        } else if (library.equals("spring") && verb.equals("release")) {
          DistributedLock lock = springHeld.remove(name);
          if (lock == null) throw new IllegalStateException("not held here");
          lock.unlock();
          say("released spring " + name);
        } else {
          say("error " + library + " " + name + " unknown command: " + line);
        }
      } catch (Exception e) {
        say("error " + library + " " + name + " " + oneLine(e));
      }
    }
    System.exit(0);
  }

  private static String oneLine(Throwable e) {
    return (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
