import express from 'express';

/** The ceiling: a bare Express 5 route answering a JSON body of the same size as the account. */
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const body = {
  agentId: 'agt_01M8ANEA7WXQ409SBY1JXMEXHF',
  name: 'Demo Travel Agency',
  status: 'ACTIVE',
  channel: { code: 'DEMO-B2B', name: 'Demo B2B channel', currency: 'THB' },
  entitlements: ['airport-transfer', 'express-bus'],
  pricing: { currency: 'THB', channelMarkupBps: 1000, agentDiscountBps: 500 },
  apiKey: { id: 'key_01M8ANEA84KGPCCSCT3A76CDAJ', prefix: 'pbk_aQfd', createdAt: '2026-11-26T00:52:43.396Z', expiresAt: null },
};
app.get('/bare', (_req, res) => {
  res.json(body);
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
