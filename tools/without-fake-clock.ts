/**
 * `npm run test:clock` moves the whole test process tree's clock with libfaketime (LD_PRELOAD).
 * Some programs must run on the real clock instead: redis-server's jemalloc reads the clock while
 * libfaketime is still starting and never comes up, and a certificate that a Go server (etcd,
 * which libfaketime cannot reach) checks must be valid on the real clock. What Baton does with
 * their answers still runs on the moved one.
 */
export function withoutFakeClock(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { LD_PRELOAD: _preload, FAKETIME: _faketime, ...rest } = env;
  return rest;
}

/**
 * Whether this process runs on a clock libfaketime moved (`npm run test:clock`, and npm test's
 * second pass). A Go server (Alertmanager, etcd) keeps the real clock there: what it decides by
 * comparing Baton's times with its own (an alert's endsAt) differs by the offset.
 */
export function isClockMoved(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.FAKETIME !== undefined && env.FAKETIME !== "";
}
