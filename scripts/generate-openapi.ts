/**
 * `npm run openapi`: writes the published OpenAPI files under `openapi/` from the OperationSpecs.
 * `npm run openapi -- --check` writes nothing and exits 1 when a committed file is out of date.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPERATIONS } from '../src/adapters/http/operations.js';
import { OPENAPI_FILES, renderOpenApiFiles } from '../src/adapters/http/openapi/documents.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi');
const check = process.argv.includes('--check');
const files = renderOpenApiFiles(OPERATIONS);
let stale = 0;
await mkdir(dir, { recursive: true });
for (const name of OPENAPI_FILES) {
  const target = path.join(dir, name);
  const current = await readFile(target, 'utf8').catch(() => null);
  if (current === files[name]) continue;
  if (check) {
    stale += 1;
    process.stderr.write(`openapi/${name} is out of date: run npm run openapi\n`);
  } else {
    await writeFile(target, files[name]);
    process.stdout.write(`wrote openapi/${name}\n`);
  }
}
if (stale > 0) process.exit(1);
