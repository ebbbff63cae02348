/**
 * A function of the schema, as its current definition: applied by `applyFunctions` (index.ts)
 * after the migrations, created when missing, replaced when its body differs from the one
 * stored (`pg_proc.prosrc`), left alone otherwise. Migrations change tables and data; the
 * behaviour of a function lives in its one file here.
 */
export interface SqlFunction {
  /** The name and argument types, as `regprocedure` reads them: `pbw_ledger_write(jsonb)`. */
  readonly signature: string;
  /** The parameters as declared: `w jsonb`. */
  readonly parameters: string;
  readonly returns: string;
  readonly language: 'plpgsql' | 'sql';
  /** `STABLE` or `IMMUTABLE`; VOLATILE (PostgreSQL's default) when absent. */
  readonly volatility?: 'STABLE' | 'IMMUTABLE';
  /** The body between the dollar quotes, stored by PostgreSQL as written. */
  readonly body: string;
}

/** The function's name: its signature up to the parenthesis. */
export const functionName = (f: SqlFunction): string => f.signature.slice(0, f.signature.indexOf('('));

/** The statement that creates the function (or replaces one of the same signature and result). */
export const createStatement = (f: SqlFunction): string =>
  `CREATE OR REPLACE FUNCTION ${functionName(f)}(${f.parameters}) RETURNS ${f.returns} LANGUAGE ${f.language}` +
  `${f.volatility === undefined ? '' : ` ${f.volatility}`} AS $pbw$${f.body}$pbw$`;
