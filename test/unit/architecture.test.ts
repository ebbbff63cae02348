import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every import specifier of every TypeScript file under a folder. */
function importsUnder(dir: string): Array<{ file: string; spec: string }> {
  const out: Array<{ file: string; spec: string }> = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
          out.push({ file: relative(process.cwd(), p), spec: (m[1] ?? m[2])! });
        }
      }
    }
  };
  walk(dir);
  return out;
}

describe('architecture', () => {
  it('when domain code imports anything, then it is only other domain code', () => {
    const offenders = importsUnder('src/domain').filter(({ spec }) => !spec.startsWith('.'));
    expect(offenders).to.deep.equal([]);
  });

  it('when application code imports anything, then it is domain or application code only', () => {
    const offenders = importsUnder('src/application').filter(
      ({ file, spec }) => !spec.startsWith('.') || /\/adapters\/|\/bootstrap\//.test(join(file, '..', spec)),
    );
    expect(offenders).to.deep.equal([]);
  });

  it('when code outside the composition root is read, then none of it imports inversify', () => {
    const offenders = [...importsUnder('src/domain'), ...importsUnder('src/application'), ...importsUnder('src/adapters')].filter(
      ({ spec }) => spec.startsWith('inversify'),
    );
    expect(offenders).to.deep.equal([]);
  });

  it('when adapters import, then they never reach into the composition root', () => {
    const offenders = importsUnder('src/adapters').filter(({ spec }) => spec.includes('/bootstrap/'));
    expect(offenders).to.deep.equal([]);
  });
});
