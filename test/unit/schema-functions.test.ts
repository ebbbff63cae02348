import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applyFunctions, FUNCTIONS, OBSOLETE } from '../../src/adapters/knex/schema/functions/index.js';
import { rows } from '../../src/adapters/knex/sql.js';
import { testDatabase } from '../support/database.js';

/** Every .ts file under `dir`, recursively. */
async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

describe('the schema’s functions: one definition each, records by name', () => {
  it('when the database is migrated, then every function is as its file defines it and no obsolete overload is left', async () => {
    const { knex } = await testDatabase();
    for (const f of FUNCTIONS) {
      const [found] = await rows<{ body: string }>(knex, 'SELECT prosrc AS body FROM pg_proc WHERE oid = to_regprocedure($1)', [
        f.signature,
      ]);
      expect(found?.body, f.signature).to.equal(f.body);
    }
    for (const signature of OBSOLETE) {
      const [found] = await rows<{ oid: string | null }>(knex, 'SELECT to_regprocedure($1)::text AS oid', [signature]);
      expect(found?.oid ?? null, signature).to.equal(null);
    }
  });

  it('when the functions are applied again, then nothing changes (each function keeps its identity)', async () => {
    const { knex } = await testDatabase();
    const oids = async () =>
      Promise.all(
        FUNCTIONS.map(
          async (f) => (await rows<{ oid: number }>(knex, 'SELECT to_regprocedure($1)::oid::int8 AS oid', [f.signature]))[0]?.oid,
        ),
      );
    const before = await oids();
    await applyFunctions(knex);
    expect(await oids()).to.deep.equal(before);
  });

  it('when SQL outside the migrations reads a JSON argument, then it reads it by name, never by position (->>0)', async () => {
    const offenders: string[] = [];
    for (const file of await sources('src')) {
      if (file.includes(`${join('adapters', 'knex', 'migrations')}`)) continue;
      const text = await readFile(file, 'utf8');
      if (/->>?\s*[0-9]/.test(text)) offenders.push(file);
    }
    expect(offenders).to.deep.equal([]);
  });
});
