/**
 * What this door checks of a JSON-RPC message before the SDK sees it, so each refusal is one readable
 * sentence: the media types a client accepts, the protocol version a 2025 client names, and the
 * params of the methods whose shape we know.
 */

/** Both are answered here (JSON, or a stream a 2026 client may ask for); a client must take both. */
export function acceptsAnswers(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((r) => r.split(';')[0]!.trim().toLowerCase());
  const takes = (type: string) =>
    ranges.some((r) => r === type || r === '*/*' || r === `${type.split('/')[0]}/*`);
  return takes('application/json') && takes('text/event-stream');
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why the params of a known method cannot be served, in one sentence; undefined when they can. */
export function paramsProblem(method: unknown, params: unknown): string | undefined {
  const p = isObject(params) ? params : undefined;
  switch (method) {
    case 'tools/call':
      if (!p || typeof p.name !== 'string' || p.name === '')
        return 'tools/call needs params.name: the name of the tool to call.';
      if (p.arguments !== undefined && !isObject(p.arguments))
        return 'tools/call needs params.arguments to be an object of the tool’s arguments.';
      return undefined;
    case 'tools/list':
      if (p?.cursor !== undefined && typeof p.cursor !== 'string')
        return 'tools/list takes params.cursor as a string, from a previous answer.';
      return undefined;
    case 'tasks/get':
    case 'tasks/cancel':
    case 'tasks/update':
      if (!p || typeof p.taskId !== 'string' || p.taskId === '')
        return `${method} needs params.taskId: the taskId a tools/call answered with.`;
      return undefined;
    default:
      return undefined;
  }
}
