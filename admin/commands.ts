import type { DataSource } from 'typeorm';
import type { CallContext } from '../domain/audit';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/operations/api-keys';
import { createWorkspace } from '../domain/operations/create-workspace';
import { listAudit } from '../domain/operations/list-audit';
import { addMember, removeMember, setMemberRole } from '../domain/operations/members';
import { operatorActor } from '../domain/actor';
import { recordInboundMessage } from '../domain/operations/record-inbound-message';
import { suppressContact } from '../domain/operations/suppress-contact';
import { list } from './args';

export type Flags = Record<string, string>;
export type Command = (db: DataSource, ctx: CallContext, f: Flags) => Promise<unknown>;

/** The operator contract of decisions.md; each command calls the same domain operation as every other door. */
export const commands: Record<string, Record<string, Command>> = {
  workspace: {
    create: (db, ctx, f) =>
      createWorkspace(db, ctx, { name: f.name, timezone: f.timezone, industry: f.industry }),
  },
  member: {
    add: (db, ctx, f) => addMember(db, ctx, { workspaceId: f.workspace, email: f.email, role: f.role }),
    'set-role': (db, ctx, f) =>
      setMemberRole(db, ctx, { workspaceId: f.workspace, email: f.email, role: f.role }),
    remove: (db, ctx, f) => removeMember(db, ctx, { workspaceId: f.workspace, email: f.email }),
  },
  key: {
    create: (db, ctx, f) =>
      createApiKey(db, ctx, {
        workspaceId: f.workspace,
        ownerEmail: f.owner,
        name: f.name,
        scopes: list(f.scopes),
        expiresInDays: f['expires-in-days'],
        allowedCidrs: list(f['allow-ip']),
      }),
    revoke: (db, ctx, f) => revokeApiKey(db, ctx, { id: f.id }),
    list: (db, _ctx, f) => listApiKeys(db, { workspaceId: f.workspace }),
  },
  message: {
    inbound: (db, ctx, f) =>
      recordInboundMessage(db, operatorActor(ctx), { leadId: f.lead, channel: f.channel, body: f.body }),
  },
  suppression: {
    add: (db, ctx, f) =>
      suppressContact(db, operatorActor(ctx), {
        workspaceId: f.workspace,
        address: f.address,
        channel: f.channel,
        reason: f.reason,
      }),
  },
  audit: {
    list: (db, _ctx, f) => listAudit(db, { workspaceId: f.workspace, limit: f.limit }),
  },
};

export const usage = () =>
  'commands: ' +
  Object.entries(commands)
    .map(([g, cmds]) => `${g} ${Object.keys(cmds).join('|')}`)
    .join(', ');
