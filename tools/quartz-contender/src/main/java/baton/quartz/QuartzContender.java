package baton.quartz;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

/**
 * One clustered Quartz node for Baton's tests, driven over stdin, one command a line:
 *   schema                                         runs Quartz's own tables_postgres.sql (from the jar)
 *   start | standby                                the scheduler's own start() and standby()
 *   schedule <group> <name> <concurrent|exclusive> <recovery:true|false>
 *                                                  a durable job and one trigger firing now
 *   fire <group> <name>                            one more firing of the job, now (triggerJob)
 *   finish <group> <name>                          ends this node's running executions of the job
 * Answers on stdout: "ready <instance>", "done <command>", and for every execution
 * "begin <group>.<name> <fireInstanceId>" and "end <group>.<name> <fireInstanceId>" (the
 * fireInstanceId is QRTZ_FIRED_TRIGGERS.ENTRY_ID). A job runs until `finish`: no timing.
 * Args: jdbcUrl user password schema schedulerName instanceName checkinIntervalMs.
 */
public final class QuartzContender {
    private static final Map<String, CountDownLatch> RUNNING = new ConcurrentHashMap<>();

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static CountDownLatch latchOf(String job) {
        return RUNNING.computeIfAbsent(job, key -> new CountDownLatch(1));
    }

    /** Runs until `finish` names its job (or the JVM dies). */
    public static class BlockingJob implements Job {
        @Override
        public void execute(JobExecutionContext context) {
            JobKey key = context.getJobDetail().getKey();
            String job = key.getGroup() + "." + key.getName();
            CountDownLatch latch = latchOf(job);
            say("begin " + job + " " + context.getFireInstanceId());
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            say("end " + job + " " + context.getFireInstanceId());
        }
    }

    /** The same job, one execution at a time across the cluster. */
    @DisallowConcurrentExecution
    public static class ExclusiveBlockingJob extends BlockingJob {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        String user = args[1];
        String password = args[2];
        String schema = args[3];
        String schedulerName = args[4];
        String instanceName = args[5];
        String checkinIntervalMs = args[6];
        String url = jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;

        Properties props = new Properties();
        props.setProperty("org.quartz.scheduler.instanceName", schedulerName);
        props.setProperty("org.quartz.scheduler.instanceId", instanceName);
        props.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        props.setProperty("org.quartz.threadPool.threadCount", "4");
        props.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
        props.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
        props.setProperty("org.quartz.jobStore.tablePrefix", "qrtz_");
        props.setProperty("org.quartz.jobStore.isClustered", "true");
        props.setProperty("org.quartz.jobStore.clusterCheckinInterval", checkinIntervalMs);
        props.setProperty("org.quartz.jobStore.dataSource", "db");
        props.setProperty("org.quartz.dataSource.db.provider", "hikaricp");
        props.setProperty("org.quartz.dataSource.db.driver", "org.postgresql.Driver");
        props.setProperty("org.quartz.dataSource.db.URL", url);
        props.setProperty("org.quartz.dataSource.db.user", user);
        props.setProperty("org.quartz.dataSource.db.password", password);
        props.setProperty("org.quartz.dataSource.db.maxConnections", "8");

        // The scheduler is made at the first command that needs it: `schema` comes first.
        Scheduler[] scheduler = new Scheduler[1];
        say("ready " + instanceName);

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            String command = parts[0];
            try {
                if (command.equals("schema")) {
                    createSchema(url, user, password);
                } else {
                    if (scheduler[0] == null) scheduler[0] = new StdSchedulerFactory(props).getScheduler();
                    Scheduler s = scheduler[0];
                    switch (command) {
                        case "start" -> s.start();
                        case "standby" -> s.standby();
                        case "schedule" -> {
                            Class<? extends Job> type = parts[3].equals("exclusive") ? ExclusiveBlockingJob.class : BlockingJob.class;
                            JobDetail job = JobBuilder.newJob(type)
                                .withIdentity(parts[2], parts[1])
                                .requestRecovery(Boolean.parseBoolean(parts[4]))
                                .storeDurably()
                                .build();
                            Trigger trigger = TriggerBuilder.newTrigger().forJob(job).startNow().build();
                            s.scheduleJob(job, trigger);
                        }
                        case "fire" -> s.triggerJob(new JobKey(parts[2], parts[1]));
                        case "finish" -> {
                            CountDownLatch latch = RUNNING.remove(parts[1] + "." + parts[2]);
                            if (latch != null) latch.countDown();
                        }
                        default -> throw new IllegalArgumentException("unknown command " + command);
                    }
                }
                say("done " + command);
            } catch (Exception e) {
                say("error " + command + " " + String.valueOf(e).replace('\n', ' '));
            }
        }
        if (scheduler[0] != null) scheduler[0].shutdown(false);
        System.exit(0);
    }

    /** Quartz's own PostgreSQL schema script, from the jar, statement by statement. */
    static void createSchema(String url, String user, String password) throws Exception {
        String script;
        try (InputStream stream = Scheduler.class.getClassLoader().getResourceAsStream("org/quartz/impl/jdbcjobstore/tables_postgres.sql")) {
            if (stream == null) throw new IllegalStateException("tables_postgres.sql is not in the quartz jar");
            script = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder clean = new StringBuilder();
        for (String scriptLine : script.split("\n")) {
            if (!scriptLine.trim().startsWith("--") && !scriptLine.trim().startsWith("#")) clean.append(scriptLine).append('\n');
        }
        try (Connection connection = DriverManager.getConnection(url, user, password); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            for (String sql : clean.toString().split(";")) {
                String trimmed = sql.trim();
                if (trimmed.isEmpty() || trimmed.equalsIgnoreCase("commit")) continue;
                statement.execute(trimmed);
            }
        }
    }
}
