import path from 'node:path';
import { Router } from 'express';
import { documentSecurityHeaders } from './security-headers.js';
import { OPENAPI_FILES, type OpenApiFile } from './openapi/documents.js';

/** Where the interactive reference is served; its assets are below it. */
export const DOCS_PATH = '/docs';

/** The Swagger UI files served under `DOCS_PATH`, and their content types. */
export const SWAGGER_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** The script that starts Swagger UI on the published files (a file, not inline, so a strict CSP allows it). */
export const DOCS_INIT_SCRIPT = 'docs-init.js';

const TITLES: Readonly<Record<OpenApiFile, string>> = {
  'booking-api.yaml': 'Partner Booking API',
  'operator-api.yaml': 'Operator API',
  'wallet-api.yaml': 'Wallet API (all operations)',
  'wallet-backend-api.yaml': 'Wallet API — tenant backend (machine token)',
  'wallet-app-api.yaml': 'Wallet API — wallet app (user token)',
};

const initScript = (): string => `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(OPENAPI_FILES.map((f) => ({ url: `/openapi/${f}`, name: TITLES[f] })))},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
});
`;

const page = (): string => `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Partner Booking and Wallet Service — API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <nav aria-label="OpenAPI files" style="font-family: sans-serif; padding: 8px 20px">
    OpenAPI 3.1 files:
${OPENAPI_FILES.map((f) => `    <a href="/openapi/${f}">${f}</a> (${TITLES[f]})`).join(' ·\n')}
  </nav>
  <p style="font-family: sans-serif; padding: 0 20px">
    “Try it out” sends the examples, drawn from the demo data, to this server. Choose “Authorize” first: the booking API takes
    the demo API key, the wallet a token from <code>POST /oauth/token</code> or <code>POST /auth/login</code> with the demo
    tenant’s credentials (the first start prints them all). Then put in the ids the service answered (quote, order, user, …).
  </p>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js" charset="utf-8"></script>
  <script src="/docs/swagger-ui-standalone-preset.js" charset="utf-8"></script>
  <script src="/docs/${DOCS_INIT_SCRIPT}" charset="utf-8"></script>
</body>
</html>
`;

/**
 * `GET /openapi/<file>`: the published OpenAPI files, as `files()` gives them: already built
 * (`PublishedOpenApiFiles`, which builds a new day's off the request path so the examples' dates
 * stay ahead; `files()` must not build). `GET /docs`: an
 * interactive reference over them, from the Swagger UI assets of the installed package (no CDN).
 * `GET /` redirects to it (302 Found).
 */
export function docsRoutes(deps: { files: () => Readonly<Record<OpenApiFile, string>>; swaggerUiDir: string }): Router {
  const router = Router();
  const html = page();
  const script = initScript();
  router.get('/openapi/:file', (req, res, next) => {
    const file = req.params.file as OpenApiFile;
    if (!(OPENAPI_FILES as readonly string[]).includes(file)) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/yaml; charset=utf-8').send(deps.files()[file]);
  });
  // The address the server prints: a person who opens it lands on the reference.
  router.get('/', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.status(302).location(DOCS_PATH).end();
  });
  router.get(DOCS_PATH, documentSecurityHeaders, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/html; charset=utf-8').send(html);
  });
  router.get(`${DOCS_PATH}/:asset`, documentSecurityHeaders, (req, res, next) => {
    const asset = req.params.asset as string;
    if (asset === DOCS_INIT_SCRIPT) {
      res.setHeader('Cache-Control', 'no-cache');
      res.type('text/javascript; charset=utf-8').send(script);
      return;
    }
    const type = Object.hasOwn(SWAGGER_ASSETS, asset) ? SWAGGER_ASSETS[asset] : undefined;
    if (type === undefined) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type(type);
    res.sendFile(path.join(deps.swaggerUiDir, asset), (err) => {
      if (err && !res.headersSent) next(err);
    });
  });
  return router;
}
