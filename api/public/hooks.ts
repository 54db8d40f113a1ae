import type { RouterMiddleware } from '@koa/router';
import { simpleParser } from 'mailparser';
import type { DataSource } from 'typeorm';
import type { DNSResolver } from 'mailauth';
import { EMAIL_HOOK, SMS_HOOK, operations as conversationsOperations } from '../../domain/conversations';
import { inboundEmailSecretValid } from '../../domain/identity';
import { operatorActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { Services } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import { UUID_PATTERN } from '../../domain/kernel/validate';
import type { AppContext, RequestState } from '../context';
import { routeKey, type PublicFamilyDoor } from './family';
import type { PublicLimits } from './limits';
import { authenticateMail, envelopeOf } from './mail-authentication';
import { deliveredTo, deliveryReport, feedbackReport } from './mail-reports';
import { rawBody } from './raw-body';
import { twilioSignatureValid } from './twilio-signature';

export type PublicDoorOptions = {
  /** The service's public URL: Twilio signs the URL it requested. */
  publicUrl: string;
  sms?: { authToken: string };
  /** DNS for inbound mail's DKIM, SPF and DMARC checks; the system's resolver when absent. */
  mailResolver?: DNSResolver;
};

const MAX_FORM_BYTES = 64 * 1024;
const MAX_EMAIL_BYTES = 10 * 1024 * 1024;
const MAX_BODY_CHARS = 10_000;

const unauthorized = (reason: string) => new DomainError('unauthorized', 'unauthorized', {}, reason);

/** The secret from `Authorization: Bearer <secret>` or as the password of HTTP Basic. */
function presentedSecret(header: string): string | undefined {
  const [scheme, value] = header.split(/\s+/, 2);
  if (!value) return undefined;
  if (/^bearer$/i.test(scheme!)) return value;
  if (!/^basic$/i.test(scheme!)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) || undefined;
}

/**
 * The webhooks channel providers call: Twilio's for SMS and WhatsApp (signed), the inbound-email
 * relay's (the workspace's secret). A proven hook counts against its workspace's budget; a failed
 * proof against its address's.
 */
export function hooksFamily(
  services: Services & { db: DataSource },
  limits: PublicLimits,
  opts: PublicDoorOptions,
): PublicFamilyDoor {
  const actor = (ctx: AppContext) =>
    operatorActor({ door: 'public', requestId: ctx.state.requestId, clientIp: ctx.state.clientIp });

  const sms: RouterMiddleware<RequestState> = async (ctx) => {
    const params = new URLSearchParams((await rawBody(ctx, MAX_FORM_BYTES)).toString('utf8'));
    const url = opts.publicUrl.replace(/\/$/, '') + ctx.originalUrl;
    const workspaceId = ctx.params.workspaceId!;
    if (!opts.sms) throw unauthorized('no SMS provider is configured');
    if (!UUID_PATTERN.test(workspaceId)) throw unauthorized('not a workspace id');
    if (!twilioSignatureValid(opts.sms.authToken, url, params, ctx.get('X-Twilio-Signature')))
      throw unauthorized('X-Twilio-Signature does not match');
    await limits.hook(ctx, workspaceId);
    const from = params.get('From') ?? '';
    await runOperation(
      services,
      conversationsOperations.receiveMessage,
      actor(ctx),
      {
        channel: from.startsWith('whatsapp:') ? 'whatsapp' : 'sms',
        from: from.replace(/^whatsapp:/, ''),
        body: params.get('Body') ?? '',
        providerMessageId: params.get('MessageSid') ?? '',
      },
      { workspaceId },
    );
    ctx.state.auditWorkspaceId = workspaceId;
    ctx.type = 'text/xml';
    ctx.body = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
  };

  const email: RouterMiddleware<RequestState> = async (ctx) => {
    const workspaceId = ctx.params.workspaceId!;
    const secret = presentedSecret(ctx.get('Authorization'));
    if (!UUID_PATTERN.test(workspaceId) || !secret) throw unauthorized('no inbound-email secret presented');
    if (!(await inboundEmailSecretValid(services.db, workspaceId, secret)))
      throw unauthorized('inbound-email secret does not match');
    ctx.state.auditWorkspaceId = workspaceId;
    await limits.hook(ctx, workspaceId);
    const raw = await rawBody(ctx, MAX_EMAIL_BYTES);
    const [mail, verdict] = await Promise.all([
      simpleParser(raw),
      authenticateMail(raw, {
        resolver: opts.mailResolver,
        envelope: envelopeOf((h) => ctx.get(h), ctx.query),
      }),
    ]);
    // The address the lead is found by must be the one the checks proved (two parsers, one From).
    const from = mail.from?.value.length === 1 ? mail.from.value[0]?.address : undefined;
    const authenticity =
      verdict.authenticity === 'verified' && from?.toLowerCase() === verdict.from ? 'verified' : 'unverified';
    // What a report's proof rests on (the conversations area judges it): where it was delivered, and
    // who signed it.
    const reported = {
      deliveredTo: deliveredTo(ctx.get('X-Envelope-To'), mail),
      signedBy: verdict.signedBy.slice(0, 20),
      ...(verdict.from && { fromDomain: verdict.from.split('@').pop()!.slice(0, 253) }),
      ...(mail.messageId && { reportMessageId: mail.messageId.slice(0, 1_000) }),
    };
    const bounce = deliveryReport(mail);
    if (bounce) {
      ctx.status = 202;
      ctx.body = {
        data: await runOperation(
          services,
          conversationsOperations.recordBounce,
          actor(ctx),
          { ...bounce, ...reported },
          { workspaceId },
        ),
      };
      return;
    }
    const complaint = feedbackReport(mail);
    if (complaint) {
      ctx.status = 202;
      ctx.body = {
        data: await runOperation(
          services,
          conversationsOperations.recordComplaint,
          actor(ctx),
          { ...complaint, ...reported },
          { workspaceId },
        ),
      };
      return;
    }
    if (!from)
      throw new DomainError('invalid_request', 'The email must have one From address.', { field: 'From' });
    if (!mail.messageId)
      throw new DomainError('invalid_request', 'The email has no Message-ID.', { field: 'Message-ID' });
    const message = await runOperation(
      services,
      conversationsOperations.receiveMessage,
      actor(ctx),
      {
        channel: 'email',
        from,
        body: (mail.text ?? '').trim().slice(0, MAX_BODY_CHARS) || '(no text)',
        providerMessageId: mail.messageId,
        ...(mail.subject && { subject: mail.subject.slice(0, 1_000) }),
        ...(mail.inReplyTo && { inReplyTo: mail.inReplyTo.slice(0, 1_000) }),
        authenticity,
        authentication: verdict.results.slice(0, 500),
      },
      { workspaceId },
    );
    ctx.status = 201;
    ctx.body = { data: message };
  };

  return {
    prefix: '/hooks',
    guard: [limits.refusedHooks()],
    handlers: { [routeKey(SMS_HOOK)]: sms, [routeKey(EMAIL_HOOK)]: email },
  };
}
