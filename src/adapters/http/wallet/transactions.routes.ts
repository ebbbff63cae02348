import { Router, type RequestHandler } from 'express';
import type { GetTransaction } from '../../../application/wallet/get-transaction.js';
import type { ListTransactions } from '../../../application/wallet/list-transactions.js';
import type { SummarizeTransactions } from '../../../application/wallet/summarize-transactions.js';
import type { WalletPrincipal } from '../../../domain/identity/principal.js';
import { parseParams, parseQuery } from '../validate.js';
import { listQuery, summaryQuery, transactionJson, transactionParams } from './transactions.schemas.js';

type Auth = (rule: 'machine' | 'user' | 'either') => RequestHandler;

const principalOf = (locals: Record<string, unknown>): WalletPrincipal => {
  const p = locals.wallet as WalletPrincipal | undefined;
  if (p === undefined) throw new Error('wallet route reached without bearer authentication');
  return p;
};

/**
 * Transaction reads for either token. The scope comes from the token alone (the use cases build
 * it in the domain): `userId` narrows a machine token's reads and never widens a user token's.
 */
export function transactionsRoutes(deps: {
  auth: Auth;
  list: ListTransactions;
  get: GetTransaction;
  summarize: SummarizeTransactions;
}): Router {
  const router = Router();
  router.get('/transactions', deps.auth('either'), async (req, res) => {
    const q = parseQuery(listQuery, req);
    const page = await deps.list.execute(principalOf(res.locals), {
      limit: q.limit,
      ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
      ...(q.userId === undefined ? {} : { userId: q.userId }),
      ...(q.type === undefined ? {} : { types: q.type }),
      ...(q.from === undefined ? {} : { from: q.from }),
      ...(q.to === undefined ? {} : { to: q.to }),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: page.data.map(transactionJson), nextCursor: page.nextCursor });
  });
  // Before `/transactions/:transactionId`, which would otherwise take "summary" for an id.
  router.get('/transactions/summary', deps.auth('either'), async (req, res) => {
    const q = parseQuery(summaryQuery, req);
    const summary = await deps.summarize.execute(principalOf(res.locals), {
      ...(q.userId === undefined ? {} : { userId: q.userId }),
      ...(q.type === undefined ? {} : { types: q.type }),
      ...(q.from === undefined ? {} : { from: q.from }),
      ...(q.to === undefined ? {} : { to: q.to }),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ from: summary.from?.toISOString() ?? null, to: summary.to?.toISOString() ?? null, byType: summary.byType });
  });
  router.get('/transactions/:transactionId', deps.auth('either'), async (req, res) => {
    const { transactionId } = parseParams(transactionParams, req);
    const txn = await deps.get.execute(principalOf(res.locals), transactionId);
    res.setHeader('Cache-Control', 'no-store');
    res.json(transactionJson(txn));
  });
  return router;
}
