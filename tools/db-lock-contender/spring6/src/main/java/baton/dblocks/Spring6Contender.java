package baton.dblocks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.Lock;

import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * One application node with Spring Integration 6.5.6's JdbcLockRegistry (INT_LOCK without
 * EXPIRED_AFTER: the TTL is the repository's, setTimeToLive), the same protocol as
 * LockContender's Spring commands.
 *
 * <p>Arguments: jdbc url, user, password, the schema its connections use (currentSchema: where
 * spring-schema creates the tables and where INT_LOCK is found), the TTL in ms. Commands:
 * "spring-schema", "spring acquire NAME TTL_MS" (the TTL is the repository's: the figure is
 * ignored), "spring release NAME". Answers as LockContender's.
 */
public final class Spring6Contender {
  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: Spring6Contender JDBC_URL USER PASSWORD SCHEMA TTL_MS");
      System.exit(2);
    }
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[0]);
    dataSource.setUser(args[1]);
    dataSource.setPassword(args[2]);
    dataSource.setCurrentSchema(args[3]);
    dataSource.setApplicationName("baton-db-lock-contender-spring6");

    String clientId = UUID.randomUUID().toString();
    DefaultLockRepository repository = new DefaultLockRepository(dataSource, clientId);
    repository.setTimeToLive(Integer.parseInt(args[4]));
    repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
    repository.afterPropertiesSet();
    repository.afterSingletonsInstantiated();
    JdbcLockRegistry registry = new JdbcLockRegistry(repository);

    Map<String, Lock> held = new HashMap<>();
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
      if (parts.length < 3 || !parts[0].equals("spring")) {
        say("error ? ? unknown command: " + line);
        continue;
      }
      String name = parts[2];
      try {
        if (parts[1].equals("acquire")) {
          Lock lock = registry.obtain(name);
          if (lock.tryLock()) {
            held.put(name, lock);
            say("acquired spring " + name);
          } else {
            say("busy spring " + name);
          }
        } else if (parts[1].equals("release")) {
          Lock lock = held.remove(name);
          if (lock == null) throw new IllegalStateException("not held here");
          lock.unlock();
          say("released spring " + name);
        } else {
          say("error spring " + name + " unknown command: " + line);
        }
      } catch (Exception e) {
        say("error spring " + name + " " + oneLine(e));
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
