import { Client, Connection, WorkflowNotFoundError, type ClientPlugin } from '@temporalio/client';

/** Cancels workflows by id; one already finished or never started is not an error. */
export const workflowCanceller =
  (client: Client) =>
  async (ids: string[]): Promise<void> => {
    await Promise.all(
      ids.map(async (id) => {
        try {
          await client.workflow.getHandle(id).cancel();
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }
      }),
    );
  };

/** A client (the API's, the admin CLI's), with plugins such as tracing's (infra/tracing.ts). */
export async function connectClient(address: string, namespace: string, plugins: ClientPlugin[] = []) {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace, plugins }), close: () => connection.close() };
}

/** A workflow's status name (`RUNNING`, `TERMINATED`...), or `NOT_FOUND` when Temporal has no such run. */
export const workflowStatus =
  (client: Client) =>
  async (workflowId: string): Promise<string> => {
    try {
      return (await client.workflow.getHandle(workflowId).describe()).status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
      throw err;
    }
  };
