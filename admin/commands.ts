import type { DataSource } from 'typeorm';
import type { CallContext } from '../domain/audit';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/operations/api-keys';
import { createWorkspace } from '../domain/operations/create-workspace';
import { listAudit } from '../domain/operations/list-audit';
import { addMember, removeMember, setMemberRole } from '../domain/operations/members';
import { operatorActor } from '../domain/actor';
import { DomainError } from '../domain/errors';
import { recordInboundMessage } from '../domain/operations/record-inbound-message';
import { suppressContact } from '../domain/operations/suppress-contact';
import {
  listDeliveries,
  listNotifications,
  recoverEndpoint,
  resendDelivery,
} from '../domain/operations/deliveries';
import {
  createEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  setEndpointEvents,
  testEndpoint,
  type EndpointDeps,
} from '../domain/operations/webhook-endpoints';
import { list } from './args';

export type Flags = Record<string, string>;
/** What commands need beyond the database; the Temporal client is connected only when a command cancels workflows. */
export type CommandDeps = { endpoint: EndpointDeps };
export type Command = (db: DataSource, ctx: CallContext, f: Flags, deps: CommandDeps) => Promise<unknown>;

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
  endpoint: {
    create: (db, ctx, f, d) =>
      createEndpoint(
        db,
        operatorActor(ctx),
        { workspaceId: f.workspace, url: f.url, events: list(f.events), ownerEmail: f.owner },
        d.endpoint,
      ),
    'rotate-secret': (db, ctx, f, d) =>
      rotateEndpointSecret(db, operatorActor(ctx), { id: f.id }, d.endpoint),
    enable: (db, ctx, f) => enableEndpoint(db, operatorActor(ctx), { id: f.id }),
    disable: (db, ctx, f, d) =>
      disableEndpoint(db, operatorActor(ctx), { id: f.id, reason: f.reason }, d.endpoint),
    delete: (db, ctx, f, d) => deleteEndpoint(db, operatorActor(ctx), { id: f.id }, d.endpoint),
    'set-events': (db, ctx, f, d) =>
      setEndpointEvents(db, operatorActor(ctx), { id: f.id, events: list(f.events) }, d.endpoint),
    test: (db, ctx, f) => testEndpoint(db, operatorActor(ctx), { id: f.id }),
    list: (db, _ctx, f) => listEndpoints(db, { workspaceId: f.workspace }),
    recover: (db, ctx, f) => recoverEndpoint(db, operatorActor(ctx), { id: f.id, since: f.since }),
  },
  delivery: {
    list: async (db, ctx, f) =>
      (
        await listDeliveries(db, operatorActor(ctx), workspaceFlag(f), pick(f, ['type', 'status', 'limit']), {
          withAttempts: true,
        })
      ).data,
    resend: (db, ctx, f) => resendDelivery(db, operatorActor(ctx), { id: f.id }),
  },
  notification: {
    list: (db, _ctx, f) => listNotifications(db, { workspaceId: f.workspace }),
  },
  audit: {
    list: (db, _ctx, f) => listAudit(db, { workspaceId: f.workspace, limit: f.limit }),
  },
};

const workspaceFlag = (f: Flags): string => {
  if (!f.workspace || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(f.workspace)) {
    throw new DomainError('invalid_request', 'workspace is required and must be a UUID', {
      field: 'workspace',
    });
  }
  return f.workspace;
};

const pick = (f: Flags, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => f[k] !== undefined).map((k) => [k, f[k]]));

export const usage = () =>
  'commands: ' +
  Object.entries(commands)
    .map(([g, cmds]) => `${g} ${Object.keys(cmds).join('|')}`)
    .join(', ');
