/**
 * `npm run openapi`: writes the published OpenAPI files under `openapi/` from the OperationSpecs.
 * `npm run openapi -- --check` writes nothing and exits 1 when a committed file is out of date.
 *
 * The examples' dates are relative to the day a file is generated (`info.x-examples-as-of`). A
 * committed file is compared with the files generated for its own day, so it is out of date only
 * when something other than that day changed; it is then written again for today.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPERATIONS } from '../src/adapters/http/operations.js';
import { committedExamplesDay, OPENAPI_FILES, renderOpenApiFiles } from '../src/adapters/http/openapi/documents.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi');
const check = process.argv.includes('--check');
const today = renderOpenApiFiles(OPERATIONS);
let stale = 0;
await mkdir(dir, { recursive: true });
for (const name of OPENAPI_FILES) {
  const target = path.join(dir, name);
  const current = await readFile(target, 'utf8').catch(() => null);
  const day = current === null ? null : committedExamplesDay(current);
  if (current !== null && day !== null && renderOpenApiFiles(OPERATIONS, { asOf: day })[name] === current) continue;
  if (check) {
    stale += 1;
    process.stderr.write(`openapi/${name} is out of date: run npm run openapi\n`);
  } else {
    await writeFile(target, today[name]);
    process.stdout.write(`wrote openapi/${name}\n`);
  }
}
if (stale > 0) process.exit(1);
