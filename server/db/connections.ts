/**
 * The PostgreSQL connections one process may open with `DATABASE_POOL_MAX` = `poolMax`: the application's pool, the
 * counters' pool (writes that need not wait for the disk), the job queue's pool, and the job queue's one
 * connection that listens for new jobs (outside its pool). The pools are sized from here, and the operations guide
 * quotes the total (a test compares them).
 */
export function connectionBudget(poolMax: number) {
  const app = poolMax;
  const counters = Math.max(2, Math.ceil(poolMax / 4));
  const jobs = Math.max(2, Math.ceil(poolMax / 2));
  const listen = 1;
  return { app, counters, jobs, listen, total: app + counters + jobs + listen };
}
