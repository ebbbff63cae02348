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
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'src/bootstrap/admin.ts', ...args], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
