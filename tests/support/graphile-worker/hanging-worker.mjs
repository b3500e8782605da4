// A graphile-worker 0.17.3 process whose task "hang" never finishes: the node a test SIGKILLs
// mid-job. Arguments: the connection string, the schema. It says "running <job id>" once a job
// has started (its queue is locked by then) and ends only when killed.
import { Logger, run } from "graphile-worker";

const [connectionString, schema] = process.argv.slice(2);
const quiet = new Logger(() => () => undefined);
await run({
  connectionString,
  schema,
  concurrency: 1,
  pollInterval: 100,
  noHandleSignals: true,
  logger: quiet,
  taskList: {
    hang: async (_payload, helpers) => {
      console.log(`running ${helpers.job.id}`);
      await new Promise(() => undefined);
    },
  },
});
