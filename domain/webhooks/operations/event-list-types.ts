import * as yup from 'yup';
import { EVENT_TYPES, TEST_EVENT_TYPE, type EventType } from '../../kernel/event-catalogue';
import { EVENT_SCHEMAS } from '../../kernel/event-validation';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf, integer, object, oneOf, openObject, string } from '../../kernel/shapes';
import { AREA } from '../area';

const TYPES = [...EVENT_TYPES, TEST_EVENT_TYPE] as EventType[];

const EVENT_TYPE = object(
  {
    name: oneOf(TYPES),
    description: string({ maxLength: 500 }),
    schema: openObject('The JSON Schema (2020-12) of its data.'),
  },
  { title: 'EventType' },
);

/** The catalogue as published: every type an endpoint can subscribe to, with its data's JSON Schema. */
export const listEventTypes = defineOperation({
  name: 'event.list_types',
  title: 'List event types and their schemas',
  description:
    'Every webhook event type (and endpoint.test), what it means, and the JSON Schema (2020-12) of its `data`, with the envelope every delivery shares. Any valid key may read it.',
  returns: '{ data: [{ name, description, schema }], count, envelope }.',
  requirement: { scope: 'any', minRole: 'viewer' },
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}),
  output: object(
    {
      data: arrayOf(EVENT_TYPE, { maxItems: TYPES.length }),
      count: integer({ minimum: 0, maximum: TYPES.length }),
      envelope: openObject('The JSON Schema (2020-12) of the envelope every delivery shares.'),
    },
    { title: 'EventTypeList' },
  ),
  doors: {
    rest: { method: 'get', path: '/event-types', operationId: 'listEventTypes', area: AREA },
    console: true,
  },
  summary: () => 'List event types',
  run: () => {
    const data = TYPES.map((name) => ({
      name,
      description: EVENT_SCHEMAS.types[name].description,
      schema: EVENT_SCHEMAS.types[name].schema,
    }));
    return Promise.resolve({ data, count: data.length, envelope: EVENT_SCHEMAS.envelope });
  },
});
