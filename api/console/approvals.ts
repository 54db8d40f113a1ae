import type Router from '@koa/router';
import { operations as approvals, type ApprovalView } from '../../domain/approvals';
import { decisionChallenge, operations as identity, verifyDecisionAssertion } from '../../domain/identity';
import type { AppContext, RequestState } from '../context';
import { operations as oauth } from '../../domain/oauth';
import { inboxPage, requestPage, type AskingKey } from './approval-pages';
import type { ConsoleKit } from './door';
import { ConsoleRefusal, memberOf, nowOf, userData, visitOf } from './visit';

/** How many decided requests the inbox shows below the waiting ones. */
const LATELY = 10;

/** The decision a JSON post names: approve or reject, nothing else. */
function decisionOf(ctx: AppContext): 'approve' | 'reject' {
  const d = visitOf(ctx).json?.decision;
  if (d === 'approve' || d === 'reject') return d;
  throw new ConsoleRefusal('not_allowed', 'a decision that is neither approve nor reject');
}

/**
 * The approvals inbox and a request's page, for the members who may decide (the role `approval.show`
 * requires: an admin or owner), and the decision itself: a challenge bound to the request, its recorded
 * snapshot's digest and the decision, signed by the member's passkey in the browser, verified here and
 * then handed to `approval.decide` as the member. A refusal says "Not allowed"; the audit row says why.
 */
export function approvalRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { deps } = kit;
  const decider = memberOf(deps, approvals.showApproval.requirement.minRole);
  /** The request as `approval show` reads it, with whether this member may approve it. */
  const show = (ctx: AppContext, id: string) =>
    kit.run(ctx, approvals.showApproval, { id, as: visitOf(ctx).session!.email });

  router.get('/w/:workspaceId/approvals', decider, async (ctx) => {
    const list = (status?: string) =>
      kit.run(ctx, approvals.listApprovals, { ...(status && { status }), limit: 100 });
    const pending = (await list('PENDING')).data;
    const decided = (await list()).data.filter((a) => a.status !== 'PENDING').slice(0, LATELY);
    const keys: AskingKey[] = [
      ...((await kit.run(ctx, identity.listApiKeys, {})) as AskingKey[]),
      ...(await kit.run(ctx, oauth.listAssistantConnections, {})).map((c) => ({
        id: c.id,
        name: c.client_name,
        prefix: c.client_host,
        owner_email: c.member_email,
        assistant: true,
      })),
    ];
    kit.render(
      ctx,
      200,
      'Approvals',
      inboxPage({
        base: kit.base(ctx),
        pending,
        decided,
        keys: new Map(keys.map((k) => [k.id, k])),
      }),
      { current: 'approvals' },
    );
  });

  router.get('/w/:workspaceId/approvals/:id', decider, async (ctx) => {
    const shown = await show(ctx, ctx.params.id!);
    // Who decided, by address while they are a member (the record keeps their user id).
    const members = shown.decided_by
      ? ((await kit.run(ctx, identity.listMembers, {})) as { user_id: string; email: string }[])
      : [];
    kit.render(
      ctx,
      200,
      'Approval request',
      requestPage({
        base: kit.base(ctx),
        shown,
        deciderEmail: members.find((m) => m.user_id === shown.decided_by)?.email,
      }),
      { current: 'approvals', decide: shown.status === 'PENDING' },
    );
  });

  // The challenge is made for the snapshot the request recorded when it parked, never for a digest the
  // browser names: what the member signs is what the request will be checked against.
  router.post('/w/:workspaceId/approvals/:id/challenge', decider, async (ctx) => {
    ctx.state.auditAction = 'console.approval.challenge';
    const decision = decisionOf(ctx);
    const shown = await show(ctx, ctx.params.id!);
    if (shown.status !== 'PENDING' || !shown.effect)
      throw new ConsoleRefusal('not_allowed', `a decision challenge for a request that is ${shown.status}`);
    const session = visitOf(ctx).session!;
    ctx.body = await decisionChallenge(
      userData(deps.services),
      {
        userId: session.userId,
        sessionId: session.id,
        approvalId: shown.id,
        digest: shown.effect.digest,
        decision,
      },
      kit.rp,
      nowOf(deps.services),
    );
  });

  router.post('/w/:workspaceId/approvals/:id/decide', decider, async (ctx) => {
    ctx.state.auditAction = 'console.approval.decide';
    const v = visitOf(ctx);
    const decision = decisionOf(ctx);
    const id = ctx.params.id!;
    const { digest, reason, response } = v.json ?? {};
    if (typeof digest !== 'string') throw new ConsoleRefusal('not_allowed', 'a decision without its digest');
    const verified = await verifyDecisionAssertion(
      userData(deps.services),
      { userId: v.session!.userId, approvalId: id, digest, decision, response, rp: kit.rp },
      nowOf(deps.services),
    );
    if (!verified)
      throw new ConsoleRefusal(
        'not_allowed',
        `${decision} refused: the passkey assertion is not a fresh one of this member for this request, this digest and this decision`,
      );
    const decided = (await kit.run(ctx, approvals.decideApproval, {
      id,
      decision,
      digest,
      credentialId: verified.credentialId,
      assertion: verified.assertion,
      ...(typeof reason === 'string' && reason.trim() && { reason: reason.trim() }),
    })) as ApprovalView;
    ctx.body = { status: decided.status, redirect: `${kit.base(ctx)}/approvals/${decided.id}` };
  });
}
