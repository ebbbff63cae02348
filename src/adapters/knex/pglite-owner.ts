import { createHash } from 'node:crypto';
import { chmod, mkdir, realpath, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Who holds an embedded database folder. */
export interface FolderHolder {
  readonly pid: number;
  readonly role: 'server' | 'admin';
}

/** The folder is held by another live process (named when it answered). */
export class FolderInUse extends Error {
  override readonly name = 'FolderInUse';
  constructor(
    readonly folder: string,
    readonly holder: FolderHolder | null,
  ) {
    const who =
      holder === null ? 'another process' : `process ${holder.pid} (${holder.role === 'server' ? 'the service' : 'an admin command'})`;
    super(`the embedded database folder ${folder} is in use by ${who}; only one process may open it`);
  }
}

/** What an admin command run by the folder's owner printed, and its exit code. */
export interface AdminReply {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Exclusive hold of an embedded database folder for as long as this process lives. */
export interface FolderOwnership {
  /** The folder's real path. */
  readonly folder: string;
  /** Takes admin commands on the folder's socket (readable by this user only), one reply each. */
  serveAdmin(run: (argv: string[]) => Promise<AdminReply>): Promise<void>;
  /** Stops taking admin commands and waits for those under way. */
  stopAdmin(): Promise<void>;
  /** Stops taking admin commands and gives the folder up. */
  release(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/**
 * The lock's name. On Linux an abstract Unix socket: binding it is atomic and the kernel drops it
 * the instant the process dies (kill -9 included), so there is never a stale lock. Elsewhere a
 * socket file in the folder, taken over when nothing answers on it.
 */
const lockName = (folder: string): string => (process.platform === 'linux' ? `\0pbw-pglite-${digest(folder)}` : join(folder, 'owner.sock'));

/** The admin socket: in the folder (as private as the data), or in the temp folder if that path is too long for a socket. */
const adminSocket = (folder: string): string => {
  const inFolder = join(folder, 'admin.sock');
  return Buffer.byteLength(inFolder) < 100 ? inFolder : join(tmpdir(), `pbw-admin-${digest(folder)}.sock`);
};

const digest = (folder: string): string => createHash('sha256').update(folder).digest('hex').slice(0, 32);

/** The real path of the folder, created if missing (so two spellings of one folder share one lock). */
export async function folderPath(dataDir: string): Promise<string> {
  const absolute = resolve(dataDir);
  await mkdir(absolute, { recursive: true, mode: 0o700 });
  return realpath(absolute);
}

function listenOn(server: net.Server, name: string): Promise<void> {
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(name, () => {
      server.off('error', fail);
      ok();
    });
  });
}

/** Connects to `name`, sends `request` (if any) and resolves with everything received until the peer ends. */
function exchange(name: string, request: string | null, timeoutMs: number, limit: number): Promise<string> {
  return new Promise((ok, fail) => {
    const socket = net.connect(name);
    const chunks: Buffer[] = [];
    let size = 0;
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer on ${name} within ${timeoutMs} ms`)));
    socket.on('connect', () => {
      if (request !== null) socket.write(request);
    });
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) socket.destroy(new Error('answer too large'));
      else chunks.push(chunk);
    });
    socket.on('error', fail);
    socket.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Asks the process holding the lock who it is (null when it does not answer). */
async function whoHolds(name: string): Promise<FolderHolder | null | 'nobody'> {
  try {
    const holder = JSON.parse(await exchange(name, null, 2_000, 1024)) as FolderHolder;
    return typeof holder.pid === 'number' ? holder : null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ECONNREFUSED' || code === 'ENOENT' ? 'nobody' : null;
  }
}

/**
 * Takes the folder for this process, or throws FolderInUse naming the live holder. The hold ends
 * with `release()` or with the process, however it ends.
 */
export async function claimFolder(dataDir: string, role: FolderHolder['role']): Promise<FolderOwnership> {
  const folder = await folderPath(dataDir);
  const name = lockName(folder);
  const lock = net.createServer((socket) => socket.end(JSON.stringify({ pid: process.pid, role })));
  for (let attempt = 0; ; attempt += 1) {
    try {
      await listenOn(lock, name);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const holder = await whoHolds(name);
      if (holder !== 'nobody' || attempt >= 2) throw new FolderInUse(folder, holder === 'nobody' ? null : holder);
      // A socket file left by a process that died (only where the lock is a file).
      if (!name.startsWith('\0')) await rm(name, { force: true });
    }
  }
  const adminPath = adminSocket(folder);
  let admin: net.Server | null = null;
  const underway = new Set<Promise<void>>();
  const stopAdmin = async (): Promise<void> => {
    const server = admin;
    admin = null;
    if (server !== null) await new Promise<void>((ok) => server.close(() => ok()));
    await Promise.allSettled([...underway]);
  };
  return {
    folder,
    serveAdmin: async (run) => {
      // Holding the lock, any socket file here was left by an earlier holder.
      await rm(adminPath, { force: true });
      const server = net.createServer((socket) => {
        let request = '';
        socket.setTimeout(10_000, () => socket.destroy());
        socket.on('error', () => undefined);
        socket.on('data', (chunk: Buffer) => {
          request += chunk.toString('utf8');
          if (Buffer.byteLength(request) > MAX_REQUEST_BYTES) socket.destroy();
          else if (request.includes('\n')) {
            socket.removeAllListeners('data');
            socket.setTimeout(0);
            const job = answer(request, run).then((reply) => {
              socket.end(`${JSON.stringify(reply)}\n`);
            });
            underway.add(job);
            void job.finally(() => underway.delete(job));
          }
        });
      });
      await listenOn(server, adminPath);
      await chmod(adminPath, 0o600);
      admin = server;
    },
    stopAdmin,
    release: async () => {
      await stopAdmin();
      await rm(adminPath, { force: true });
      await new Promise<void>((ok) => lock.close(() => ok()));
    },
  };
}

async function answer(request: string, run: (argv: string[]) => Promise<AdminReply>): Promise<AdminReply> {
  try {
    const { argv } = JSON.parse(request) as { argv?: unknown };
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) throw new Error('argv must be a list of strings');
    return await run(argv);
  } catch (err) {
    return { exitCode: 1, stdout: '', stderr: `error: ${err instanceof Error ? err.message : String(err)}\n` };
  }
}

/** Has the folder's owner (a running service) run an admin command, and returns what it printed. */
export async function askOwner(folder: string, argv: readonly string[]): Promise<AdminReply> {
  const reply = await exchange(adminSocket(folder), `${JSON.stringify({ argv })}\n`, 120_000, MAX_REPLY_BYTES);
  return JSON.parse(reply) as AdminReply;
}
