import pino from 'pino';
import { loadConfig } from '../src/bootstrap/config.ts';
import { openService } from '../src/bootstrap/service.ts';
const config = loadConfig({ PERSISTENCE: 'memory', RATE_LIMITS: 'on', RATE_LIMIT_PUBLIC: '3/60', REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: 'pbw-test:dbg2:', LOG_LEVEL: 'debug' });
const svc = await openService(config, pino({ level: 'debug' }));
const http = await import('node:http');
const server = http.createServer(svc.app);
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as any).port;
for (let i = 0; i < 4; i++) { const r = await fetch(`http://127.0.0.1:${port}/api/v1/airport-transfer/locations?q=bkk`); console.log(r.status, r.headers.get('ratelimit-remaining')); }
server.close(); await svc.close();
