/**
 * The identity area: workspaces, their members and API keys, what a key may do, how a member signs in
 * to the console, and the audit log's reading. This file is its public face: nothing outside
 * domain/identity/ imports anything but this file.
 *
 * It offers its operations and tables; how a request's key is authenticated and counted (for the API's
 * middleware); how a member signs in (sessions, one-time links, passkeys) and decides with a passkey (for
 * the console); the member mail outbox and its sending (for the worker); and a workspace's settings
 * other areas act on (deliverability limits, the seller on quotes, the inbound-email secret).
 */

import { listAudit } from './operations/audit-list';
import { createApiKey } from './operations/key-create';
import { listApiKeys } from './operations/key-list';
import { revokeApiKey } from './operations/key-revoke';
import { addMember } from './operations/member-add';
import { inviteMember } from './operations/member-invite';
import { listMembers } from './operations/member-list';
import { removeMember } from './operations/member-remove';
import { memberSessions } from './operations/member-sessions';
import { setMemberRole } from './operations/member-set-role';
import { createWorkspace } from './operations/workspace-create';
import { getWorkspace } from './operations/workspace-get';
import { issueInboundEmailSecret } from './operations/workspace-issue-inbound-email-secret';
import { setApprovalPolicy } from './operations/workspace-set-approval-policy';
import { setDeliverability } from './operations/workspace-set-deliverability';
import { setSellerProfile } from './operations/workspace-set-seller-profile';
import {
  ApiKeyEntity,
  ConsoleSessionEntity,
  MemberMailEntity,
  MembershipEntity,
  PasskeyEntity,
  RateLimitWindowEntity,
  SignInLinkEntity,
  SignInRequestEntity,
  UserEntity,
  WebauthnChallengeEntity,
  WorkspaceEntity,
} from './entities';

/** The operations this area registers. */
export const operations = {
  createWorkspace,
  getWorkspace,
  issueInboundEmailSecret,
  setDeliverability,
  setSellerProfile,
  setApprovalPolicy,
  addMember,
  inviteMember,
  setMemberRole,
  removeMember,
  listMembers,
  memberSessions,
  createApiKey,
  revokeApiKey,
  listApiKeys,
  listAudit,
} as const;

/** Its tables. */
export const entities = [
  WorkspaceEntity,
  UserEntity,
  MembershipEntity,
  ApiKeyEntity,
  RateLimitWindowEntity,
  PasskeyEntity,
  ConsoleSessionEntity,
  SignInLinkEntity,
  SignInRequestEntity,
  WebauthnChallengeEntity,
  MemberMailEntity,
];

/** Console sessions: opened once a member proves who they are, live while used, ended at once. */
export { endSession, openSession, presentedSession, sessionsOf } from './sessions';
export type { LiveSession, SessionOver, SessionSettings, SessionView } from './sessions';
/** One-time sign-in links, bound to the browser that asked, rate-limited per address and client. */
export { redeemSignInLink, requestSignInLink } from './sign-in-links';
export type { LinkRefusal } from './sign-in-links';
/** Passkeys: enrolling one, signing in with one, and a decision's assertion bound to an approval and digest. */
export {
  decisionChallenge,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  passkeysOf,
  registerPasskey,
  signInWithPasskey,
  verifyDecisionAssertion,
} from './passkeys';
export type { PasskeyView, RelyingParty } from './passkeys';
/** Queues a mail to a member (sealed: it may hold a sign-in link), sent by its own workflow. */
export { queueMemberMail } from './member-mail';
/** Its outbox: mail to members waiting for their sending workflows (the relay reads it). */
export { outboxes } from './outboxes';
/** A member mail whose workflow the relay must start (its id and kind: never its address or text). */
export type { MemberMailToStart } from './repository/member-mail';
/** Takes a member mail for one hand-over, and records what the provider said (the mail's activities). */
export { claimMemberMail, settleMemberMail } from './member-mail';
/** What the member mail workflow and its activities pass each other. */
export type { HandOver, MailOutcome, MailResult } from './workflow-contract';

/** An assistant connection's credential: issued beside the keys, revoked as a key is (its parked requests withdrawn). */
export { issueAssistantCredential, revokeCredential } from './credentials';
/** The input field of what a credential may do (its scopes), as key.create and assistant.connect take it. */
export { scopesField } from './schemas';
/** The principal a presented API key, or an assistant connection's access token, acts as, or why it is refused. */
export { authenticateCredential, authenticateKey } from './authenticate';
export type { AuthResult, PresentedCredential } from './authenticate';
/** Whether a bearer has an API key's shape (anything else on the assistant endpoint is an OAuth access token). */
export { looksLikeApiKey } from './keys';
/** The token of an `Authorization: Bearer <token>` header. */
export { bearerToken } from './authenticate';
/** How a presented key is found (alone, or batched with others), and a request's place in its rate window. */
export type { KeyLookup, RateCount } from './authenticate';
/** Looks up presented keys in one round trip, counting each request in its key's window. */
export { presentedKeys } from './repository/presented-keys';
/** Drops a key's rate-limit windows older than the current minute. */
export { dropOldWindows } from './repository/presented-keys';
/** A client address as PostgreSQL's inet reads it (IPv4-mapped IPv6 as IPv4). */
export { normaliseIp } from './ip-allowlist';
/** An IPv6 address as one number, for range checks. */
export { ipv6ToBigInt } from './ip-allowlist';
/** A workspace by id, when the call may reach it. */
export { workspaceNamed } from './repository/workspaces';
/** When a workspace's running campaigns pause themselves for deliverability. */
export { deliverabilityOf } from './deliverability';
export type { DeliverabilityLimits } from './deliverability';
/** The seller a workspace's quote pages show. */
export { sellerNamed } from './seller-profile';
export type { SellerProfile } from './seller-profile';
/** Whether a secret presented to the inbound-email route is the workspace's. */
export { inboundEmailSecretValid } from './inbound-email';
/** The user id of a member of the call's workspace, by email (refused when no member). */
export { ownerIdByEmail } from './repository/members';
/**
 * Who a member is and what role they hold, who holds at least a role (an approval's deciders), and a
 * key's standing: what an approval is checked against.
 */
export { keyStanding, memberByEmail, membersAtLeast, roleOf, workspacesOf } from './standing';
/** A key's standing now: what work parked on its authority is checked against. */
export type { KeyStanding } from './repository/api-keys';
