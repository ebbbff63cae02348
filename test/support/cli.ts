import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What one admin command printed and how it exited. */
export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the admin command line as an operator would: a separate process on the given database. */
export async function adminProcess(url: string, ...args: string[]): Promise<AdminRun> {
  return adminProcessWith({ DATABASE_URL: url }, ...args);
}

/** Runs the admin command line as a separate process with `env` (an undefined value unsets). */
export async function adminProcessWith(env: Record<string, string | undefined>, ...args: string[]): Promise<AdminRun> {
  const merged: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/bootstrap/admin.ts', ...args], { env: merged });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
