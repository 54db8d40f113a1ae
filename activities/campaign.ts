import { Context } from '@temporalio/activity';
import { type BatchOutcome, type EngineDeps, sendBatch } from '../domain/campaigns';
import { type ProviderResult, unsubscribeLinks } from '../domain/conversations';
import type { Services } from '../domain/kernel/operation';
import { NO_SMTP, composeEmail, type EmailProvider } from './providers/email';
import type { SmsProvider } from './providers/sms';

export type CampaignDeps = {
  services: Services;
  email?: EmailProvider;
  sms?: SmsProvider;
  publicUrl: string;
  secretsKey: Buffer;
  /** Recipients one batch takes, and messages handed over at once (the SMTP pool's width). */
  batchSize?: number;
  concurrency?: number;
};

const SMS_OPT_OUT = 'Reply STOP to opt out.';

/** The campaign engine's I/O: a batch, sent through the channel's provider. */
export const createCampaignActivities = (deps: CampaignDeps) => {
  const links = unsubscribeLinks(deps.secretsKey);
  const send: EngineDeps['send'] = async (channel, msg): Promise<ProviderResult> => {
    if (channel === 'email') {
      if (!deps.email) return NO_SMTP;
      return deps.email.send(
        composeEmail({
          ...msg,
          mailId: msg.mail_id,
          inReplyTo: null,
          marketing: true,
          unsubscribeUrl: links.url(deps.publicUrl, msg.leadId, msg.to),
        }),
      );
    }
    if (!deps.sms) return { kind: 'permanent', error: 'no SMS provider is configured (SMS_API_URL)' };
    // Carriers expect marketing texts to say how to stop them.
    const body = /\bstop\b/i.test(msg.body) ? msg.body : `${msg.body}\n${SMS_OPT_OUT}`;
    return deps.sms.send({ to: msg.to, body, whatsapp: false });
  };
  const engine: EngineDeps = { services: deps.services, send, alive: () => Context.current().heartbeat() };
  const opts = { batchSize: deps.batchSize ?? 200, concurrency: deps.concurrency ?? 10 };
  return {
    /** `nowMs`: the workflow's clock, which the campaign's delays, window and cap are measured by. */
    sendCampaignBatch: (campaignId: string, nowMs: number): Promise<BatchOutcome> =>
      sendBatch(engine, campaignId, opts, new Date(nowMs)),
  };
};
