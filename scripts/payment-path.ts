/**
 * The files of src/ that one keyed payment runs, from the socket to the SQL and back: V8's
 * precise coverage, reset after three warm-up payments, taken around a fourth
 * (`POST /me/payments` with a user token and an Idempotency-Key). On PostgreSQL when
 * DATABASE_URL is set, else on embedded PGlite. Prints the files and their count.
 *
 *     npm run payment-path
 */
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';
import { json, startTestApp } from '../test/support/app.js';
import { bearer, buildTenant, delegatedToken, machineToken } from '../test/support/wallet-builders.js';

const sources = pathToFileURL(`${process.cwd()}/src/`).href;
const app = await startTestApp();
try {
  const machine = await machineToken(app, await buildTenant(app.service));
  const user = await delegatedToken(app, machine);
  const topUp = await app.request(`/users/${user.userId}/top-ups`, json('POST', { amount: 100_000, reference: 'path-1' }, bearer(machine)));
  if (topUp.status !== 201) throw new Error(`top-up answered ${topUp.status}`);
  const pay = async (key: string): Promise<void> => {
    const res = await app.request(
      '/me/payments',
      json('POST', { amount: 100, reference: 'path' }, { ...bearer(user.token), 'idempotency-key': key }),
    );
    await res.text();
    if (res.status !== 201) throw new Error(`payment answered ${res.status}`);
  };
  for (let i = 0; i < 3; i += 1) await pay(`path-warm-${i}-${Date.now()}`);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  await pay(`path-measured-${Date.now()}`);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  const files = result
    .filter((script) => script.url.startsWith(sources) && script.functions.some((f) => f.ranges.some((r) => r.count > 0)))
    .map((script) => `src/${script.url.slice(sources.length)}`)
    .sort();
  console.log(files.join('\n'));
  console.log(`${files.length} files of src/ ran for one keyed payment`);
} finally {
  await app.stop();
}
