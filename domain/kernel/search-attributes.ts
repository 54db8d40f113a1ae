/** The value kinds a search attribute may have, as Temporal names them (`SearchAttributeType`). */
export type SearchAttributeKind =
  'TEXT' | 'KEYWORD' | 'INT' | 'DOUBLE' | 'BOOL' | 'DATETIME' | 'KEYWORD_LIST';

/**
 * A search attribute's name and kind: the shape of Temporal's `SearchAttributeKey` (what
 * `defineSearchAttributeKey` returns), kept as plain data so the domain needs no Temporal import;
 * infra/temporal/ and the workflows pass these as typed keys.
 */
const key = <N extends string, K extends SearchAttributeKind>(name: N, type: K) => ({ name, type }) as const;

/**
 * Custom search attributes (pure data: workflows import them too), so an operator can filter workflows in the Temporal Web UI
 * (`WebhookEventType = "lead.created"`, `ApprovalStatus = "PENDING"`). Declared here once: the dev
 * server's flags are made from this list, deploy/temporal/create-namespace.sh is tested against it, and
 * the worker and the API check at start that the namespace has every one with its type.
 */
const WEBHOOK_EVENT_TYPE = key('WebhookEventType', 'KEYWORD');
const WEBHOOK_ENDPOINT_ID = key('WebhookEndpointId', 'KEYWORD');
export const WORKSPACE_ID = key('WorkspaceId', 'KEYWORD');
export const APPROVAL_OPERATION = key('ApprovalOperation', 'KEYWORD');
export const APPROVAL_STATUS = key('ApprovalStatus', 'KEYWORD');

export const SEARCH_ATTRIBUTES = [
  WEBHOOK_EVENT_TYPE,
  WEBHOOK_ENDPOINT_ID,
  WORKSPACE_ID,
  APPROVAL_OPERATION,
  APPROVAL_STATUS,
] as const;

/**
 * What a delivery workflow may carry, as an operator chooses (WEBHOOK_SEARCH_ATTRIBUTES): each is
 * stored on every visibility write of every delivery, and nothing of ours queries them.
 */
export const DELIVERY_SEARCH_ATTRIBUTES = [WEBHOOK_EVENT_TYPE, WEBHOOK_ENDPOINT_ID, WORKSPACE_ID] as const;
export type DeliverySearchAttribute = (typeof DELIVERY_SEARCH_ATTRIBUTES)[number];

/**
 * The attributes the worker sets, given the delivery's: every one but those only deliveries carry and
 * the operator left off (`WorkspaceId` stays: the worker's other workflows carry it).
 */
export const workerSearchAttributes = (delivery: readonly DeliverySearchAttribute[]) =>
  SEARCH_ATTRIBUTES.filter(
    (k) =>
      k === WORKSPACE_ID || !DELIVERY_SEARCH_ATTRIBUTES.some((d) => d === k) || delivery.some((d) => d === k),
  );

/** The attributes the API itself sets (on the approval and booking workflows it starts). */
export const API_SEARCH_ATTRIBUTES = [WORKSPACE_ID, APPROVAL_OPERATION, APPROVAL_STATUS] as const;

/** The type as the Temporal CLI spells it (`Keyword`, `Int`, `Datetime`...). */
export const cliTypeName = (type: string) =>
  ({
    KEYWORD: 'Keyword',
    TEXT: 'Text',
    INT: 'Int',
    DOUBLE: 'Double',
    BOOL: 'Bool',
    DATETIME: 'Datetime',
    KEYWORD_LIST: 'KeywordList',
  })[type] ?? type;

/** `Name=Type` for each attribute: `temporal server start-dev --search-attribute` and create-namespace.sh. */
export const SEARCH_ATTRIBUTE_PAIRS = SEARCH_ATTRIBUTES.map((k) => `${k.name}=${cliTypeName(k.type)}`);
