import { refusalReason, type Requirement } from '../kernel/permissions';
import type { KeyStanding } from '../identity';

/**
 * Why the key that parked a request can no longer ask for it, or undefined while it can: the key live
 * (there, not revoked, not expired), then the same scope-and-live-role rule every request is held to.
 * Revocation, demotion and removal withdraw waiting requests as they happen; this catches what no event
 * announces (a key that expired) and a request approved in between. Shown by `approval show`, checked
 * again when the approved request runs.
 */
export function requesterRefusal(key: KeyStanding | undefined, need: Requirement): string | undefined {
  if (!key) return 'requester key no longer exists';
  if (key.revoked_at) return 'requester key revoked';
  if (key.expired) return 'requester key expired';
  const reason = refusalReason({ scopes: key.scopes, role: key.owner_role }, need);
  return reason && `requester ${reason}`;
}
