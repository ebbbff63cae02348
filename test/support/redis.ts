import net from 'node:net';
import { randomBytes } from 'node:crypto';

/** The Redis the tests share (REDIS_URL, else the local one), or null when none answers. */
export async function testRedisUrl(): Promise<string | null> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const { hostname, port } = new URL(url);
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
  return reachable ? url : null;
}

/** A key prefix of its own for each use, so test runs sharing one Redis never count together. */
export const uniqueRedisPrefix = (): string => `pbw-test:${process.pid}-${randomBytes(6).toString('hex')}:`;
