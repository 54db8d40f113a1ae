import type { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { cliTypeName } from '../domain/kernel/search-attributes';

/** A client or worker connection: both carry the workflow and operator services. */
type Services = Pick<Connection, 'workflowService' | 'operatorService'>;

/** The engine a process was pointed at lacks what it needs; the message says what and how to add it. */
export class TemporalEngineError extends Error {}

// temporal.api.enums.v1.IndexedValueType, by number: what listSearchAttributes answers.
const INDEXED_VALUE_TYPES: Record<number, SearchAttributeType> = {
  1: 'TEXT',
  2: 'KEYWORD',
  3: 'INT',
  4: 'DOUBLE',
  5: 'BOOL',
  6: 'DATETIME',
  7: 'KEYWORD_LIST',
};

const registerCommand = (address: string, namespace: string) =>
  `TEMPORAL_ADDRESS=${address} DEFAULT_NAMESPACE=${namespace} sh deploy/temporal/create-namespace.sh`;

/**
 * Checks, before a process starts work, that `namespace` exists on the Temporal server at `address`
 * and has every search attribute `who` sets, with its type. Without them every workflow start fails
 * (forever, once a second per row); this fails once, at start, naming what is missing and the command
 * that registers it.
 */
export async function checkTemporalEngine(
  services: Services,
  {
    address,
    namespace,
    who,
    attributes,
  }: {
    address: string;
    namespace: string;
    who: string;
    attributes: readonly { name: string; type: SearchAttributeType }[];
  },
): Promise<void> {
  try {
    await services.workflowService.describeNamespace({ namespace });
  } catch (err) {
    // gRPC NOT_FOUND
    if ((err as { code?: number }).code !== 5) throw err;
    throw new TemporalEngineError(
      `Temporal at ${address} has no namespace '${namespace}' (TEMPORAL_NAMESPACE), so the ${who} cannot start.\n` +
        `Register it and its search attributes with:\n  ${registerCommand(address, namespace)}`,
    );
  }
  const { customAttributes } = await services.operatorService.listSearchAttributes({ namespace });
  const problems = attributes.flatMap((key) => {
    const registered = customAttributes?.[key.name];
    const type = registered === undefined ? undefined : INDEXED_VALUE_TYPES[registered];
    if (type === key.type) return [];
    const wanted = `${key.name} (${cliTypeName(key.type)})`;
    return [type ? `${wanted}, registered as ${cliTypeName(type)}` : wanted];
  });
  if (problems.length === 0) return;
  throw new TemporalEngineError(
    `Temporal namespace '${namespace}' at ${address} lacks search attributes the ${who} sets on workflows: ` +
      `${problems.join(', ')}. Every workflow start would fail until they exist.\n` +
      `Register them with:\n  ${registerCommand(address, namespace)}\n` +
      `or one by one: temporal operator search-attribute create --address ${address} --namespace ${namespace} --name <name> --type <type>`,
  );
}
