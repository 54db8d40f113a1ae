import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes (pure data: workflows import them too), so an operator can filter workflows in the Temporal Web UI
 * (`WebhookEventType = "lead.created"`, `ApprovalStatus = "PENDING"`). Registered by the dev server
 * flags and by docker-compose.
 */
export const WEBHOOK_EVENT_TYPE = defineSearchAttributeKey('WebhookEventType', SearchAttributeType.KEYWORD);
export const WEBHOOK_ENDPOINT_ID = defineSearchAttributeKey('WebhookEndpointId', SearchAttributeType.KEYWORD);
export const WORKSPACE_ID = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
export const APPROVAL_OPERATION = defineSearchAttributeKey('ApprovalOperation', SearchAttributeType.KEYWORD);
export const APPROVAL_STATUS = defineSearchAttributeKey('ApprovalStatus', SearchAttributeType.KEYWORD);

/** `--search-attribute` flags for `temporal server start-dev`. */
export const DEV_SERVER_SEARCH_ATTRIBUTES = [
  WEBHOOK_EVENT_TYPE,
  WEBHOOK_ENDPOINT_ID,
  WORKSPACE_ID,
  APPROVAL_OPERATION,
  APPROVAL_STATUS,
].map((k) => `${k.name}=Keyword`);
