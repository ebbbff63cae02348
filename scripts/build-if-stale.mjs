// Compiles src/ into dist/ when dist/ is missing or older than the sources, so that `npm start`
// and `npm run admin` stay one command after `npm install`. Plain JavaScript: it runs before
// anything is compiled. Everything it prints goes to stderr (stdout carries the command's output).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** The newest modification time under `dir` of files whose name passes `keep` (0 when none). */
function newest(dir, keep) {
  let latest = 0;
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path, keep));
    else if (keep(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

const built = existsSync(join(root, 'dist/bootstrap/main.js')) ? newest(join(root, 'dist'), (n) => n.endsWith('.js')) : 0;
const sources = Math.max(
  newest(join(root, 'src'), (n) => n.endsWith('.ts')),
  ...['tsconfig.json', 'tsconfig.build.json'].map((f) => (existsSync(join(root, f)) ? statSync(join(root, f)).mtimeMs : 0)),
);
if (built > 0 && built >= sources) process.exit(0);

let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  if (built > 0) {
    process.stderr.write('dist/ is older than src/ but TypeScript is not installed (production install): running dist/ as built.\n');
    process.exit(0);
  }
  process.stderr.write('dist/ is missing and TypeScript is not installed: run `npm install` then `npm run build`.\n');
  process.exit(1);
}
process.stderr.write(built === 0 ? 'Compiling src/ into dist/ (first start)…\n' : 'src/ changed since the last build: compiling…\n');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: ['ignore', 2, 2] });
process.exit(result.status ?? 1);
