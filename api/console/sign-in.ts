import type Router from '@koa/router';
import {
  endSession,
  openSession,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  queueMemberMail,
  redeemSignInLink,
  registerPasskey,
  requestSignInLink,
  signInWithPasskey,
  type LinkRefusal,
} from '../../domain/identity';
import { EMAIL_PATTERN } from '../../domain/kernel/validate';
import type { AppContext, RequestState } from '../context';
import type { ConsoleKit } from './door';
import { enrolPage, linkPage, linkSentPage, signInPage } from './sign-in-pages';
import {
  AUTHORIZE_COOKIE,
  ENROL_COOKIE,
  SESSION_COOKIE,
  SIGNIN_COOKIE,
  clearCookie,
  cookieOf,
  enrolmentState,
  randomToken,
  readEnrolmentState,
  setCookie,
} from './safety';
import { ConsoleRefusal, nowOf, userData, visitOf } from './visit';

/** A redeemed link's right to enrol a passkey lasts as long as the link did. */
const ENROL_MINUTES = 15;

/** Why a link was refused, as its audit row says it; the page says only "This link is not valid". */
const LINK_REFUSED: Record<LinkRefusal, string> = {
  unknown: 'sign-in link unknown',
  another_browser: 'sign-in link used in another browser than the one that asked for it',
  used: 'sign-in link used already',
  expired: 'sign-in link expired (15 minutes)',
  not_a_member: 'sign-in link of a user who is no member now',
};

/** The browser's mark, set before it asks for anything a later request must come from the same browser for. */
function ensureBinding(ctx: AppContext): string {
  const v = visitOf(ctx);
  if (!v.binding) {
    v.binding = randomToken();
    setCookie(ctx, SIGNIN_COOKIE, v.binding);
  }
  return v.binding;
}

const client = (ctx: AppContext) => ({
  ip: ctx.state.clientIp ?? null,
  userAgent: (ctx.get('User-Agent') || '').slice(0, 500) || null,
});

const audited = (ctx: AppContext, action: string, userId?: string) => {
  ctx.state.auditAction = action;
  if (userId) ctx.state.auditUserId = userId;
};

/**
 * Signing in without a password: an emailed one-time link proves the address and lets this browser
 * enrol a passkey; the passkey signs in from then on. Each step is audited (`console.sign_in.*`);
 * a failed one says only "Not allowed" or "This link is not valid".
 */
