import { listApprovals } from '../domain/approvals/operations/approvals';
import { addConnection } from '../domain/connections/operations/connections';
import { recordInboundMessage } from '../domain/conversations/operations/record-inbound';
import { listAudit } from '../domain/identity/operations/audit';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/identity/operations/keys';
import { addMember, removeMember, setMemberRole } from '../domain/identity/operations/members';
import { createWorkspace } from '../domain/identity/operations/workspaces';
import type { AnyOperation } from '../domain/kernel/operation';
import { suppressContact } from '../domain/leads/operations/suppress-contact';
import {
  listDeliveries,
  listNotifications,
  recoverEndpoint,
  resendDelivery,
} from '../domain/webhooks/operations/deliveries';
import {
  createEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  setEndpointEvents,
  testEndpoint,
} from '../domain/webhooks/operations/endpoints';
import { list } from './args';

export type Flags = Record<string, string>;

/**
 * One admin command: the registered operation it runs and how its flags map onto the input.
 * `--workspace` is not part of any input: the runner takes it as the workspace the operator names.
 */
type OperationCommand = {
  operation: AnyOperation;
  input: (f: Flags) => Record<string, unknown>;
  /** Reshapes the answer for the terminal (for example a list without its envelope). */
  present?: (output: unknown) => unknown;
};
/** A person's decision on a parked request: an Update to its workflow, which runs the operation. */
type DecisionCommand = { decide: 'approve' | 'reject' };
export type Command = OperationCommand | DecisionCommand;

const command = (
  operation: AnyOperation,
  input: OperationCommand['input'] = () => ({}),
  present?: OperationCommand['present'],
): Command => ({ operation, input, present });

const pick = (f: Flags, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => f[k] !== undefined).map((k) => [k, f[k]]));

/** The operator contract; every command runs a registered operation, like every other door. */
export const commands: Record<string, Record<string, Command>> = {
  workspace: {
    create: command(createWorkspace, (f) => ({ name: f.name, timezone: f.timezone, industry: f.industry })),
  },
  member: {
    add: command(addMember, (f) => ({ email: f.email, role: f.role })),
    'set-role': command(setMemberRole, (f) => ({ email: f.email, role: f.role })),
    remove: command(removeMember, (f) => ({ email: f.email })),
  },
  key: {
    create: command(createApiKey, (f) => ({
      ownerEmail: f.owner,
      name: f.name,
      scopes: list(f.scopes),
      expiresInDays: f['expires-in-days'],
      allowedCidrs: list(f['allow-ip']),
    })),
    revoke: command(revokeApiKey, (f) => ({ id: f.id })),
    list: command(listApiKeys),
  },
  message: {
    inbound: command(recordInboundMessage, (f) => ({ leadId: f.lead, channel: f.channel, body: f.body })),
  },
  suppression: {
    add: command(suppressContact, (f) => ({ address: f.address, channel: f.channel, reason: f.reason })),
  },
  endpoint: {
    create: command(createEndpoint, (f) => ({ url: f.url, events: list(f.events), ownerEmail: f.owner })),
    'rotate-secret': command(rotateEndpointSecret, (f) => ({ id: f.id })),
    enable: command(enableEndpoint, (f) => ({ id: f.id })),
    disable: command(disableEndpoint, (f) => ({ id: f.id, reason: f.reason })),
    delete: command(deleteEndpoint, (f) => ({ id: f.id })),
    'set-events': command(setEndpointEvents, (f) => ({ id: f.id, events: list(f.events) })),
    test: command(testEndpoint, (f) => ({ id: f.id })),
    list: command(listEndpoints),
    recover: command(recoverEndpoint, (f) => ({ id: f.id, since: f.since })),
  },
  delivery: {
    list: command(
      listDeliveries,
      (f) => pick(f, ['type', 'status', 'limit']),
      (out) => (out as { data: unknown }).data,
    ),
    resend: command(resendDelivery, (f) => ({ id: f.id })),
  },
  notification: {
    list: command(listNotifications),
  },
  audit: {
    list: command(listAudit, (f) => ({ limit: f.limit })),
  },
  connection: {
    add: command(addConnection, (f) => ({ system: f.system })),
  },
  approval: {
    list: command(
      listApprovals,
      (f) => pick(f, ['status', 'limit']),
      (out) => (out as { data: unknown }).data,
    ),
    approve: { decide: 'approve' },
    reject: { decide: 'reject' },
  },
};

export const usage = () =>
  'commands: ' +
  Object.entries(commands)
    .map(([g, cmds]) => `${g} ${Object.keys(cmds).join('|')}`)
    .join(', ');
