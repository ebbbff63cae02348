import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { MakePayment } from '../../../application/wallet/make-payment.js';
import type { MakeTransfer } from '../../../application/wallet/make-transfer.js';
import type { GetMyBalance } from '../../../application/wallet/get-my-balance.js';
import type { RefundPayment } from '../../../application/wallet/refund-payment.js';
import type { TopUp } from '../../../application/wallet/top-up.js';
import { machineOf, userOf } from '../bearer.middleware.js';
import { jsonBody } from '../body.js';
import { walletScopeOf } from '../idempotency-scopes.js';
import type { Idempotent } from '../idempotency.middleware.js';
import { parseBody, parseParams } from '../validate.js';
import {
  paymentBody,
  refundBody,
  topUpBody,
  transactionJson,
  transactionParams,
  transferBody,
  userIdParams,
} from './transactions.schemas.js';

type Auth = (rule: 'machine' | 'user' | 'either') => RequestHandler;

const created = (req: Request, res: Response, body: ReturnType<typeof transactionJson>): void => {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Location', `${req.baseUrl}/transactions/${body.id}`);
  res.status(201).json(body);
};

/** Money movements: top-ups and refunds (machine token), payments, transfers and the balance (user token). */
export function moneyRoutes(deps: {
  auth: Auth;
  idempotent: Idempotent;
  topUp: TopUp;
  refund: RefundPayment;
  pay: MakePayment;
  transfer: MakeTransfer;
  balance: GetMyBalance;
  /** Request-rate limit per wallet user on the debits a user makes. */
  limitPayments: RequestHandler;
}): Router {
  const router = Router();
  const idempotent = deps.idempotent(walletScopeOf);
  router.post('/users/:userId/top-ups', deps.auth('machine'), jsonBody, idempotent, async (req, res) => {
    const { userId } = parseParams(userIdParams, req);
    const body = parseBody(topUpBody, req);
    const txn = await deps.topUp.execute({
      principal: machineOf(res.locals),
      userId,
      amount: body.amount,
      reference: body.reference,
    });
    created(req, res, transactionJson(txn));
  });
  router.post('/transactions/:transactionId/refunds', deps.auth('machine'), jsonBody, idempotent, async (req, res) => {
    const { transactionId } = parseParams(transactionParams, req);
    const body = parseBody(refundBody, req);
    const txn = await deps.refund.execute({
      principal: machineOf(res.locals),
      transactionId,
      amount: body.amount ?? null,
    });
    created(req, res, transactionJson(txn));
  });
  router.post('/me/payments', deps.auth('user'), deps.limitPayments, jsonBody, idempotent, async (req, res) => {
    const body = parseBody(paymentBody, req);
    const txn = await deps.pay.execute({
      principal: userOf(res.locals),
      amount: body.amount,
      reference: body.reference,
      description: body.description ?? null,
    });
    created(req, res, transactionJson(txn));
  });
  router.post('/me/transfers', deps.auth('user'), deps.limitPayments, jsonBody, idempotent, async (req, res) => {
    const body = parseBody(transferBody, req);
    const txn = await deps.transfer.execute({
      principal: userOf(res.locals),
      toUserId: body.toUserId,
      amount: body.amount,
      note: body.note ?? null,
    });
    created(req, res, transactionJson(txn));
  });
  router.get('/me/balance', deps.auth('user'), async (_req, res) => {
    const balance = await deps.balance.execute(userOf(res.locals));
    res.setHeader('Cache-Control', 'no-store');
    res.json(balance);
  });
  return router;
}
