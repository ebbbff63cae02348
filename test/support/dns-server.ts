import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

/** What the stub name server does for one name: answer these IPv4 addresses (after a delay), or never answer. */
export type DnsBehaviour = { readonly a: readonly string[]; readonly delayMs?: number } | 'stall';

export interface DnsStub {
  /** `127.0.0.1:<port>`, for WEBHOOK_DNS_SERVERS. */
  readonly server: string;
  /** Queries received, by name (lower case). */
  readonly queries: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A tiny UDP name server on 127.0.0.1: for a name in `names` it answers its A records (and an
 * empty AAAA answer), or stays silent ('stall'); any other name is NXDOMAIN.
 */
export async function startDnsStub(names: Record<string, DnsBehaviour>): Promise<DnsStub> {
  const socket = dgram.createSocket('udp4');
  const queries = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  socket.on('message', (msg, rinfo) => {
    if (msg.length < 12) return;
    const labels: string[] = [];
    let i = 12;
    while (i < msg.length && msg[i]! !== 0) {
      labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('latin1'));
      i += 1 + msg[i]!;
    }
    const questionEnd = i + 5; // the zero byte, QTYPE, QCLASS
    if (questionEnd > msg.length) return;
    const name = labels.join('.').toLowerCase();
    const qtype = msg.readUInt16BE(i + 1);
    queries.set(name, (queries.get(name) ?? 0) + 1);
    const behaviour = names[name];
    if (behaviour === 'stall') return;
    const answers = behaviour !== undefined && qtype === 1 ? behaviour.a : [];
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // the query's id
    header.writeUInt16BE(behaviour === undefined ? 0x8183 : 0x8180, 2); // response, RD, RA; NXDOMAIN or NOERROR
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(1, 2); // A
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(4, 10);
      address.split('.').forEach((octet, k) => rr.writeUInt8(Number(octet), 12 + k));
      return rr;
    });
    const reply = Buffer.concat([header, msg.subarray(12, questionEnd), ...records]);
    const send = () => socket.send(reply, rinfo.port, rinfo.address);
    if (behaviour?.delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        send();
      }, behaviour.delayMs);
      timers.add(t);
    } else send();
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    queries,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
