import type Router from '@koa/router';
import { operations as webhooks } from '../../domain/webhooks';
import type { AppContext, RequestState } from '../context';
import { fieldErrors, type ConsoleKit } from './door';
import {
  endpointPage,
  endpointsPage,
  type DeliveryRow,
  type EndpointForm,
  type EndpointRow,
} from './endpoint-pages';
import type { FieldErrors } from './layout';
import { ConsoleRefusal, memberOf, visitOf } from './visit';

const EMPTY: EndpointForm = { url: '', events: [], scheme: 'service' };

/**
 * Webhook endpoints: created with a URL, event types and a signing scheme (the secret shown once),
 * each with its page: the delivery log with every attempt, the Test button, rotation with an overlap,
 * re-enabling a disabled one, resending a delivery that gave up.
 */
export function endpointRoutes(router: Router<RequestState>, kit: ConsoleKit) {
  const { deps } = kit;
  const admin = memberOf(deps, 'admin');
  const endpointId = (ctx: AppContext) => (ctx as AppContext & { params: { id: string } }).params.id;

  const list = async (
    ctx: AppContext,
    status: number,
    form: EndpointForm,
    errors: FieldErrors,
    created?: { id: string; secret: string },
  ) => {
    const [endpoints, types] = await Promise.all([
      kit.run(ctx, webhooks.listEndpoints, {}) as Promise<EndpointRow[]>,
      kit.run(ctx, webhooks.listEventTypes, {}) as Promise<{ data: { name: string }[] }>,
    ]);
    kit.render(
      ctx,
      status,
      'Webhooks',
      endpointsPage({
        base: kit.base(ctx),
        csrf: kit.frame(ctx).csrf,
        endpoints,
        eventTypes: types.data.map((t) => t.name).filter((t) => t !== 'endpoint.test'),
        form,
        errors,
        created,
      }),
      { current: 'endpoints' },
    );
  };

  /** An endpoint's page; `shown` is a secret this answer shows once, `notice` what just happened. */
  const detail = async (
    ctx: AppContext,
    status: number,
    opts: { secret?: string; notice?: string; error?: string } = {},
  ) => {
    const id = endpointId(ctx);
    const endpoints = (await kit.run(ctx, webhooks.listEndpoints, {})) as EndpointRow[];
    const endpoint = endpoints.find((e) => e.id === id);
    if (!endpoint) throw new ConsoleRefusal('not_found', `no endpoint ${id} in the workspace`);
    const log = (await kit.run(ctx, webhooks.listEndpointDeliveries, { id, limit: 50 })) as {
      data: DeliveryRow[];
    };
    kit.render(
      ctx,
      status,
      'Webhook endpoint',
      endpointPage({
        base: kit.base(ctx),
        csrf: kit.frame(ctx).csrf,
        endpoint,
        deliveries: log.data,
        ...opts,
      }),
      { current: 'endpoints' },
    );
  };

  /** Runs an action on the endpoint; a conflict (it is disabled) shows on its page, anything else is thrown. */
  const act = async (ctx: AppContext, run: () => Promise<unknown>, done: string) => {
    try {
      await run();
    } catch (err) {
      const errors = fieldErrors(err);
      return detail(ctx, 409, { error: Object.values(errors)[0] });
    }
    ctx.status = 303;
    ctx.redirect(`${kit.base(ctx)}/endpoints/${endpointId(ctx)}?done=${done}`);
  };

  router.get('/w/:workspaceId/endpoints', admin, (ctx) => list(ctx, 200, EMPTY, {}));

  router.post('/w/:workspaceId/endpoints', admin, async (ctx) => {
    const f = visitOf(ctx).form;
    const form: EndpointForm = {
      url: (f.get('url') ?? '').trim(),
      events: f.getAll('events'),
      scheme: f.get('scheme') ?? 'service',
    };
    try {
      const created = (await kit.run(ctx, webhooks.createEndpoint, {
        url: form.url,
        events: form.events,
        scheme: form.scheme,
        ownerEmail: visitOf(ctx).session!.email,
      })) as { id: string; secret: string };
      await list(ctx, 200, EMPTY, {}, created);
    } catch (err) {
      await list(ctx, 422, form, fieldErrors(err));
    }
  });

  router.get('/w/:workspaceId/endpoints/:id', admin, (ctx) => {
    const done = {
      test: 'Test event queued: it appears in the log below once sent.',
      enabled: 'Endpoint enabled.',
      resent: 'Delivery queued again.',
    }[String(ctx.query.done)];
    return detail(ctx, 200, done ? { notice: done } : {});
  });

  router.post('/w/:workspaceId/endpoints/:id/test', admin, (ctx) =>
    act(ctx, () => kit.run(ctx, webhooks.testEndpoint, { id: endpointId(ctx) }), 'test'),
  );

  router.post('/w/:workspaceId/endpoints/:id/enable', admin, (ctx) =>
    act(ctx, () => kit.run(ctx, webhooks.enableEndpoint, { id: endpointId(ctx) }), 'enabled'),
  );

  router.post('/w/:workspaceId/endpoints/:id/deliveries/:deliveryId/resend', admin, (ctx) =>
    act(ctx, () => kit.run(ctx, webhooks.resendDelivery, { id: ctx.params.deliveryId }), 'resent'),
  );

  // The new secret is shown on this answer alone, like a new endpoint's.
  router.post('/w/:workspaceId/endpoints/:id/rotate', admin, async (ctx) => {
    const overlap = visitOf(ctx).form.get('overlap') ?? '0';
    try {
      const rotated = (await kit.run(ctx, webhooks.rotateEndpointSecret, {
        id: endpointId(ctx),
        overlap,
      })) as { secret: string };
      await detail(ctx, 200, { secret: rotated.secret });
    } catch (err) {
      await detail(ctx, 422, { error: Object.values(fieldErrors(err))[0] });
    }
  });
}