export function signInRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { services, publicUrl, session: settings } = kit.deps;
  const data = () => userData(services);

  /** Opens a session for the user, ending the one this browser had; the cookie carries its secret. */
  const signIn = async (ctx: AppContext, userId: string, passkeyId: string | null) => {
    const v = visitOf(ctx);
    if (v.session) await endSession(data(), v.session.id, 'signed_out');
    const opened = await openSession(
      data(),
      { userId, passkeyId, ...client(ctx) },
      settings,
      nowOf(services),
    );
    setCookie(ctx, SESSION_COOKIE, opened.token);
    clearCookie(ctx, ENROL_COOKIE);
    v.session = opened.session;
    ctx.state.auditUserId = userId;
  };

  /** Who may enrol a passkey now: the signed-in user, or the one whose link this browser redeemed. */
  const enrolling = (ctx: AppContext) => {
    const v = visitOf(ctx);
    if (v.session) return { userId: v.session.userId, signedIn: true };
    const userId = readEnrolmentState(
      services.secretsKey,
      cookieOf(ctx, ENROL_COOKIE),
      v.binding,
      nowOf(services).getTime(),
    );
    return userId ? { userId, signedIn: false } : undefined;
  };

  /** Where signing in leads: the consent page of an assistant's authorization waiting for it, else the console. */
  const afterSignIn = (ctx: AppContext, otherwise: string) => {
    const uid = cookieOf(ctx, AUTHORIZE_COOKIE);
    if (!uid) return otherwise;
    clearCookie(ctx, AUTHORIZE_COOKIE);
    return `/app/oauth/${uid}`;
  };

  router.get('/sign-in', (ctx) => {
    if (visitOf(ctx).session) return ctx.redirect(afterSignIn(ctx, '/app'));
    ensureBinding(ctx);
    const email = ctx.query.email;
    kit.render(
      ctx,
      200,
      'Sign in',
      signInPage({ email: typeof email === 'string' ? email : '', errors: {}, csrf: kit.frame(ctx).csrf }),
      {
        passkeys: true,
        narrow: true,
      },
    );
  });

  // The same answer whether or not the address is a member's, and whether or not it asked too often:
  // the page tells nobody who is a member. The audit row says which it was.
  router.post('/sign-in', async (ctx) => {
    audited(ctx, 'console.sign_in.request');
    const email = (visitOf(ctx).form.get('email') ?? '').trim().toLowerCase();
    if (!EMAIL_PATTERN.test(email) || email.length > 254) {
      ctx.state.auditOutcome = 'refused';
      ctx.state.auditReason = 'not an email address';
      return kit.render(
        ctx,
        422,
        'Sign in',
        signInPage({
          email,
          errors: { email: 'Enter your email address, like name@example.com.' },
          csrf: kit.frame(ctx).csrf,
        }),
        { passkeys: true, narrow: true },
      );
    }
    const binding = ensureBinding(ctx);
    const asked = await requestSignInLink(
      data(),
      { email, browserBinding: binding, ip: ctx.state.clientIp ?? null },
      nowOf(services),
    );
    if ('token' in asked) {
      ctx.state.auditUserId = asked.userId;
      const link = `${publicUrl.replace(/\/$/, '')}/app/sign-in/link/${asked.token}`;
      await queueMemberMail(
        data(),
        {
          userId: asked.userId,
          workspaceId: null,
          kind: 'sign_in_link',
          subject: 'Your sign-in link',
          text: signInMail(link),
        },
        services.secretsKey,
      );
    } else {
      ctx.state.auditOutcome = 'refused';
      ctx.state.auditReason =
        asked.refused === 'unknown'
          ? 'sign-in link asked for an address that is no member'
          : 'too many sign-in links asked for';
    }
    kit.render(ctx, 200, 'Check your email', linkSentPage(), { narrow: true });
  });

  // A mail scanner may fetch the link: the GET only asks, the POST redeems.
  router.get('/sign-in/link/:token', (ctx) => {
    ensureBinding(ctx);
    kit.render(ctx, 200, 'Continue signing in', linkPage(ctx.path, kit.frame(ctx).csrf), { narrow: true });
  });

  router.post('/sign-in/link/:token', async (ctx) => {
    audited(ctx, 'console.sign_in.link');
    const v = visitOf(ctx);
    if (!v.binding)
      throw new ConsoleRefusal('link_not_valid', 'sign-in link used from a browser without a sign-in mark');
    const redeemed = await redeemSignInLink(
      data(),
      { token: ctx.params.token!, browserBinding: v.binding },
      nowOf(services),
    );
    if ('refused' in redeemed) throw new ConsoleRefusal('link_not_valid', LINK_REFUSED[redeemed.refused]);
    ctx.state.auditUserId = redeemed.userId;
    const expires = nowOf(services).getTime() + ENROL_MINUTES * 60_000;
    setCookie(
      ctx,
      ENROL_COOKIE,
      enrolmentState(services.secretsKey, redeemed.userId, v.binding, expires),
      ENROL_MINUTES * 60,
    );
    ctx.status = 303;
    ctx.redirect('/app/enrol');
  });

  router.get('/enrol', (ctx) => {
    const who = enrolling(ctx);
    if (!who) return ctx.redirect('/app/sign-in');
    kit.render(ctx, 200, 'Create a passkey', enrolPage(who.signedIn), { passkeys: true, narrow: true });
  });

  router.post('/enrol/options', async (ctx) => {
    audited(ctx, 'console.passkey.enrol_options');
    const who = enrolling(ctx);
    if (!who)
      throw new ConsoleRefusal(
        'not_allowed',
        'passkey options asked for without a session or a redeemed link',
      );
    ctx.state.auditUserId = who.userId;
    ctx.body = await passkeyRegistrationOptions(data(), { userId: who.userId, rp: kit.rp }, nowOf(services));
  });

  router.post('/enrol', async (ctx) => {
    audited(ctx, 'console.passkey.enrol');
    const who = enrolling(ctx);
    if (!who)
      throw new ConsoleRefusal('not_allowed', 'passkey enrolment without a session or a redeemed link');
    ctx.state.auditUserId = who.userId;
    const body = visitOf(ctx).json ?? {};
    const name =
      typeof body.name === 'string' && body.name.trim() ? body.name.trim().slice(0, 100) : 'Passkey';
    const registered = await registerPasskey(
      data(),
      { userId: who.userId, response: body.response, rp: kit.rp, name },
      nowOf(services),
    );
    if (!registered) throw new ConsoleRefusal('not_allowed', 'passkey registration did not verify');
    if (!who.signedIn) await signIn(ctx, who.userId, registered.passkeyId);
    ctx.body = { redirect: who.signedIn ? '/app/me' : afterSignIn(ctx, '/app') };
  });

  router.post('/sign-in/passkey/options', async (ctx) => {
    audited(ctx, 'console.sign_in.passkey_options');
    const binding = visitOf(ctx).binding;
    if (!binding) throw new ConsoleRefusal('not_allowed', 'passkey options asked for without a sign-in mark');
    ctx.body = await passkeySignInOptions(data(), { browserBinding: binding, rp: kit.rp }, nowOf(services));
  });

  router.post('/sign-in/passkey', async (ctx) => {
    audited(ctx, 'console.sign_in.passkey');
    const binding = visitOf(ctx).binding;
    const response = visitOf(ctx).json?.response;
    const signedIn =
      binding && response
        ? await signInWithPasskey(
            data(),
            { browserBinding: binding, response: response, rp: kit.rp },
            nowOf(services),
          )
        : null;
    if (!signedIn) throw new ConsoleRefusal('not_allowed', 'passkey sign-in did not verify');
    await signIn(ctx, signedIn.userId, signedIn.passkeyId);
    ctx.body = { redirect: afterSignIn(ctx, '/app') };
  });

  router.post('/sign-out', async (ctx) => {
    audited(ctx, 'console.sign_out');
    const v = visitOf(ctx);
    if (v.session) await endSession(data(), v.session.id, 'signed_out');
    clearCookie(ctx, SESSION_COOKIE);
    ctx.status = 303;
    ctx.redirect('/app/sign-in');
  });
}

const signInMail = (link: string) => `Someone asked to sign in to the Lead console with this address.

To continue, open this link in the same browser, within 15 minutes:

${link}

The link works once. If you did not ask, ignore this email: nothing happens without the link.
`;
