import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { page } from '../../kernel/shapes';
import { connectionsIn } from '../repository/connections';
import { CONNECTIONS_READ } from '../requirements';
import { CONNECTION, connectionView } from '../views';

export const listConnections = defineOperation({
  name: 'connection.list',
  title: 'List connected systems',
  description: 'The systems connected to the workspace (calendars, CRMs, ad accounts), connected first.',
  returns: '{ data: [connection], count }.',
  requirement: CONNECTIONS_READ,
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}),
  output: page(CONNECTION, { title: 'ConnectionList' }),
  doors: { mcp: true },
  summary: () => 'List connected systems',
  run: async (ctx) => {
    const rows = await connectionsIn(ctx.data).list();
    return { data: rows.map(connectionView), count: rows.length };
  },
});
