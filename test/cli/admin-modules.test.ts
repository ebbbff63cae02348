import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { adminProcessWith } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';

/**
 * A module hook, loaded into the admin process with `--import`, that writes every module URL the
 * process resolves (imports and dynamic imports alike) to the file named by `RESOLVED_LOG`.
 */
const RECORDER = `
import { register } from 'node:module';
register(${JSON.stringify('data:text/javascript,')} + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.RESOLVED_LOG, resolved.url + '\\\\n');
  return resolved;
}\`));
`;

/** What the admin process is not to load: the HTTP service's framework and its adapters. */
const HTTP_ONLY = /\/node_modules\/(express|helmet|swagger-ui-dist|body-parser|express-rate-limit|pino-http)\/|\/src\/adapters\/http\//;

describe('admin command line: what it loads', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbw-admin-modules-'));
    await writeFile(join(dir, 'recorder.mjs'), RECORDER);
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('when an operator lists tenants, then the command composes the core and its database without Express, helmet, body parsers or Swagger UI', async () => {
    const url = await databaseUrl();
    const log = join(dir, 'resolved.txt');
    const run = await adminProcessWith(
      {
        // The run's PostgreSQL; on embedded PGlite (held by this process) the state in memory.
        ...(url === null ? { PERSISTENCE: 'memory', DATABASE_URL: undefined } : { DATABASE_URL: url }),
        RESOLVED_LOG: log,
        NODE_OPTIONS: `--import ${pathToFileURL(join(dir, 'recorder.mjs')).href}`,
      },
      'tenant',
      'list',
      '--json',
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout)).to.have.property('data');
    const resolved = (await readFile(log, 'utf8')).split('\n').filter((u) => u.startsWith('file:'));
    // The recorder saw the command's own modules: it really watched the composition.
    expect(resolved.some((u) => u.endsWith('/src/bootstrap/admin.ts'))).to.equal(true);
    expect(resolved.some((u) => u.includes('/src/application/admin/list-tenants.ts'))).to.equal(true);
    const root = process.cwd();
    const loaded = [...new Set(resolved.filter((u) => HTTP_ONLY.test(u)).map((u) => relative(root, fileURLToPath(u))))];
    expect(loaded).to.deep.equal([]);
  });
});
