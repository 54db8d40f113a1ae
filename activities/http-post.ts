import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { failSpan, inSpan, SpanKind, traceHeaders } from '../domain/kernel/tracing';
import type { PostResult } from '../domain/webhooks';

const MAX_RESPONSE_BYTES = 64 * 1024;

type PostRequest = {
  url: URL;
  /** The address the target policy checked; the connection goes there and nowhere else. */
  address: { address: string; family: number };
  headers: Record<string, string>;
  body: string;
  /** The attempt's one deadline (DNS, connect, TLS and the whole answer): it always ends the request. */
  signal: AbortSignal;
  /**
   * Temporal's cancellation of the attempt: it ends the request only until the request has been handed
   * over whole. After that the receiver may have it, so the request runs to its answer or its deadline,
   * and the answer is what gets recorded (issue 57).
   */
  cancel?: AbortSignal;
};

export type HttpPost = (req: PostRequest) => Promise<PostResult>;

/**
 * One POST as a client span of the attempt's trace, whose `traceparent` the receiver gets (not signed:
 * the signature covers the id, the time and the body). The span names the host, never the path or
 * query, which may carry an integrator's token.
 */
export const httpPost: HttpPost = (req) =>
  inSpan(
    'POST',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': 'POST',
        'server.address': req.url.hostname,
        'server.port': Number(req.url.port) || (req.url.protocol === 'https:' ? 443 : 80),
        'url.scheme': req.url.protocol.replace(':', ''),
      },
    },
    async (span) => {
      const result = await post({ ...req, headers: { ...req.headers, ...traceHeaders() } });
      if (result.status !== undefined) {
        span.setAttribute('http.response.status_code', result.status);
        if (result.status >= 400) failSpan(span, String(result.status));
      } else {
        span.setAttribute('error.type', result.errorClass);
        failSpan(span, result.errorClass);
      }
      return result;
    },
  );

/**
 * One POST, answered before the attempt's deadline or failed: connect, TLS, headers and the whole
 * body must all arrive before `signal` fires, which also destroys the request; `cancel` destroys it only
 * before it was handed over whole. Redirects are not followed (Node's http never does). The body is
 * read (up to 64 KiB, then the socket is cut) and dropped.
 */
const post: HttpPost = ({ url, address, headers, body, signal, cancel }) =>
  new Promise<PostResult>((resolve) => {
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [address]);
      else callback(null, address.address, address.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onDeadline);
      cancel?.removeEventListener('abort', onCancel);
      resolve(r);
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinned,
        agent: false,
      },
      (res) => {
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_RESPONSE_BYTES) res.destroy();
        });
        const answer = (): PostResult => {
          const retryAfter = res.headers['retry-after'];
          return retryAfter === undefined
            ? { status: res.statusCode ?? 0 }
            : { status: res.statusCode ?? 0, retryAfter };
        };
        res.on('end', () => finish(answer()));
        res.on('close', () => finish(answer()));
        res.on('error', () => finish(answer()));
      },
    );
    // 'finish': the whole request was handed to the kernel. Cut before that, the receiver cannot have it.
    let handedOver = false;
    const onDeadline = () => {
      finish(handedOver ? { errorClass: 'timeout' } : { errorClass: 'timeout', unsent: true });
      req.destroy();
    };
    const onCancel = () => {
      if (!handedOver) onDeadline();
    };
    req.once('finish', () => {
      handedOver = true;
      cancel?.removeEventListener('abort', onCancel);
    });
    if (signal.aborted || cancel?.aborted) onDeadline();
    else {
      signal.addEventListener('abort', onDeadline, { once: true });
      cancel?.addEventListener('abort', onCancel, { once: true });
    }
    req.on('error', (err: NodeJS.ErrnoException) => {
      const tls = /CERT|SSL|TLS/i.test(err.code ?? '') || /certificate|ssl|tls/i.test(err.message);
      finish({ errorClass: tls ? 'tls' : 'connection' });
    });
    req.end(body);
  });
