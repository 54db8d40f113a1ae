import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Middleware } from 'koa';
import { openApiDocument } from '../../api/openapi/document';

type Operation = {
  responses: Record<
    string,
    {
      headers?: Record<string, { $ref?: string; required?: boolean }>;
      content?: Record<string, { schema: unknown }>;
    }
  >;
};

const doc = openApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { headers: Record<string, { required?: boolean; schema: unknown }> };
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...(doc as object), $id: 'openapi' });
const routes = Object.keys(doc.paths).map((p) => ({
  path: p,
  re: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** Undocumented answers found, as messages; a test fails on the first one (the response is replaced). */
export function violationOf(
  method: string,
  path: string,
  status: number,
  headers: Record<string, unknown>,
  body: unknown,
): string | undefined {
  const route = routes.find((r) => r.re.test(path));
  if (!route) return undefined; // unknown routes are not part of the contract; they answer 404 not_found
  const op = doc.paths[route.path]![method.toLowerCase()];
  if (!op) return undefined;
  const response = op.responses[String(status)] ?? op.responses.default;
  if (!response) return `${method} ${route.path} answered ${status}, which the document does not list`;
  for (const [name, h] of Object.entries(response.headers ?? {})) {
    const def = h.$ref ? doc.components.headers[h.$ref.split('/').pop()!] : h;
    if (def?.required && headers[name.toLowerCase()] === undefined)
      return `${method} ${route.path} ${status}: header ${name} missing`;
  }
  const media = response.content?.['application/json'];
  if (!media) return undefined;
  const schema = media.schema as { $ref: string };
  const validate = ajv.getSchema(`openapi${schema.$ref}`)!;
  if (!validate(body))
    return `${method} ${route.path} ${status}: body breaks the document: ${ajv.errorsText(validate.errors)}`;
  return undefined;
}

/** Test-only outermost middleware: a response that breaks the document becomes a 599 naming the breach. */
export const contractCheck = (): Middleware => async (ctx, next) => {
  await next();
  const body: unknown =
    typeof ctx.body === 'string' && ctx.type === 'application/json' ? JSON.parse(ctx.body) : ctx.body;
  const headers = Object.fromEntries(
    Object.entries(ctx.response.headers).map(([k, v]) => [k.toLowerCase(), v]),
  );
  const breach = violationOf(ctx.method, ctx.path, ctx.status, headers, body);
  if (breach) {
    ctx.status = 599;
    ctx.body = { contract_violation: breach, original: body as object };
  }
};
