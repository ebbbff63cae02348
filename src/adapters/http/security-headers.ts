import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { precomputedHeaders } from './request-guards.js';

/**
 * The security headers of every response, for a JSON API (OWASP REST Security Cheat Sheet):
 * nothing may be loaded or framed from a response (`default-src 'none'; frame-ancestors
 * 'none'`, `X-Frame-Options: DENY`), no sniffing, HSTS, no referrer, same-origin resources.
 * helmet's other defaults (X-DNS-Prefetch-Control, X-Download-Options, Origin-Agent-Cluster,
 * X-Permitted-Cross-Domain-Policies, X-XSS-Protection, Cross-Origin-Opener-Policy) govern
 * how a browser treats an HTML document; the HTML pages get them from `documentSecurityHeaders`.
 * Fewer bytes on every response, a stricter policy for JSON.
 */
export const apiSecurityHeaders: RequestHandler = precomputedHeaders(
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  }) as RequestHandler,
);

/**
 * helmet's full default set, for the HTML reference page and its assets (`/docs`), but for one
 * CSP directive: `upgrade-insecure-requests` makes a browser fetch the page's scripts, styles
 * and "Try it out" calls over https, so over plain http on any host but localhost (which
 * browsers exempt) the page loads blank. The service is often reached over plain http (behind a
 * TLS-terminating proxy it gets https anyway), so the page must not ask for the upgrade. HSTS
 * stays: a browser ignores it over plain http (RFC 6797 §8.1) and keeps https over https.
 */
export const documentSecurityHeaders: RequestHandler = precomputedHeaders(
  helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }) as RequestHandler,
);
