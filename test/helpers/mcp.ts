import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Serves a Koa callback on a loopback port, for clients that need a URL (the MCP SDK's). */
export async function serve(callback: (req: http.IncomingMessage, res: http.ServerResponse) => unknown) {
  const server = http.createServer((req, res) => void callback(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The official MCP client over Streamable HTTP with a bearer key. `protocolVersion` makes it offer an
 * older revision (the SDK's client always offers its latest, so the initialize body is rewritten).
 */
export async function mcpClient(
  url: string,
  key: string,
  opts: { protocolVersion?: string; query?: string } = {},
) {
  const offer: typeof fetch = async (input, init) => {
    if (opts.protocolVersion && typeof init?.body === 'string') {
      const message = JSON.parse(init.body) as { method?: string; params?: { protocolVersion?: string } };
      if (message.method === 'initialize' && message.params) {
        message.params.protocolVersion = opts.protocolVersion;
        init = { ...init, body: JSON.stringify(message) };
      }
    }
    return fetch(input, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp${opts.query ?? ''}`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: offer,
  });
  const client = new Client({ name: 'lead-service-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}
