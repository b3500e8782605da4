package baton.mariadb;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One application connection of Baton's MariaDB tests: MariaDB Connector/J taking and giving
 * back GET_LOCK user locks on command, as a Java service runs a job on one node.
 *
 * <p>Arguments: jdbc url, user, password. Commands on stdin, one a line, run in order on the one
 * connection (a GET_LOCK that waits blocks the next command, as it blocks the service):
 * <pre>
 *   lock NAME TIMEOUT_S     SELECT GET_LOCK(NAME, TIMEOUT_S)   answers "locked NAME" or "timeout NAME"
 *   release NAME            SELECT RELEASE_LOCK(NAME)          answers "released NAME 1|0|null"
 * </pre>
 * Answers "ready CONNECTION_ID USER()" once connected, "error NAME MESSAGE" on a failure. It
 * exits when stdin closes (the connection closed: its locks go with it); the tests SIGKILL it to
 * leave the server to find the connection gone.
 */
public final class GetLockClient {
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: GetLockClient JDBC_URL USER PASSWORD");
      System.exit(2);
    }
    try (Connection connection = DriverManager.getConnection(args[0], args[1], args[2])) {
      try (Statement statement = connection.createStatement();
          ResultSet row = statement.executeQuery("SELECT CONNECTION_ID(), USER()")) {
        row.next();
        say("ready " + row.getLong(1) + " " + row.getString(2));
      }
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        String[] parts = line.trim().split("\\s+");
        String name = parts.length > 1 ? parts[1] : "?";
        try {
          if (parts[0].equals("lock") && parts.length == 3) {
            Integer got = queryInt(connection, "SELECT GET_LOCK(?, ?)", name, Integer.parseInt(parts[2]));
            say((got != null && got == 1 ? "locked " : "timeout ") + name);
          } else if (parts[0].equals("release") && parts.length == 2) {
            Integer released = queryInt(connection, "SELECT RELEASE_LOCK(?)", name, null);
            say("released " + name + " " + released);
          } else {
            say("error " + name + " unknown command: " + line);
          }
        } catch (SQLException e) {
          say("error " + name + " " + (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' '));
        }
      }
    }
    System.exit(0);
  }

  private static Integer queryInt(Connection connection, String sql, String name, Integer seconds) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, name);
      if (seconds != null) statement.setInt(2, seconds);
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        int value = row.getInt(1);
        return row.wasNull() ? null : value;
      }
    }
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
