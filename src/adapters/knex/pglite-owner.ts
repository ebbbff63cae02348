import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, realpath, rm } from 'node:fs/promises';
import net from 'node:net';
import { join, resolve } from 'node:path';

/** Who holds an embedded database folder, as it says itself. */
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
    // Only this folder's user can put a lock in it (it is 0700): whoever holds it is a process of this service.
    const who =
      holder === null
        ? 'another process that did not say which it is'
        : `another process of this service (pid ${holder.pid}, ${holder.role === 'server' ? 'a running service' : 'an admin command'})`;
    super(`the embedded database folder ${folder} is held by ${who}; only one process may open it`);
  }
}

/** The folder cannot be used safely: its path is too long for its sockets, or it belongs to another user. */
export class FolderRefused extends Error {
  override readonly name = 'FolderRefused';
}

/** What answers on the folder's admin socket could not prove it is the service holding the folder. */
export class OwnerNotProven extends Error {
  override readonly name = 'OwnerNotProven';
  constructor(socket: string, why: string) {
    super(`the process answering on ${socket} could not prove it is the service holding this folder (${why}); the command was not sent`);
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
  /** Takes admin commands on the folder's socket, from clients that prove they can read the folder, one reply each. */
  serveAdmin(run: (argv: string[]) => Promise<AdminReply>): Promise<void>;
  /** Stops taking admin commands and waits for those under way. */
  stopAdmin(): Promise<void>;
  /** Stops taking admin commands and gives the folder up. */
  release(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/**
 * Every socket lives in the folder, which only the service's user can enter: a socket path is at
 * most 107 bytes (`sun_path` holds 108 with its terminating NUL), so the folder's real path may
 * take what its longest socket name leaves.
 */
const MAX_SOCKET_PATH_BYTES = 107;
const LOCK_PREFIX = 'lock-';
const LOCK_SUFFIX = '.sock';
const LOCK_NAME_BYTES = LOCK_PREFIX.length + 8 + LOCK_SUFFIX.length;
const ADMIN_SOCKET = 'admin.sock';
const ADMIN_TOKEN = 'admin.token';
/** The longest folder path the embedded mode accepts, in bytes. */
export const MAX_FOLDER_PATH_BYTES = MAX_SOCKET_PATH_BYTES - 1 - Math.max(LOCK_NAME_BYTES, ADMIN_SOCKET.length);

const myUid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

function checkLength(folder: string): void {
  const bytes = Buffer.byteLength(folder);
  if (bytes > MAX_FOLDER_PATH_BYTES) {
    throw new FolderRefused(
      `the embedded database folder path ${folder} is ${bytes} bytes long; the service keeps its sockets in the folder, ` +
        `which allows at most ${MAX_FOLDER_PATH_BYTES} bytes: set PGLITE_DIR to a shorter path`,
    );
  }
}

/**
 * The real path of the folder, created if missing (so two spellings of one folder share one lock),
 * and made private to this user (0700) whatever its mode was: nobody else may reach the data, the
 * lock or the admin socket. A folder of another user is refused.
 */
export async function folderPath(dataDir: string): Promise<string> {
  const absolute = resolve(dataDir);
  let folder: string;
  try {
    folder = await realpath(absolute);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    checkLength(absolute);
    await mkdir(absolute, { recursive: true, mode: 0o700 });
    folder = await realpath(absolute);
  }
  checkLength(folder);
  const info = await lstat(folder);
  if (!info.isDirectory()) throw new FolderRefused(`the embedded database folder ${folder} is not a directory`);
  const uid = myUid();
  if (uid !== null && info.uid !== uid) {
    throw new FolderRefused(
      `the embedded database folder ${folder} belongs to another user (uid ${info.uid}); the service runs as uid ${uid} and uses only a folder of its own`,
    );
  }
  if ((info.mode & 0o777) !== 0o700) await chmod(folder, 0o700);
  return folder;
}

/**
 * Refuses anything in the folder that another user owns (it could have been put there while the
 * folder was open to others) and takes group and other permissions off the rest, so that a copy
 * of the folder elsewhere stays private too. Links are not followed.
 */
async function privateTree(dir: string, uid: number | null): Promise<void> {
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    let info;
    try {
      info = await lstat(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    if (uid !== null && info.uid !== uid) {
      throw new FolderRefused(
        `${path} in the embedded database folder belongs to another user (uid ${info.uid}); move it away or restore the folder from a backup`,
      );
    }
    if (info.isSymbolicLink()) continue;
    if ((info.mode & 0o077) !== 0) await chmod(path, info.mode & 0o700);
    if (info.isDirectory()) await privateTree(path, uid);
  }
}

/** Takes group and other permissions off everything in an embedded database folder (refusing another user's entries). */
export async function keepPrivate(folder: string): Promise<void> {
  await privateTree(folder, myUid());
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

const closeServer = (server: net.Server): Promise<void> => new Promise((ok) => server.close(() => ok()));

/** The lines a peer sends, one at a time (the connection's failure or end rejects). */
function lineReader(socket: net.Socket, limit: number): () => Promise<string> {
  let buffer = '';
  let size = 0;
  const lines: string[] = [];
  let failure: Error | null = null;
  let waiting: { ok: (line: string) => void; fail: (err: Error) => void } | null = null;
  const deliver = (): void => {
    if (waiting === null) return;
    const w = waiting;
    if (lines.length > 0) {
      waiting = null;
      w.ok(lines.shift()!);
    } else if (failure !== null) {
      waiting = null;
      w.fail(failure);
    }
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    size += Buffer.byteLength(chunk);
    if (size > limit) {
      socket.destroy(new Error('message too large'));
      return;
    }
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
    }
    deliver();
  });
  socket.on('error', (err) => {
    failure ??= err;
    deliver();
  });
  socket.on('close', () => {
    failure ??= new Error('the connection closed before the answer was complete');
    deliver();
  });
  return () =>
    new Promise((ok, fail) => {
      waiting = { ok, fail };
      deliver();
    });
}

/** Connects to the socket at `path` (rejects with the connection's error code, e.g. ENOENT or ECONNREFUSED). */
function connect(path: string): Promise<net.Socket> {
  return new Promise((ok, fail) => {
    const socket = net.connect(path);
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      ok(socket);
    });
  });
}

/** Is a process listening on this lock? (A socket file left by a process that died refuses connections.) */
async function alive(path: string): Promise<boolean> {
  try {
    (await connect(path)).destroy();
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Anything else (a full backlog: EAGAIN) may be a live holder: never removed.
    return code !== 'ECONNREFUSED' && code !== 'ENOENT';
  }
}

interface LockAnswer extends FolderHolder {
  readonly holding: boolean;
}

/** What a live lock's process says of itself (null when it does not answer in time). */
async function whoIs(path: string): Promise<LockAnswer | null> {
  try {
    const socket = await connect(path);
    socket.setTimeout(2_000, () => socket.destroy(new Error('no answer')));
    const next = lineReader(socket, 1024);
    try {
      const said = JSON.parse(await next()) as Partial<LockAnswer>;
      if (typeof said.pid !== 'number' || (said.role !== 'server' && said.role !== 'admin')) return null;
      return { pid: said.pid, role: said.role, holding: said.holding === true };
    } finally {
      socket.destroy();
    }
  } catch {
    return null;
  }
}

/**
 * Takes the folder's lock. Each claimant listens on a socket of its own in the folder, then looks
 * at the others: a socket nobody listens on is left by a process that died and is removed; if
 * another is live, this claimant steps back. A claimant holds the lock when it saw no other live
 * one after listening, so of two that race, at least the later one sees the earlier: never both
 * hold. The kernel stops a dead process's listening, so a crash never leaves a lock behind.
 */
async function takeLock(folder: string, role: FolderHolder['role']): Promise<net.Server> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const own = join(folder, `${LOCK_PREFIX}${randomBytes(4).toString('hex')}${LOCK_SUFFIX}`);
    const state = { holding: false };
    const lock = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(`${JSON.stringify({ pid: process.pid, role, holding: state.holding })}\n`);
    });
    try {
      await listenOn(lock, own);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
      throw err;
    }
    const others: string[] = [];
    try {
      for (const name of await readdir(folder)) {
        const path = join(folder, name);
        if (!name.startsWith(LOCK_PREFIX) || !name.endsWith(LOCK_SUFFIX) || path === own) continue;
        if (await alive(path)) others.push(path);
        else await rm(path, { force: true });
      }
    } catch (err) {
      await closeServer(lock);
      throw err;
    }
    if (others.length === 0) {
      state.holding = true;
      return lock;
    }
    // Closing a listening socket removes its file.
    await closeServer(lock);
    const answers = await Promise.all(others.map(whoIs));
    const holder = answers.find((a) => a?.holding === true);
    if (holder !== undefined) throw new FolderInUse(folder, holder);
    if (answers.includes(null)) throw new FolderInUse(folder, null);
    // Only claimants racing this one: each steps back for a random while and tries again.
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 200));
  }
  throw new FolderInUse(folder, null);
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const NONCE = /^[0-9a-f]{64}$/;

