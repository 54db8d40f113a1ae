/**
 * The identity area: workspaces, their members and API keys, what a key may do, and the audit log's
 * reading. This file is its public face: nothing outside domain/identity/ imports anything but this file.
 *
 * It offers its operations and tables; how a request's key is authenticated and counted (for the API's
 * middleware); a workspace's settings other areas act on (deliverability limits, the seller on quotes,
 * the inbound-email secret); and, for now, the members and keys repositories the approvals area reads.
 */

import { listAudit } from './operations/audit-list';
import { createApiKey } from './operations/key-create';
import { listApiKeys } from './operations/key-list';
import { revokeApiKey } from './operations/key-revoke';
import { addMember } from './operations/member-add';
import { listMembers } from './operations/member-list';
import { removeMember } from './operations/member-remove';
import { setMemberRole } from './operations/member-set-role';
import { createWorkspace } from './operations/workspace-create';
import { getWorkspace } from './operations/workspace-get';
import { issueInboundEmailSecret } from './operations/workspace-issue-inbound-email-secret';
import { setApprovalPolicy } from './operations/workspace-set-approval-policy';
import { setDeliverability } from './operations/workspace-set-deliverability';
import { setSellerProfile } from './operations/workspace-set-seller-profile';
import {
  ApiKeyEntity,
  MembershipEntity,
  RateLimitWindowEntity,
  UserEntity,
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
  setMemberRole,
  removeMember,
  listMembers,
  createApiKey,
  revokeApiKey,
  listApiKeys,
  listAudit,
} as const;

/** Its tables. */
export const entities = [WorkspaceEntity, UserEntity, MembershipEntity, ApiKeyEntity, RateLimitWindowEntity];

/** The principal a presented API key acts as, or why it is refused. */
export { authenticateKey } from './authenticate';
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
/** Who a member is and what role they hold, and a key's standing: what an approval is checked against. */
export { keyStanding, memberByEmail, roleOf, workspacesOf } from './standing';
/** A key's standing now: what work parked on its authority is checked against. */
export type { KeyStanding } from './repository/api-keys';
