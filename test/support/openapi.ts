import { expect } from 'chai';
import type { Express } from 'express';
import type { z } from 'zod';
import { OPERATIONS } from '../../src/adapters/http/operations.js';
import type { OperationSpec, ResponseSpec } from '../../src/adapters/http/operation.js';
import { problemSchemaFor } from '../../src/adapters/http/openapi/problem.js';
import { effectiveResponses } from '../../src/adapters/http/openapi/responses.js';
import { publishedPath } from '../../src/adapters/http/openapi/documents.js';

/** The operation with this id, or a failed assertion. */
export function operation(operationId: string): OperationSpec {
  const op = OPERATIONS.find((o) => o.operationId === operationId);
  expect(op, `no OperationSpec has operationId ${operationId}`).not.to.equal(undefined);
  return op as OperationSpec;
}

/** The documented response of an operation for a status (the author's, or one the service adds), or a failed assertion. */
export function documentedResponse(operationId: string, status: number): ResponseSpec {
  const responses = effectiveResponses(operation(operationId));
  const spec = responses[status];
  expect(spec, `${operationId} does not document status ${status} (documented: ${Object.keys(responses).join(', ')})`).not.to.equal(
    undefined,
  );
  return spec as ResponseSpec;
}

/** Paths of the object members that the schema does not declare (zod strips them when parsing). */
function undeclaredMembers(input: unknown, parsed: unknown, at: string): string[] {
  if (Array.isArray(input) && Array.isArray(parsed)) {
    return input.flatMap((item, i) => undeclaredMembers(item, parsed[i], `${at}[${i}]`));
  }
  if (input !== null && typeof input === 'object' && parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const out = parsed as Record<string, unknown>;
    return Object.entries(input as Record<string, unknown>).flatMap(([k, v]) =>
      Object.hasOwn(out, k) ? undeclaredMembers(v, out[k], at ? `${at}.${k}` : k) : [at ? `${at}.${k}` : k],
    );
  }
  return [];
}

const describeIssues = (error: z.ZodError): string =>
  error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');

/**
 * Fails unless `body` is what the published interface promises for this operation and status:
 * the documented zod schema (every member declared: a field the schema does not name fails, so
 * the files cannot lag behind the code), or for an error the `Problem` schema with one of the
 * reasons documented for that status. Returns the body, for further assertions.
 */
export function expectMatchesSpec<T = unknown>(operationId: string, status: number, body: unknown): T {
  const spec = documentedResponse(operationId, status);
  const where = `${operationId} ${status}`;
  // A status with both an own body (OAuth's errors) and problem reasons: a problem has a `reason`.
  const isProblem = spec.schema === undefined || (body !== null && typeof body === 'object' && 'reason' in body);
  if (spec.reasons !== undefined && isProblem) {
    const parsed = problemSchemaFor(status, spec.reasons).safeParse(body);
    expect(
      parsed.success,
      `${where}: not a documented problem (${parsed.success ? '' : describeIssues(parsed.error)}): ${JSON.stringify(body)}`,
    ).to.equal(true);
    return body as T;
  }
  if (spec.schema !== undefined) {
    const parsed = spec.schema.safeParse(body);
    expect(
      parsed.success,
      `${where}: body does not match the documented schema (${parsed.success ? '' : describeIssues(parsed.error)}): ${JSON.stringify(body)}`,
    ).to.equal(true);
    if (parsed.success) {
      expect(undeclaredMembers(body, parsed.data, ''), `${where}: members missing from the documented schema`).to.deep.equal([]);
    }
    return body as T;
  }
  if (spec.contentType !== undefined) {
    expect(body, `${where}: a ${spec.contentType} body`).to.be.a('string');
    return body as T;
  }
  expect(body === undefined || body === null || body === '', `${where}: documented without a body, got ${JSON.stringify(body)}`).to.equal(
    true,
  );
  return body as T;
}

/**
 * Reads a fetch response and checks it against the published interface: a documented status,
 * the documented content type, and a body that `expectMatchesSpec` accepts. Returns the body.
 */
export async function expectResponseMatchesSpec<T = unknown>(operationId: string, res: Response): Promise<T> {
  const spec = documentedResponse(operationId, res.status);
  const type = res.headers.get('content-type') ?? '';
  expect(res.headers.get('x-request-id'), `${operationId} ${res.status}: X-Request-Id`).to.be.a('string');
  if (spec.reasons !== undefined && (spec.schema === undefined || type.startsWith('application/problem+json'))) {
    expect(type, `${operationId} ${res.status}: content type`).to.match(/^application\/problem\+json/);
    return expectMatchesSpec<T>(operationId, res.status, await res.json());
  }
  // A document answered instead of the JSON body (content negotiation): its bytes, not empty.
  if (spec.document !== undefined && type.startsWith(spec.document.contentType)) {
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.byteLength, `${operationId} ${res.status}: a ${spec.document.contentType} body`).to.be.greaterThan(0);
    return undefined as T;
  }
  if (spec.schema !== undefined && (spec.contentType ?? 'application/json') === 'application/json') {
    expect(type, `${operationId} ${res.status}: content type`).to.match(/^application\/json/);
    return expectMatchesSpec<T>(operationId, res.status, await res.json());
  }
  const text = await res.text();
  if (spec.contentType !== undefined && spec.contentType !== 'application/octet-stream') {
    expect(type, `${operationId} ${res.status}: content type`).to.include(spec.contentType);
  }
  return expectMatchesSpec<T>(operationId, res.status, spec.contentType === undefined ? text || undefined : text);
}

/** A route the Express app answers: method and OpenAPI-style path (`{param}`). */
export interface MountedRoute {
  readonly method: string;
  readonly path: string;
}

interface Layer {
  readonly rawPath?: unknown;
  readonly route?: { readonly path: unknown; readonly methods: Record<string, boolean> };
  readonly handle?: { readonly stack?: readonly Layer[] };
}

const toTemplate = (expressPath: string): string => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Every route mounted in the app, found by walking its router stack (mounted routers add their
 * mount path). Plain middleware (auth, body parsers, not-found) is not a route.
 */
export function mountedRoutes(app: Express): MountedRoute[] {
  const out: MountedRoute[] = [];
  const walk = (stack: readonly Layer[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const p of paths) {
          if (typeof p !== 'string') throw new Error(`route with a non-string path under ${prefix || '/'}: document it by hand`);
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all') out.push({ method, path: toTemplate(`${prefix}${p}`) });
          }
        }
      } else if (layer.handle?.stack) {
        const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, `${prefix}${mount}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: readonly Layer[] } }).router.stack, '');
  return out;
}

/** Routes the app answers that no OperationSpec describes, and specs with no route behind them. */
export function routeCoverage(
  app: Express,
  operations: readonly OperationSpec[] = OPERATIONS,
  options: { walletBasePath?: string } = {},
): { undocumented: string[]; unmounted: string[] } {
  const key = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;
  const mounted = new Set(mountedRoutes(app).map((r) => key(r.method, r.path)));
  const documented = new Set(operations.map((op) => key(op.method, publishedPath(op, options.walletBasePath ?? ''))));
  return {
    undocumented: [...mounted].filter((r) => !documented.has(r)).sort(),
    unmounted: [...documented].filter((r) => !mounted.has(r)).sort(),
  };
}
