import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ATTEMPT_TIMEOUT_MS, type PostResult } from '../domain/webhooks/delivery-rules';

const MAX_RESPONSE_BYTES = 64 * 1024;

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
