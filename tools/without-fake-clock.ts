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
