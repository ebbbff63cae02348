import type { Knex } from 'knex';
import * as m0001 from './0001-identity-catalogue.js';
import * as m0006 from './0006-reliability.js';

/** A migration: forward and back. */
export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration in order. An imported list instead of a folder glob runs the same under tsx
 * and compiled output. Append new migrations at the end; never edit a released one.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['0001-identity-catalogue', m0001],
  ['0006-reliability', m0006],
];

export const migrationSource: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: () => Promise.resolve([...MIGRATIONS]),
  getMigrationName: ([name]) => name,
  getMigration: ([, migration]) => Promise.resolve(migration),
};