/** The proof that one knows the folder's admin token, bound to both sides' nonces and to the direction. */
const proof = (token: Buffer, side: 'server' | 'client', theirs: string, mine: string): string =>
  createHmac('sha256', token).update(`pbw-admin ${side} ${theirs} ${mine}`).digest('hex');

function sameProof(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** The token the service holding the folder wrote at its start (readable by the folder's user only). */
async function readToken(folder: string, socketPath: string): Promise<Buffer> {
  let text: string;
  try {
    const file = await open(join(folder, ADMIN_TOKEN), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      text = (await file.readFile({ encoding: 'utf8' })).trim();
    } finally {
      await file.close();
    }
  } catch (err) {
    throw new OwnerNotProven(socketPath, `no admin token can be read in the folder: ${(err as Error).message}`);
  }
  if (!NONCE.test(text)) throw new OwnerNotProven(socketPath, 'the folder holds no valid admin token');
  return Buffer.from(text, 'hex');
}

/** Writes a new admin token, readable by this user only; an earlier one stops working. */
async function writeToken(folder: string): Promise<Buffer> {
  const token = randomBytes(32);
  const path = join(folder, ADMIN_TOKEN);
  await rm(path, { force: true });
  const file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await file.writeFile(`${token.toString('hex')}\n`);
  } finally {
    await file.close();
  }
  return token;
}

/**
 * Takes the folder for this process, or throws FolderInUse naming the live holder. The hold ends
 * with `release()` or with the process, however it ends. While held, files created by this
 * process are private to its user (umask 077); PGlite sets the mode of a new database's files
 * itself, so openDatabase tightens them once they exist.
 */
export async function claimFolder(dataDir: string, role: FolderHolder['role']): Promise<FolderOwnership> {
  const folder = await folderPath(dataDir);
  const lock = await takeLock(folder, role);
  let umask: number | null = null;
  try {
    await privateTree(folder, myUid());
    umask = process.umask(0o077);
  } catch (err) {
    await closeServer(lock);
    throw err;
  }
  const adminPath = join(folder, ADMIN_SOCKET);
  let admin: net.Server | null = null;
  const underway = new Set<Promise<void>>();
  const stopAdmin = async (): Promise<void> => {
    const server = admin;
    admin = null;
    if (server !== null) await closeServer(server);
    await Promise.allSettled([...underway]);
  };
  return {
    folder,
    serveAdmin: async (run) => {
      // Written before the socket listens: whoever reaches the socket can check the answer at once.
      const token = await writeToken(folder);
      // Holding the lock, any socket file here was left by an earlier holder.
      await rm(adminPath, { force: true });
      const server = net.createServer((socket) => {
        socket.setTimeout(10_000, () => socket.destroy());
        socket.on('error', () => undefined);
        void serveOne(
          socket,
          token,
          (job) => {
            underway.add(job);
            void job.finally(() => underway.delete(job));
          },
          run,
        ).catch(() => socket.destroy());
      });
      await listenOn(server, adminPath);
      await chmod(adminPath, 0o600);
      admin = server;
    },
    stopAdmin,
    release: async () => {
      await stopAdmin();
      await rm(adminPath, { force: true });
      await rm(join(folder, ADMIN_TOKEN), { force: true });
      await closeServer(lock);
      if (umask !== null) process.umask(umask);
    },
  };
}

/**
 * One admin command: the client sends a nonce, the service answers with its own and a proof
 * over both (so the client knows it reached the folder's owner before sending anything), then the
 * client sends its proof with the command, which runs only if that proof holds.
 */
async function serveOne(
  socket: net.Socket,
  token: Buffer,
  track: (job: Promise<void>) => void,
  run: (argv: string[]) => Promise<AdminReply>,
): Promise<void> {
  const next = lineReader(socket, MAX_REQUEST_BYTES);
  const hello = JSON.parse(await next()) as { nonce?: unknown };
  if (typeof hello.nonce !== 'string' || !NONCE.test(hello.nonce)) throw new Error('no nonce');
  const clientNonce = hello.nonce;
  const serverNonce = hex(32);
  socket.write(`${JSON.stringify({ nonce: serverNonce, proof: proof(token, 'server', clientNonce, serverNonce) })}\n`);
  const request = JSON.parse(await next()) as { proof?: unknown; argv?: unknown };
  if (!sameProof(request.proof, proof(token, 'client', serverNonce, clientNonce))) {
    const refused: AdminReply = {
      exitCode: 1,
      stdout: '',
      stderr: "error: the admin command did not prove it can read the folder's admin token; run it as the service's user\n",
    };
    socket.end(`${JSON.stringify(refused)}\n`);
    return;
  }
  socket.setTimeout(0);
  const job = answer(request.argv, run).then((reply) => {
    socket.end(`${JSON.stringify(reply)}\n`);
  });
  track(job);
  await job;
}

async function answer(argv: unknown, run: (argv: string[]) => Promise<AdminReply>): Promise<AdminReply> {
  try {
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) throw new Error('argv must be a list of strings');
    return await run(argv as string[]);
  } catch (err) {
    return { exitCode: 1, stdout: '', stderr: `error: ${err instanceof Error ? err.message : String(err)}\n` };
  }
}

