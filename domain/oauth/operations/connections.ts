import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf } from '../../kernel/shapes';
import { connectionsIn } from '../repository/connections';
import { MANAGE_CONNECTIONS } from '../requirements';
import { CONNECTION, connectionView } from '../views';

export const listAssistantConnections = defineOperation({
  name: 'assistant.connections',
  title: 'List assistant connections',
  description:
    "The workspace's assistant connections, newest first: each client, the member it acts as, its scopes, when it was last used and whether it is live.",
  returns: 'Connection records.',
  requirement: MANAGE_CONNECTIONS,
  reach: 'workspace',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({}),
  output: arrayOf(CONNECTION),
  doors: { admin: { command: 'assistant connections' }, console: true },
  summary: () => 'List the assistant connections',
  run: async (ctx) => {
    const now = ctx.services.clock?.() ?? new Date();
    return (await connectionsIn(ctx.data).list()).map((c) => connectionView(c, now));
  },
});
