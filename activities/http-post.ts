import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

export type PostResult =
  { status: number; errorClass?: undefined } | { status?: undefined; errorClass: ErrorClass };
export type ErrorClass = 'timeout' | 'connection' | 'tls' | 'blocked_target' | 'dns';

export type PostRequest = {
  url: URL;
  /** The address the target policy checked; the connection goes there and nowhere else. */
  address: { address: string; family: number };
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
};

export type HttpPost = (req: PostRequest) => Promise<PostResult>;

/**
 * One POST, answered within the time limit or failed: the whole answer (headers and body) must
 * arrive in 10 s. Redirects are not followed (Node's http never does). The body is read and dropped.
 */
export const httpPost: HttpPost = ({ url, address, headers, body, timeoutMs = ATTEMPT_TIMEOUT_MS }) =>
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
      clearTimeout(timer);
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
        res.on('end', () => finish({ status: res.statusCode ?? 0 }));
        res.on('close', () => finish({ status: res.statusCode ?? 0 }));
        res.on('error', () => finish({ status: res.statusCode ?? 0 }));
      },
    );
    const timer = setTimeout(() => {
      finish({ errorClass: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      const tls = /CERT|SSL|TLS/i.test(err.code ?? '') || /certificate|ssl|tls/i.test(err.message);
      finish({ errorClass: tls ? 'tls' : 'connection' });
    });
    req.end(body);
  });

export type AttemptVerdict = 'succeeded' | 'retry' | 'give_up';

/** The delivery rules: 2xx succeeds; 4xx other than 408 and 429 ends it; everything else is retried. */
export function classify(result: PostResult): AttemptVerdict {
  if (result.status === undefined) return 'retry';
  const s = result.status;
  if (s >= 200 && s < 300) return 'succeeded';
  if (s >= 400 && s < 500 && s !== 408 && s !== 429) return 'give_up';
  return 'retry';
}
