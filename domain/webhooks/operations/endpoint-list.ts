import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf } from '../../kernel/shapes';
import { ENDPOINT_CHANGE } from '../endpoint-changes';
import { endpointsIn } from '../repository/endpoints';
import { ENDPOINT, endpointView } from '../views';

export const listEndpoints = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.list',
  title: 'List webhook endpoints',
  description: "The workspace's endpoints, newest first; never their secrets.",
  returns: 'Endpoints.',
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}),
  output: arrayOf(ENDPOINT),
  doors: { admin: { command: 'endpoint list' }, console: true },
  summary: () => 'List webhook endpoints',
  run: async (ctx) => (await endpointsIn(ctx.data).list()).map(endpointView),
});
