import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { ME } from '../views';
import { workspacesIn } from '../repository/workspaces';
import { AREA } from '../area';

/** What GET /me shows: the workspace, the key, and the role the key acts with right now. */
export const getWorkspace = defineOperation({
  name: 'workspace.get',
  title: 'Show the workspace and this key',
  description:
    "The workspace this key belongs to, the key's name and scopes, and the role it acts with right now; use it to see why a call is refused.",
  returns: '{ workspace, key, acting_as }.',
  requirement: { scope: 'business:read', minRole: 'viewer' },
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}).noUnknown('${unknown} is not a parameter of this call'),
  output: ME,
  doors: { rest: { method: 'get', path: '/me', operationId: 'getMe', area: AREA }, mcp: true },
  summary: () => 'Show the workspace and this key',
  run: async (ctx) => {
    const w = await workspacesIn(ctx.data).named(ctx.workspaceId!);
    if (!w) throw notFound('workspace');
    const p = ctx.actor.type === 'key' ? ctx.actor.principal : undefined;
    return {
      workspace: { id: w.id, name: w.name, timezone: w.timezone, industry: w.industry, status: w.status },
      key: p ? { name: p.keyName, environment: p.environment, scopes: p.scopes } : null,
      acting_as: { role: p ? p.role : null },
    };
  },
});
