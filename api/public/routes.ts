import Router from '@koa/router';
import type { Middleware } from 'koa';
import { simpleParser } from 'mailparser';
import type { DataSource } from 'typeorm';
import type { DNSResolver } from 'mailauth';
import {
  receiveMessage,
  recordBounce,
  recordComplaint,
  UNSUBSCRIBE_PATH,
  unsubscribeByLink,
  unsubscribeLinks,
} from '../../domain/conversations';
import { inboundEmailSecretValid } from '../../domain/identity';
import { operatorActor } from '../../domain/kernel/actor';
import { DomainError } from '../../domain/kernel/errors';
import type { Services } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import { UUID_PATTERN } from '../../domain/kernel/validate';
import { loggedPath, type AppContext, type RequestState } from '../context';
import { authenticateMail, envelopeOf } from './mail-authentication';
import { deliveryReport, feedbackReport } from './mail-reports';
import { databaseUnavailable } from '../errors';
import type { PublicLimits } from './limits';
import { confirmPage, donePage, notFoundPage, nothingToDoPage, tooManyPage, unavailablePage } from './pages';
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

/**
 * An unsubscribe page's answer, as a quote page's: no caching, no referrer (the token is in the URL),
 * nothing loaded from elsewhere, never framed.
 */
function html(ctx: AppContext, status: number, body: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  ctx.body = body;
}

/**
 * Every answer under the unsubscribe links is a page, a failure too (a person clicked a link in an
 * email; JSON would mean nothing to them): the error is logged and audited as any other.
 */
const pagesOnly: Middleware<RequestState> = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    if (err instanceof DomainError && err.code !== 'server_error') {
      // The caller's mistake (a token that does not parse, a body too large): the not-valid page.
      ctx.state.auditReason = err.auditReason ?? err.message;
      html(ctx, 404, notFoundPage());
      return;
    }
    const unavailable = databaseUnavailable(err);
    ctx.state.auditReason = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    ctx.state.log.error('unsubscribe page failed', { path: loggedPath(ctx), error: ctx.state.auditReason });
    if (unavailable) ctx.set('Retry-After', '30');
    html(ctx, unavailable ? 503 : 500, unavailablePage());
  }
};

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
 * The doors without an API key: the unsubscribe links people click, and the webhooks channel
 * providers call. Each proves itself another way (an HMAC token, the provider's signature, the
 * workspace's inbound-email secret), runs a registered operation as the service itself, and is
 * audited under the door `public` like every other request.
 */
export function publicRouter(
  services: Services & { db: DataSource },
  limits: PublicLimits,
  opts: PublicDoorOptions,
) {
  const router = new Router<RequestState>();
  const actor = (ctx: AppContext) =>
    operatorActor({ door: 'public', requestId: ctx.state.requestId, clientIp: ctx.state.clientIp });
  const links = services.secretsKey ? unsubscribeLinks(services.secretsKey) : undefined;
  const door =
    (action: string): Middleware<RequestState> =>
    async (ctx, next) => {
      ctx.state.auditDoor = 'public';
      ctx.state.auditAction = action;
      await next();
    };

  router.use(
    UNSUBSCRIBE_PATH,
    pagesOnly,
    limits.perAddress('unsubscribe', (ctx) => html(ctx, 429, tooManyPage())),
  );

  // RFC 8058: GET shows the question and changes nothing (mail scanners follow links).
  router.get(`${UNSUBSCRIBE_PATH}/:token`, door('unsubscribe.page'), (ctx) => {
    if (links?.read(ctx.params.token!)) html(ctx, 200, confirmPage(ctx.path));
    else {
      ctx.state.auditReason = 'unknown or forged unsubscribe token';
      html(ctx, 404, notFoundPage());
    }
  });

  // The mail client POSTs `List-Unsubscribe=One-Click`; the page's button posts the same. Idempotent.
  router.post(`${UNSUBSCRIBE_PATH}/:token`, door(unsubscribeByLink.name), async (ctx) => {
    await rawBody(ctx, MAX_FORM_BYTES);
    try {
      const done = await runOperation(services, unsubscribeByLink, actor(ctx), { token: ctx.params.token });
      html(ctx, 200, done.unsubscribed ? donePage() : nothingToDoPage());
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'not_found') throw err;
      ctx.state.auditReason = 'unknown or forged unsubscribe token';
      html(ctx, 404, notFoundPage());
    }
  });

  // Any other path or method under the links: the not-valid page, recorded by the family only.
  router.all(`${UNSUBSCRIBE_PATH}/*rest`, (ctx) => {
    ctx.state.auditDoor = 'public';
    ctx.state.auditAction = `${ctx.method} ${UNSUBSCRIBE_PATH}/*`;
    ctx.state.auditReason = 'no such unsubscribe route';
    html(ctx, 404, notFoundPage());
  });

  router.use('/hooks', limits.refusedHooks());

  router.post('/hooks/sms/:workspaceId', door('hooks.sms'), async (ctx) => {
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
      receiveMessage,
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
  });

  router.post('/hooks/email/:workspaceId', door('hooks.email'), async (ctx) => {
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
    const bounce = deliveryReport(mail);
    if (bounce) {
      ctx.status = 202;
      ctx.body = {
        data: await runOperation(
          services,
          recordBounce,
          actor(ctx),
          { ...bounce, authenticity },
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
          recordComplaint,
          actor(ctx),
          { ...complaint, authenticity },
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
      receiveMessage,
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
  });

  return router;
}
