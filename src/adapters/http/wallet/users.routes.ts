import { Router, type RequestHandler } from 'express';
import type { CreateWalletUser } from '../../../application/wallet/create-wallet-user.js';
import type { GetCurrentWalletUser } from '../../../application/wallet/get-current-wallet-user.js';
import type { GetWalletUser } from '../../../application/wallet/get-wallet-user.js';
import type { ListWalletUsers } from '../../../application/wallet/list-wallet-users.js';
import type { GetUserBalances } from '../../../application/wallet/get-user-balances.js';
import { machineOf, userOf } from '../bearer.middleware.js';
import { jsonBody } from '../body.js';
import { parseBody, parseParams, parseQuery } from '../validate.js';
import { createUserSchema, listUsersQuery, userParams } from './users.schemas.js';

type Auth = (rule: 'machine' | 'user' | 'either') => RequestHandler;

/** The tenant's wallet users (machine token) and `GET /me` (user token). */
export function usersRoutes(deps: {
  auth: Auth;
  createUser: CreateWalletUser;
  listUsers: ListWalletUsers;
  getUser: GetWalletUser;
  getCurrentUser: GetCurrentWalletUser;
  /** Adds `balance` to the tenant's reads of its users, when the wallet ledger is composed. */
  balances?: GetUserBalances | undefined;
}): Router {
  const router = Router();
  router.post('/users', deps.auth('machine'), jsonBody, async (req, res) => {
    const input = parseBody(createUserSchema, req);
    const user = await deps.createUser.execute(machineOf(res.locals), {
      externalUserRef: input.externalUserRef,
      ...(input.email === undefined ? {} : { email: input.email }),
      ...(input.password === undefined ? {} : { password: input.password }),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Location', `${req.baseUrl}/users/${user.id}`);
    res.status(201).json(user);
  });
  router.get('/users', deps.auth('machine'), async (req, res) => {
    const { cursor, limit } = parseQuery(listUsersQuery, req);
    const page = await deps.listUsers.execute(machineOf(res.locals), { limit, ...(cursor === undefined ? {} : { cursor }) });
    const balances = await deps.balances?.execute(
      machineOf(res.locals),
      page.data.map((u) => u.id),
    );
    res.setHeader('Cache-Control', 'no-store');
    res.json(balances === undefined ? page : { ...page, data: page.data.map((u) => ({ ...u, balance: balances.get(u.id) })) });
  });
  router.get('/users/:userId', deps.auth('machine'), async (req, res) => {
    const { userId } = parseParams(userParams, req);
    const user = await deps.getUser.execute(machineOf(res.locals), userId);
    const balances = await deps.balances?.execute(machineOf(res.locals), [user.id]);
    res.setHeader('Cache-Control', 'no-store');
    res.json(balances === undefined ? user : { ...user, balance: balances.get(user.id) });
  });
  router.get('/me', deps.auth('user'), async (_req, res) => {
    const me = await deps.getCurrentUser.execute(userOf(res.locals), res.locals.walletUser);
    res.setHeader('Cache-Control', 'no-store');
    res.json(me);
  });
  return router;
}
