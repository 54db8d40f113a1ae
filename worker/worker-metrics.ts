import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { ActivityMetrics } from '../activities/activity-metrics';
import type { EmailProvider } from '../activities/providers/email';
import type { SmsProvider } from '../activities/providers/sms';
import type { ProviderResult } from '../domain/conversations';
import { databaseMetrics, seriesIn } from '../infra/prometheus';

/** Seconds; an attempt's deadline is 15 s (ATTEMPT_TIMEOUT_MS). */
const ATTEMPT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];
const APPROVAL_STATUSES = ['APPROVED', 'REJECTED', 'EXECUTED', 'FAILED', 'EXPIRED'];
const CHANNELS = ['email', 'sms', 'whatsapp'] as const;

/** `webhook delivery` → `webhook_delivery`: the relay's outbox names as label values. */
const outboxLabel = (name: string) => name.replaceAll(' ', '_');

/**
 * The worker's series in `registry`: webhook attempts and deliveries, endpoints disabled, approvals,
 * messages handed to providers, the outbox relay, and the database pool. Counted where the work
 * happens (activities, providers, the relay), never in workflow code, which is replayed.
 */
export function workerMetrics(registry: Registry, db: DataSource) {
  databaseMetrics(registry, db);
  const series = seriesIn(registry);
  const attempts = series.histogram(
    'leads_webhook_attempt_duration_seconds',
    'Webhook attempts made and how long each took (DNS, connect, answer), by outcome: succeeded, retry, exhausted (the last one failed) or cancelled (the delivery went away meanwhile).',
    ['outcome'],
    ATTEMPT_BUCKETS,
  );
  const reruns = series.counter(
    'leads_webhook_attempt_reruns_total',
    'Attempts that found another run of their delivery holding it, by what they found: in_flight (still being sent: it waits and sends nothing) or expired (its worker died before recording: made again under its own number).',
    ['found'],
  );
  const deliveries = series.counter(
    'leads_webhook_deliveries_total',
    'Webhook deliveries that ended, by outcome: succeeded, exhausted (every attempt failed) or cancelled.',
    ['outcome'],
  );
  const disabled = series.counter(
    'leads_webhook_endpoints_disabled_total',
    'Endpoints disabled because too many deliveries to them failed in a row.',
  );
  const approvals = series.counter(
    'leads_approvals_total',
    'Approval requests moved to a status: APPROVED or REJECTED (decided), EXECUTED or FAILED (the approved run), EXPIRED.',
    ['status'],
  );
  const messages = series.counter(
    'leads_messages_total',
    'Messages handed to a provider, by channel (email, sms, whatsapp) and outcome: sent, transient (refused for now) or permanent (refused for good).',
    ['channel', 'outcome'],
  );
  const memberMail = series.counter(
    'leads_member_mail_total',
    'Mail to members (sign-in links, invitations, approvals waiting) handed to the SMTP server, by outcome: sent, transient (refused for now) or permanent (refused for good).',
    ['outcome'],
  );
  const starts = series.counter(
    'leads_relay_starts_total',
    'Workflow starts the outbox relay tried, by outbox and outcome (started, failed: tried again next pass).',
    ['outbox', 'outcome'],
  );
  let relayLag: () => Map<string, number> = () => new Map();
  series.gauge(
    'leads_relay_lag_seconds',
    'Per outbox, how long the oldest row waiting for its workflow has waited since the relay first found it (0: none waits).',
    (g) => {
      for (const [name, seconds] of relayLag()) g.set({ outbox: outboxLabel(name) }, seconds);
    },
    ['outbox'],
  );
  // Present at zero from the start, so a rate or a ratio over them is defined before the first event.
  for (const outcome of ['succeeded', 'exhausted', 'cancelled']) deliveries.inc({ outcome }, 0);
  for (const found of ['in_flight', 'expired']) reruns.inc({ found }, 0);
  for (const status of APPROVAL_STATUSES) approvals.inc({ status }, 0);
  for (const outcome of ['sent', 'transient', 'permanent']) {
    memberMail.inc({ outcome }, 0);
    for (const channel of CHANNELS) messages.inc({ channel, outcome }, 0);
  }

  const counted = async (channel: string, sent: Promise<ProviderResult>) => {
    const result = await sent;
    messages.inc({ channel, outcome: result.kind });
    return result;
  };
  const activities: ActivityMetrics = {
    attempt: (outcome, seconds) => attempts.observe({ outcome }, seconds),
    attemptRerun: (found) => reruns.inc({ found }),
    delivery: (outcome) => deliveries.inc({ outcome }),
    endpointDisabled: () => disabled.inc(),
    approval: (status) => approvals.inc({ status }),
  };
  return {
    activities,
    /** The provider, counting what it answers for each message. */
    email: (p: EmailProvider): EmailProvider => ({ ...p, send: (email) => counted('email', p.send(email)) }),
    /** The provider as mail to members uses it, counted apart from messages to leads. */
    memberEmail: (p: EmailProvider): EmailProvider => ({
      ...p,
      send: async (email) => {
        const result = await p.send(email);
        memberMail.inc({ outcome: result.kind });
        return result;
      },
    }),
    sms: (p: SmsProvider): SmsProvider => ({
      send: (sms) => counted(sms.whatsapp ? 'whatsapp' : 'sms', p.send(sms)),
    }),
    relay: {
      started: (outbox: string, ok: boolean) =>
        starts.inc({ outbox: outboxLabel(outbox), outcome: ok ? 'started' : 'failed' }),
      /** Where the lag gauge reads from, once the relay runs. */
      watch: (lag: () => Map<string, number>) => {
        relayLag = lag;
      },
    },
  };
}
