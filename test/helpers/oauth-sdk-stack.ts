import { addConnection } from '../../domain/connections/operations/add';
import { addMember } from '../../domain/identity/operations/member-add';
import { approvalGate } from '../../infra/temporal/approvals';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { consoleBrowser } from './console-browser';
import { oauthStack } from './oauth';
import { callbackListener, documentServer, enrolWithPasskey } from './oauth-browser';
import { startWebhookStack } from './webhook-stack';

export type SdkOauthStack = Awaited<ReturnType<typeof startSdkOauthStack>>;

/**
 * What the MCP SDKs' OAuth tests run against: the API with its authorization server, and the worker and
 * Temporal behind the approval gate; an SMTP server for the console's mail; Client ID Metadata Documents
 * served over TLS from the test CA; the clients' loopback callback; `member`, an admin enrolled with a
 * passkey in a real Chromium; and a connected system a gated call can disconnect. `close` stops what
 * was started, in reverse, also after a start that failed half-way.
 */
export async function startSdkOauthStack(member: string) {
  const stops: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const smtp = await startSmtpSink();
    stops.push(() => smtp.stop());
    const s = await startWebhookStack({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'console@acme.example' } });
    stops.push(() => s.stop());
    const documents = await documentServer();
    stops.push(() => documents.close());
    const callback = await callbackListener();
    stops.push(() => callback.close());
    const stack = await oauthStack(s.db, {
      documents: { ca: documents.ca },
      ports: {
        approvals: approvalGate(s.db, () => Promise.resolve(s.client), s.config.temporalTaskQueue, s.config),
      },
    });
    stops.push(() => stack.close());
    const workspaceId = s.workspace.id;
    await s.run(addMember, { email: member, role: 'admin' }, { workspaceId });
    const [{ id: memberId }] = await s.db.query<[{ id: string }]>(`SELECT id FROM users WHERE email = $1`, [
      member,
    ]);
    const disconnectable = (await s.run(addConnection, { system: 'google_calendar' }, { workspaceId })).id;
    const b = await consoleBrowser();
    stops.push(() => b.close());
    await enrolWithPasskey(b, stack.url, member, smtp);
    return { s, stack, documents, callback, b, memberId, disconnectable, close };
  } catch (err) {
    await close();
    throw err;
  }
}