/**
 * Has the folder's owner (a running service) run an admin command, and returns what it printed.
 * The command is sent only once the peer proved it knows the folder's admin token, which only
 * the folder's user can read; otherwise OwnerNotProven, and nothing the peer said is shown.
 */
export async function askOwner(folder: string, argv: readonly string[]): Promise<AdminReply> {
  const path = join(folder, ADMIN_SOCKET);
  const socket = await connect(path);
  try {
    socket.setTimeout(120_000, () => socket.destroy(new Error(`no answer on ${path} within 120 s`)));
    const next = lineReader(socket, MAX_REPLY_BYTES);
    const clientNonce = hex(32);
    socket.write(`${JSON.stringify({ nonce: clientNonce })}\n`);
    let hello: { nonce?: unknown; proof?: unknown };
    try {
      hello = JSON.parse(await next()) as typeof hello;
    } catch {
      throw new OwnerNotProven(path, 'it did not answer the handshake');
    }
    const token = await readToken(folder, path);
    if (
      typeof hello.nonce !== 'string' ||
      !NONCE.test(hello.nonce) ||
      !sameProof(hello.proof, proof(token, 'server', clientNonce, hello.nonce))
    ) {
      throw new OwnerNotProven(path, "its proof does not match the folder's admin token");
    }
    socket.write(`${JSON.stringify({ proof: proof(token, 'client', hello.nonce, clientNonce), argv })}\n`);
    const reply = JSON.parse(await next()) as Partial<AdminReply>;
    if (typeof reply.exitCode !== 'number' || typeof reply.stdout !== 'string' || typeof reply.stderr !== 'string') {
      throw new Error(`the service's answer on ${path} is not an admin reply`);
    }
    return { exitCode: reply.exitCode, stdout: reply.stdout, stderr: reply.stderr };
  } finally {
    socket.destroy();
  }
}
