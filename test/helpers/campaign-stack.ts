import { approvalGate } from '../../infra/temporal/approvals';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { testApp } from './api';
import { serve } from './mcp';
import { startWebhookStack } from './webhook-stack';

/**
 * What an assistant's campaign meets: the real worker and approvals on Temporal, an SMTP server that
 * keeps what it is sent, and the API served for the MCP clients.
 */
export async function startCampaignStack() {
  const smtp = await startSmtpSink();
  const s = await startWebhookStack({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'news@acme.example' } });
  const api = await serve(
    testApp(s.db, {
      ports: {
        approvals: approvalGate(s.db, () => Promise.resolve(s.client), s.config.temporalTaskQueue, s.config),
      },
      config: { publicUrl: s.config.publicUrl },
    }),
  );
  return {
    s,
    smtp,
    api,
    stop: async () => {
      await api.close();
      await s.stop();
      await smtp.stop();
    },
  };
}
export type CampaignStack = Awaited<ReturnType<typeof startCampaignStack>>;
