import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  refusalReason,
  ROLES,
  SCOPES,
  type Principal,
  type Role,
  type Scope,
} from '../../domain/kernel/permissions';

const principal = (role: Role | null, scopes: Scope[]): Principal => ({
  keyId: 'k',
  keyName: 'n',
  keyPrefix: 'lk_live_abcd',
  environment: 'live',
  scopes,
  workspaceId: 'w',
  userId: 'u',
  role,
});

describe('scope x role matrix: the narrower of key scopes and owner role wins', () => {
  for (const scope of SCOPES) {
    for (const minRole of ROLES) {
      for (const role of [...ROLES, null]) {
        for (const holds of [true, false]) {
          const allowed = holds && role !== null && ROLES.indexOf(role) >= ROLES.indexOf(minRole);
          it(`${scope} / min ${minRole} / role ${role ?? 'none'} / ${holds ? 'has' : 'lacks'} scope → ${allowed ? 'allow' : 'refuse'}`, () => {
            const scopes = holds ? [scope] : SCOPES.filter((s) => s !== scope);
            const reason = refusalReason(principal(role, scopes), { scope, minRole });
            assert.equal(reason === undefined, allowed, reason);
          });
        }
      }
    }
  }
});
