import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messageUpkeep } from '../../domain/conversations';
import { Data } from '../../domain/kernel/data';
import { createEndpoint } from '../../domain/webhooks/operations/endpoint-create';
import { deliveryUpkeep } from '../../domain/webhooks/repository/upkeep';
import { deliveryWorkflowId } from '../../infra/temporal/workflow-ids';
import { waitFor } from '../../tooling/processes';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { emitLeadCreated } from '../helpers/deliveries';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';
import { testServices } from '../../tooling/services';

/** `count` lead.created events in the workspace, committed `perCommit` to a transaction. */
async function burst(db: TestDatabase['db'], workspaceId: string, count: number, perCommit = 50) {
  for (let done = 0; done < count; done += perCommit) {
    await db.transaction(async (m) => {
      for (let i = 0; i < Math.min(perCommit, count - done); i++) await emitLeadCreated(m, workspaceId);
    });
  }
}

describe('fair delivery across workspaces: the relay takes turns', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  it("orders unstarted deliveries round robin per workspace, each workspace's oldest first", async () => {
    const deps = {
      secretsKey: Buffer.alloc(32, 1),
      allowPrivateTargets: true,
      cancelWorkflows: async () => {},
    };
    const endpointOf = async () => {
      const { workspace } = await workspaceWithKey(t.db);
      const e = await asOperator(
        testServices(t.db, { webhooks: deps }),
        createEndpoint,
        { url: 'http://127.0.0.1:9/hooks', events: ['lead.created'] },
        { workspaceId: workspace.id },
      );
      return { workspaceId: workspace.id, endpointId: e.id };
    };
    const [a, b, c] = [await endpointOf(), await endpointOf(), await endpointOf()];
    await burst(t.db, a.workspaceId, 5);
    await burst(t.db, b.workspaceId, 2);
    await burst(t.db, c.workspaceId, 1);
    const upkeep = deliveryUpkeep(new Data(t.db.manager, undefined));
    const order = (await upkeep.unstarted(200, [], 'all')).map((d) =>
      d.workspace_id === a.workspaceId ? 'A' : d.workspace_id === b.workspaceId ? 'B' : 'C',
    );
    assert.deepEqual(order, ['A', 'B', 'C', 'A', 'B', 'A', 'A', 'A']);
    // A batch smaller than the backlog still serves every workspace in its first turn.
    assert.deepEqual(
      (await upkeep.unstarted(3, [], 'all')).map((d) => d.workspace_id),
      [a.workspaceId, b.workspaceId, c.workspaceId],
    );
  });
});

describe('fair sending across workspaces: outbound messages take turns too', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  it("orders unstarted outbound messages round robin per workspace, each workspace's oldest first", async () => {
    const workspaceWithMessages = async (count: number, from: number) => {
      const { workspace } = await workspaceWithKey(t.db);
      const [lead] = await t.db.query<{ id: string }[]>(
        `INSERT INTO leads (workspace_id, first_name, email, source) VALUES ($1, 'L', $2, 'test') RETURNING id`,
        [workspace.id, `l${from}@example.com`],
      );
      for (let i = 0; i < count; i++)
        await t.db.query(
          `INSERT INTO messages (workspace_id, lead_id, channel, direction, status, body, at, to_address)
           VALUES ($1, $2, 'email', 'outbound', 'queued', 'Hello', $3, 'x@example.com')`,
          [workspace.id, lead!.id, new Date(Date.UTC(2026, 10, 27, 12, 0, from + i))],
        );
      return workspace.id;
    };
    // A's are all older than B's: oldest first across workspaces would start all of A's first.
    const a = await workspaceWithMessages(4, 0);
    const b = await workspaceWithMessages(2, 30);
    const order = (await messageUpkeep(new Data(t.db.manager, undefined)).unstarted(200, [], 'all')).map(
      (m) => (m.workspace_id === a ? 'A' : m.workspace_id === b ? 'B' : '?'),
    );
    assert.deepEqual(order, ['A', 'B', 'A', 'B', 'A', 'A']);
  });
});

describe("fair delivery across workspaces: one workspace's burst does not hold back another's (dev server, fairness on)", () => {
  let s: WebhookStack;
  const receivers: Receiver[] = [];
  before(async () => {
    s = await startWebhookStack();
  });
  after(async () => {
    await s.stop();
    for (const r of receivers) await r.close();
  });

  it("delivers workspace B's event while workspace A's backlog of 1,500 is still mostly waiting", async () => {
    const a = await startReceiver();
    const b = await startReceiver();
    receivers.push(a, b);
    await s.endpoint(a, ['lead.created']);
    const other = await workspaceWithKey(s.db);
    const e = await s.run(
      createEndpoint,
      { url: b.url, events: ['lead.created'] },
      { workspaceId: other.workspace.id },
    );
    b.setSecret(e.secret);
    const BACKLOG = 1_500;
    await burst(s.db, s.workspace.id, BACKLOG);
    await burst(s.db, other.workspace.id, 1);
    await waitFor("B's delivery", async () => b.received.length === 1, 60_000, 20);
    const aDeliveredFirst = a.received.length;
    assert.ok(b.received[0]!.helperOk);
    assert.ok(
      aDeliveredFirst < BACKLOG / 2,
      `B's one event came after ${aDeliveredFirst} of A's ${BACKLOG}: it waited for A's backlog`,
    );
    // Its workflow carries the workspace as Temporal's fairness key, as every delivery's does.
    const [d] = await s.deliveries('endpoint_id = $1', [e.id]);
    const described = await s.client.workflow.getHandle(deliveryWorkflowId(d!.id, 0)).describe();
    assert.equal(described.priority?.fairnessKey, other.workspace.id);
    // And A's burst is delivered whole, once each.
    await waitFor("A's whole burst", async () => a.received.length >= BACKLOG, 120_000, 200);
    const ids = new Set(a.received.map((r) => r.headers['service-event-id']));
    assert.equal(ids.size, BACKLOG);
  });
});
