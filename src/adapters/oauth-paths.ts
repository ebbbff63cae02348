/**
 * The OAuth token endpoint, relative to `WALLET_BASE_PATH`: the HTTP declaration serves it, and
 * the composition root names it as the audience a client assertion may carry. Kept apart from
 * the HTTP adapter so that the admin command, which composes the core without it, reads it too.
 */
export const TOKEN_PATH = '/oauth/token';
