import type { Middleware } from 'koa';
import { loggedPath, type RequestState } from '../context';
import { unavailable } from '../unavailable';

/**
 * Every request is answered within `ms`: past it the caller gets 503 with its request id, and the
 * work goes on in the background (PostgreSQL's own timeouts end it), to be audited when it ends.
 * It wraps the audit too, since a hung database would hold the audit write as well.
 */
export const deadline =
  (ms: number): Middleware<RequestState> =>
  async (ctx, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), ms)));
    const work = next().then(() => 'done' as const);
    try {
      if ((await Promise.race([work, expired])) === 'done') return;
    } finally {
      clearTimeout(timer);
    }
    ctx.state.deadlineExpired = true;
    const { log } = ctx.state;
    log.warn('request deadline passed; answered 503', {
      method: ctx.method,
      path: loggedPath(ctx),
      deadline_ms: ms,
    });
    unavailable(ctx, 'The service could not answer in time. The request may still complete; retry later.');
    // The late handler must not touch the answer already sent, nor fail unheard.
    work.catch((err: unknown) => log.error('request failed after its deadline', { error: String(err) }));
  };
