import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { MAX_NAME_LENGTH, MAX_TIMEZONE_LENGTH, WORKSPACE, workspaceView } from '../views';
import { workspacesIn } from '../repository/workspaces';

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const createWorkspace = defineOperation({
  name: 'workspace.create',
  title: 'Create a workspace',
  description: 'Creates a workspace (a business) that leads, members, keys and endpoints belong to.',
  returns: 'The workspace, with its id.',
  requirement: { scope: 'business:write', minRole: 'owner' },
  reach: 'none',
  operatorOnly: true,
  ...WRITE,
  input: yup
    .object({
      name: describe(
        yup.string().trim().required('name is required').max(MAX_NAME_LENGTH),
        'The business name.',
      ),
      timezone: describe(
        yup
          .string()
          .trim()
          .default('UTC')
          .max(MAX_TIMEZONE_LENGTH)
          .test('iana', 'timezone must be an IANA time zone name, for example Europe/London', isTimeZone),
        'IANA time zone; it also decides how national phone numbers are read.',
      ),
      industry: describe(yup.string().trim().max(MAX_NAME_LENGTH).default(''), 'What the business does.'),
    })
    .noUnknown('${unknown} is not a workspace field'),
  output: WORKSPACE,
  doors: {
    admin: {
      command: 'workspace create',
      flags: (f) => ({ name: f.name, timezone: f.timezone, industry: f.industry }),
    },
  },
  summary: (i) => `Create the workspace ${i.name}`,
  run: async (ctx, i) => {
    const w = await workspacesIn(ctx.data).create({
      name: i.name,
      timezone: i.timezone,
      industry: i.industry,
    });
    ctx.audit(w.id, { name: w.name });
    return workspaceView(w);
  },
});
